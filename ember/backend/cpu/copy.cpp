// Copy with casting and fill: the CPU elementwise kernels of the tensor core.
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/cast.h"
#include "ember/backend/cpu/half_convert.h"
#include "ember/backend/cpu/lanes.h"
#include "ember/backend/cpu/loops.h"
#include "ember/backend/dispatch_size.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/copy.h"

namespace ember::cpu {
namespace {

// Note [Transposing copies]
// A copy whose source is contiguous along other dims than the destination (a permuted view made contiguous, a plain
// tensor reordered into oneDNN's blocked layouts and back) reads or writes one element per cache line when either
// side is walked in order. So it runs as 2-D transposes: rows are the dims the destination walks contiguously from
// its innermost one, columns the dims the source walks contiguously (each run of dims may span several, such as a
// weight's [16 input channels][3][3] in OIhw16i16o), in tiles of kTile x kTile, the remaining dims an outer loop.
// Four-byte elements copied as they are go through 8 x 8 register transposes (lanes::transpose). Each stream of a
// tile (a row of the source, a column of the destination) is fetched kAhead elements ahead, and the source of the
// next outer index as a whole when it is small and not one contiguous stretch: weights come from memory, their 16 rows
// of a block far apart, more streams than the hardware prefetchers follow. A 512x512x3x3 weight into OIhw16i16o, one
// thread: 1.5 ms element by element, 0.46 ms here from cache and 1.2 ms from memory; oneDNN's reorder 1.0 ms.
constexpr int64_t kTile = 32;
constexpr int64_t kMaxRun = 1 << 12;          // elements of a run of several dims (their offsets are tabulated)
constexpr int64_t kPrefetchBytes = 16 << 10;  // the most of the next outer index's source fetched ahead
constexpr int64_t kAhead = 128;

// Dims of `it` that operand `op` walks contiguously, from its unit stride on: element c of the run lies at
// at(c) bytes in the other operand.
struct Run {
  std::vector<int> dims;
  int64_t n = 1, step = 0;      // one dim: at(c) = c * step
  std::vector<int64_t> offset;  // several: a table
  int64_t at(int64_t c) const { return offset.empty() ? c * step : offset[static_cast<size_t>(c)]; }
};

// The run of operand `op` (element size `elem`) over dims not in `used` (which it joins), without its offsets.
Run contiguous_dims(const StridedIter& it, int op, int64_t elem, uint32_t& used) {
  Run r;
  for (int64_t stride = elem;;) {
    int k = 0;
    while (k < it.ndim && ((used >> k & 1) || it.strides[op][k] != stride)) ++k;
    if (k == it.ndim || (!r.dims.empty() && r.n * it.shape[k] > kMaxRun)) break;
    used |= 1u << k;
    r.dims.push_back(k);
    r.n *= it.shape[k];
    stride *= it.shape[k];
  }
  return r;
}

// Fills in where the run of operand `op` lies in the other one.
void locate(Run& r, const StridedIter& it, int op) {
  const int other = 1 - op;
  if (r.dims.size() == 1) r.step = it.strides[other][r.dims[0]];
  if (r.dims.size() < 2) return;
  r.offset.resize(static_cast<size_t>(r.n));
  std::vector<int64_t> idx(r.dims.size(), 0);
  int64_t off = 0;
  for (int64_t c = 0; c < r.n; ++c) {
    r.offset[static_cast<size_t>(c)] = off;
    for (size_t j = 0; j < r.dims.size(); ++j) {  // odometer
      off += it.strides[other][r.dims[j]];
      if (++idx[j] < it.shape[r.dims[j]]) break;
      off -= it.strides[other][r.dims[j]] * it.shape[r.dims[j]];
      idx[j] = 0;
    }
  }
}

// The destination's run (rows) and the source's (columns) for a transposing copy, or false where there is none. A
// dim could join either run (OIhw16i16o's 16 input channels follow the output channels in the destination and
// the 3x3 taps in the source): both orders are tried, keeping the one with more elements in whole 8 x 8 blocks.
bool transposed_runs(const StridedIter& it, int64_t out_size, int64_t in_size, Run& rows, Run& cols, uint32_t& used) {
  int seed_r = 0, seed_c = 0;
  while (seed_r < it.ndim && it.strides[0][seed_r] != out_size) ++seed_r;
  while (seed_c < it.ndim && it.strides[1][seed_c] != in_size) ++seed_c;
  if (seed_r == it.ndim || seed_c == it.ndim || seed_r == seed_c) return false;
  auto whole = [](const Run& a, const Run& b) { return (a.n / 8 * 8) * (b.n / 8 * 8); };
  uint32_t used_a = 1u << seed_r;  // columns first
  Run cols_a = contiguous_dims(it, 1, in_size, used_a);
  used_a &= ~(1u << seed_r);
  Run rows_a = contiguous_dims(it, 0, out_size, used_a);
  uint32_t used_b = 1u << seed_c;  // rows first
  Run rows_b = contiguous_dims(it, 0, out_size, used_b);
  used_b &= ~(1u << seed_c);
  Run cols_b = contiguous_dims(it, 1, in_size, used_b);
  const bool a = whole(rows_a, cols_a) >= whole(rows_b, cols_b);
  rows = std::move(a ? rows_a : rows_b);
  cols = std::move(a ? cols_a : cols_b);
  used = a ? used_a : used_b;
  if (rows.n < 4 || cols.n < 4) return false;
  locate(rows, it, 0);
  locate(cols, it, 1);
  return true;
}

// Rows [r0, r1) x columns [c0, c1): the destination's row r of column c lies at dst + cols.at(c) + r * sizeof(Out),
// the source's at src + rows.at(r) + c * sizeof(In).
template <class Out, class In>
void transpose_tile(char* dst, const char* src, const Run& rows, const Run& cols, int64_t r0, int64_t r1, int64_t c0,
                    int64_t c1) {
  // (locals, which the stores below cannot alias)
  const int64_t *rt = rows.offset.empty() ? nullptr : rows.offset.data(), rs = rows.step;
  const int64_t *ct = cols.offset.empty() ? nullptr : cols.offset.data(), cs = cols.step;
  auto row = [&](int64_t r) { return src + (rt ? rt[r] : r * rs); };
  auto col = [&](int64_t c) { return dst + (ct ? ct[c] : c * cs); };
  auto one = [&](int64_t r, int64_t c) {
    *reinterpret_cast<Out*>(col(c) +
                            r * sizeof(Out)) = convert<Out>(*reinterpret_cast<const In*>(row(r) + c * sizeof(In)));
  };
  int64_t r = r0;
  if constexpr (std::is_same_v<Out, In> && sizeof(Out) == sizeof(float)) {
    using V = lanes::Vec<float>;
    constexpr int W = lanes::kWidth<float>;
    for (; r + W <= r1; r += W) {
      const char* from[W];
#pragma GCC unroll 8
      for (int k = 0; k < W; ++k) from[k] = row(r + k);
      int64_t c = c0;
      for (; c + W <= c1; c += W) {
        V v[W];  // (unrolled, so that v stays in registers)
#pragma GCC unroll 8
        for (int k = 0; k < W; ++k) {
          std::memcpy(&v[k], from[k] + c * sizeof(In), sizeof(V));
          if (c % 16 == 0) __builtin_prefetch(from[k] + (c + kAhead) * sizeof(In));
        }
        lanes::transpose<float>(v);
#pragma GCC unroll 8
        for (int k = 0; k < W; ++k) {
          char* to = col(c + k) + r * sizeof(Out);
          std::memcpy(to, &v[k], sizeof(V));
          if (r % 16 == 0) __builtin_prefetch(to + kAhead * sizeof(Out), 1);
        }
      }
      for (; c < c1; ++c)
        for (int64_t k = r; k < r + W; ++k) one(k, c);
    }
  }
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t k = r; k < r1; ++k) one(k, c);
}

// The outer index of a two-operand copy (the dims not in `skip`) and the operands' pointers at it: set to index `i`,
// then stepped on as an odometer.
struct Outer {
  const StridedIter& it;
  DimVector dims, idx;  // the outer dims, innermost first, and the index along each
  std::array<char*, 2> ptr;
  Outer(const StridedIter& it, uint32_t skip, int64_t i) : it(it), ptr{it.data[0], it.data[1]} {
    for (int k = 0; k < it.ndim; ++k) {
      if (skip >> k & 1) continue;
      dims.push_back(k);
      idx.push_back(i % it.shape[k]);
      i /= it.shape[k];
      for (int j = 0; j < 2; ++j) ptr[j] += idx.back() * it.strides[j][k];
    }
  }
  void advance() {
    for (size_t n = 0; n < dims.size(); ++n) {
      const int k = static_cast<int>(dims[n]);
      for (int j = 0; j < 2; ++j) ptr[j] += it.strides[j][k];
      if (++idx[n] < it.shape[k]) return;
      for (int j = 0; j < 2; ++j) ptr[j] -= it.strides[j][k] * it.shape[k];
      idx[n] = 0;
    }
  }
};

// Whether the source rows of `rows` (row_bytes each) lie one after another.
bool contiguous_rows(const Run& rows, int64_t row_bytes) {
  if (rows.offset.empty()) return rows.n <= 1 || rows.step == row_bytes;
  for (int64_t r = 0; r < rows.n; ++r)
    if (rows.at(r) != r * row_bytes) return false;
  return true;
}

template <class Out, class In>
bool copy_transposed(const StridedIter& it) {
  if (it.ndim < 2 || it.ndim > 32) return false;
  uint32_t used = 0;
  Run rows, cols;
  if (!transposed_runs(it, sizeof(Out), sizeof(In), rows, cols, used)) return false;
  // A unit of work is one tile; an outer index's tiles go column tile by column tile, down the rows of each. (Units
  // of whole columns left a single outer index, such as one channel block of nChw16c, to one thread.)
  const int64_t col_tiles = (cols.n + kTile - 1) / kTile, row_tiles = (rows.n + kTile - 1) / kTile;
  const int64_t tiles = col_tiles * row_tiles, units = it.numel / (rows.n * cols.n) * tiles;
  const int64_t row_bytes = cols.n * static_cast<int64_t>(sizeof(In));
  // (a source that is one contiguous stretch, such as a block of nChw16c, is the hardware prefetcher's: fetching it
  // by hand cost a fifth of the copy of a 672x14x14 activation out of nChw16c)
  const bool prefetch = rows.n * row_bytes <= kPrefetchBytes && !contiguous_rows(rows, row_bytes);
  parallel_for(0, units, std::max<int64_t>(1, kGrainSize / (std::min(rows.n, kTile) * std::min(cols.n, kTile))),
               [&](int64_t b, int64_t e) {
                 Outer o(it, used, b / tiles);  // the outer index of unit b (the dims in neither run)
                 for (int64_t u = b; u < e;) {
                   const std::array<char*, 2> ptr = o.ptr;
                   o.advance();  // to the next outer index, whose source is fetched ahead
                   if (prefetch)
                     for (int64_t r = 0; r < rows.n; ++r) {
                       const char* p = o.ptr[1] + rows.at(r);
                       for (int64_t o = 0; o < row_bytes; o += 64) __builtin_prefetch(p + o);
                       __builtin_prefetch(p + row_bytes - 1);
                     }
                   for (int64_t t = u % tiles; t < tiles && u < e; ++t, ++u) {
                     const int64_t c = t / row_tiles * kTile, r = t % row_tiles * kTile;
                     transpose_tile<Out, In>(ptr[0], ptr[1], rows, cols, r, std::min(rows.n, r + kTile), c,
                                             std::min(cols.n, c + kTile));
                   }
                 }
               });
  return true;
}

// float32 <-> bfloat16/float16 with unit inner strides: the vectorized conversions (Note [Vectorized 16-bit
// conversion]).
bool copy_half(const StridedIter& it, ScalarType to, ScalarType from) {
  if (!fast_convert_pair(from, to)) return false;
  const int64_t so = to == ScalarType::Float32 ? 4 : 2, si = from == ScalarType::Float32 ? 4 : 2;
  if (it.ndim > 0 && (it.strides[0][0] != so || it.strides[1][0] != si)) return false;
  for_each_run(it, [&](char** p, const int64_t*, int64_t n) { convert_contiguous(from, to, p[1], p[0], n); });
  return true;
}

// Note [Copies of short runs]
// A copy between two layouts that share their innermost dim but not the next (a channels-last activation into
// oneDNN's nChw16c, where each position's 16 channels are one 64-byte run; a piece of channels cut from an NHWC
// tensor) walks the generic loop's odometer once per run: about 10 ns for 64 bytes, 5 GB/s, where the data is in
// cache. Without a cast, runs of up to kShortRun bytes go two dims at a time instead: the run moved as 32-byte
// words, stepped along the next dim. An [8, 4, 4, 512] NHWC activation into nChw16c at one thread: 26.0 -> 5.6 us;
// [8, 32, 32, 64]: 194 -> 44 us. The copies of a channels-last ResNet-50 training step (batch 8, 128x128, two
// threads): 80 -> 46 ms in the profiler; those of the row-major one 59 -> 42.
constexpr int64_t kShortRun = 1024;

void move_run(char* d, const char* s, int64_t bytes) {
  int64_t b = 0;
  for (; b + 32 <= bytes; b += 32) std::memcpy(d + b, s + b, 32);
  if (b < bytes) std::memcpy(d + b, s + b, static_cast<size_t>(bytes - b));
}

bool copy_short_runs(const StridedIter& it, int64_t elem) {
  if (it.ndim < 2 || it.strides[0][0] != elem || it.strides[1][0] != elem) return false;
  const int64_t run = it.shape[0] * elem, rows = it.shape[1];
  if (run > kShortRun) return false;
  const int64_t ds = it.strides[0][1], ss = it.strides[1][1];
  parallel_for(0, it.numel / it.shape[0], std::max<int64_t>(1, kGrainSize / it.shape[0]), [&](int64_t b, int64_t e) {
    Outer o(it, 3, b / rows);  // the outer index of row b (dims 2 and up)
    for (int64_t u = b; u < e; o.advance()) {
      const int64_t r0 = u % rows, r1 = std::min(rows, r0 + (e - u));
      char* d = o.ptr[0] + r0 * ds;
      const char* src = o.ptr[1] + r0 * ss;
      for (int64_t r = r0; r < r1; ++r, d += ds, src += ss) move_run(d, src, run);
      u += r1 - r0;
    }
  });
  return true;
}

// Note [Repeating each element]
// A copy whose source has stride 0 along the destination's innermost dim writes each source element several times
// in a row: repeat_interleave along the last dim, an expanded trailing dim of size 1 made contiguous. The generic
// loop stepped its odometer once per element's copies: `[64, 1024].repeat_interleave(2, 1)` took 439 us, PyTorch
// 115. Copies of up to kMaxRepeat elements go along the next dim instead, as integers of the element's size (a copy
// moves bits), with the common counts unrolled.
constexpr int64_t kMaxRepeat = 16;

template <class T, int R>
void repeat_rows(char* d, const char* s, int64_t n, int64_t ds, int64_t ss, int64_t r) {
  const int64_t reps = R ? R : r;
  for (int64_t j = 0; j < n; ++j, d += ds, s += ss) {
    T v;
    std::memcpy(&v, s, sizeof(T));
    T* out = reinterpret_cast<T*>(d);
    for (int64_t k = 0; k < reps; ++k) out[k] = v;
  }
}

template <class T>
void repeat_rows(char* d, const char* s, int64_t n, int64_t ds, int64_t ss, int64_t r) {
  switch (r) {
    case 2: return repeat_rows<T, 2>(d, s, n, ds, ss, r);
    case 3: return repeat_rows<T, 3>(d, s, n, ds, ss, r);
    case 4: return repeat_rows<T, 4>(d, s, n, ds, ss, r);
    default: return repeat_rows<T, 0>(d, s, n, ds, ss, r);
  }
}

bool copy_repeats(const StridedIter& it, int64_t elem) {
  if (it.ndim < 2 || it.strides[0][0] != elem || it.strides[1][0] != 0 || it.shape[0] > kMaxRepeat) return false;
  const int64_t r = it.shape[0], rows = it.shape[1], ds = it.strides[0][1], ss = it.strides[1][1];
  auto run = [&](auto tag) {
    using T = decltype(tag);
    parallel_for(0, it.numel / r, std::max<int64_t>(1, kGrainSize / r), [&](int64_t b, int64_t e) {
      Outer o(it, 3, b / rows);  // the outer index of row b (dims 2 and up)
      for (int64_t u = b; u < e; o.advance()) {
        const int64_t r0 = u % rows, r1 = std::min(rows, r0 + (e - u));
        repeat_rows<T>(o.ptr[0] + r0 * ds, o.ptr[1] + r0 * ss, r1 - r0, ds, ss, r);
        u += r1 - r0;
      }
    });
  };
  dispatch_size(static_cast<size_t>(elem), run);  // moved as unsigned integers of the element's size (or Bytes16)
  return true;
}

// Note [Interleaving copies]
// A transposing copy where one side's contiguous dim has at most four elements (pixel_shuffle's [.., r, W] <- [r, ..,
// W], pixel_unshuffle's inverse, a complex tensor's halves) is a 2 x n or 4 x n transpose that copy_transposed's
// 8 x 8 blocks do not fit, and the generic loop stepped its odometer every r elements: pixel_shuffle of [8, 32, 32,
// 32] by 2 took 777 us (PyTorch 615). Here the small dim is unrolled inside a loop along the long one: R contiguous
// elements written (or read) per step of R streams on the other side, moved as integers of the element's size.
template <class T, int R>
void interleave_rows(char* d, const char* s, int64_t n, int64_t d_small, int64_t d_long, int64_t s_small,
                     int64_t s_long) {
  for (int64_t j = 0; j < n; ++j)
#pragma GCC unroll 4
    for (int k = 0; k < R; ++k) std::memcpy(d + k * d_small + j * d_long, s + k * s_small + j * s_long, sizeof(T));
}

bool copy_interleaved(const StridedIter& it, int64_t elem) {
  if (it.ndim < 2 || it.ndim > 32) return false;
  int a = 0, b = 0;  // the dims along which the destination and the source are contiguous
  while (a < it.ndim && it.strides[0][a] != elem) ++a;
  while (b < it.ndim && it.strides[1][b] != elem) ++b;
  if (a == it.ndim || b == it.ndim || a == b) return false;
  const int small = it.shape[a] <= 4 ? a : b, along = small == a ? b : a;  // R elements, and the long dim
  const int64_t r = it.shape[small], n = it.shape[along];
  if (r > 4 || r < 2 || n < 8) return false;
  const int64_t ds = it.strides[0][small], dl = it.strides[0][along], ss = it.strides[1][small],
                sl = it.strides[1][along], outer = it.numel / (r * n);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto rows = [&](char* d, const char* s) {
      switch (r) {
        case 2: return interleave_rows<T, 2>(d, s, n, ds, dl, ss, sl);
        case 3: return interleave_rows<T, 3>(d, s, n, ds, dl, ss, sl);
        default: return interleave_rows<T, 4>(d, s, n, ds, dl, ss, sl);
      }
    };
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / (r * n)), [&](int64_t b0, int64_t e) {
      Outer o(it, (1u << small) | (1u << along), b0);
      for (int64_t u = b0; u < e; ++u, o.advance()) rows(o.ptr[0], o.ptr[1]);
    });
  };
  dispatch_size(static_cast<size_t>(elem), run);  // moved as unsigned integers of the element's size (or Bytes16)
  return true;
}

void copy(const Tensor& dst, const Tensor& src) {
  StridedIter it = StridedIter::make({&dst, &src}, dst.sizes());
  if (copy_half(it, dst.dtype(), src.dtype()) || cast_runs(it, dst.dtype(), src.dtype())) return;
  if (dst.dtype() == src.dtype() && (copy_repeats(it, static_cast<int64_t>(dst.element_size())) ||
                                     copy_short_runs(it, static_cast<int64_t>(dst.element_size())) ||
                                     copy_interleaved(it, static_cast<int64_t>(dst.element_size()))))
    return;
  dispatch_any(dst.dtype(), [&](auto o) {
    using Out = decltype(o);
    dispatch_any(src.dtype(), [&](auto i) {
      using In = decltype(i);
      if (!copy_transposed<Out, In>(it)) unary_loop<Out, In>(it, [](In v) { return convert<Out>(v); });
    });
  });
}

void fill(const Tensor& dst, const Scalar& value) {
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  dispatch_any(dst.dtype(), [&](auto o) {
    using Out = decltype(o);
    const Out v = value.to<Out>();
    nullary_loop<Out>(it, [v] { return v; });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(copy, CPU, copy)
EMBER_REGISTER_KERNEL(fill, CPU, fill)

}  // namespace ember::cpu
