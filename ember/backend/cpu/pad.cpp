// Reflect, replicate and circular padding on the CPU (Note [Padding as a map of indices]): each output row (the
// innermost dim) reads one source row, found through the outer padded dims' maps, copies the stretch that maps to
// itself as a block and only the borders element by element.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/dispatch_size.h"
#include "ember/backend/kernels/nn/padding.h"

namespace ember::cpu {
namespace {

void pad(const Tensor& out, const Tensor& x, const PadArgs& a) {
  if (out.numel() == 0) return;
  const int64_t nd = out.dim(), w = out.sizes()[nd - 1], es = static_cast<int64_t>(out.element_size());
  const DimVector size(out.sizes()), stride(x.strides());
  const PadDim& row = a.dims[0];
  // Outputs [b0, b1) of a row read source c + i - lo: the middle, copied as one block when the source row is
  // contiguous. The other outputs read the source row at offsets tabulated once.
  const int64_t b0 = std::clamp<int64_t>(row.lo, 0, w), b1 = std::clamp<int64_t>(row.lo + row.m, b0, w);
  const bool block = stride[nd - 1] == 1;
  std::vector<int64_t> at;  // (output, source) byte offsets within a row, for every output not in the block
  for (int64_t i = 0; i < w; ++i)
    if (!block || i < b0 || i >= b1) at.insert(at.end(), {i * es, pad_source(a.mode, row, i) * stride[nd - 1] * es});
  const int64_t from = (row.c + b0 - row.lo) * es, len = b1 - b0;
  // The source offset (elements) of coordinate i along outer dim d.
  auto source = [&](int64_t d, int64_t i) {
    const int64_t p = nd - 1 - d;  // d's place among the padded dims, innermost first
    return (p < a.k ? pad_source(a.mode, a.dims[p], i) : i) * stride[d];
  };
  // Rows come in planes of h (the second-to-last dim, whose offsets are tabulated); a plane's offset is summed
  // over the dims before.
  const int64_t h = size[nd - 2];  // the input has a dim before the padded ones
  std::vector<int64_t> row_at(static_cast<size_t>(h));
  for (int64_t i = 0; i < h; ++i) row_at[static_cast<size_t>(i)] = source(nd - 2, i) * es;
  auto plane_at = [&](int64_t plane) {
    int64_t off = 0;
    for (int64_t d = nd - 3; d >= 0; --d) {
      off += source(d, plane % size[d]);
      plane /= size[d];
    }
    return off * es;
  };
  const char* in = static_cast<const char*>(x.data_ptr());
  char* base = static_cast<char*>(out.data_ptr());
  dispatch_size(out.element_size(), [&](auto tag) {
    using T = decltype(tag);
    parallel_for(0, out.numel() / w, std::max<int64_t>(1, kGrainSize / w), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end;) {
        const char* plane = in + plane_at(r / h);
        for (int64_t i = r % h; i < h && r < end; ++i, ++r) {
          const char* src = plane + row_at[static_cast<size_t>(i)];
          char* o = base + r * w * es;
          if (block) {  // short rows: an inlined loop beats a call to memcpy
            const T* __restrict s = reinterpret_cast<const T*>(src + from);
            T* __restrict t = reinterpret_cast<T*>(o + b0 * es);
            for (int64_t j = 0; j < len; ++j) t[j] = s[j];
          }
          for (size_t t = 0; t < at.size(); t += 2)
            *reinterpret_cast<T*>(o + at[t]) = *reinterpret_cast<const T*>(src + at[t + 1]);
        }
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(pad, CPU, pad)

}  // namespace ember::cpu
