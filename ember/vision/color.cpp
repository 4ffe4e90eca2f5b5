// Per-pixel color kernels without an ember op: RGB -> grayscale and the hue shift (RGB -> HSV -> RGB), with
// torchvision's formulas and evaluation order so that results agree with it bit for bit where the math allows. The
// float expressions are written out in torchvision's order; contraction into FMAs would change the rounding.
#pragma GCC optimize("fp-contract=off")

#include <cmath>

#include "ember/ops.h"
#include "ember/parallel.h"
#include "ember/vision/vision.h"

namespace ember::vision {

namespace {

// Checks [..., 3, H, W] on the CPU and returns the image contiguous, with the count of images and pixels per image.
Tensor prepare(const Tensor& image, const char* op, int64_t* images, int64_t* pixels) {
  EMBER_CHECK_TYPE(image.dim() >= 3, "[", op, "] expected an image tensor of shape [..., 3, H, W], got ",
                   shape_str(image.sizes()));
  EMBER_CHECK_TYPE(image.size(-3) == 3, "[", op, "] expected 3 (RGB) channels in dim -3, got ",
                   shape_str(image.sizes()));
  const ScalarType t = image.dtype();
  EMBER_CHECK_TYPE(t == ScalarType::UInt8 || t == ScalarType::Float32 || t == ScalarType::Float64, "[", op,
                   "] supports uint8, float32 and float64 images, got ", t);
  EMBER_CHECK(image.device().is_cpu(), "[", op, "] runs on the CPU; got a tensor on ", image.device());
  *pixels = image.size(-1) * image.size(-2);
  *images = *pixels ? image.numel() / (3 * *pixels) : 0;
  return image.contiguous();
}

template <class T, class C>
void gray_loop(const T* src, T* dst, int64_t images, int64_t pixels, int64_t out_c) {
  parallel_for(0, images * pixels, kGrainSize / 4, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t n = k / pixels, i = k % pixels;
      const T* p = src + n * 3 * pixels + i;
      C r = static_cast<C>(p[0]), g = static_cast<C>(p[pixels]), bl = static_cast<C>(p[2 * pixels]);
      C a = static_cast<C>(0.2989) * r;
      C bb = static_cast<C>(0.587) * g;
      C cc = static_cast<C>(0.114) * bl;
      C v = (a + bb) + cc;
      const T out = static_cast<T>(v);  // uint8: truncation, as torchvision's .to(uint8)
      for (int64_t c = 0; c < out_c; ++c) dst[(n * out_c + c) * pixels + i] = out;
    }
  });
}

// torchvision's _rgb2hsv / _hsv2rgb with the hue shift between them, for one pixel in [0, 1].
template <class C>
void hue_shift(C r, C g, C b, C hue, C* ro, C* go, C* bo) {
  const C maxc = std::max(std::max(r, g), b), minc = std::min(std::min(r, g), b);
  const bool eqc = maxc == minc;
  const C cr = maxc - minc;
  const C s = cr / (eqc ? C(1) : maxc);
  const C div = eqc ? C(1) : cr;
  const C rc = (maxc - r) / div, gc = (maxc - g) / div, bc = (maxc - b) / div;
  C h;
  if (maxc == r)
    h = bc - gc;
  else if (maxc == g)
    h = (C(2) + rc) - bc;
  else
    h = (C(4) + gc) - rc;
  h = std::fmod(h / C(6) + C(1), C(1));
  // (h + hue) mod 1 with the divisor's sign (Python's %).
  h = h + hue;
  h = h - std::floor(h);
  const C v = maxc;
  const C h6 = h * C(6);
  const C fi = std::floor(h6);
  const C f = h6 - fi;
  int i = static_cast<int>(fi) % 6;
  if (i < 0) i += 6;
  auto clamp01 = [](C x) { return std::min(std::max(x, C(0)), C(1)); };
  const C p = clamp01(v * (C(1) - s));
  const C q = clamp01(v * (C(1) - s * f));
  const C t = clamp01(v * (C(1) - s * (C(1) - f)));
  switch (i) {
    case 0: *ro = v, *go = t, *bo = p; break;
    case 1: *ro = q, *go = v, *bo = p; break;
    case 2: *ro = p, *go = v, *bo = t; break;
    case 3: *ro = p, *go = q, *bo = v; break;
    case 4: *ro = t, *go = p, *bo = v; break;
    default: *ro = v, *go = p, *bo = q; break;
  }
}

template <class T, class C>
void hue_loop(const T* src, T* dst, int64_t images, int64_t pixels, C hue) {
  constexpr bool kByte = std::is_same_v<T, uint8_t>;
  parallel_for(0, images * pixels, kGrainSize / 16, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t n = k / pixels, i = k % pixels;
      const T* p = src + n * 3 * pixels + i;
      T* q = dst + n * 3 * pixels + i;
      C rgb[3], out[3];
      for (int c = 0; c < 3; ++c) {
        rgb[c] = static_cast<C>(p[c * pixels]);
        if constexpr (kByte) rgb[c] = rgb[c] / C(255);  // convert_image_dtype(uint8 -> float32)
      }
      hue_shift<C>(rgb[0], rgb[1], rgb[2], hue, &out[0], &out[1], &out[2]);
      for (int c = 0; c < 3; ++c) {
        if constexpr (kByte) {
          // torchvision: (x * 255.0).to(uint8), truncated.
          q[c * pixels] = static_cast<uint8_t>(out[c] * C(255));
        } else {
          q[c * pixels] = static_cast<T>(out[c]);
        }
      }
    }
  });
}

}  // namespace

Tensor rgb_to_grayscale(const Tensor& image, int64_t num_output_channels) {
  EMBER_CHECK_VALUE(num_output_channels == 1 || num_output_channels == 3,
                    "[rgb_to_grayscale] num_output_channels should be either 1 or 3, got ", num_output_channels);
  int64_t images, pixels;
  Tensor src = prepare(image, "rgb_to_grayscale", &images, &pixels);
  std::vector<int64_t> shape(image.sizes().begin(), image.sizes().end());
  shape[shape.size() - 3] = num_output_channels;
  Tensor out = empty(shape, TensorOptions(image.dtype()));
  switch (image.dtype()) {
    case ScalarType::UInt8:
      gray_loop<uint8_t, float>(src.data<uint8_t>(), out.data<uint8_t>(), images, pixels, num_output_channels);
      break;
    case ScalarType::Float32:
      gray_loop<float, float>(src.data<float>(), out.data<float>(), images, pixels, num_output_channels);
      break;
    default: gray_loop<double, double>(src.data<double>(), out.data<double>(), images, pixels, num_output_channels);
  }
  return out;
}

Tensor adjust_hue(const Tensor& image, double hue_factor) {
  EMBER_CHECK_VALUE(std::isfinite(hue_factor) && hue_factor >= -0.5 && hue_factor <= 0.5, "hue_factor (", hue_factor,
                    ") is not in [-0.5, 0.5].");
  int64_t images, pixels;
  Tensor src = prepare(image, "adjust_hue", &images, &pixels);
  Tensor out = empty(image.sizes(), TensorOptions(image.dtype()));
  switch (image.dtype()) {
    case ScalarType::UInt8:
      hue_loop<uint8_t, float>(src.data<uint8_t>(), out.data<uint8_t>(), images, pixels, float(hue_factor));
      break;
    case ScalarType::Float32:
      hue_loop<float, float>(src.data<float>(), out.data<float>(), images, pixels, float(hue_factor));
      break;
    default: hue_loop<double, double>(src.data<double>(), out.data<double>(), images, pixels, hue_factor);
  }
  return out;
}

}  // namespace ember::vision
