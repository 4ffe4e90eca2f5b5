// RoI pooling and NMS on the CPU (ember/backend/kernels/vision.h), with torchvision's formulas in its evaluation
// order so that results agree with torchvision's to the last bit where the math allows; contracting the products
// into FMAs would change the rounding.
#pragma GCC optimize("fp-contract=off")

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "ember/backend/kernels/vision.h"
#include "ember/parallel.h"
#include "ember/sizes.h"

namespace ember::cpu {

namespace {

template <class F>
void dispatch_float(ScalarType t, F&& f) {
  if (t == ScalarType::Float64)
    f(double{});
  else
    f(float{});
}

int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work_per_item, 1));
}

// ---------------------------------------------------------------------------------------------- roi_align

// One bilinear sample: four positions in a plane and their weights. A point off the map reads position 0 with weight
// 0 in the forward pass (as torchvision's, so an inf there gives NaN) and is skipped by the backward pass.
template <class T>
struct Tap {
  int64_t pos[4] = {0, 0, 0, 0};
  T w[4] = {0, 0, 0, 0};
  bool on_map = false;
};

template <class T>
Tap<T> bilinear_tap(T y, T x, int64_t height, int64_t width) {
  Tap<T> t;
  // Written as !(in range) so that NaN coordinates take this branch too.
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

// Samples per bin side: sampling_ratio, or ceil(bin size) (0 for an empty, negative or non-finite box).
template <class T>
int64_t grid_size(T roi_size, int64_t pooled, int64_t sampling_ratio, const char* op) {
  if (sampling_ratio > 0) return sampling_ratio;
  const T n = std::ceil(roi_size / static_cast<T>(pooled));
  if (!(n > 0)) return 0;
  EMBER_CHECK(n < T(1 << 30), op, ": a box of size ", roi_size, " needs more than 2^30 sampling points per bin ",
              "side; pass a positive sampling_ratio");
  return static_cast<int64_t>(n);
}

// Where one box's bins sample: the forward and backward passes share it, so they stay each other's transpose.
template <class T>
struct AlignBox {
  int64_t batch = 0, grid_h = 0, grid_w = 0;
  T start_h = 0, start_w = 0, bin_h = 0, bin_w = 0, count = 1;

  AlignBox(const T* roi, const RoiArgs& a) {
    const T scale = static_cast<T>(a.spatial_scale);
    const T offset = a.aligned ? T(0.5) : T(0);
    batch = static_cast<int64_t>(roi[0]);
    start_w = roi[1] * scale - offset;
    start_h = roi[2] * scale - offset;
    T roi_w = roi[3] * scale - offset - start_w;
    T roi_h = roi[4] * scale - offset - start_h;
    if (!a.aligned) {  // the legacy rule: a malformed box becomes 1x1
      roi_w = std::max(roi_w, T(1));
      roi_h = std::max(roi_h, T(1));
    }
    bin_h = roi_h / static_cast<T>(a.pooled_h);
    bin_w = roi_w / static_cast<T>(a.pooled_w);
    const char* op = a.position_sensitive ? "ps_roi_align" : "roi_align";
    grid_h = grid_size(roi_h, a.pooled_h, a.sampling_ratio, op);
    grid_w = grid_size(roi_w, a.pooled_w, a.sampling_ratio, op);
    // A bin's samples are held at once: refuse what could not be (torchvision's int arithmetic overflows there).
    const int64_t samples = checked_mul(grid_h, grid_w, op, "the sampling points per bin");
    EMBER_CHECK(samples <= (int64_t(1) << 26), op, ": ", grid_h, " x ", grid_w,
                " sampling points per bin are more than 2^26; pass a smaller sampling_ratio");
    // torchvision divides roi_align's sums by at least 1 and ps_roi_align's by the sample count itself.
    count = static_cast<T>(a.position_sensitive ? grid_h * grid_w : std::max<int64_t>(grid_h * grid_w, 1));
  }

  // The samples of bin (ph, pw), in torchvision's order, into taps.
  void bin_taps(int64_t ph, int64_t pw, int64_t height, int64_t width, std::vector<Tap<T>>& taps) const {
    taps.clear();
    for (int64_t iy = 0; iy < grid_h; ++iy) {
      const T y = start_h + static_cast<T>(ph) * bin_h +
                  static_cast<T>(static_cast<float>(iy) + .5f) * bin_h / static_cast<T>(grid_h);
      for (int64_t ix = 0; ix < grid_w; ++ix) {
        const T x = start_w + static_cast<T>(pw) * bin_w +
                    static_cast<T>(static_cast<float>(ix) + .5f) * bin_w / static_cast<T>(grid_w);
        taps.push_back(bilinear_tap(y, x, height, width));
      }
    }
  }
};

struct Dims {
  int64_t channels, height, width, channels_out, ph, pw;
  Dims(const Tensor& input_like, const RoiArgs& a)
      : channels(input_like.size(1)), height(input_like.size(2)), width(input_like.size(3)),
        channels_out(a.position_sensitive ? channels / (a.pooled_h * a.pooled_w) : channels), ph(a.pooled_h),
        pw(a.pooled_w) {}
  // The input channel that output channel c's bin (i, j) reads.
  int64_t in_channel(bool ps, int64_t c, int64_t i, int64_t j) const { return ps ? (c * ph + i) * pw + j : c; }
};

// Per box: the samples of all its bins, then channel by channel (each channel's plane is read while it is in cache,
// torchvision's loop order; bins outside would walk all channels' planes per bin).
template <class T>
void roi_align_typed(const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  const Dims d(input, a);
  const int64_t k_rois = rois.size(0), plane = d.height * d.width, bins = d.ph * d.pw;
  const T* in = input.data<T>();
  const T* r = rois.data<T>();
  T* o = out.data<T>();
  parallel_for(0, k_rois, grain_for(d.channels_out * bins * 4), [&](int64_t b, int64_t e) {
    std::vector<Tap<T>> taps, bin;
    std::vector<size_t> first(static_cast<size_t>(bins) + 1);
    for (int64_t k = b; k < e; ++k) {
      const AlignBox<T> box(r + k * 5, a);
      taps.clear();
      for (int64_t q = 0; q < bins; ++q) {
        box.bin_taps(q / d.pw, q % d.pw, d.height, d.width, bin);
        first[q] = taps.size();
        taps.insert(taps.end(), bin.begin(), bin.end());
      }
      first[bins] = taps.size();
      for (int64_t c = 0; c < d.channels_out; ++c)
        for (int64_t q = 0; q < bins; ++q) {
          // in_channel(c, q / pw, q % pw), which is c * bins + q when position-sensitive, without the divisions.
          const T* p = in + (box.batch * d.channels + (a.position_sensitive ? c * bins + q : c)) * plane;
          T sum = 0;
          for (size_t s = first[q]; s < first[q + 1]; ++s) {
            const Tap<T>& t = taps[s];
            sum += t.w[0] * p[t.pos[0]] + t.w[1] * p[t.pos[1]] + t.w[2] * p[t.pos[2]] + t.w[3] * p[t.pos[3]];
          }
          o[(k * d.channels_out + c) * bins + q] = sum / box.count;
        }
    }
  });
}

// The scatter of the gradient, split by input channel (no two threads write one plane). Boxes are taken in blocks
// whose samples are computed once (in parallel over boxes) and then read by every channel.
template <class T>
void roi_align_backward_typed(const Tensor& grad_input, const Tensor& grad, const Tensor& rois, const RoiArgs& a) {
  const Dims d(grad_input, a);
  const int64_t k_rois = rois.size(0), plane = d.height * d.width, bins = d.ph * d.pw;
  const T* r = rois.data<T>();
  const T* g = grad.data<T>();
  T* gi = grad_input.data<T>();
  constexpr int64_t kTapBudget = int64_t(1) << 20;
  int64_t k0 = 0;
  while (k0 < k_rois) {
    // A block of boxes: their geometry, and the offset of each (box, bin)'s samples in `taps`.
    std::vector<AlignBox<T>> boxes;
    std::vector<int64_t> first{0};
    int64_t total = 0;
    for (int64_t k = k0; k < k_rois && (boxes.empty() || total < kTapBudget); ++k) {
      boxes.emplace_back(r + k * 5, a);
      const int64_t per_bin = boxes.back().grid_h * boxes.back().grid_w;
      for (int64_t q = 0; q < bins; ++q) first.push_back(total += per_bin);
    }
    const int64_t nb = static_cast<int64_t>(boxes.size());
    std::vector<Tap<T>> taps(static_cast<size_t>(total));
    parallel_for(0, nb, grain_for(bins * 16), [&](int64_t b, int64_t e) {
      std::vector<Tap<T>> bin;
      for (int64_t k = b; k < e; ++k)
        for (int64_t q = 0; q < bins; ++q) {
          boxes[k].bin_taps(q / d.pw, q % d.pw, d.height, d.width, bin);
          std::copy(bin.begin(), bin.end(), taps.begin() + first[k * bins + q]);
        }
    });
    const int64_t work = a.position_sensitive ? nb * 4 : nb * bins * 4;
    parallel_for(0, d.channels, grain_for(work), [&](int64_t cb, int64_t ce) {
      for (int64_t ci = cb; ci < ce; ++ci)
        for (int64_t k = 0; k < nb; ++k) {
          const AlignBox<T>& box = boxes[k];
          T* p = gi + (box.batch * d.channels + ci) * plane;
          // The bins of output channel c that read input channel ci: all of them, or one when position-sensitive.
          const int64_t c = a.position_sensitive ? ci / bins : ci;
          const int64_t q0 = a.position_sensitive ? ci % bins : 0, q1 = a.position_sensitive ? q0 + 1 : bins;
          for (int64_t q = q0; q < q1; ++q) {
            const T go = g[((k0 + k) * d.channels_out + c) * bins + q];
            for (int64_t s = first[k * bins + q]; s < first[k * bins + q + 1]; ++s) {
              const Tap<T>& t = taps[s];
              if (t.on_map)
                for (int u = 0; u < 4; ++u) p[t.pos[u]] += go * t.w[u] / box.count;
            }
          }
        }
    });
    k0 += nb;
  }
}

// ---------------------------------------------------------------------------------------------- roi_pool

// One box's integer bins (roi_pool, ps_roi_pool): the box rounded to the grid, each bin's pixel range.
template <class T>
struct PoolBox {
  int64_t batch, start_h, start_w;
  T bin_h, bin_w;
  // ps_roi_pool's box is [start, end) and clips to the last pixel; roi_pool's is [start, end] and clips to the edge.
  PoolBox(const T* roi, const RoiArgs& a) {
    const T scale = static_cast<T>(a.spatial_scale);
    const char* op = a.position_sensitive ? "ps_roi_pool" : "roi_pool";
    batch = static_cast<int64_t>(roi[0]);
    start_w = round_coord(roi[1] * scale, op);
    start_h = round_coord(roi[2] * scale, op);
    const int64_t end_w = round_coord(roi[3] * scale, op), end_h = round_coord(roi[4] * scale, op);
    const int64_t extra = a.position_sensitive ? 0 : 1;
    bin_h = static_cast<T>(std::max<int64_t>(end_h - start_h + extra, 1)) / static_cast<T>(a.pooled_h);
    bin_w = static_cast<T>(std::max<int64_t>(end_w - start_w + extra, 1)) / static_cast<T>(a.pooled_w);
  }
  // Rounded half away from zero (C's round), kept within int range so that the sums below cannot overflow.
  static int64_t round_coord(T v, const char* op) {
    EMBER_CHECK(std::isfinite(v) && std::abs(v) < T(1 << 30), op, ": box coordinate ", v,
                " (after spatial_scale) is not a finite number below 2^30");
    return static_cast<int64_t>(std::round(v));
  }
  // The pixel range [lo, hi) of bin i, clipped to [0, limit].
  static void range(int64_t i, T bin, int64_t start, int64_t limit, int64_t& lo, int64_t& hi) {
    lo = static_cast<int64_t>(std::floor(static_cast<T>(i) * bin));
    hi = static_cast<int64_t>(std::ceil(static_cast<T>(i + 1) * bin));
    lo = std::min(std::max(lo + start, int64_t(0)), limit);
    hi = std::min(std::max(hi + start, int64_t(0)), limit);
  }
};

template <class T>
void roi_pool_typed(const Tensor& out, const Tensor& argmax, const Tensor& input, const Tensor& rois,
                    const RoiArgs& a) {
  const Dims d(input, a);
  const int64_t plane = d.height * d.width;
  const T* in = input.data<T>();
  const T* r = rois.data<T>();
  T* o = out.data<T>();
  int64_t* am = argmax.data<int64_t>();
  parallel_for(0, rois.size(0), grain_for(d.channels * d.ph * d.pw * 4), [&](int64_t b, int64_t e) {
    std::vector<int64_t> hs(2 * d.ph), ws(2 * d.pw);  // each bin row's and column's pixel range
    for (int64_t k = b; k < e; ++k) {
      const PoolBox<T> box(r + k * 5, a);
      for (int64_t i = 0; i < d.ph; ++i)
        PoolBox<T>::range(i, box.bin_h, box.start_h, d.height, hs[2 * i], hs[2 * i + 1]);
      for (int64_t j = 0; j < d.pw; ++j)
        PoolBox<T>::range(j, box.bin_w, box.start_w, d.width, ws[2 * j], ws[2 * j + 1]);
      for (int64_t c = 0; c < d.channels; ++c) {  // channel by channel, as roi_align (the plane stays in cache)
        const int64_t base = (box.batch * d.channels + c) * plane;
        for (int64_t i = 0; i < d.ph; ++i)
          for (int64_t j = 0; j < d.pw; ++j) {
            const int64_t h0 = hs[2 * i], h1 = hs[2 * i + 1], w0 = ws[2 * j], w1 = ws[2 * j + 1];
            T best = h1 <= h0 || w1 <= w0 ? T(0) : static_cast<T>(-FLT_MAX);  // torchvision's start, also float64
            int64_t where = -1;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w)
                if (in[base + h * d.width + w] > best) {
                  best = in[base + h * d.width + w];
                  where = base + h * d.width + w;
                }
            const int64_t idx = ((k * d.channels + c) * d.ph + i) * d.pw + j;
            o[idx] = best;
            am[idx] = where;
          }
      }
    }
  });
}

// ps_roi_pool's bin (i, j) of box: the pixel ranges and the area (0 when empty).
template <class T>
T ps_bin(const PoolBox<T>& box, const Dims& d, int64_t i, int64_t j, int64_t* h0, int64_t* h1, int64_t* w0,
         int64_t* w1) {
  PoolBox<T>::range(i, box.bin_h, box.start_h, d.height - 1, *h0, *h1);
  PoolBox<T>::range(j, box.bin_w, box.start_w, d.width - 1, *w0, *w1);
  return *h1 <= *h0 || *w1 <= *w0 ? T(0) : static_cast<T>((*h1 - *h0) * (*w1 - *w0));
}

template <class T>
void ps_roi_pool_typed(const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  const Dims d(input, a);
  const int64_t plane = d.height * d.width;
  const T* in = input.data<T>();
  const T* r = rois.data<T>();
  T* o = out.data<T>();
  parallel_for(0, rois.size(0), grain_for(d.channels * 4), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const PoolBox<T> box(r + k * 5, a);
      for (int64_t c = 0; c < d.channels_out; ++c)
        for (int64_t i = 0; i < d.ph; ++i)
          for (int64_t j = 0; j < d.pw; ++j) {
            int64_t h0, h1, w0, w1;
            const T area = ps_bin(box, d, i, j, &h0, &h1, &w0, &w1);
            const T* p = in + (box.batch * d.channels + d.in_channel(true, c, i, j)) * plane;
            T sum = 0;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) sum += p[h * d.width + w];
            o[((k * d.channels_out + c) * d.ph + i) * d.pw + j] = area == T(0) ? T(0) : sum / area;
          }
    }
  });
}

template <class T>
void ps_roi_pool_backward_typed(const Tensor& grad_input, const Tensor& grad, const Tensor& rois, const RoiArgs& a) {
  const Dims d(grad_input, a);
  const int64_t plane = d.height * d.width, bins = d.ph * d.pw, k_rois = rois.size(0);
  const T* r = rois.data<T>();
  const T* g = grad.data<T>();
  T* gi = grad_input.data<T>();
  parallel_for(0, d.channels, grain_for(k_rois * 4), [&](int64_t cb, int64_t ce) {
    for (int64_t ci = cb; ci < ce; ++ci)
      for (int64_t k = 0; k < k_rois; ++k) {
        const PoolBox<T> box(r + k * 5, a);
        const int64_t c = ci / bins, i = ci % bins / d.pw, j = ci % d.pw;
        int64_t h0, h1, w0, w1;
        const T area = ps_bin(box, d, i, j, &h0, &h1, &w0, &w1);
        if (area == T(0)) continue;
        const T v = g[((k * d.channels_out + c) * d.ph + i) * d.pw + j] / area;
        T* p = gi + (box.batch * d.channels + ci) * plane;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) p[h * d.width + w] += v;
      }
  });
}

// ---------------------------------------------------------------------------------------------- nms

template <class T>
void nms_typed(std::vector<int64_t>& keep, const Tensor& boxes, const Tensor& order, double iou_threshold) {
  const int64_t m = boxes.size(0);
  const T* b = boxes.data<T>();
  const int64_t* ord = order.data<int64_t>();
  std::vector<T> area(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) area[i] = (b[i * 4 + 2] - b[i * 4]) * (b[i * 4 + 3] - b[i * 4 + 1]);
  std::vector<uint8_t> suppressed(static_cast<size_t>(m), 0);
  for (int64_t oi = 0; oi < m; ++oi) {
    const int64_t i = ord[oi];
    if (suppressed[i]) continue;
    keep.push_back(i);
    const T* bi = b + i * 4;
    for (int64_t oj = oi + 1; oj < m; ++oj) {
      const int64_t j = ord[oj];
      if (suppressed[j]) continue;
      const T* bj = b + j * 4;
      const T w = std::max(T(0), std::min(bi[2], bj[2]) - std::max(bi[0], bj[0]));
      const T h = std::max(T(0), std::min(bi[3], bj[3]) - std::max(bi[1], bj[1]));
      const T inter = w * h;
      const T iou = inter / (area[i] + area[j] - inter);
      if (iou > iou_threshold) suppressed[j] = 1;
    }
  }
}

void roi_align_cpu(const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  dispatch_float(input.dtype(), [&](auto tag) { roi_align_typed<decltype(tag)>(out, input, rois, a); });
}
void roi_align_backward_cpu(const Tensor& grad_input, const Tensor& grad, const Tensor& rois, const RoiArgs& a) {
  dispatch_float(grad.dtype(), [&](auto tag) { roi_align_backward_typed<decltype(tag)>(grad_input, grad, rois, a); });
}
void ps_roi_pool_cpu(const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  dispatch_float(input.dtype(), [&](auto tag) { ps_roi_pool_typed<decltype(tag)>(out, input, rois, a); });
}
void ps_roi_pool_backward_cpu(const Tensor& grad_input, const Tensor& grad, const Tensor& rois, const RoiArgs& a) {
  dispatch_float(grad.dtype(), [&](auto tag) { ps_roi_pool_backward_typed<decltype(tag)>(grad_input, grad, rois, a); });
}
void roi_pool_cpu(const Tensor& out, const Tensor& argmax, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  dispatch_float(input.dtype(), [&](auto tag) { roi_pool_typed<decltype(tag)>(out, argmax, input, rois, a); });
}
void nms_cpu(std::vector<int64_t>& keep, const Tensor& boxes, const Tensor& order, double iou_threshold) {
  dispatch_float(boxes.dtype(), [&](auto tag) { nms_typed<decltype(tag)>(keep, boxes, order, iou_threshold); });
}

}  // namespace

EMBER_REGISTER_KERNEL(roi_align, CPU, roi_align_cpu)
EMBER_REGISTER_KERNEL(roi_align_backward, CPU, roi_align_backward_cpu)
EMBER_REGISTER_KERNEL(ps_roi_pool, CPU, ps_roi_pool_cpu)
EMBER_REGISTER_KERNEL(ps_roi_pool_backward, CPU, ps_roi_pool_backward_cpu)
EMBER_REGISTER_KERNEL(roi_pool, CPU, roi_pool_cpu)
EMBER_REGISTER_KERNEL(nms, CPU, nms_cpu)

}  // namespace ember::cpu
