// Copy with casting and fill: the CPU elementwise kernels of the tensor core.
#include "ember/backend/cpu/half_convert.h"
#include "ember/backend/cpu/loops.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/copy.h"

namespace ember::cpu {
namespace {

// A 2-D copy whose source is contiguous along the other dim than the destination (a transpose):
// walking either side in order makes every access to the other a cache miss, so copy in square tiles.
template <class Out, class In>
bool copy_transposed(const StridedIter& it) {
  if (it.ndim != 2 || it.strides[0][0] != sizeof(Out) || it.strides[1][1] != sizeof(In)) return false;
  constexpr int64_t kTile = 32;
  const int64_t n0 = it.shape[0], n1 = it.shape[1];
  const int64_t os1 = it.strides[0][1], is0 = it.strides[1][0];
  const int64_t tiles1 = (n1 + kTile - 1) / kTile;
  parallel_for(0, tiles1, std::max<int64_t>(1, kGrainSize / (kTile * n0)), [&](int64_t b, int64_t e) {
    for (int64_t t1 = b; t1 < e; ++t1)
      for (int64_t i0 = 0; i0 < n0; i0 += kTile)
        for (int64_t i1 = t1 * kTile; i1 < std::min(n1, (t1 + 1) * kTile); ++i1) {
          Out* o = reinterpret_cast<Out*>(it.data[0] + i1 * os1);
          const In* x = reinterpret_cast<const In*>(it.data[1] + i1 * sizeof(In));
          for (int64_t k = i0; k < std::min(n0, i0 + kTile); ++k)
            o[k] = convert<Out>(*reinterpret_cast<const In*>(reinterpret_cast<const char*>(x) + k * is0));
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

void copy(const Tensor& dst, const Tensor& src) {
  StridedIter it = StridedIter::make({&dst, &src}, dst.sizes());
  if (copy_half(it, dst.dtype(), src.dtype())) return;
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
