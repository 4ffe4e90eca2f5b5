// tril and triu on the CPU: each row of each matrix is a kept run of columns (a prefix for tril, a suffix for triu)
// copied as a block and the rest zeroed (every dtype's zero has all bits clear), so a row costs a memcpy and a
// memset instead of an index mask and a select per element.
#include <algorithm>
#include <cstring>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/dispatch_size.h"
#include "ember/backend/kernels/copy.h"

namespace ember::cpu {
namespace {

void triangle(const Tensor& dst, const Tensor& src, int64_t diagonal, bool lower) {
  const int64_t nd = src.dim(), rows = src.sizes()[nd - 2], cols = src.sizes()[nd - 1];
  if (src.numel() == 0) return;
  const int64_t es = static_cast<int64_t>(src.element_size());
  const int64_t row_stride = src.strides()[nd - 2] * es, col_stride = src.strides()[nd - 1] * es;
  char* out = static_cast<char*>(dst.data_ptr());
  const char* in = static_cast<const char*>(src.data_ptr());
  const bool in_place = out == in;  // then src is dst (contiguous): only the dropped columns are written
  // The byte offset in src of matrix m (its batch index, row-major over the leading dims).
  auto matrix_offset = [&](int64_t m) {
    int64_t off = 0;
    for (int64_t d = nd - 3; d >= 0 && m; --d) {
      off += m % src.sizes()[d] * src.strides()[d] * es;
      m /= src.sizes()[d];
    }
    return off;
  };
  dispatch_size(src.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t grain = std::max<int64_t>(1, kGrainSize / cols);
    parallel_for(0, src.numel() / cols, grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t i = r % rows;
        // Kept columns [lo, hi) of row i.
        const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + diagonal, 0, cols);
        const int64_t hi = lower ? std::clamp<int64_t>(i + diagonal + 1, 0, cols) : cols;
        char* o = out + r * cols * es;
        if (lower)
          std::memset(o + hi * es, 0, static_cast<size_t>((cols - hi) * es));
        else
          std::memset(o, 0, static_cast<size_t>(lo * es));
        if (in_place || lo >= hi) continue;
        const char* x = in + matrix_offset(r / rows) + i * row_stride;
        if (col_stride == es) {
          std::memcpy(o + lo * es, x + lo * es, static_cast<size_t>((hi - lo) * es));
        } else {
          for (int64_t j = lo; j < hi; ++j)
            *reinterpret_cast<T*>(o + j * es) = *reinterpret_cast<const T*>(x + j * col_stride);
        }
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(triangle, CPU, triangle)

}  // namespace ember::cpu
