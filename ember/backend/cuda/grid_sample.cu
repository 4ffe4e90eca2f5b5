// grid_sample's 2-d bilinear and nearest sampling on CUDA: one thread per output element, with the CPU kernel's
// coordinates and sums (backend/cpu/grid_sample.cpp).
#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/kernels/nn/grid_sample.h"

namespace ember::cuda {
namespace {

template <class T>
struct GridSampleFn {
  char* base;
  const T* in;
  const T* grid;
  GridSampleArgs a;
  int64_t c, h, w, ho, wo;
  int64_t is[4], gs[4];
  __device__ void operator()(char* const* p) const {
    int64_t k = (p[0] - base) / static_cast<int64_t>(sizeof(T));
    const int64_t x = k % wo, y = k / wo % ho, ch = k / (wo * ho) % c, n = k / (wo * ho * c);
    const T* gp = grid + n * gs[0] + y * gs[1] + x * gs[2];
    const T ix = grid_source(gp[0], w, a), iy = grid_source(gp[gs[3]], h, a);
    const T* plane = in + n * is[0] + ch * is[1];
    auto inside = [&](int64_t yy, int64_t xx) { return yy >= 0 && yy < h && xx >= 0 && xx < w; };
    auto value = [&](int64_t yy, int64_t xx) { return inside(yy, xx) ? plane[yy * is[2] + xx * is[3]] : T(0); };
    T r;
    if (a.mode == GridMode::Nearest) {
      r = value(grid_index(nearbyint(iy)), grid_index(nearbyint(ix)));
    } else {
      const T fx = floor(ix), fy = floor(iy);
      const int64_t x0 = grid_index(fx), y0 = grid_index(fy);
      const T dx1 = fx + T(1) - ix, dx0 = ix - fx, dy1 = fy + T(1) - iy, dy0 = iy - fy;
      r = value(y0, x0) * (dx1 * dy1) + value(y0, x0 + 1) * (dx0 * dy1) + value(y0 + 1, x0) * (dx1 * dy0) +
          value(y0 + 1, x0 + 1) * (dx0 * dy0);
    }
    *reinterpret_cast<T*>(p[0]) = r;
  }
};

void grid_sample_2d(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  if (out.numel() == 0) return;
  StridedIter it = StridedIter::make({&out}, out.sizes());
  DeviceGuard g(out.device().index);
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    GridSampleFn<T> f{static_cast<char*>(out.data_ptr()),
                      static_cast<const T*>(input.data_ptr()),
                      static_cast<const T*>(grid.data_ptr()),
                      a,
                      input.sizes()[1],
                      input.sizes()[2],
                      input.sizes()[3],
                      out.sizes()[2],
                      out.sizes()[3],
                      {},
                      {}};
    for (int d = 0; d < 4; ++d) f.is[d] = input.strides()[d], f.gs[d] = grid.strides()[d];
    launch_elementwise<1>(it, f);
  };
  if (out.dtype() == ScalarType::Float64)
    launch(double{});
  else
    launch(float{});
}

}  // namespace

EMBER_REGISTER_KERNEL(grid_sample_2d, CUDA, grid_sample_2d)

}  // namespace ember::cuda
