// CUDA searchsorted (Note [searchsorted kernel] in ops/search.h; CPU reference ember/backend/cpu/search.cpp): one
// thread per value runs the shared binary search (backend/math/search.h). Offsets are 64-bit; the op has checked the
// sorter's entries, so every read stays inside the row.
#include <algorithm>
#include <type_traits>

#include "ember/backend/cuda/check.h"
#include "ember/backend/kernels/search.h"
#include "ember/backend/math/search.h"
#include "ember/cuda.h"

namespace ember::cuda {

namespace {

template <class T, class O>
__global__ void searchsorted_kernel(O* __restrict__ out, const T* __restrict__ seq, const T* __restrict__ values,
                                    const int64_t* __restrict__ sorter, int64_t total, int64_t n, int64_t m,
                                    bool shared, bool right) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = shared ? 0 : i / m;
    out[i] = static_cast<O>(math::search_row(seq + row * n, sorter ? sorter + row * n : nullptr, n, values[i], right));
  }
}

void searchsorted(const Tensor& out, const Tensor& boundaries, const Tensor& values, const Tensor& sorter, bool right) {
  const int64_t total = values.numel();
  if (total == 0) return;
  const int device = out.device().index;
  DeviceGuard guard(device);
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  const int64_t n = boundaries.sizes()[1], m = values.sizes()[1];
  const bool shared = values.sizes()[0] == 1;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, int64_t{1} << 16));
  const int64_t* srt = sorter.defined() ? static_cast<const int64_t*>(sorter.data_ptr()) : nullptr;
  dispatch_all(values.dtype(), [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) {
      fail<TypeError>("searchsorted: bool is not supported");
    } else {
      const T* seq = static_cast<const T*>(boundaries.data_ptr());
      const T* val = static_cast<const T*>(values.data_ptr());
      if (out.dtype() == ScalarType::Int32)
        searchsorted_kernel<T, int32_t><<<blocks, 256, 0, stream>>>(static_cast<int32_t*>(out.data_ptr()), seq, val,
                                                                    srt, total, n, m, shared, right);
      else
        searchsorted_kernel<T, int64_t><<<blocks, 256, 0, stream>>>(static_cast<int64_t*>(out.data_ptr()), seq, val,
                                                                    srt, total, n, m, shared, right);
      after_launch(device);
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(searchsorted, CUDA, searchsorted)

}  // namespace ember::cuda
