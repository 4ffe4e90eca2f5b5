// CUDA kernels of the spatial ops (Note [Separable resampling] in ember/backend/kernels/nn/spatial.h, im2col/col2im):
// one thread per output element. The adjoints (resample_adjoint, col2im) are gathers, not scatters: each output element
// sums its contributions in the CPU kernels' order, so results are deterministic and free of float atomics.
#include <vector>

#include "ember/backend/cuda/index_plans.h"
#include "ember/backend/cuda/scratch.cuh"
#include "ember/backend/kernels/nn/spatial.h"

namespace ember::cuda {
namespace {

// Calls body(T{}, I{}) under a DeviceGuard: T the float type of `in`, I the kernels' index type: 32-bit when every
// offset fits (integer division dominates these kernels), else 64-bit. The margin keeps the grid-stride step (at
// most 2^24) from overflowing.
template <class F>
void dispatch_spatial(const Tensor& out, const Tensor& in, F&& body) {
  DeviceGuard g(out.device().index);
  const bool wide = std::max(in.numel(), out.numel()) >= (int64_t(1) << 31) - (int64_t(1) << 25);
  auto with_index = [&](auto t) {
    if (wide)
      body(t, int64_t{});
    else
      body(t, int32_t{});
  };
  if (in.dtype() == ScalarType::Float64)
    with_index(double{});
  else
    with_index(float{});
}

template <class I, class F>
__global__ void elements_kernel(I n, F f) {
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<I>(gridDim.x) * blockDim.x) f(i);
}

template <class I, class F>
void launch_elements(int device, int64_t n, F f) {
  if (n <= 0) return;
  const int64_t blocks = std::min<int64_t>((n + kFlatThreads - 1) / kFlatThreads, 1 << 16);
  elements_kernel<I><<<static_cast<unsigned>(blocks), kFlatThreads, 0, stream_of(device)>>>(static_cast<I>(n), f);
  after_launch(device);
}

// Host arrays packed into one buffer and copied to `device` in one transfer; parts start at 8-byte boundaries.
class Upload {
 public:
  template <class T>
  int64_t add(const T* data, int64_t count) {
    const int64_t at = static_cast<int64_t>(bytes_.size());
    bytes_.resize(at + ((count * static_cast<int64_t>(sizeof(T)) + 7) / 8) * 8);
    if (count) std::memcpy(bytes_.data() + at, data, count * sizeof(T));
    return at;
  }
  Tensor to_device(Device d) const {
    const int64_t n = std::max<int64_t>(static_cast<int64_t>(bytes_.size()), 1);
    Tensor host = empty({{n}}, TensorOptions(ScalarType::UInt8));
    if (!bytes_.empty()) std::memcpy(host.data_ptr(), bytes_.data(), bytes_.size());
    return to(host, d);
  }

 private:
  std::vector<char> bytes_;
};

template <class T, class I>
void resample_typed(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  const int device = out.device().index;
  const I isz = static_cast<I>(in.size(1)), inner = static_cast<I>(in.size(2)), osz = static_cast<I>(taps.out_size);
  const I w = static_cast<I>(taps.width);
  const std::vector<T> weight(taps.weight.begin(), taps.weight.end());
  Upload up;
  const int64_t at_index = up.add(taps.index.data(), static_cast<int64_t>(taps.index.size()));
  const int64_t at_weight = up.add(weight.data(), static_cast<int64_t>(weight.size()));
  const Tensor dev_taps = up.to_device(out.device());
  const char* base = static_cast<const char*>(dev_taps.data_ptr());
  const int64_t* index = reinterpret_cast<const int64_t*>(base + at_index);
  const T* wt = reinterpret_cast<const T*>(base + at_weight);
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  launch_elements<I>(device, out.numel(), [=] __device__(I e) {
    const I j = e % inner, row = e / inner, o = row % osz, a = row / osz;
    const T* s = src + a * isz * inner + j;
    const int64_t* idx = index + o * w;
    const T* wo = wt + o * w;
    T acc = s[idx[0] * inner] * wo[0];
    for (I k = 1; k < w; ++k) acc += s[idx[k] * inner] * wo[k];
    dst[e] = acc;
  });
}

void resample(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  dispatch_spatial(out, in, [&](auto t, auto i) { resample_typed<decltype(t), decltype(i)>(out, in, taps); });
}

// The transposed map as a gather (adjoint_taps in index_plans.h).
template <class T, class I>
void resample_adjoint_typed(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  const int device = out.device().index;
  const int64_t isz = taps.in_size;
  const AdjointTaps<T> adj = adjoint_taps<T>(taps);
  Upload up;
  const int64_t at_first = up.add(adj.first.data(), isz + 1);
  const int64_t at_src = up.add(adj.output.data(), static_cast<int64_t>(adj.output.size()));
  const int64_t at_weight = up.add(adj.weight.data(), static_cast<int64_t>(adj.weight.size()));
  const Tensor dev_taps = up.to_device(out.device());
  const char* base = static_cast<const char*>(dev_taps.data_ptr());
  const int64_t* fp = reinterpret_cast<const int64_t*>(base + at_first);
  const int64_t* sp = reinterpret_cast<const int64_t*>(base + at_src);
  const T* wp = reinterpret_cast<const T*>(base + at_weight);
  const I osz = static_cast<I>(in.size(1)), inner = static_cast<I>(in.size(2)), isz_i = static_cast<I>(isz);
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  launch_elements<I>(device, out.numel(), [=] __device__(I e) {
    const I j = e % inner, row = e / inner, i = row % isz_i, a = row / isz_i;
    const T* s = src + a * osz * inner + j;
    T acc = T(0);
    for (int64_t q = fp[i]; q < fp[i + 1]; ++q) acc += s[static_cast<I>(sp[q]) * inner] * wp[q];
    dst[e] = acc;
  });
}

void resample_adjoint(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  dispatch_spatial(out, in, [&](auto t, auto i) { resample_adjoint_typed<decltype(t), decltype(i)>(out, in, taps); });
}

// The geometry in the kernels' index type.
template <class I>
struct Blocks {
  I kh, kw, dh, dw, ph, pw, sh, sw, height, width, out_h, out_w, channels;
  Blocks(const Im2ColArgs& a, int64_t c)
      : kh(a.kh), kw(a.kw), dh(a.dh), dw(a.dw), ph(a.ph), pw(a.pw), sh(a.sh), sw(a.sw), height(a.height),
        width(a.width), out_h(a.out_h), out_w(a.out_w), channels(c) {}
};

// cols [B, C * kh * kw, out_h * out_w]: one thread per element.
template <class T, class I>
void im2col_typed(const Tensor& cols, const Tensor& im, const Im2ColArgs& args) {
  const Blocks<I> b(args, im.size(1));
  const T* src = im.data<T>();
  T* dst = cols.data<T>();
  launch_elements<I>(cols.device().index, cols.numel(), [=] __device__(I e) {
    const I blocks = b.out_h * b.out_w, rows = b.channels * b.kh * b.kw;
    const I l = e % blocks, rest = e / blocks, row = rest % rows, n = rest / rows;
    const I kj = row % b.kw, ki = (row / b.kw) % b.kh, c = row / (b.kw * b.kh);
    const I y = (l / b.out_w) * b.sh - b.ph + ki * b.dh, x = (l % b.out_w) * b.sw - b.pw + kj * b.dw;
    const bool inside = y >= 0 && y < b.height && x >= 0 && x < b.width;
    dst[e] = inside ? src[((n * b.channels + c) * b.height + y) * b.width + x] : T(0);
  });
}

// im [B, C, height, width]: each pixel sums the block entries that read it, kernel taps in the CPU's order.
template <class T, class I>
void col2im_typed(const Tensor& im, const Tensor& cols, const Im2ColArgs& args) {
  const Blocks<I> b(args, im.size(1));
  const T* src = cols.data<T>();
  T* dst = im.data<T>();
  launch_elements<I>(im.device().index, im.numel(), [=] __device__(I e) {
    const I blocks = b.out_h * b.out_w, rows = b.channels * b.kh * b.kw;
    const I x = e % b.width, y = (e / b.width) % b.height, p = e / (b.width * b.height);
    const I c = p % b.channels, n = p / b.channels;
    const T* in = src + n * rows * blocks;
    T acc = T(0);
    for (I ki = 0; ki < b.kh; ++ki) {
      const I ty = y + b.ph - ki * b.dh;
      if (ty < 0 || ty % b.sh != 0 || ty / b.sh >= b.out_h) continue;
      for (I kj = 0; kj < b.kw; ++kj) {
        const I tx = x + b.pw - kj * b.dw;
        if (tx < 0 || tx % b.sw != 0 || tx / b.sw >= b.out_w) continue;
        acc += in[((c * b.kh + ki) * b.kw + kj) * blocks + (ty / b.sh) * b.out_w + tx / b.sw];
      }
    }
    dst[e] = acc;
  });
}

void im2col(const Tensor& cols, const Tensor& im, const Im2ColArgs& a) {
  dispatch_spatial(cols, im, [&](auto t, auto i) { im2col_typed<decltype(t), decltype(i)>(cols, im, a); });
}

void col2im(const Tensor& im, const Tensor& cols, const Im2ColArgs& a) {
  dispatch_spatial(im, cols, [&](auto t, auto i) { col2im_typed<decltype(t), decltype(i)>(im, cols, a); });
}

}  // namespace

EMBER_REGISTER_KERNEL(resample, CUDA, resample)
EMBER_REGISTER_KERNEL(resample_adjoint, CUDA, resample_adjoint)
EMBER_REGISTER_KERNEL(im2col, CUDA, im2col)
EMBER_REGISTER_KERNEL(col2im, CUDA, col2im)

}  // namespace ember::cuda
