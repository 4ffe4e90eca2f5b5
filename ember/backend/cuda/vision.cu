// RoI pooling and NMS on CUDA (ember/backend/kernels/vision.h; CPU reference ember/backend/cpu/vision.cpp), with the
// CPU kernels' formulas in their evaluation order. This file is compiled with --fmad=false (CMakeLists.txt), as the
// CPU file is with fp-contract=off, so that every forward value and every NMS decision is the CPU's to the last bit;
// the backward passes add with atomics, whose order varies (Note [Deterministic algorithms]).
//
// Note [CUDA NMS masks]
// Greedy NMS is sequential, but its O(M^2) IoU tests are not. Boxes are taken in score order (position p is box
// order[p]) and cut into tiles of 64. Block (row tile r, column tile c >= r) has one thread per box i of tile r, which
// tests it against every later box j of tile c and sets bit j % 64 of the word mask[i][c] when IoU(i, j) is above the
// threshold. The host then walks positions in order with a bitmask of the removed ones: a position not removed is
// kept and ORs its mask row in. That is the CPU's greedy pass exactly, since a box only suppresses later boxes and
// only kept boxes suppress. The masks are M * ceil(M / 64) words (2 MB for M = 4096).
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <vector>

#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/kernels/vision.h"
#include "ember/cuda.h"
#include "ember/determinism.h"
#include "ember/ops.h"
#include "ember/sizes.h"

namespace ember::cuda {

namespace {

constexpr int kThreads = 256;

cudaStream_t stream_of(int device) { return static_cast<cudaStream_t>(current_stream(device).handle); }

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65536));
}

#define EMBER_GRID_LOOP(i, n)                                                            \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// std::min / std::max's exact semantics (fmin/fmax treat NaN differently).
template <class T>
__device__ __forceinline__ T std_min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
__device__ __forceinline__ T std_max(T a, T b) {
  return a < b ? b : a;
}

// The device-side messages (host string literals, Note [Deferred device errors]); index: the box.
const char* const kAlignGridMsg =
    "roi_align: a box needs more than 2^30 sampling points per bin side or 2^26 per bin; pass a smaller positive "
    "sampling_ratio";
const char* const kPsAlignGridMsg =
    "ps_roi_align: a box needs more than 2^30 sampling points per bin side or 2^26 per bin; pass a smaller positive "
    "sampling_ratio";
const char* const kPoolCoordMsg = "roi_pool: a box coordinate (after spatial_scale) is not a finite number below 2^30";
const char* const kPsPoolCoordMsg =
    "ps_roi_pool: a box coordinate (after spatial_scale) is not a finite number below 2^30";

// The shapes both passes share: as Dims in the CPU file.
struct Geometry {
  int64_t k_rois, channels, height, width, channels_out, ph, pw;
  bool ps;
  Geometry(int64_t k, const Tensor& input_like, const RoiArgs& a)
      : k_rois(k), channels(input_like.size(1)), height(input_like.size(2)), width(input_like.size(3)),
        channels_out(a.position_sensitive ? channels / (a.pooled_h * a.pooled_w) : channels), ph(a.pooled_h),
        pw(a.pooled_w), ps(a.position_sensitive) {}
  __device__ int64_t in_channel(int64_t c, int64_t i, int64_t j) const { return ps ? (c * ph + i) * pw + j : c; }
};

// ---------------------------------------------------------------------------------------------- roi_align

template <class T>
struct Tap {
  int64_t pos[4];
  T w[4];
  bool on_map;
};

template <class T>
__device__ Tap<T> bilinear_tap(T y, T x, int64_t height, int64_t width) {
  Tap<T> t{{0, 0, 0, 0}, {0, 0, 0, 0}, false};
  if (!(y >= T(-1) && y <= T(height) && x >= T(-1) && x <= T(width))) return t;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<T>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<T>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const T ly = y - static_cast<T>(y_low), lx = x - static_cast<T>(x_low);
  const T hy = T(1) - ly, hx = T(1) - lx;
  t.pos[0] = y_low * width + x_low;
  t.pos[1] = y_low * width + x_high;
  t.pos[2] = y_high * width + x_low;
  t.pos[3] = y_high * width + x_high;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  t.on_map = true;
  return t;
}

// Samples per bin side (as grid_size on the CPU); -1 where the CPU would refuse the box.
template <class T>
__device__ int64_t grid_size(T roi_size, int64_t pooled, int64_t sampling_ratio) {
  if (sampling_ratio > 0) return sampling_ratio;
  const T n = ::ceil(roi_size / static_cast<T>(pooled));
  if (!(n > 0)) return 0;
  if (!(n < T(1 << 30))) return -1;
  return static_cast<int64_t>(n);
}

template <class T>
struct AlignBox {
  int64_t batch, grid_h, grid_w;
  T start_h, start_w, bin_h, bin_w, count;
  bool ok;

  __device__ AlignBox(const T* roi, const RoiArgs& a) {
    const T scale = static_cast<T>(a.spatial_scale);
    const T offset = a.aligned ? T(0.5) : T(0);
    batch = static_cast<int64_t>(roi[0]);
    start_w = roi[1] * scale - offset;
    start_h = roi[2] * scale - offset;
    T roi_w = roi[3] * scale - offset - start_w;
    T roi_h = roi[4] * scale - offset - start_h;
    if (!a.aligned) {
      roi_w = std_max(roi_w, T(1));
      roi_h = std_max(roi_h, T(1));
    }
    bin_h = roi_h / static_cast<T>(a.pooled_h);
    bin_w = roi_w / static_cast<T>(a.pooled_w);
    grid_h = grid_size(roi_h, a.pooled_h, a.sampling_ratio);
    grid_w = grid_size(roi_w, a.pooled_w, a.sampling_ratio);
    ok = grid_h >= 0 && grid_w >= 0 && (grid_h == 0 || grid_w <= (int64_t(1) << 26) / grid_h);
    if (!ok) grid_h = grid_w = 0;
    count = static_cast<T>(a.position_sensitive ? grid_h * grid_w : std::max<int64_t>(grid_h * grid_w, 1));
  }

  __device__ T sample_y(int64_t ph, int64_t iy) const {
    return start_h + static_cast<T>(ph) * bin_h +
           static_cast<T>(static_cast<float>(iy) + .5f) * bin_h / static_cast<T>(grid_h);
  }
  __device__ T sample_x(int64_t pw, int64_t ix) const {
    return start_w + static_cast<T>(pw) * bin_w +
           static_cast<T>(static_cast<float>(ix) + .5f) * bin_w / static_cast<T>(grid_w);
  }
};

// One thread per output element (k, c, ph, pw).
template <class T>
__global__ void roi_align_kernel(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ rois, Geometry g,
                                 RoiArgs a, DeviceErrorReport* report, const char* msg) {
  const int64_t total = g.k_rois * g.channels_out * g.ph * g.pw;
  EMBER_GRID_LOOP(idx, total) {
    const int64_t pw = idx % g.pw, ph = idx / g.pw % g.ph, c = idx / (g.pw * g.ph) % g.channels_out;
    const int64_t k = idx / (g.pw * g.ph * g.channels_out);
    const AlignBox<T> box(rois + k * 5, a);
    if (!box.ok && c == 0 && ph == 0 && pw == 0) report_error(report, kInvalidParameter, msg, k, 0, 0);
    const T* p = in + (box.batch * g.channels + g.in_channel(c, ph, pw)) * g.height * g.width;
    T sum = 0;
    for (int64_t iy = 0; iy < box.grid_h; ++iy) {
      const T y = box.sample_y(ph, iy);
      for (int64_t ix = 0; ix < box.grid_w; ++ix) {
        const Tap<T> t = bilinear_tap(y, box.sample_x(pw, ix), g.height, g.width);
        sum += t.w[0] * p[t.pos[0]] + t.w[1] * p[t.pos[1]] + t.w[2] * p[t.pos[2]] + t.w[3] * p[t.pos[3]];
      }
    }
    out[idx] = sum / box.count;
  }
}

// One thread per gradient element, scattered with atomics (boxes of one image overlap).
template <class T>
__global__ void roi_align_backward_kernel(T* __restrict__ grad_input, const T* __restrict__ grad,
                                          const T* __restrict__ rois, Geometry g, RoiArgs a, DeviceErrorReport* report,
                                          const char* msg) {
  const int64_t total = g.k_rois * g.channels_out * g.ph * g.pw;
  EMBER_GRID_LOOP(idx, total) {
    const int64_t pw = idx % g.pw, ph = idx / g.pw % g.ph, c = idx / (g.pw * g.ph) % g.channels_out;
    const int64_t k = idx / (g.pw * g.ph * g.channels_out);
    const AlignBox<T> box(rois + k * 5, a);
    if (!box.ok && c == 0 && ph == 0 && pw == 0) report_error(report, kInvalidParameter, msg, k, 0, 0);
    T* p = grad_input + (box.batch * g.channels + g.in_channel(c, ph, pw)) * g.height * g.width;
    const T go = grad[idx];
    for (int64_t iy = 0; iy < box.grid_h; ++iy) {
      const T y = box.sample_y(ph, iy);
      for (int64_t ix = 0; ix < box.grid_w; ++ix) {
        const Tap<T> t = bilinear_tap(y, box.sample_x(pw, ix), g.height, g.width);
        if (!t.on_map) continue;
        for (int u = 0; u < 4; ++u) atomicAdd(p + t.pos[u], go * t.w[u] / box.count);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------- roi_pool

template <class T>
struct PoolBox {
  int64_t batch, start_h, start_w;
  T bin_h, bin_w;
  bool ok;

  __device__ PoolBox(const T* roi, const RoiArgs& a) : ok(true) {
    const T scale = static_cast<T>(a.spatial_scale);
    batch = static_cast<int64_t>(roi[0]);
    start_w = round_coord(roi[1] * scale);
    start_h = round_coord(roi[2] * scale);
    const int64_t end_w = round_coord(roi[3] * scale), end_h = round_coord(roi[4] * scale);
    const int64_t extra = a.position_sensitive ? 0 : 1;
    bin_h = static_cast<T>(std::max<int64_t>(end_h - start_h + extra, 1)) / static_cast<T>(a.pooled_h);
    bin_w = static_cast<T>(std::max<int64_t>(end_w - start_w + extra, 1)) / static_cast<T>(a.pooled_w);
  }
  __device__ int64_t round_coord(T v) {
    if (!(::isfinite(v) && ::fabs(v) < T(1 << 30))) {
      ok = false;
      return 0;
    }
    return static_cast<int64_t>(::round(v));
  }
  __device__ static void range(int64_t i, T bin, int64_t start, int64_t limit, int64_t& lo, int64_t& hi) {
    lo = static_cast<int64_t>(::floor(static_cast<T>(i) * bin));
    hi = static_cast<int64_t>(::ceil(static_cast<T>(i + 1) * bin));
    lo = std::min(std::max(lo + start, int64_t(0)), limit);
    hi = std::min(std::max(hi + start, int64_t(0)), limit);
  }
};

template <class T>
__global__ void roi_pool_kernel(T* __restrict__ out, int64_t* __restrict__ argmax, const T* __restrict__ in,
                                const T* __restrict__ rois, Geometry g, RoiArgs a, DeviceErrorReport* report,
                                const char* msg) {
  const int64_t total = g.k_rois * g.channels * g.ph * g.pw;
  EMBER_GRID_LOOP(idx, total) {
    const int64_t j = idx % g.pw, i = idx / g.pw % g.ph, c = idx / (g.pw * g.ph) % g.channels;
    const int64_t k = idx / (g.pw * g.ph * g.channels);
    const PoolBox<T> box(rois + k * 5, a);
    if (!box.ok && c == 0 && i == 0 && j == 0) report_error(report, kInvalidParameter, msg, k, 0, 0);
    int64_t h0, h1, w0, w1;
    PoolBox<T>::range(i, box.bin_h, box.start_h, g.height, h0, h1);
    PoolBox<T>::range(j, box.bin_w, box.start_w, g.width, w0, w1);
    const int64_t base = (box.batch * g.channels + c) * g.height * g.width;
    T best = h1 <= h0 || w1 <= w0 ? T(0) : static_cast<T>(-FLT_MAX);  // as the CPU, also float64
    int64_t where = -1;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) {
        const T v = in[base + h * g.width + w];
        if (v > best) {
          best = v;
          where = base + h * g.width + w;
        }
      }
    out[idx] = best;
    argmax[idx] = where;
  }
}

// ps_roi_pool's bin (i, j): the pixel ranges and the area (0 when empty).
template <class T>
__device__ T ps_bin(const PoolBox<T>& box, const Geometry& g, int64_t i, int64_t j, int64_t& h0, int64_t& h1,
                    int64_t& w0, int64_t& w1) {
  PoolBox<T>::range(i, box.bin_h, box.start_h, g.height - 1, h0, h1);
  PoolBox<T>::range(j, box.bin_w, box.start_w, g.width - 1, w0, w1);
  return h1 <= h0 || w1 <= w0 ? T(0) : static_cast<T>((h1 - h0) * (w1 - w0));
}

template <class T>
__global__ void ps_roi_pool_kernel(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ rois,
                                   Geometry g, RoiArgs a, DeviceErrorReport* report, const char* msg) {
  const int64_t total = g.k_rois * g.channels_out * g.ph * g.pw;
  EMBER_GRID_LOOP(idx, total) {
    const int64_t j = idx % g.pw, i = idx / g.pw % g.ph, c = idx / (g.pw * g.ph) % g.channels_out;
    const int64_t k = idx / (g.pw * g.ph * g.channels_out);
    const PoolBox<T> box(rois + k * 5, a);
    if (!box.ok && c == 0 && i == 0 && j == 0) report_error(report, kInvalidParameter, msg, k, 0, 0);
    int64_t h0, h1, w0, w1;
    const T area = ps_bin(box, g, i, j, h0, h1, w0, w1);
    const T* p = in + (box.batch * g.channels + g.in_channel(c, i, j)) * g.height * g.width;
    T sum = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) sum += p[h * g.width + w];
    out[idx] = area == T(0) ? T(0) : sum / area;
  }
}

template <class T>
__global__ void ps_roi_pool_backward_kernel(T* __restrict__ grad_input, const T* __restrict__ grad,
                                            const T* __restrict__ rois, Geometry g, RoiArgs a,
                                            DeviceErrorReport* report, const char* msg) {
  const int64_t total = g.k_rois * g.channels_out * g.ph * g.pw;
  EMBER_GRID_LOOP(idx, total) {
    const int64_t j = idx % g.pw, i = idx / g.pw % g.ph, c = idx / (g.pw * g.ph) % g.channels_out;
    const int64_t k = idx / (g.pw * g.ph * g.channels_out);
    const PoolBox<T> box(rois + k * 5, a);
    if (!box.ok && c == 0 && i == 0 && j == 0) report_error(report, kInvalidParameter, msg, k, 0, 0);
    int64_t h0, h1, w0, w1;
    const T area = ps_bin(box, g, i, j, h0, h1, w0, w1);
    if (area == T(0)) continue;
    const T v = grad[idx] / area;
    T* p = grad_input + (box.batch * g.channels + g.in_channel(c, i, j)) * g.height * g.width;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) atomicAdd(p + h * g.width + w, v);
  }
}

// ---------------------------------------------------------------------------------------------- nms

constexpr int kTile = 64;

// Note [CUDA NMS masks]: block (c, r) fills mask[i][c] for the boxes i of row tile r.
template <class T>
__global__ void nms_mask_kernel(uint64_t* __restrict__ mask, const T* __restrict__ boxes,
                                const int64_t* __restrict__ order, int64_t m, int64_t tiles, double threshold) {
  const int64_t row = blockIdx.y, col = blockIdx.x;
  if (col < row) return;
  __shared__ T cb[kTile][4];
  __shared__ T carea[kTile];
  const int64_t j0 = col * kTile, ncol = std::min<int64_t>(kTile, m - j0);
  if (threadIdx.x < ncol) {
    const T* b = boxes + order[j0 + threadIdx.x] * 4;
    for (int u = 0; u < 4; ++u) cb[threadIdx.x][u] = b[u];
    carea[threadIdx.x] = (b[2] - b[0]) * (b[3] - b[1]);
  }
  __syncthreads();
  const int64_t i = row * kTile + threadIdx.x;
  if (i >= m) return;
  const T* bi = boxes + order[i] * 4;
  const T area_i = (bi[2] - bi[0]) * (bi[3] - bi[1]);
  uint64_t bits = 0;
  for (int64_t t = (col == row ? threadIdx.x + 1 : 0); t < ncol; ++t) {
    const T w = std_max(T(0), std_min(bi[2], cb[t][2]) - std_max(bi[0], cb[t][0]));
    const T h = std_max(T(0), std_min(bi[3], cb[t][3]) - std_max(bi[1], cb[t][1]));
    const T inter = w * h;
    const T iou = inter / (area_i + carea[t] - inter);
    if (static_cast<double>(iou) > threshold) bits |= uint64_t(1) << t;
  }
  mask[i * tiles + col] = bits;
}

// ---------------------------------------------------------------------------------------------- host side

template <class F>
void dispatch_float(ScalarType t, const char* op, F&& f) {
  if (t == ScalarType::Float32)
    f(float());
  else if (t == ScalarType::Float64)
    f(double());
  else
    fail<TypeError>(op, ": the CUDA kernel takes float32 or float64, got ", t);
}

template <class T>
const T* cptr(const Tensor& t) {
  return static_cast<const T*>(t.data_ptr());
}
template <class T>
T* mptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

void roi_align_cuda(const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  if (out.numel() == 0) return;
  const int device = out.device().index;
  DeviceGuard guard(device);
  const Geometry g(rois.size(0), input, a);
  const char* msg = a.position_sensitive ? kPsAlignGridMsg : kAlignGridMsg;
  dispatch_float(input.dtype(), "roi_align", [&](auto tag) {
    using T = decltype(tag);
    roi_align_kernel<T><<<blocks_for(out.numel()), kThreads, 0, stream_of(device)>>>(
        mptr<T>(out), cptr<T>(input), cptr<T>(rois), g, a, device_error_slot(device), msg);
    after_launch(device);
  });
}

void roi_align_backward_cuda(const Tensor& grad_input, const Tensor& grad, const Tensor& rois, const RoiArgs& a) {
  if (grad.numel() == 0) return;
  const int device = grad_input.device().index;
  DeviceGuard guard(device);
  alert_not_deterministic(a.position_sensitive ? "ps_roi_align_backward on CUDA" : "roi_align_backward on CUDA");
  const Geometry g(rois.size(0), grad_input, a);
  const char* msg = a.position_sensitive ? kPsAlignGridMsg : kAlignGridMsg;
  dispatch_float(grad.dtype(), "roi_align_backward", [&](auto tag) {
    using T = decltype(tag);
    roi_align_backward_kernel<T><<<blocks_for(grad.numel()), kThreads, 0, stream_of(device)>>>(
        mptr<T>(grad_input), cptr<T>(grad), cptr<T>(rois), g, a, device_error_slot(device), msg);
    after_launch(device);
  });
}

void ps_roi_pool_cuda(const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  if (out.numel() == 0) return;
  const int device = out.device().index;
  DeviceGuard guard(device);
  const Geometry g(rois.size(0), input, a);
  dispatch_float(input.dtype(), "ps_roi_pool", [&](auto tag) {
    using T = decltype(tag);
    ps_roi_pool_kernel<T><<<blocks_for(out.numel()), kThreads, 0, stream_of(device)>>>(
        mptr<T>(out), cptr<T>(input), cptr<T>(rois), g, a, device_error_slot(device), kPsPoolCoordMsg);
    after_launch(device);
  });
}

void ps_roi_pool_backward_cuda(const Tensor& grad_input, const Tensor& grad, const Tensor& rois, const RoiArgs& a) {
  if (grad.numel() == 0) return;
  const int device = grad_input.device().index;
  DeviceGuard guard(device);
  alert_not_deterministic("ps_roi_pool_backward on CUDA");
  const Geometry g(rois.size(0), grad_input, a);
  dispatch_float(grad.dtype(), "ps_roi_pool_backward", [&](auto tag) {
    using T = decltype(tag);
    ps_roi_pool_backward_kernel<T><<<blocks_for(grad.numel()), kThreads, 0, stream_of(device)>>>(
        mptr<T>(grad_input), cptr<T>(grad), cptr<T>(rois), g, a, device_error_slot(device), kPsPoolCoordMsg);
    after_launch(device);
  });
}

void roi_pool_cuda(const Tensor& out, const Tensor& argmax, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  if (out.numel() == 0) return;
  const int device = out.device().index;
  DeviceGuard guard(device);
  const Geometry g(rois.size(0), input, a);
  dispatch_float(input.dtype(), "roi_pool", [&](auto tag) {
    using T = decltype(tag);
    roi_pool_kernel<T><<<blocks_for(out.numel()), kThreads, 0, stream_of(device)>>>(
        mptr<T>(out), mptr<int64_t>(argmax), cptr<T>(input), cptr<T>(rois), g, a, device_error_slot(device),
        kPoolCoordMsg);
    after_launch(device);
  });
}

void nms_cuda(std::vector<int64_t>& keep, const Tensor& boxes, const Tensor& order, double iou_threshold) {
  const int64_t m = boxes.size(0);
  if (m == 0) return;
  const int device = boxes.device().index;
  DeviceGuard guard(device);
  const int64_t tiles = (m + kTile - 1) / kTile;
  EMBER_CHECK(tiles <= 65535, "nms: ", m, " boxes are more than the CUDA kernel's limit of ", int64_t(65535) * kTile);
  const int64_t words = checked_mul(m, tiles, "nms", "the suppression masks");
  Tensor mask = empty({{words}}, TensorOptions(ScalarType::Int64).device(boxes.device()));
  dispatch_float(boxes.dtype(), "nms", [&](auto tag) {
    using T = decltype(tag);
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(tiles));
    nms_mask_kernel<T><<<grid, kTile, 0, stream_of(device)>>>(mptr<uint64_t>(mask), cptr<T>(boxes),
                                                              cptr<int64_t>(order), m, tiles, iou_threshold);
    after_launch(device);
  });
  std::vector<uint64_t> host(static_cast<size_t>(words));
  std::vector<int64_t> ord(static_cast<size_t>(m));
  cuda::memcpy(host.data(), mask.data_ptr(), words * sizeof(uint64_t), CopyKind::DeviceToHost, device);
  cuda::memcpy(ord.data(), order.data_ptr(), m * sizeof(int64_t), CopyKind::DeviceToHost, device);
  std::vector<uint64_t> removed(static_cast<size_t>(tiles), 0);
  for (int64_t p = 0; p < m; ++p) {
    if (removed[p / kTile] >> (p % kTile) & 1) continue;
    keep.push_back(ord[p]);
    const uint64_t* row = host.data() + p * tiles;
    for (int64_t c = p / kTile; c < tiles; ++c) removed[c] |= row[c];
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(roi_align, CUDA, roi_align_cuda)
EMBER_REGISTER_KERNEL(roi_align_backward, CUDA, roi_align_backward_cuda)
EMBER_REGISTER_KERNEL(ps_roi_pool, CUDA, ps_roi_pool_cuda)
EMBER_REGISTER_KERNEL(ps_roi_pool_backward, CUDA, ps_roi_pool_backward_cuda)
EMBER_REGISTER_KERNEL(roi_pool, CUDA, roi_pool_cuda)
EMBER_REGISTER_KERNEL(nms, CUDA, nms_cuda)

}  // namespace ember::cuda
