// CPU kernels of the spatial ops: separable resampling (Note [Separable resampling] in
// ember/backend/kernels/nn/spatial.h) and im2col/col2im. Both come in adjoint pairs; the *_adjoint/col2im halves
// accumulate, so each parallel task owns whole output planes.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/backend/cpu/float_kernels.h"
#include "ember/backend/kernels/nn/spatial.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

// Width is the taps per output when known at compile time (1, 2, 4: nearest, linear, cubic), else 0.
template <class T, int64_t Width>
void resample_typed(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  const int64_t outer = in.size(0), isz = in.size(1), inner = in.size(2), osz = taps.out_size;
  const int64_t w = Width ? Width : taps.width;
  const std::vector<T> weight(taps.weight.begin(), taps.weight.end());
  const int64_t* index = taps.index.data();
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  parallel_for(0, outer * osz, grain_for(inner * w), [&](int64_t b, int64_t e) {
    int64_t a = b / osz, o = b % osz;
    for (int64_t row = b; row < e; ++row) {
      const T* base = src + a * isz * inner;
      const int64_t* idx = index + o * w;
      const T* wt = weight.data() + o * w;
      if (inner == 1) {  // resampling the last dim: one output element per row
        T acc = base[idx[0]] * wt[0];
        for (int64_t k = 1; k < w; ++k) acc += base[idx[k]] * wt[k];
        dst[row] = acc;
      } else {
        T* d = dst + row * inner;
        const T* s0 = base + idx[0] * inner;
        for (int64_t j = 0; j < inner; ++j) d[j] = s0[j] * wt[0];
        for (int64_t k = 1; k < w; ++k) {
          const T* s = base + idx[k] * inner;
          const T wk = wt[k];
          for (int64_t j = 0; j < inner; ++j) d[j] += s[j] * wk;
        }
      }
      if (++o == osz) {
        o = 0;
        ++a;
      }
    }
  });
}

// uint8 in fixed point (Note [Fixed-point uint8 resampling] in nn/functional/spatial.cpp): per output,
// (2^(precision - 1) + sum of weight * value) >> precision, clamped to [0, 255], in int32.
void resample_u8(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  const int64_t outer = in.size(0), isz = in.size(1), inner = in.size(2), osz = taps.out_size, w = taps.width;
  const int32_t half = taps.precision > 0 ? int32_t{1} << (taps.precision - 1) : 0;
  const int shift = taps.precision;
  const int64_t* index = taps.index.data();
  const int16_t* weight = taps.fixed.data();
  const uint8_t* src = in.data<uint8_t>();
  uint8_t* dst = out.data<uint8_t>();
  auto narrow = [shift](int32_t acc) { return static_cast<uint8_t>(std::clamp(acc >> shift, 0, 255)); };
  parallel_for(0, outer * osz, grain_for(inner * w), [&](int64_t b, int64_t e) {
    std::vector<int32_t> acc(inner > 1 ? static_cast<size_t>(inner) : 0);
    for (int64_t row = b; row < e; ++row) {
      const int64_t a = row / osz, o = row % osz;
      const uint8_t* base = src + a * isz * inner;
      const int64_t* idx = index + o * w;
      const int16_t* wt = weight + o * w;
      if (inner == 1) {
        int32_t sum = half;
        for (int64_t k = 0; k < w; ++k) sum += int32_t{wt[k]} * int32_t{base[idx[k]]};
        dst[row] = narrow(sum);
        continue;
      }
      std::fill(acc.begin(), acc.end(), half);
      for (int64_t k = 0; k < w; ++k) {
        const uint8_t* s = base + idx[k] * inner;
        const int32_t wk = wt[k];
        if (wk == 0) continue;
        for (int64_t j = 0; j < inner; ++j) acc[j] += wk * int32_t{s[j]};
      }
      uint8_t* d = dst + row * inner;
      for (int64_t j = 0; j < inner; ++j) d[j] = narrow(acc[j]);
    }
  });
}

void resample_cpu(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  if (in.dtype() == ScalarType::UInt8) return resample_u8(out, in, taps);
  dispatch_float(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    switch (taps.width) {
      case 1: return resample_typed<T, 1>(out, in, taps);
      case 2: return resample_typed<T, 2>(out, in, taps);
      case 4: return resample_typed<T, 4>(out, in, taps);
      default: return resample_typed<T, 0>(out, in, taps);
    }
  });
}

void resample_adjoint_cpu(const Tensor& out, const Tensor& in, const ResampleTaps& taps) {
  dispatch_float(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t outer = in.size(0), osz = in.size(1), inner = in.size(2), isz = taps.in_size, w = taps.width;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    parallel_for(0, outer, grain_for(osz * inner * w), [&](int64_t b, int64_t e) {
      std::fill(dst + b * isz * inner, dst + e * isz * inner, T(0));
      for (int64_t a = b; a < e; ++a)
        for (int64_t o = 0; o < osz; ++o) {
          const T* s = src + (a * osz + o) * inner;
          for (int64_t k = 0; k < w; ++k) {
            const T wt = static_cast<T>(taps.weight[o * w + k]);
            if (wt == T(0)) continue;
            T* d = dst + (a * isz + taps.index[o * w + k]) * inner;
            for (int64_t j = 0; j < inner; ++j) d[j] += s[j] * wt;
          }
        }
    });
  });
}

// Calls f(plane, row of cols, block row, block col, image y, image x) for every in-bounds pair of a block position
// and an image position, plane by plane: the loop both kernels share.
template <class F>
void for_each_tap(const Im2ColArgs& a, int64_t c, F&& f) {
  for (int64_t ki = 0; ki < a.kh; ++ki)
    for (int64_t kj = 0; kj < a.kw; ++kj) {
      const int64_t row = (c * a.kh + ki) * a.kw + kj;
      for (int64_t oh = 0; oh < a.out_h; ++oh) {
        const int64_t y = oh * a.sh - a.ph + ki * a.dh;
        for (int64_t ow = 0; ow < a.out_w; ++ow) {
          const int64_t x = ow * a.sw - a.pw + kj * a.dw;
          f(row, oh * a.out_w + ow, y, x, y >= 0 && y < a.height && x >= 0 && x < a.width);
        }
      }
    }
}

template <class T>
void im2col_typed(const Tensor& cols, const Tensor& im, const Im2ColArgs& a) {
  const int64_t planes = im.size(0) * im.size(1), channels = im.size(1), blocks = a.out_h * a.out_w;
  const int64_t rows = channels * a.kh * a.kw;
  const T* src = im.data<T>();
  T* dst = cols.data<T>();
  parallel_for(0, planes, grain_for(a.kh * a.kw * blocks), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / channels, c = p % channels;
      const T* plane = src + p * a.height * a.width;
      T* out = dst + n * rows * blocks;
      for_each_tap(a, c, [&](int64_t row, int64_t l, int64_t y, int64_t x, bool inside) {
        out[row * blocks + l] = inside ? plane[y * a.width + x] : T(0);
      });
    }
  });
}

template <class T>
void col2im_typed(const Tensor& im, const Tensor& cols, const Im2ColArgs& a) {
  const int64_t planes = im.size(0) * im.size(1), channels = im.size(1), blocks = a.out_h * a.out_w;
  const int64_t rows = channels * a.kh * a.kw;
  const T* src = cols.data<T>();
  T* dst = im.data<T>();
  parallel_for(0, planes, grain_for(a.kh * a.kw * blocks), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / channels, c = p % channels;
      T* plane = dst + p * a.height * a.width;
      std::fill(plane, plane + a.height * a.width, T(0));
      const T* in = src + n * rows * blocks;
      for_each_tap(a, c, [&](int64_t row, int64_t l, int64_t y, int64_t x, bool inside) {
        if (inside) plane[y * a.width + x] += in[row * blocks + l];
      });
    }
  });
}

void im2col_cpu(const Tensor& cols, const Tensor& im, const Im2ColArgs& a) {
  dispatch_float(im.dtype(), [&](auto tag) { im2col_typed<decltype(tag)>(cols, im, a); });
}
void col2im_cpu(const Tensor& im, const Tensor& cols, const Im2ColArgs& a) {
  dispatch_float(im.dtype(), [&](auto tag) { col2im_typed<decltype(tag)>(im, cols, a); });
}

}  // namespace

EMBER_REGISTER_KERNEL(resample, CPU, resample_cpu)
EMBER_REGISTER_KERNEL(resample_adjoint, CPU, resample_adjoint_cpu)
EMBER_REGISTER_KERNEL(im2col, CPU, im2col_cpu)
EMBER_REGISTER_KERNEL(col2im, CPU, col2im_cpu)

}  // namespace ember::cpu
