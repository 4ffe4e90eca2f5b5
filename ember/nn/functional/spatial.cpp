// interpolate through separable resampling (Note [Separable resampling] in spatial.h); grid_sample and affine_grid as
// compositions of ember ops (gathers of the corner values, weights from the coordinates: the gradients with respect
// to input and grid, and second gradients, come from the ops); pixel_shuffle as a reshape-permute-reshape; unfold
// and fold through the im2col/col2im kernel pair.
#include "ember/nn/functional/spatial.h"

#include <cmath>
#include <numeric>
#include <sstream>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/grid_sample.h"
#include "ember/backend/kernels/nn/spatial.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/linalg.h"
#include "ember/scalar_check.h"
#include "ember/sizes.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

std::string tuple_str(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ")";
  return os.str();
}

void append(DimVector& v, IntArrayRef more) {
  for (int64_t x : more) v.push_back(x);
}
void append(DimVector& v, std::initializer_list<int64_t> more) { append(v, IntArrayRef(more.begin(), more.size())); }

bool is_narrow_float(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

// ---------------------------------------------------------------------------------------------- resampling

using Taps = std::shared_ptr<const ResampleTaps>;

// x with the map of `taps` applied along dim (its transpose when `adjoint`), recorded with the other as formula.
Tensor apply_taps(const Tensor& x, int64_t dim, const Taps& taps, bool adjoint, const char* name) {
  const int64_t in_len = adjoint ? taps->out_size : taps->in_size;
  const int64_t out_len = adjoint ? taps->in_size : taps->out_size;
  EMBER_CHECK(x.size(dim) == in_len, name, ": expected size ", in_len, " along dim ", dim, ", got shape ",
              shape_str(x.sizes()));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.size(d);
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
  DimVector shape(x.sizes());
  shape[dim] = out_len;
  Tensor out = empty(shape, TensorOptions(x.dtype()).device(x.device()));
  if (out.numel()) {
    Tensor in3 = reshape(contiguous(x), {{outer, in_len, inner}});
    Tensor out3 = reshape(out, {{outer, out_len, inner}});
    if (adjoint)
      resample_adjoint_kernel[x.device()](out3, in3, *taps);
    else
      resample_kernel[x.device()](out3, in3, *taps);
  }
  if (auto n = autograd::make_node(name, {&x}, [dim, taps, adjoint, name](FormulaNode&, TensorList& g) {
        return TensorList{apply_taps(g[0], dim, taps, !adjoint, name)};
      }))
    autograd::set_history(out, n);
  return out;
}

bool is_identity(const ResampleTaps& t) {
  if (t.in_size != t.out_size) return false;
  for (int64_t o = 0; o < t.out_size; ++o)
    for (int64_t k = 0; k < t.width; ++k) {
      const double w = t.weight[o * t.width + k];
      if (w != (t.index[o * t.width + k] == o && k == 0 ? 1.0 : 0.0)) return false;
    }
  return true;
}

enum class Mode { Nearest, NearestExact, Linear, Cubic, Area };

// PyTorch's compute_scales_value, area_pixel_compute_scale and area_pixel_compute_source_index (UpSample.h), in T:
// the precision PyTorch computes them in for an input of that dtype, so that indices and weights match it exactly.
template <class T>
T scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}
template <class T>
T area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale_value<T>(scale, in, out);
}
template <class T>
T source_index(T scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(o);
  const T s = scale * (static_cast<T>(o) + T(0.5)) - T(0.5);
  return !cubic && s < T(0) ? T(0) : s;
}
// guard_index_and_lambda: the tap below the source index and the fraction past it.
template <class T>
void floor_and_fraction(T real, int64_t in, int64_t& index, T& frac) {
  index = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
  frac = std::min(std::max(real - static_cast<T>(index), T(0)), T(1));
}
template <class T>
T cubic1(T x, T a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <class T>
T cubic2(T x, T a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <class T>
ResampleTaps make_taps(Mode mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  ResampleTaps t;
  t.in_size = in;
  t.out_size = out;
  auto put = [&](int64_t o, int64_t k, int64_t idx, double w) {
    t.index[o * t.width + k] = std::clamp<int64_t>(idx, 0, in - 1);
    t.weight[o * t.width + k] = w;
  };
  auto alloc = [&](int64_t width) {
    t.width = width;
    t.index.assign(out * width, 0);
    t.weight.assign(out * width, 0.0);
  };
  switch (mode) {
    case Mode::Nearest: {
      alloc(1);
      const float s = scale_value<float>(scale, in, out);
      for (int64_t o = 0; o < out; ++o)
        put(o, 0,
            out == in       ? o
            : out == 2 * in ? o >> 1
                            : static_cast<int64_t>(std::floor(static_cast<float>(o) * s)),
            1.0);
      break;
    }
    case Mode::NearestExact: {
      alloc(1);
      const float s = scale_value<float>(scale, in, out);
      for (int64_t o = 0; o < out; ++o)
        put(o, 0, static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * s))), 1.0);
      break;
    }
    case Mode::Linear: {
      alloc(2);
      const T s = area_scale<T>(in, out, align_corners, scale);
      for (int64_t o = 0; o < out; ++o) {
        if (in == out) {
          put(o, 0, o, 1.0);
          continue;
        }
        int64_t i0;
        T frac;
        floor_and_fraction(source_index(s, o, align_corners, false), in, i0, frac);
        put(o, 0, i0, static_cast<double>(T(1) - frac));
        put(o, 1, i0 + (i0 < in - 1 ? 1 : 0), static_cast<double>(frac));
      }
      break;
    }
    case Mode::Cubic: {
      alloc(4);
      const T s = area_scale<T>(in, out, align_corners, scale), a = T(-0.75);
      for (int64_t o = 0; o < out; ++o) {
        int64_t i0;
        T frac;
        floor_and_fraction(source_index(s, o, align_corners, true), in, i0, frac);
        const T w[4] = {cubic2<T>(frac + T(1), a), cubic1<T>(frac, a), cubic1<T>(T(1) - frac, a),
                        cubic2<T>(T(2) - frac, a)};
        for (int64_t k = 0; k < 4; ++k) put(o, k, i0 - 1 + k, static_cast<double>(w[k]));
      }
      break;
    }
    case Mode::Area: {  // adaptive average pooling: [floor(o * in / out), ceil((o + 1) * in / out))
      int64_t width = 0;
      for (int64_t o = 0; o < out; ++o) width = std::max(width, (((o + 1) * in + out - 1) / out) - (o * in) / out);
      alloc(width);
      for (int64_t o = 0; o < out; ++o) {
        const int64_t b = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
        for (int64_t k = 0; k < e - b; ++k) put(o, k, b + k, 1.0 / static_cast<double>(e - b));
      }
      break;
    }
  }
  return t;
}

// PyTorch's antialiased resampling (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa): a triangle or cubic (a = -0.5)
// filter stretched by the downscaling factor, normalised per output.
ResampleTaps make_antialias_taps(bool cubic, int64_t in, int64_t out, bool align_corners,
                                 std::optional<double> scale_opt) {
  const double scale = area_scale<double>(in, out, align_corners, scale_opt);
  const double interp = cubic ? 4.0 : 2.0;
  const double support = scale >= 1.0 ? interp * 0.5 * scale : interp * 0.5;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  auto filter = [cubic](double x) {
    x = std::abs(x);
    if (!cubic) return x < 1.0 ? 1.0 - x : 0.0;
    if (x < 1.0) return cubic1(x, -0.5);
    if (x < 2.0) return cubic2(x, -0.5);
    return 0.0;
  };
  ResampleTaps t;
  t.in_size = in;
  t.out_size = out;
  t.width = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  t.index.assign(out * t.width, 0);
  t.weight.assign(out * t.width, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    const double center = scale * (static_cast<double>(o) + 0.5);
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t xsize = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in) - xmin;
    double total = 0;
    for (int64_t j = 0; j < xsize && j < t.width; ++j) {
      const double w = filter((static_cast<double>(j + xmin) - center + 0.5) * invscale);
      t.index[o * t.width + j] = xmin + j;
      t.weight[o * t.width + j] = w;
      total += w;
    }
    if (total != 0)
      for (int64_t j = 0; j < t.width; ++j) t.weight[o * t.width + j] /= total;
  }
  return t;
}

// Note [Fixed-point uint8 resampling]
// PyTorch resamples uint8 images bilinearly and bicubically (with or without antialias; torchvision.transforms.v2's
// resize of uint8 images on the CPU runs it) in integers, and ember computes the same integers, so its results match
// bit for bit. Per dim, the last first, with the intermediate image rounded to uint8: the weights are computed in
// double (with antialias: the triangle or Keys cubic (a = -0.5) filter stretched by the downscale factor, normalised
// per output; without: the filter (triangle, or cubic with a = -0.75) at the taps around the source index, whose
// floor PyTorch takes in float, a weight for a tap outside the input added to the nearest one inside), then scaled
// by 2^precision, precision being the largest (below 22) at which the largest weight times 2^(precision + 1) still
// rounds below 2^15, and rounded half away from zero to int16. An output is (2^(precision - 1) + sum of weight *
// value) >> precision, clamped to [0, 255]. A dim whose size does not change is left alone. Resampling in float32
// and rounding differs by one level in places.
ResampleTaps make_fixed_taps(bool cubic, bool antialias, int64_t in, int64_t out, bool align_corners,
                             std::optional<double> scale) {
  ResampleTaps t;
  double wt_max = 0;
  if (antialias) {
    t = make_antialias_taps(cubic, in, out, align_corners, scale);
    for (double w : t.weight) wt_max = std::max(wt_max, w);
  } else {
    const int64_t width = cubic ? 4 : 2, support = width / 2;
    auto filter = [cubic](double x) {
      x = std::abs(x);
      if (!cubic) return x < 1.0 ? 1.0 - x : 0.0;
      if (x < 1.0) return cubic1(x, -0.75);
      if (x < 2.0) return cubic2(x, -0.75);
      return 0.0;
    };
    t.in_size = in;
    t.out_size = out;
    t.width = width;
    t.index.assign(out * width, 0);
    t.weight.assign(out * width, 0.0);
    const double s = area_scale<double>(in, out, align_corners, scale);
    for (int64_t o = 0; o < out; ++o) {
      const double real = source_index(s, o, align_corners, cubic);
      const int64_t i0 = std::min(static_cast<int64_t>(std::floor(static_cast<float>(real))), in - 1);
      const double lambda = std::min(std::max(real - static_cast<double>(i0), 0.0), 1.0);
      const int64_t first = i0 - support + 1;  // the first tap, maybe outside the input
      const int64_t lo = std::max<int64_t>(first, 0);
      const int64_t size = std::clamp<int64_t>(std::min(i0 + support + 1, in) - lo, 0, width);
      double* w = &t.weight[o * width];
      int64_t at = 0;
      for (int64_t j = 0; j < width; ++j) {  // taps past an edge add to the edge's weight
        if (first + j <= 0)
          at = 0;
        else if (first + j >= in - 1)
          at = size - 1;
        w[at] += filter(static_cast<double>(j + 1 - support) - lambda);
        wt_max = std::max(wt_max, w[at]);
        ++at;
      }
      for (int64_t j = 0; j < width; ++j) t.index[o * width + j] = std::min(lo + j, in - 1);
    }
  }
  int precision = 0;
  for (; precision < 22; ++precision)
    if (static_cast<int>(0.5 + wt_max * static_cast<double>(1 << (precision + 1))) >= (1 << 15)) break;
  t.precision = precision;
  t.fixed.resize(t.weight.size());
  for (size_t k = 0; k < t.weight.size(); ++k) {
    const double v = t.weight[k] * static_cast<double>(1 << precision);
    t.fixed[k] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  return t;
}

// The name of interpolate's nodes, after PyTorch's ops.
const char* upsample_node_name(Mode mode, int64_t dims, bool antialias) {
  if (antialias) return mode == Mode::Cubic ? "UpsampleBicubic2DAaBackward0" : "UpsampleBilinear2DAaBackward0";
  auto by_dims = [dims](const char* d1, const char* d2, const char* d3) {
    return dims == 1 ? d1 : dims == 2 ? d2 : d3;
  };
  switch (mode) {
    case Mode::Nearest:
      return by_dims("UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0", "UpsampleNearest3DBackward0");
    case Mode::NearestExact:
      return by_dims("UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0",
                     "UpsampleNearestExact3DBackward0");
    case Mode::Linear:
      return by_dims("UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleTrilinear3DBackward0");
    case Mode::Cubic: return "UpsampleBicubic2DBackward0";
    case Mode::Area:
      return by_dims("AdaptiveAvgPool1DBackward0", "AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool3DBackward0");
  }
  return "?";
}

[[noreturn]] void unsupported_interpolate(int64_t ndim, std::string_view mode) {
  fail<NotImplementedError>(
      "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", ndim,
      "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
      "(got ",
      mode, ")");
}

std::string sizes_with_labels(IntArrayRef s) {
  static const char* const labels3[] = {"D", "H", "W"};
  std::ostringstream os;
  os << "(";
  const size_t first = 3 - s.size();
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << labels3[first + i] << ": " << s[i];
  os << ")";
  return os.str();
}

}  // namespace

Tensor interpolate(const Tensor& input, const std::vector<int64_t>& size, const std::vector<double>& scale_factor,
                   std::string_view mode_name, std::optional<bool> align_corners,
                   std::optional<bool> recompute_scale_factor, bool antialias) {
  const int64_t ndim = input.dim(), dims = ndim - 2;
  Mode mode;
  int64_t needs = 0;  // the spatial rank the mode requires (0: any)
  if (mode_name == "nearest")
    mode = Mode::Nearest;
  else if (mode_name == "nearest-exact")
    mode = Mode::NearestExact;
  else if (mode_name == "area")
    mode = Mode::Area;
  else if (mode_name == "linear")
    mode = Mode::Linear, needs = 1;
  else if (mode_name == "bilinear")
    mode = Mode::Linear, needs = 2;
  else if (mode_name == "trilinear")
    mode = Mode::Linear, needs = 3;
  else if (mode_name == "bicubic")
    mode = Mode::Cubic, needs = 2;
  else
    unsupported_interpolate(ndim, mode_name);
  const bool interpolating = mode == Mode::Linear || mode == Mode::Cubic;
  EMBER_CHECK_VALUE(interpolating || !align_corners,
                    "align_corners option can only be set with the interpolating "
                    "modes: linear | bilinear | bicubic | trilinear");
  const bool align = align_corners.value_or(false);
  if (ndim < 3 || ndim > 5) unsupported_interpolate(ndim, mode_name);
  if (needs && needs != dims) {
    if (mode == Mode::Cubic) unsupported_interpolate(ndim, mode_name);
    fail<NotImplementedError>("Got ", ndim, "D input, but ", mode_name, " mode needs ", needs + 2, "D input");
  }
  const std::vector<int64_t> in_spatial(input.sizes().begin() + 2, input.sizes().end());
  EMBER_CHECK_VALUE(size.empty() || scale_factor.empty(), "only one of size or scale_factor should be defined");
  EMBER_CHECK_VALUE(!size.empty() || !scale_factor.empty(), "either size or scale_factor should be defined");
  EMBER_CHECK_VALUE(size.size() <= 1 || static_cast<int64_t>(size.size()) == dims,
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    "dimensions of ",
                    shape_str(in_spatial), " and output size of ", tuple_str(size),
                    ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                    "...,oK) format.");
  EMBER_CHECK_VALUE(scale_factor.size() <= 1 || static_cast<int64_t>(scale_factor.size()) == dims,
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    "spatial dimensions of ",
                    shape_str(in_spatial), " and scale_factor of shape ", scale_factor.size(),
                    ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format.");
  EMBER_CHECK_VALUE(!(recompute_scale_factor.value_or(false) && !size.empty()),
                    "recompute_scale_factor is not meaningful with an explicit size.");
  EMBER_CHECK_VALUE(!antialias || ((mode_name == "bilinear" || mode_name == "bicubic") && ndim == 4),
                    "Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input");
  const bool recompute = recompute_scale_factor.value_or(false) || (mode == Mode::Area && size.empty());
  std::vector<int64_t> out_spatial(dims);
  std::vector<std::optional<double>> scales(dims);
  for (int64_t d = 0; d < dims; ++d) {
    if (!size.empty()) {
      out_spatial[d] = size.size() == 1 ? size[0] : size[d];
      continue;
    }
    const double s = scale_factor.size() == 1 ? scale_factor[0] : scale_factor[d];
    const double o = std::floor(static_cast<double>(in_spatial[d]) * s);
    check_scalar_fits(o, ScalarType::Int64, "interpolate");  // a huge scale_factor (Note [Checked scalar conversion])
    out_spatial[d] = static_cast<int64_t>(o);
    if (!recompute) scales[d] = s;
  }
  bool positive = true;
  for (int64_t d = 0; d < dims; ++d) positive = positive && in_spatial[d] > 0 && out_spatial[d] > 0;
  EMBER_CHECK(positive, "Input and output sizes should be greater than 0, but got input ",
              sizes_with_labels(in_spatial), " output ", sizes_with_labels(out_spatial));
  // uint8: bilinear and bicubic on the CPU, in fixed point (Note [Fixed-point uint8 resampling])
  const bool fixed_u8 = input.dtype() == ScalarType::UInt8 && (mode == Mode::Linear || mode == Mode::Cubic) &&
                        dims == 2;
  EMBER_CHECK_TYPE(is_floating(input.dtype()) || fixed_u8, "interpolate(): expected a floating point input, got ",
                   input.dtype());
  EMBER_CHECK_T(NotImplementedError, !fixed_u8 || input.device().is_cpu() || input.device().is_meta(),
                "interpolate(): uint8 input runs on the CPU only, got one on ", input.device());

  {  // the output's size is checked before the resampling taps (host arrays of the output's length) are made
    DimVector out_shape(input.sizes().first(2));
    for (int64_t o : out_spatial) out_shape.push_back(o);
    storage_nbytes(out_shape, element_size(input.dtype()), "interpolate");
  }
  if (dims == 2 && !antialias && dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]
    std::optional<std::vector<Tensor>> r;
    if (mode == Mode::Nearest)
      r = dispatch::call("aten.upsample_nearest2d.default", dispatch::values(input, out_spatial, scales[0], scales[1]));
    else if (mode == Mode::Linear)
      r = dispatch::call("aten.upsample_bilinear2d.default",
                         dispatch::values(input, out_spatial, align, scales[0], scales[1]));
    if (r) return dispatch::result<Tensor>(std::move(*r));
  }
  const char* name = upsample_node_name(mode, dims, antialias);
  Tensor x = is_narrow_float(input.dtype()) ? to(input, ScalarType::Float32) : input;
  bool applied = false;
  for (int64_t d = dims - 1; d >= 0; --d) {  // the last dim first (Note [Separable resampling])
    const int64_t in = in_spatial[d], out = out_spatial[d];
    ResampleTaps taps;
    if (fixed_u8 && in == out) continue;
    try {
      taps = fixed_u8    ? make_fixed_taps(mode == Mode::Cubic, antialias, in, out, align, scales[d])
             : antialias ? make_antialias_taps(mode == Mode::Cubic, in, out, align, scales[d])
             : x.dtype() == ScalarType::Float64 ? make_taps<double>(mode, in, out, align, scales[d])
                                                : make_taps<float>(mode, in, out, align, scales[d]);
    } catch (const std::bad_alloc&) {  // a clean OutOfMemoryError naming the size, not MemoryError: std::bad_alloc
      fail<OutOfMemoryError>("interpolate: CPU out of memory: the resampling tables for an output size of ", out, " (",
                             out_spatial.size(), "-d output ", tuple_str(out_spatial), ") do not fit in memory");
    }
    if (is_identity(taps)) continue;
    x = apply_taps(x, d + 2, std::make_shared<const ResampleTaps>(std::move(taps)), false, name);
    applied = true;
  }
  if (!applied) x = clone(x);
  return is_narrow_float(input.dtype()) ? to(x, input.dtype()) : x;
}

// ---------------------------------------------------------------------------------------------- grid_sample

namespace {

enum class Padding { Zeros, Border, Reflection };

// reflect_coordinates of PyTorch's GridSampler.h: c folded into [twice_low / 2, twice_high / 2].
Tensor reflect(const Tensor& c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return mul(c, 0.0);
  const double lo = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  Tensor d = abs(sub(c, lo));
  Tensor extra = fmod(d, span);
  Tensor even;
  {
    autograd::NoGradGuard no_grad;
    even = eq(remainder(floor(div(d, span)), 2.0), 0);
  }
  return where(even, add(extra, lo), sub(span + lo, extra));
}

// A coordinate in pixels moved inside the image as the padding mode says (PyTorch's compute_coordinates).
Tensor pad_coordinate(const Tensor& c, int64_t size, Padding padding, bool align_corners) {
  if (padding == Padding::Zeros) return c;
  Tensor r = c;
  if (padding == Padding::Reflection) r = align_corners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
  return clamp(r, Scalar(0.0), Scalar(static_cast<double>(size - 1)));
}

// The values of input [N, C, P] at the int64 positions idx[j] [N, Q] along each spatial dim, with a mask of the
// positions inside the image (all true for coordinates already moved inside).
struct Sampler {
  Tensor flat;      // [N, C, P]
  DimVector sizes;  // spatial
  int64_t n, c, q;

  std::pair<Tensor, Tensor> at(const std::vector<Tensor>& idx) const {
    Tensor offset, inside;
    int64_t stride = 1;
    for (int64_t j = static_cast<int64_t>(sizes.size()) - 1; j >= 0; --j) {
      Tensor ok = logical_and(ge(idx[j], 0), lt(idx[j], sizes[j]));
      inside = inside.defined() ? logical_and(inside, ok) : ok;
      Tensor term = mul(clamp(idx[j], Scalar(0), Scalar(sizes[j] - 1)), stride);
      offset = offset.defined() ? add(offset, term) : term;
      stride *= sizes[j];
    }
    Tensor v = gather(flat, 2, expand(unsqueeze(offset, 1), {{n, c, q}}));
    return {v, inside};
  }
};

Tensor to_index(const Tensor& t) { return to(t, ScalarType::Int64); }

}  // namespace

// Float32 under CPU autocast, the widest input dtype under CUDA autocast (PyTorch's policies).
constexpr autocast::OpPolicy kGridSamplePolicy{autocast::Policy::Fp32, autocast::Policy::Promote};

Tensor grid_sample(const Tensor& input, const Tensor& grid, std::string_view mode_name, std::string_view padding_name,
                   bool align_corners) {
  EMBER_AUTOCAST(kGridSamplePolicy, grid_sample, input, grid, mode_name, padding_name, align_corners);
  check_same_device("grid_sample", {&input, &grid});
  EMBER_CHECK_VALUE(mode_name == "bilinear" || mode_name == "nearest" || mode_name == "bicubic",
                    "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '",
                    mode_name, "'");
  EMBER_CHECK_VALUE(padding_name == "zeros" || padding_name == "border" || padding_name == "reflection",
                    "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
                    "but got: '",
                    padding_name, "'");
  const Padding padding = padding_name == "zeros"    ? Padding::Zeros
                          : padding_name == "border" ? Padding::Border
                                                     : Padding::Reflection;
  EMBER_CHECK((input.dim() == 4 || input.dim() == 5) && grid.dim() == input.dim(),
              "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with "
              "sizes ",
              shape_str(input.sizes()), " and grid with sizes ", shape_str(grid.sizes()));
  const int64_t dims = input.dim() - 2;
  EMBER_CHECK(input.size(0) == grid.size(0),
              "grid_sampler(): expected grid and input to have same batch size, but "
              "got input with sizes ",
              shape_str(input.sizes()), " and grid with sizes ", shape_str(grid.sizes()));
  EMBER_CHECK(grid.size(-1) == dims, "grid_sampler(): expected grid to have size ", dims,
              " in last dimension, but "
              "got grid with sizes ",
              shape_str(grid.sizes()));
  EMBER_CHECK(mode_name != "bicubic" || dims == 2, "grid_sampler(): bicubic interpolation only supports 4D input");
  EMBER_CHECK(input.dtype() == grid.dtype(),
              "grid_sampler(): expected input and grid to have same dtype, but input "
              "has ",
              type_label(input.dtype()), " and grid has ", type_label(grid.dtype()));
  EMBER_CHECK_TYPE(is_floating(input.dtype()), "grid_sampler(): expected floating point input, got ", input.dtype());
  for (int64_t d = 2; d < input.dim(); ++d)
    EMBER_CHECK(input.size(d) > 0,
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                "has sizes ",
                shape_str(input.sizes()), " with dimension ", d, " being empty");

  const int64_t n = input.size(0), c = input.size(1);
  // Note [Sampling kernel without a gradient]
  // 2-d bilinear and nearest sampling of float tensors that record nothing (inference, torchvision's transforms) run
  // one kernel with PyTorch's coordinates and sums; everything else runs the composition below, whose ops give the
  // gradients, of any order, with respect to input and grid. [8, 32, 32, 32] sampled at [8, 16, 16] points at one
  // thread: 422 -> 150 us (PyTorch 2.15: 109, with AVX-512 gathers).
  const Tensor* recorded[] = {&input, &grid};
  if (dims == 2 && mode_name != "bicubic" && !autograd::needs_grad(recorded) &&
      (input.dtype() == ScalarType::Float32 || input.dtype() == ScalarType::Float64)) {
    const GridSampleArgs a{mode_name == "nearest" ? GridMode::Nearest : GridMode::Bilinear,
                           padding == Padding::Zeros    ? GridPadding::Zeros
                           : padding == Padding::Border ? GridPadding::Border
                                                        : GridPadding::Reflection,
                           align_corners};
    Tensor out = empty({{n, c, grid.size(1), grid.size(2)}}, TensorOptions(input.dtype()).device(input.device()));
    grid_sample_2d_kernel[input.device()](out, input, grid, a);
    return out;
  }
  DimVector sizes(input.sizes().subspan(2));
  DimVector out_shape{n, c};
  int64_t q = 1;
  for (int64_t d = 1; d <= dims; ++d) {
    out_shape.push_back(grid.size(d));
    q *= grid.size(d);
  }
  const int64_t p = std::accumulate(sizes.begin(), sizes.end(), int64_t(1), std::multiplies<>());
  const Sampler sample{reshape(input, {{n, c, p}}), sizes, n, c, q};
  const Tensor g = reshape(grid, {{n, q, dims}});
  // Pixel coordinates along each spatial dim j (the grid lists them in reverse: x is the last dim).
  std::vector<Tensor> coord(dims);
  for (int64_t j = 0; j < dims; ++j) {
    const double size = static_cast<double>(sizes[j]);
    Tensor gc = select(g, 2, dims - 1 - j);
    coord[j] = align_corners ? mul(add(gc, 1.0), (size - 1) / 2) : div(sub(mul(add(gc, 1.0), size), 1.0), 2.0);
    if (mode_name != "bicubic") coord[j] = pad_coordinate(coord[j], sizes[j], padding, align_corners);
  }

  Tensor out;
  auto accumulate = [&](const Tensor& v, const Tensor& w) {
    Tensor term = mul(v, unsqueeze(w, 1));
    out = out.defined() ? add(out, term) : term;
  };
  if (mode_name == "nearest") {
    std::vector<Tensor> idx(dims);
    for (int64_t j = 0; j < dims; ++j) idx[j] = to_index(round(coord[j].detach()));
    auto [v, inside] = sample.at(idx);
    out = mul(v, unsqueeze(inside, 1));
  } else if (mode_name == "bilinear") {
    std::vector<Tensor> base(dims), frac(dims);
    for (int64_t j = 0; j < dims; ++j) {
      base[j] = floor(coord[j].detach());
      frac[j] = sub(coord[j], base[j]);
    }
    for (int64_t corner = 0; corner < (int64_t(1) << dims); ++corner) {
      std::vector<Tensor> idx(dims);
      Tensor w;
      for (int64_t j = 0; j < dims; ++j) {
        const bool upper = (corner >> j) & 1;
        idx[j] = to_index(upper ? add(base[j], 1.0) : base[j]);
        Tensor wj = upper ? frac[j] : sub(1.0, frac[j]);
        w = w.defined() ? mul(w, wj) : wj;
      }
      auto [v, inside] = sample.at(idx);
      accumulate(v, mul(w, inside));
    }
  } else {  // bicubic (2-d): 4 x 4 taps; each tap is moved inside the image on its own, as PyTorch does
    std::vector<Tensor> base(2);
    std::vector<std::vector<Tensor>> coef(2);
    for (int64_t j = 0; j < 2; ++j) {
      base[j] = floor(coord[j].detach());
      Tensor t = sub(coord[j], base[j]);
      const double a = -0.75;
      auto c1 = [a](const Tensor& x) { return add(mul(mul(sub(mul(x, a + 2), a + 3), x), x), 1.0); };
      auto c2 = [a](const Tensor& x) { return sub(mul(add(mul(sub(mul(x, a), 5 * a), x), 8 * a), x), 4 * a); };
      coef[j] = {c2(add(t, 1.0)), c1(t), c1(sub(1.0, t)), c2(sub(2.0, t))};
    }
    for (int64_t ky = 0; ky < 4; ++ky)
      for (int64_t kx = 0; kx < 4; ++kx) {
        std::vector<Tensor> idx(2);
        const int64_t k[2] = {ky, kx};
        for (int64_t j = 0; j < 2; ++j)
          idx[j] = to_index(
              pad_coordinate(add(base[j], static_cast<double>(k[j] - 1)), sizes[j], padding, align_corners));
        auto [v, inside] = sample.at(idx);
        accumulate(v, mul(mul(coef[0][ky], coef[1][kx]), inside));
      }
  }
  return reshape(out, out_shape);
}

Tensor affine_grid(const Tensor& theta, const std::vector<int64_t>& size, bool align_corners) {
  EMBER_CHECK_TYPE(is_floating(theta.dtype()), "Expected theta to have floating point type, but got ", theta.dtype());
  EMBER_CHECK_T(NotImplementedError, size.size() == 4 || size.size() == 5,
                "affine_grid only supports 4D and 5D "
                "sizes, for 2D and 3D affine transforms, respectively. Got size ",
                tuple_str(size), ".");
  const int64_t dims = static_cast<int64_t>(size.size()) - 2;
  EMBER_CHECK_VALUE(theta.dim() == 3 && theta.size(1) == dims && theta.size(2) == dims + 1, "Expected a batch of ",
                    dims, "D affine matrices of shape Nx", dims, "x", dims + 1, " for size ", tuple_str(size),
                    ". Got ember.Size(", shape_str(theta.sizes()), ").");
  for (int64_t s : size) EMBER_CHECK_VALUE(s > 0, "Expected non-zero, positive output size. Got ", tuple_str(size));
  EMBER_CHECK(theta.size(0) == size[0], "affine_grid(): expected theta of batch size ", size[0], ", got shape ",
              shape_str(theta.sizes()));
  const auto opts = TensorOptions(theta.dtype()).device(theta.device());
  // Normalised pixel centres along a dim of n pixels.
  auto steps = [&](int64_t count) {
    if (count <= 1) return zeros({{count}}, opts);
    Tensor l = linspace(-1.0, 1.0, count, opts);
    return align_corners ? l : div(mul(l, count - 1), count);
  };
  // base [spatial..., dims + 1] holds (x, y[, z], 1) at each output position.
  DimVector spatial(IntArrayRef(size).subspan(2));
  DimVector bshape(spatial);
  bshape.push_back(1);
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < dims; ++k) {  // component k (x first) varies along spatial dim dims - 1 - k
    DimVector shape(dims, 1);
    shape[dims - 1 - k] = spatial[dims - 1 - k];
    shape.push_back(1);
    parts.push_back(expand(reshape(steps(spatial[dims - 1 - k]), shape), bshape));
  }
  parts.push_back(ones(bshape, opts));
  Tensor base = reshape(cat(parts, -1), {{1, -1, dims + 1}});  // [1, L, dims + 1]
  Tensor grid = matmul(base, transpose(theta, 1, 2));          // [N, L, dims], as PyTorch's bmm
  DimVector out{size[0]};
  append(out, spatial);
  out.push_back(dims);
  return reshape(grid, out);
}

// ---------------------------------------------------------------------------------------------- pixel shuffle

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  EMBER_CHECK(input.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  int64_t r2;  // Note [Checked size arithmetic]
  EMBER_CHECK_VALUE(!__builtin_mul_overflow(r, r, &r2),
                    "upscale factor is too large, (upscale_factor)^2 overflowed: upscale_factor=", r);
  EMBER_CHECK(c % r2 == 0,
              "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
              "of upscale_factor, but input.size(-3)=",
              c, " is not divisible by ", r * r);
  DimVector batch(input.sizes().first(input.dim() - 3));
  const int64_t nb = static_cast<int64_t>(batch.size());
  DimVector split(batch);
  append(split, {c / r2, r, r, h, w});
  DimVector perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  append(perm, {nb, nb + 3, nb + 1, nb + 4, nb + 2});  // [..., C, H, r, W, r]
  DimVector out(batch);
  append(out, {c / r2, checked_mul(h, r, "pixel_shuffle", "the output height"),
               checked_mul(w, r, "pixel_shuffle", "the output width")});
  return reshape(permute(reshape(input, split), perm), out);
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  EMBER_CHECK(input.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
              " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
              " is not divisible by ", r);
  DimVector batch(input.sizes().first(input.dim() - 3));
  const int64_t nb = static_cast<int64_t>(batch.size());
  DimVector split(batch);
  append(split, {c, h / r, r, w / r, r});
  DimVector perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  append(perm, {nb, nb + 2, nb + 4, nb + 1, nb + 3});  // [..., C, r, r, H, W]
  DimVector out(batch);
  int64_t r2;
  EMBER_CHECK_VALUE(!__builtin_mul_overflow(r, r, &r2),
                    "downscale factor is too large, (downscale_factor)^2 overflowed: downscale_factor=", r);
  append(out, {checked_mul(c, r2, "pixel_unshuffle", "the output channels"), h / r, w / r});
  return reshape(permute(reshape(input, split), perm), out);
}

// ---------------------------------------------------------------------------------------------- unfold / fold

namespace {

// A pair of ints from one value or two (PyTorch's _pair), checked positive (or non-negative).
std::pair<int64_t, int64_t> pair_of(const std::vector<int64_t>& v, const char* op, const char* what, int64_t min) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, op, "(): expected ", what, " to be a single int or a pair, got ",
              v.size(), " values");
  const int64_t a = v[0], b = v.size() == 2 ? v[1] : v[0];
  EMBER_CHECK(a >= min && b >= min, op, "(): ", what, " should be ", min ? "greater than zero" : "non-negative",
              ", but got ", what, ": ", a, " ", b);
  return {a, b};
}

std::string geometry_str(const Im2ColArgs& a) {
  std::ostringstream os;
  os << "kernel_size=(" << a.kh << ", " << a.kw << "), dilation=(" << a.dh << ", " << a.dw << "), padding=(" << a.ph
     << ", " << a.pw << ")";
  return os.str();
}

Im2ColArgs block_args(const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                      const std::vector<int64_t>& padding, const std::vector<int64_t>& stride, int64_t height,
                      int64_t width, const char* op) {
  Im2ColArgs a;
  std::tie(a.kh, a.kw) = pair_of(kernel_size, op, "kernel_size", 1);
  std::tie(a.dh, a.dw) = pair_of(dilation, op, "dilation", 1);
  std::tie(a.ph, a.pw) = pair_of(padding, op, "padding", 0);
  std::tie(a.sh, a.sw) = pair_of(stride, op, "stride", 1);
  a.height = height;
  a.width = width;
  // Every size below comes from user arguments, so each product is checked (Note [Checked size arithmetic]).
  int64_t area;
  EMBER_CHECK(!__builtin_mul_overflow(a.kh, a.kw, &area), "Given kernel_width = ", a.kw, " and kernel_height = ", a.kh,
              " the product of kernel_width and kernel_height overflowed.");
  auto blocks = [&](int64_t size, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
    int64_t padded, reach, n;
    if (__builtin_mul_overflow(pad, 2, &padded) || __builtin_add_overflow(size, padded, &padded) ||
        __builtin_mul_overflow(dil, k - 1, &reach) || __builtin_add_overflow(reach, 1, &reach) ||
        __builtin_sub_overflow(padded, reach, &n)) [[unlikely]]
      fail<Error>(op, "(): the sliding block geometry overflows int64: ", geometry_str(a));
    return n / stride + 1;
  };
  a.out_h = blocks(height, a.ph, a.dh, a.kh, a.sh);
  a.out_w = blocks(width, a.pw, a.dw, a.kw, a.sw);
  checked_mul(a.out_h, a.out_w, op, "the number of sliding blocks");
  return a;
}

// im2col (to_cols) or col2im of a batched x, recorded with the other as its formula.
Tensor run_block_kernel(const Tensor& x, const Im2ColArgs& a, bool to_cols) {
  const int64_t n = x.size(0);
  const int64_t channels = to_cols ? x.size(1) : x.size(1) / (a.kh * a.kw);  // block_args checked the products
  if (to_cols) checked_mul(channels, a.kh * a.kw, "unfold", "the number of output rows");
  const auto opts = TensorOptions(x.dtype()).device(x.device());
  Tensor out = to_cols ? empty({{n, channels * a.kh * a.kw, a.out_h * a.out_w}}, opts)
                       : empty({{n, channels, a.height, a.width}}, opts);
  if (out.numel()) {
    const Tensor xc = contiguous(x);
    if (to_cols)
      im2col_kernel[x.device()](out, xc, a);
    else
      col2im_kernel[x.device()](out, xc, a);
  }
  if (auto node = autograd::make_node(
          to_cols ? "Im2ColBackward0" : "Col2ImBackward0", {&x},
          [a, to_cols](FormulaNode&, TensorList& g) { return TensorList{run_block_kernel(g[0], a, !to_cols)}; }))
    autograd::set_history(out, node);
  return out;
}

}  // namespace

Tensor im2col(const Tensor& input, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
              const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "Input Error: Only 3D or 4D input Tensors are supported (got ",
              input.dim(), "D)");
  const bool batched = input.dim() == 4;
  const Tensor x = batched ? input : unsqueeze(input, 0);
  EMBER_CHECK(x.size(1) > 0 && x.size(2) > 0 && x.size(3) > 0, "unfold(): expected non-empty 3D or 4D input, got ",
              shape_str(input.sizes()));
  Im2ColArgs a = block_args(kernel_size, dilation, padding, stride, x.size(2), x.size(3), "unfold");
  EMBER_CHECK(a.out_h >= 1 && a.out_w >= 1, "Given input with spatial size (", a.height, ", ", a.width, "), ",
              geometry_str(a), ", calculated shape of the array of sliding blocks as (", a.out_h, ", ", a.out_w,
              "), but its components must be at least one.");
  EMBER_CHECK_TYPE(is_floating(x.dtype()), "unfold(): expected a floating point input, got ", x.dtype());
  const bool narrow = is_narrow_float(x.dtype());
  Tensor r = run_block_kernel(narrow ? to(x, ScalarType::Float32) : x, a, true);
  if (narrow) r = to(r, x.dtype());
  return batched ? r : squeeze(r, 0);
}

Tensor col2im(const Tensor& input, const std::vector<int64_t>& output_size, const std::vector<int64_t>& kernel_size,
              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& stride) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3,
              "Input Error: Only unbatched (2D) or batched (3D) input Tensors "
              "are supported (got ",
              input.dim(), "D)");
  const bool batched = input.dim() == 3;
  const Tensor x = batched ? input : unsqueeze(input, 0);
  auto [h, w] = pair_of(output_size, "fold", "output_size", 1);
  Im2ColArgs a = block_args(kernel_size, dilation, padding, stride, h, w, "fold");
  EMBER_CHECK(x.size(1) % (a.kh * a.kw) == 0,
              "Expected size of input's dimension 1 to be divisible by the product "
              "of kernel_size, but got input.size(1)=",
              x.size(1), " and kernel_size=(", a.kh, ", ", a.kw, ").");
  EMBER_CHECK(a.out_h >= 1 && a.out_w >= 1, "Given output_size=(", h, ", ", w, "), ", geometry_str(a),
              ", calculated shape of the array of sliding blocks as (", a.out_h, ", ", a.out_w,
              "), but its components must be at least one.");
  EMBER_CHECK(x.size(2) == a.out_h * a.out_w, "Given output_size=(", h, ", ", w, "), ", geometry_str(a), ", stride=(",
              a.sh, ", ", a.sw,
              "), expected size of input's dimension 2 to match the calculated number "
              "of sliding blocks ",
              a.out_h, " * ", a.out_w, " = ", a.out_h * a.out_w, ", but got input.size(2)=", x.size(2), ".");
  EMBER_CHECK_TYPE(is_floating(x.dtype()), "fold(): expected a floating point input, got ", x.dtype());
  const bool narrow = is_narrow_float(x.dtype());
  Tensor r = run_block_kernel(narrow ? to(x, ScalarType::Float32) : x, a, false);
  if (narrow) r = to(r, x.dtype());
  return batched ? r : squeeze(r, 0);
}

}  // namespace ember
