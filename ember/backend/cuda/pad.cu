// Reflect, replicate and circular padding on CUDA (Note [Padding as a map of indices]): each output element finds its
// source through the padded dims' maps.
#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/dispatch_size.h"
#include "ember/backend/kernels/nn/padding.h"

namespace ember::cuda {
namespace {

constexpr int kMaxDims = 5;  // three padded dims after a batch and a channel dim

template <class T>
struct PadFn {
  char* base;
  const char* src;
  PadArgs a;
  int nd;
  int64_t size[kMaxDims], stride[kMaxDims];  // the output's sizes, the input's strides
  __device__ void operator()(char* const* p) const {
    int64_t q = (p[0] - base) / static_cast<int64_t>(sizeof(T)), off = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t i = q % size[d];
      const int pd = nd - 1 - d;
      q /= size[d];
      off += (pd < a.k ? pad_source(a.mode, a.dims[pd], i) : i) * stride[d];
    }
    *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(src + off * static_cast<int64_t>(sizeof(T)));
  }
};

void pad(const Tensor& out, const Tensor& x, const PadArgs& a) {
  if (out.numel() == 0) return;
  EMBER_CHECK(out.dim() <= kMaxDims, "pad: at most ", kMaxDims, " dims on CUDA, got ", out.dim());
  StridedIter it = StridedIter::make({&out}, out.sizes());
  DeviceGuard g(out.device().index);
  dispatch_size(out.element_size(), [&](auto tag) {
    PadFn<decltype(tag)> f{static_cast<char*>(out.data_ptr()),
                           static_cast<const char*>(x.data_ptr()),
                           a,
                           static_cast<int>(out.dim()),
                           {},
                           {}};
    for (int d = 0; d < f.nd; ++d) f.size[d] = out.sizes()[d], f.stride[d] = x.strides()[d];
    launch_elementwise<1>(it, f);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(pad, CUDA, pad)

}  // namespace ember::cuda
