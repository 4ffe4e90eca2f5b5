// Generic CPU loops over a StridedIter (Note [Strided iteration]). Kernels are tiny functors; the
// loops supply the contiguous fast path (a flat loop the compiler vectorizes) and the strided walk.
#pragma once

#include <algorithm>
#include <tuple>

#include "ember/backend/cpu/convert.h"
#include "ember/backend/cpu/stream_store.h"
#include "ember/detail/convert.h"
#include "ember/iterator.h"
#include "ember/parallel.h"

namespace ember::cpu {

// Note [Grain in bytes]
// kGrainSize is counted in 4-byte elements: the size at which a second thread pays for its wake on this VM (a copy of
// 128 KiB, about 3 us). Loops over narrower types count the bytes instead, so their threshold grows: a uint8 copy of
// 64K elements took 1.7 us at one thread and 2.6 at two (split at 32K), a bool -> int16 cast likewise. Wider types
// keep kGrainSize, whose split the float64 kernels were measured with.
constexpr int64_t grain_for_width(int64_t widest_bytes) {
  return std::max<int64_t>(kGrainSize, kGrainSize * 4 / std::max<int64_t>(widest_bytes, 1));
}
template <class... T>
constexpr int64_t grain_of() {
  return grain_for_width(static_cast<int64_t>(std::max({sizeof(T)...})));
}

// Note [Blocks of runs]
// Calls body(data pointers, inner byte strides, n, m, row byte strides) for blocks of m runs of n elements, the
// runs consecutive along dim 1 (run r of a block starts at the pointers + r * the row strides), covering linear
// elements [begin, end). A body that sorts its operands' layouts once per block instead of once per run, and steps
// its pointers instead of the odometer, makes broadcasts over short rows cheap: [1, 960, 7, 7] * [1, 960, 1, 1]
// (960 runs of 49) at one thread 13.2 -> 6.3 us, PyTorch 5.7 (whose TensorIterator loops two dims the same way).
// for_each_run_range is this with the runs of a block taken one by one.
template <class Body>
void for_each_block_range(const StridedIter& it, int64_t begin, int64_t end, Body&& body) {
  if (begin >= end) return;
  const int nt = it.ntensors;
  std::array<char*, StridedIter::kMaxOperands> ptr = it.data;
  std::array<int64_t, StridedIter::kMaxOperands> inner{}, row{};
  if (it.ndim == 0) {
    body(ptr.data(), inner.data(), end - begin, int64_t{1}, row.data());
    return;
  }
  for (int i = 0; i < nt; ++i) {
    inner[i] = it.strides[i][0];
    row[i] = it.ndim > 1 ? it.strides[i][1] : 0;
  }
  DimVector idx(it.ndim, 0);
  int64_t rem = begin;
  for (int d = 0; d < it.ndim; ++d) {  // unravel begin
    idx[d] = rem % it.shape[d];
    rem /= it.shape[d];
    for (int i = 0; i < nt; ++i) ptr[i] += idx[d] * it.strides[i][d];
  }
  const int64_t rows = it.ndim > 1 ? it.shape[1] : 1;
  int64_t pos = begin;
  while (pos < end) {
    // whole runs from here to the end of dim 1 (or of the range), else what is left of this run
    int64_t n = it.shape[0] - idx[0], m = 1;
    if (idx[0] == 0 && it.ndim > 1) m = std::max<int64_t>(1, std::min(rows - idx[1], (end - pos) / n));
    if (m == 1) n = std::min(n, end - pos);
    body(ptr.data(), inner.data(), n, m, row.data());
    pos += n * m;
    if (pos >= end) return;
    for (int i = 0; i < nt; ++i) ptr[i] -= idx[0] * it.strides[i][0];
    idx[0] = 0;
    if (it.ndim > 1) {  // m - 1 steps along dim 1 within the block, then an odometer step on dims >= 1
      for (int i = 0; i < nt; ++i) ptr[i] += (m - 1) * it.strides[i][1];
      idx[1] += m - 1;
    }
    for (int d = 1; d < it.ndim; ++d) {
      for (int i = 0; i < nt; ++i) ptr[i] += it.strides[i][d];
      if (++idx[d] < it.shape[d]) break;
      for (int i = 0; i < nt; ++i) ptr[i] -= it.strides[i][d] * it.shape[d];
      idx[d] = 0;
    }
  }
}

// Calls body(data pointers, inner byte strides, n) for the runs covering linear elements [begin, end)
// of the iteration order (dim 0 fastest). A run never crosses the innermost dim.
template <class Body>
void for_each_run_range(const StridedIter& it, int64_t begin, int64_t end, Body&& body) {
  for_each_block_range(it, begin, end, [&](char** p, const int64_t* s, int64_t n, int64_t m, const int64_t* rs) {
    std::array<char*, StridedIter::kMaxOperands> q;
    for (int64_t r = 0; r < m; ++r) {
      for (int i = 0; i < it.ntensors; ++i) q[i] = p[i] + r * rs[i];
      body(q.data(), s, n);
    }
  });
}

// Calls body(data pointers, inner byte strides, n) over every run, split across threads.
template <class Body>
void for_each_run(const StridedIter& it, Body&& body, int64_t grain = kGrainSize) {
  parallel_for(0, it.numel, grain, [&](int64_t b, int64_t e) { for_each_run_range(it, b, e, body); });
}

// for_each_block_range over every element, split across threads.
template <class Body>
void for_each_block(const StridedIter& it, Body&& body, int64_t grain = kGrainSize) {
  parallel_for(0, it.numel, grain, [&](int64_t b, int64_t e) { for_each_block_range(it, b, e, body); });
}

// Note [Loop alignment]
// A loop of one vector per iteration ran at half speed on this AMD EPYC core when its ~20 bytes straddled a 64-byte
// line, so a kernel's speed hung on where the linker put it: neg_ of 64K floats took 4.6 us against add_(0)'s 2.6
// in an identical loop, and an unrelated edit moved sum(0) of [64, 1024] from 4.3 to 6.3 us. The element loops here
// and in vec_math.cpp, and the outer reductions' row loop, do several vectors per iteration instead, which leaves
// them far less exposed. Aligning every kernel loop (-falign-loops=32 or 64) was tried: each sped some kernels and
// slowed others by as much (a per-channel scale over 4x4 maps 9.5 -> 15 us at 64), so it is not used.

// write_run's streaming way, a function of its own: with its 4 KiB buffer inline, every call paid a stack frame of the
// buffer's alignment, and write_run was not inlined into the loops over short runs (a per-channel scale over 4x4
// maps: [32, 64, 4, 4] * [1, 64, 1, 1] spent half its time in the calls' prologues and epilogues).
template <class Out, class G>
[[gnu::noinline]] void write_run_streaming(Out* o, int64_t n, G g) {
  constexpr int64_t kBlock = 4096 / sizeof(Out);
  alignas(64) Out buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    for (int64_t i = 0; i < m; ++i) buf[i] = g(b + i);
    stream_copy(reinterpret_cast<char*>(o + b), reinterpret_cast<const char*>(buf), m * int64_t{sizeof(Out)});
  }
  stream_fence();
}

// o[i] = g(i) for the n outputs of a contiguous run: straight to memory, or, when `stream`, a block at a time into a
// buffer in L1 that streaming stores write out (Note [Streaming stores]). Callers pass g capturing its pointers and
// functor by value: a store through a char-sized Out (int8, uint8, bool) may alias any memory, so state reached by
// reference would be reloaded after every store and the loop would not vectorize (uint8 -> int8 ran 19 us for
// 64K elements, a byte at a time).
template <class Out, class G>
inline void write_run(Out* o, int64_t n, bool stream, G g) {
  if (stream) [[unlikely]]
    return write_run_streaming(o, n, g);
#pragma GCC unroll 4  // (four vectors per iteration: Note [Loop alignment])
  for (int64_t i = 0; i < n; ++i) o[i] = g(i);
}

// Whether the contiguous runs of it's output (operand 0, of type Out) are written with streaming stores.
template <class Out>
bool streams(const StridedIter& it) {
  return streams_output(it.numel * int64_t{sizeof(Out)});
}

// out[i] = f(in[i]) with out of type Out and in of type In.
template <class Out, class In, class F>
void unary_loop(const StridedIter& it, F f) {
  const bool stream = streams<Out>(it);
  for_each_run(
      it,
      [&](char** p, const int64_t* s, int64_t n) {
        auto* o = reinterpret_cast<Out*>(p[0]);
        auto* a = reinterpret_cast<const In*>(p[1]);
        if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
          write_run(o, n, stream, [a, f](int64_t i) { return f(a[i]); });
        } else if (s[0] == sizeof(Out) && s[1] == 0) {  // broadcast scalar input
          const Out v = f(*a);
          write_run(o, n, stream, [v](int64_t) { return v; });
        } else if (s[0] == sizeof(Out) && s[1] == -static_cast<int64_t>(sizeof(In))) {
          // a reversed input (flip of the innermost dim, a horizontal image flip): a vectorized loop with a permute,
          // where the strided one below moved one element at a time (64K floats: 19 against PyTorch's 7 us)
          write_run(o, n, stream, [a, f](int64_t i) { return f(a[-i]); });
        } else {
          char* const po = p[0];
          const char* const pa = p[1];
          const int64_t so = s[0], sa = s[1];
          for (int64_t i = 0; i < n; ++i)
            *reinterpret_cast<Out*>(po + i * so) = f(*reinterpret_cast<const In*>(pa + i * sa));
        }
      },
      grain_of<Out, In>());
}

// out[i] = f() (fills).
template <class Out, class F>
void nullary_loop(const StridedIter& it, F f) {
  const bool stream = streams<Out>(it);
  for_each_run(
      it,
      [&](char** p, const int64_t* s, int64_t n) {
        if (s[0] == sizeof(Out)) {
          write_run(reinterpret_cast<Out*>(p[0]), n, stream, [f](int64_t) { return f(); });
        } else {
          for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Out*>(p[0] + i * s[0]) = f();
        }
      },
      grain_of<Out>());
}

// Note [Casting on load]
// cpu_kernel<Out, In, NIn>(it, f) computes out = f(in_1, ..., in_NIn) with f taking In values and
// returning Out. When every operand already has its type and unit stride (or, for a binary op's inputs, stride 0),
// f runs straight over memory in a loop the compiler vectorizes. Otherwise the run is processed in
// blocks: each input is gathered and converted into a small contiguous buffer (convert.h), f runs over
// the buffers, and the result is converted and scattered to the output. So one instantiation per
// compute type handles every dtype mix and layout, with no temporaries the size of the tensor.
// Work is split across threads above grain_of<Out, In>() elements (Note [Intra-op parallelism], [Grain in bytes]).
template <class Out, class In, int NIn, class F>
void cpu_kernel(const StridedIter& it, F f, int64_t grain = grain_of<Out, In>()) {
  static_assert(NIn >= 1 && NIn <= 3);
  constexpr int64_t kBlock = 256;
  const ScalarType out_t = scalar_type_of<Out>, in_t = scalar_type_of<In>;
  std::array<bool, 4> exact{};
  exact[0] = it.dtypes[0] == out_t;
  for (int k = 1; k <= NIn; ++k) exact[k] = it.dtypes[k] == in_t;
  std::array<LoadFn, 4> loads{};
  for (int k = 1; k <= NIn; ++k) loads[k] = load_fn(it.dtypes[k], in_t);
  const StoreFn store = store_fn(out_t, it.dtypes[0]);
  const bool stream = streams<Out>(it);

  // Other layouts: each input gathered and converted into a small contiguous buffer, the result scattered.
  auto buffered = [&](char** p, const int64_t* s, int64_t n) {
    const bool direct_out = exact[0] && s[0] == sizeof(Out);
    alignas(64) In ibuf[NIn][kBlock];
    alignas(64) Out obuf[kBlock];
    for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
      const int64_t m = std::min(kBlock, n - b0);
      const In* in[NIn];
      for (int k = 0; k < NIn; ++k) {
        const char* src = p[k + 1] + b0 * s[k + 1];
        if (exact[k + 1] && s[k + 1] == sizeof(In)) {
          in[k] = reinterpret_cast<const In*>(src);
        } else {
          loads[k + 1](src, s[k + 1], reinterpret_cast<char*>(ibuf[k]), m);
          in[k] = ibuf[k];
        }
      }
      Out* o = direct_out ? reinterpret_cast<Out*>(p[0] + b0 * s[0]) : obuf;
      const F fn = f;  // a local copy: stores through a char-typed o may alias anything reached by reference
      if constexpr (NIn == 1) {
        for (int64_t i = 0; i < m; ++i) o[i] = fn(in[0][i]);
      } else if constexpr (NIn == 2) {
        for (int64_t i = 0; i < m; ++i) o[i] = fn(in[0][i], in[1][i]);
      } else {
        for (int64_t i = 0; i < m; ++i) o[i] = fn(in[0][i], in[1][i], in[2][i]);
      }
      if (!direct_out) store(reinterpret_cast<const char*>(obuf), p[0] + b0 * s[0], s[0], m);
    }
  };
  // Note [Blocks of runs]: the operands' layouts are sorted out once per block of m runs, rs apart.
  auto block = [&](char** p, const int64_t* s, int64_t n, int64_t m, const int64_t* rs) {
    bool direct_out = exact[0] && s[0] == sizeof(Out);
    bool all_direct = direct_out;
    for (int k = 1; k <= NIn; ++k) all_direct &= exact[k] && s[k] == sizeof(In);
    auto at = [&](int k, int64_t r) { return p[k] + r * rs[k]; };
    if (all_direct) {  // the vectorized path
      for (int64_t r = 0; r < m; ++r) {
        Out* o = reinterpret_cast<Out*>(at(0, r));
        const In* a = reinterpret_cast<const In*>(at(1, r));
        if constexpr (NIn == 1) {
          write_run(o, n, stream, [a, f](int64_t i) { return f(a[i]); });
        } else if constexpr (NIn == 2) {
          const In* b = reinterpret_cast<const In*>(at(2, r));
          write_run(o, n, stream, [a, b, f](int64_t i) { return f(a[i], b[i]); });
        } else {
          const In* b = reinterpret_cast<const In*>(at(2, r));
          const In* c = reinterpret_cast<const In*>(at(3, r));
          write_run(o, n, stream, [a, b, c, f](int64_t i) { return f(a[i], b[i], c[i]); });
        }
      }
      return;
    }
    if constexpr (NIn == 2) {
      // An input broadcast along the run (stride 0: a per-channel scale over [N, C, H, W], a 0-d operand) is read
      // once and the loop stays the vectorized one; gathered into a buffer per run, [1, 960, 7, 7] * [1, 960, 1, 1]
      // (960 runs of 49) took 19 us at one thread against x * x's 4.
      auto unit_or_0 = [&](int k) { return exact[k] && (s[k] == sizeof(In) || s[k] == 0); };
      if (direct_out && unit_or_0(1) && unit_or_0(2)) {
        auto out = [&](int64_t r) { return reinterpret_cast<Out*>(at(0, r)); };
        auto in = [&](int k, int64_t r) { return reinterpret_cast<const In*>(at(k, r)); };
        if (s[1] == 0 && s[2] == 0) {
          for (int64_t r = 0; r < m; ++r) {
            const Out v = f(*in(1, r), *in(2, r));
            write_run(out(r), n, stream, [v](int64_t) { return v; });
          }
        } else if (s[1] == 0) {
          for (int64_t r = 0; r < m; ++r) {
            const In av = *in(1, r);
            const In* b = in(2, r);
            write_run(out(r), n, stream, [av, b, f](int64_t i) { return f(av, b[i]); });
          }
        } else {
          for (int64_t r = 0; r < m; ++r) {
            const In* a = in(1, r);
            const In bv = *in(2, r);
            write_run(out(r), n, stream, [a, bv, f](int64_t i) { return f(a[i], bv); });
          }
        }
        return;
      }
    }
    for (int64_t r = 0; r < m; ++r) {
      std::array<char*, StridedIter::kMaxOperands> q{};
      for (int k = 0; k <= NIn; ++k) q[k] = at(k, r);
      buffered(q.data(), s, n);
    }
  };
  for_each_block(it, block, grain);
}

}  // namespace ember::cpu
