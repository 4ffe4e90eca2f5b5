// grid_sample's 2-d bilinear and nearest sampling on the CPU: each output position finds its source pixel(s) once and
// every channel reads them. The sums are PyTorch's (GridSamplerKernel.cpp): nw v + ne v + sw v + se v, a corner
// outside the image reading 0.
#include <algorithm>
#include <cmath>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/kernels/nn/grid_sample.h"

namespace ember::cpu {
namespace {

// Points are taken in blocks of kBlock along a row of the output: their source offsets and weights are found once,
// then every channel reads its plane at them and writes a contiguous run (channel by channel, so that the reads stay
// in one plane and the stores in one row).
constexpr int64_t kBlock = 64;

template <class T>
void sample(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2], w = input.sizes()[3];
  const int64_t ho = out.sizes()[2], wo = out.sizes()[3], points = ho * wo;
  const int64_t is0 = input.strides()[0], is1 = input.strides()[1], is2 = input.strides()[2], is3 = input.strides()[3];
  const int64_t gs0 = grid.strides()[0], gs1 = grid.strides()[1], gs2 = grid.strides()[2], gs3 = grid.strides()[3];
  const T* in = static_cast<const T*>(input.data_ptr());
  const T* g = static_cast<const T*>(grid.data_ptr());
  T* o = static_cast<T*>(out.data_ptr());
  const int64_t blocks = (points + kBlock - 1) / kBlock;
  const int corners = a.mode == GridMode::Nearest ? 1 : 4;
  parallel_for(0, n * blocks, std::max<int64_t>(1, kGrainSize / (kBlock * std::max<int64_t>(c, 1))),
               [&](int64_t b, int64_t e) {
                 int64_t off[4][kBlock];
                 T wt[4][kBlock];
                 bool ok[4][kBlock];
                 for (int64_t blk = b; blk < e; ++blk) {
                   const int64_t bn = blk / blocks, p0 = blk % blocks * kBlock, m = std::min(kBlock, points - p0);
                   for (int64_t j = 0; j < m; ++j) {
                     const int64_t p = p0 + j, y = p / wo, x = p % wo;
                     const T* gp = g + bn * gs0 + y * gs1 + x * gs2;
                     const T ix = grid_source(gp[0], w, a), iy = grid_source(gp[gs3], h, a);
                     auto corner = [&](int k, int64_t yy, int64_t xx, T weight) {
                       ok[k][j] = yy >= 0 && yy < h && xx >= 0 && xx < w;
                       off[k][j] = ok[k][j] ? yy * is2 + xx * is3 : 0;  // formed only inside the image
                       wt[k][j] = weight;
                     };
                     if (a.mode == GridMode::Nearest) {
                       corner(0, grid_index(std::nearbyint(iy)), grid_index(std::nearbyint(ix)), T(1));
                       continue;
                     }
                     const T fx = std::floor(ix), fy = std::floor(iy);
                     const int64_t x0 = grid_index(fx), y0 = grid_index(fy);
                     const T dx1 = fx + T(1) - ix, dx0 = ix - fx, dy1 = fy + T(1) - iy, dy0 = iy - fy;
                     corner(0, y0, x0, dx1 * dy1);
                     corner(1, y0, x0 + 1, dx0 * dy1);
                     corner(2, y0 + 1, x0, dx1 * dy0);
                     corner(3, y0 + 1, x0 + 1, dx0 * dy0);
                   }
                   for (int64_t ch = 0; ch < c; ++ch) {
                     const T* q = in + bn * is0 + ch * is1;
                     T* op = o + (bn * c + ch) * points + p0;
                     if (corners == 1) {
                       for (int64_t j = 0; j < m; ++j) op[j] = ok[0][j] ? q[off[0][j]] : T(0);
                       continue;
                     }
                     for (int64_t j = 0; j < m; ++j) {
                       T r = (ok[0][j] ? q[off[0][j]] : T(0)) * wt[0][j];
                       for (int k = 1; k < 4; ++k) r += (ok[k][j] ? q[off[k][j]] : T(0)) * wt[k][j];
                       op[j] = r;
                     }
                   }
                 }
               });
}

void grid_sample_2d(const Tensor& out, const Tensor& input, const Tensor& grid, const GridSampleArgs& a) {
  if (out.numel() == 0) return;
  if (out.dtype() == ScalarType::Float64)
    sample<double>(out, input, grid, a);
  else
    sample<float>(out, input, grid, a);
}

}  // namespace

EMBER_REGISTER_KERNEL(grid_sample_2d, CPU, grid_sample_2d)

}  // namespace ember::cpu
