// CPU searchsorted (Note [searchsorted kernel] in ops/search.h): each value's binary search, split across threads.
#include <type_traits>

#include "ember/backend/kernels/search.h"
#include "ember/backend/math/search.h"
#include "ember/parallel.h"

namespace ember {

namespace {

template <class T, class O>
void search_typed(const Tensor& out, const Tensor& boundaries, const Tensor& values, const Tensor& sorter, bool right) {
  const int64_t n = boundaries.sizes()[1], m = values.sizes()[1];
  const bool shared = values.sizes()[0] == 1;
  const T* seq = static_cast<const T*>(boundaries.data_ptr());
  const T* val = static_cast<const T*>(values.data_ptr());
  const int64_t* srt = sorter.defined() ? static_cast<const int64_t*>(sorter.data_ptr()) : nullptr;
  O* dst = static_cast<O*>(out.data_ptr());
  parallel_for(0, values.numel(), 2048, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t row = shared ? 0 : i / m;
      dst[i] = static_cast<O>(math::search_row(seq + row * n, srt ? srt + row * n : nullptr, n, val[i], right));
    }
  });
}

void searchsorted(const Tensor& out, const Tensor& boundaries, const Tensor& values, const Tensor& sorter, bool right) {
  dispatch_all(values.dtype(), [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) {
      fail<TypeError>("searchsorted: bool is not supported");
    } else if (out.dtype() == ScalarType::Int32) {
      search_typed<T, int32_t>(out, boundaries, values, sorter, right);
    } else {
      search_typed<T, int64_t>(out, boundaries, values, sorter, right);
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(searchsorted, CPU, searchsorted)

}  // namespace ember
