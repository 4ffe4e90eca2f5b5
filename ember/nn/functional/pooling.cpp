// Pooling: argument checks with PyTorch's messages and output sizes; the windows are computed by the kernels.
// Gradients: max pooling (and adaptive max pooling) sends each output's gradient to the position its index names,
// a scatter_add, whose own formula (a gather) gives the second derivative; average pooling and its backward are
// linear maps adjoint to each other, so each is the other's formula and derivatives of every order are exact.
#include "ember/nn/functional/pooling.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/pooling.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/memory_format.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

const char* count_word(size_t n) { return n == 1 ? "one" : n == 2 ? "two" : "three"; }

// "(3x2x2)"
std::string paren_x(IntArrayRef v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += "x";
    s += std::to_string(v[i]);
  }
  return s + ")";
}

DimVector pool_param(IntArrayRef v, size_t nsp, const char* op, const char* what, const char* forms) {
  EMBER_CHECK(v.size() == 1 || v.size() == nsp, op, ": ", what, forms, count_word(nsp), " ints");
  return v.size() == 1 ? DimVector(nsp, v[0]) : DimVector(v);
}

// PyTorch's pooling_output_shape, in 128-bit arithmetic: a huge kernel, dilation or padding must give "Output size is
// too small" (or a size that overflows, refused), never a wrapped size that sends the kernels through 2^62 windows.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode,
                    const char* op) {
  using Wide = __int128;
  const Wide num = Wide(in) + 2 * Wide(pad) - Wide(dilation) * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  Wide out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= Wide(in) + pad) --out;  // the last window must start inside the input
  EMBER_CHECK(out <= Wide(INT64_MAX), op, ": the output size overflowed (input size ", in, ", kernel_size ", k,
              ", padding ", pad, ", stride ", stride, ")");
  return static_cast<int64_t>(std::max<Wide>(out, Wide(INT64_MIN)));
}

// The batch and channel dims of a pooling input ([N, C, *in] or [C, *in]) followed by `spatial`.
DimVector with_spatial(const Tensor& x, size_t nsp, IntArrayRef spatial) {
  DimVector s(x.sizes().subspan(0, x.dim() - nsp));
  for (int64_t v : spatial) s.push_back(v);
  return s;
}

DimVector spatial_of(const Tensor& x, size_t nsp) { return DimVector(x.sizes().subspan(x.dim() - nsp)); }

void check_floating(const Tensor& x, const char* op) {
  EMBER_CHECK_T(NotImplementedError, is_floating(x.dtype()), "\"", op, "\" not implemented for '",
                type_label(x.dtype()), "'");
}

// float16 and bfloat16 pool in float32 (the casts record their gradients).
bool widens(const Tensor& x) { return x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16; }

// The layout the CPU kernels pool x in without copies: channels-last when x ([N, C, *spatial], 2 or 3 spatial dims)
// is laid out so (Note [Channels-last pooling] in backend/cpu/pool.cpp), else row-major. The output then is laid out
// as x, following PyTorch: its 2-d poolings and max_pool3d keep a channels-last input's layout, while avg_pool3d and
// the adaptive 3-d poolings return row-major results (keeps_3d false).
MemoryFormat kernel_format(const Tensor& x, size_t nsp, bool keeps_3d) {
  if (!x.device().is_cpu() || x.dim() != static_cast<int64_t>(nsp) + 2 || nsp < 2 || (nsp == 3 && !keeps_3d))
    return MemoryFormat::Contiguous;
  const MemoryFormat f = suggest_memory_format(x);
  return f == (nsp == 2 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d) ? f : MemoryFormat::Contiguous;
}

// Max-pooling gradient: each output's gradient goes to the input position its index names (summed where windows
// overlap). Written with scatter_add, whose formula makes it differentiable again. Channels-last indices (those of a
// channels-last input) scatter within [N, *spatial, C] views, so the gradient is channels-last too, with no copies.
Tensor max_pool_backward(const Tensor& grad, const Tensor& indices, IntArrayRef input_sizes, size_t nsp) {
  // explicit sizes, no -1: an empty batch has no size to infer
  int64_t in_n = 1, out_n = 1, planes = 1;
  for (size_t i = input_sizes.size() - nsp; i < input_sizes.size(); ++i) in_n *= input_sizes[i];
  for (int64_t i = indices.dim() - static_cast<int64_t>(nsp); i < indices.dim(); ++i) out_n *= indices.size(i);
  for (size_t i = 0; i < input_sizes.size() - nsp; ++i) planes *= input_sizes[i];
  const TensorOptions opts = TensorOptions(grad.dtype()).device(grad.device());
  const MemoryFormat f = indices.dim() == static_cast<int64_t>(nsp) + 2 && input_sizes.size() == nsp + 2
                             ? suggest_memory_format(indices)
                             : MemoryFormat::Contiguous;
  if (f != MemoryFormat::Contiguous) {
    const int64_t n = input_sizes[0], c = input_sizes[1];
    const DimVector to_last = nsp == 2 ? DimVector{0, 2, 3, 1} : DimVector{0, 2, 3, 4, 1};
    const DimVector to_first = nsp == 2 ? DimVector{0, 3, 1, 2} : DimVector{0, 4, 1, 2, 3};
    auto flat = [&](const Tensor& t) { return reshape(permute(t, to_last), {{n, out_n, c}}); };
    DimVector last{n};
    for (size_t i = 2; i < input_sizes.size(); ++i) last.push_back(input_sizes[i]);
    last.push_back(c);
    Tensor z = zeros({{n, in_n, c}}, opts);  // zeros of its own, added into in place
    scatter_add_(z, 1, flat(indices), flat(contiguous(grad, f)));
    return permute(reshape(z, last), to_first);
  }
  Tensor z = zeros({{planes, in_n}}, opts);
  scatter_add_(z, 1, reshape(indices, {{planes, out_n}}), reshape(grad, {{planes, out_n}}));
  return reshape(z, input_sizes);
}

// Max pooling of x (floating, any layout) with geometry g; records `node` (a static name). The indices are
// computed when asked for or when the gradient needs them.
// aten_ceil: the ceil_mode of a regular 2-d pooling, whose gradient is offered to __torch_dispatch__ as
// aten.max_pool2d_with_indices_backward (Note [Python dispatch]).
std::pair<Tensor, Tensor> max_pool_core(const Tensor& input, const PoolGeometry& g, const char* node, bool want_indices,
                                        std::optional<bool> aten_ceil = std::nullopt) {
  const size_t nsp = g.in.size();
  const Tensor x = widens(input) ? to(input, ScalarType::Float32) : input;
  const DimVector os = with_spatial(x, nsp, g.out);
  const MemoryFormat f = kernel_format(x, nsp, !g.adaptive());
  PoolGeometry gk = g;
  gk.channels_last = f != MemoryFormat::Contiguous;
  Tensor out = empty(os, TensorOptions(x.dtype()).device(x.device()), f);
  Tensor idx;
  if (want_indices || autograd::needs_grad({&x}))
    idx = empty(os, TensorOptions(ScalarType::Int64).device(x.device()), f);
  if (out.numel()) {
    autograd::NoGradGuard no_grad;
    max_pool_kernel[x.device()](out, idx, gk.channels_last ? x : contiguous(x), gk);
  }
  const bool offer = aten_ceil && dispatch::enabled();
  if (auto n = autograd::make_node(
          node, {&x}, [sizes = DimVector(x.sizes()), nsp, g, aten_ceil](FormulaNode& n, TensorList& gr) {
            const Tensor idx = n.saved_tensor(0), x = n.saved_tensor(1);
            if (x.defined() && dispatch::enabled()) [[unlikely]] {
              if (auto r = dispatch::call(
                      "aten.max_pool2d_with_indices_backward.default",
                      dispatch::values(gr[0], x, IntArrayRef(g.kernel), IntArrayRef(g.stride), IntArrayRef(g.padding),
                                       IntArrayRef(g.dilation), *aten_ceil, idx)))
                return TensorList{dispatch::result<Tensor>(std::move(*r))};
            }
            return TensorList{max_pool_backward(gr[0], idx, sizes, nsp)};
          })) {
    n->save(idx);
    n->save(offer ? x : Tensor());
    autograd::set_history(out, n);
  }
  if (x.dtype() != input.dtype()) out = to(out, input.dtype());
  return {out, idx};
}

Tensor avg_pool_backward(const Tensor& grad, IntArrayRef input_sizes, const PoolGeometry& g, const char* node);

// Average pooling (regular or adaptive) of x; its formula is avg_pool_backward, whose formula is this. The
// gradient is laid out as x is (g.channels_last, recorded here), as PyTorch's.
Tensor avg_pool_forward(const Tensor& x, const PoolGeometry& g_in, const char* node) {
  const MemoryFormat f = kernel_format(x, g_in.in.size(), false);
  PoolGeometry g = g_in;
  g.channels_last = f != MemoryFormat::Contiguous;
  Tensor out;
  const int64_t nsp = static_cast<int64_t>(g.in.size());
  if (g.adaptive() && x.device().is_cpu() && std::ranges::all_of(g.out, [](int64_t o) { return o == 1; })) {
    // A global average is a mean over the spatial dims: the reductions' short-row path runs it at memory speed,
    // where the pooling loop spent its time per output (PyTorch computes it as a mean too).
    autograd::NoGradGuard no_grad;
    DimVector dims;
    for (int64_t d = x.dim() - nsp; d < x.dim(); ++d) dims.push_back(d);
    out = mean(x, dims, true);
  } else {
    out = empty(with_spatial(x, g.in.size(), g.out), TensorOptions(x.dtype()).device(x.device()), f);
    if (out.numel()) {
      autograd::NoGradGuard no_grad;
      avg_pool_kernel[x.device()](out, g.channels_last ? x : contiguous(x), g);
    }
  }
  if (auto n = autograd::make_node(node, {&x}, [sizes = DimVector(x.sizes()), g, node](FormulaNode&, TensorList& gr) {
        return TensorList{avg_pool_backward(gr[0], sizes, g, node)};
      }))
    autograd::set_history(out, n);
  return out;
}

Tensor avg_pool_backward(const Tensor& grad, IntArrayRef input_sizes, const PoolGeometry& g, const char* node) {
  // The kernel overwrites every element when there is a gradient to spread.
  const TensorOptions opts = TensorOptions(grad.dtype()).device(grad.device());
  const size_t nsp = g.in.size();
  const MemoryFormat f = g.channels_last && grad.device().is_cpu() && grad.dim() == static_cast<int64_t>(nsp) + 2
                             ? (nsp == 2 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d)
                             : MemoryFormat::Contiguous;
  PoolGeometry gk = g;
  gk.channels_last = f != MemoryFormat::Contiguous;
  Tensor out = grad.numel() ? empty(input_sizes, opts, f) : zeros(input_sizes, opts);
  if (out.numel() && grad.numel()) {
    autograd::NoGradGuard no_grad;
    avg_pool_backward_kernel[grad.device()](out, contiguous(grad, f), gk);
  }
  if (auto n = autograd::make_node("AvgPoolBackwardBackward0", {&grad}, [g, node](FormulaNode&, TensorList& gr) {
        return TensorList{avg_pool_forward(gr[0], g, node)};
      }))
    autograd::set_history(out, n);
  return out;
}

Tensor avg_pool_core(const Tensor& input, const PoolGeometry& g, const char* node) {
  if (!widens(input)) return avg_pool_forward(input, g, node);
  return to(avg_pool_forward(to(input, ScalarType::Float32), g, node), input.dtype());
}

// Rank and non-empty checks shared by max and average pooling.
void check_pool_input(const Tensor& x, size_t nsp, const char* op) {
  const int64_t nd = static_cast<int64_t>(nsp);
  bool ok = x.dim() == nd + 1 || x.dim() == nd + 2;
  for (int64_t i = x.dim() - nd - 1; ok && i < x.dim(); ++i) ok = x.size(i) > 0;
  EMBER_CHECK(ok, op, ": Expected ", nd + 1, "D or ", nd + 2,
              "D (batch mode) tensor with optional 0 dim batch size for input, but got:", shape_str(x.sizes()));
}

// The geometry of a regular (max or average) pooling, checked as PyTorch does.
PoolGeometry regular_geometry(const Tensor& x, size_t nsp, const char* op, IntArrayRef kernel_size, IntArrayRef stride,
                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  PoolGeometry g;
  g.kernel = pool_param(kernel_size, nsp, op, "kernel_size", " must either be a single int, or a tuple of ");
  g.stride = stride.empty()
                 ? g.kernel
                 : pool_param(stride, nsp, op, "stride", " must either be omitted, a single int, or a tuple of ");
  g.padding = pool_param(padding.empty() ? IntArrayRef(DimVector{0}) : padding, nsp, op, "padding",
                         " must either be a single int, or a tuple of ");
  g.dilation = pool_param(dilation.empty() ? IntArrayRef(DimVector{1}) : dilation, nsp, op, "dilation",
                          " must be either a single int, or a tuple of ");
  for (size_t i = 0; i < nsp; ++i) {
    EMBER_CHECK(g.kernel[i] > 0, op,
                ": kernel_size must be greater than zero, but got kernel_size=", shape_str(g.kernel));
    EMBER_CHECK(g.stride[i] > 0, op, ": stride must be greater than zero, but got stride=", shape_str(g.stride));
    EMBER_CHECK(g.dilation[i] > 0, op,
                ": dilation should be greater than zero, but got dilation=", shape_str(g.dilation));
    EMBER_CHECK(g.padding[i] >= 0, op, ": pad must be non-negative, but got padding=", shape_str(g.padding));
    EMBER_CHECK(g.padding[i] <= g.kernel[i] / 2, op,
                ": pad should be at most half of kernel size, but got pad=", g.padding[i],
                " and kernel_size=", g.kernel[i]);
  }
  check_pool_input(x, nsp, op);
  g.in = spatial_of(x, nsp);
  for (size_t i = 0; i < nsp; ++i)
    g.out.push_back(pooled_size(g.in[i], g.kernel[i], g.padding[i], g.stride[i], g.dilation[i], ceil_mode, op));
  for (int64_t o : g.out)
    if (o <= 0) {
      const int64_t c = x.size(x.dim() - static_cast<int64_t>(nsp) - 1);
      DimVector in{c}, out{c};
      for (size_t i = 0; i < nsp; ++i) in.push_back(g.in[i]), out.push_back(g.out[i]);
      fail<Error>(op, ": Given input size: ", paren_x(in), ". Calculated output size: ", paren_x(out),
                  ". Output size is too small");
    }
  return g;
}

const char* const kMaxPoolNodes[] = {"MaxPool1DWithIndicesBackward0", "MaxPool2DWithIndicesBackward0",
                                     "MaxPool3DWithIndicesBackward0"};
const char* const kAvgPoolNodes[] = {"AvgPool1DBackward0", "AvgPool2DBackward0", "AvgPool3DBackward0"};
const char* const kAdaptiveAvgNodes[] = {"AdaptiveAvgPool1DBackward0", "AdaptiveAvgPool2DBackward0",
                                         "AdaptiveAvgPool3DBackward0"};
const char* const kAdaptiveMaxNodes[] = {"AdaptiveMaxPool1DBackward0", "AdaptiveMaxPool2DBackward0",
                                         "AdaptiveMaxPool3DBackward0"};

std::pair<Tensor, Tensor> max_pool(size_t nsp, const char* op, const Tensor& x, IntArrayRef kernel_size,
                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                   bool want_indices) {
  check_floating(x, op);
  const PoolGeometry g = regular_geometry(x, nsp, op, kernel_size, stride, padding, dilation, ceil_mode);
  if (nsp == 2 && dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]
    if (auto r = dispatch::call("aten.max_pool2d_with_indices.default",
                                dispatch::values(x, IntArrayRef(g.kernel), IntArrayRef(g.stride),
                                                 IntArrayRef(g.padding), IntArrayRef(g.dilation), ceil_mode))) {
      r->resize(2);
      return {(*r)[0], (*r)[1]};
    }
  }
  return max_pool_core(x, g, kMaxPoolNodes[nsp - 1], want_indices,
                       nsp == 2 ? std::optional<bool>(ceil_mode) : std::nullopt);
}

Tensor avg_pool(size_t nsp, const char* op, const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride,
                IntArrayRef padding, bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  check_floating(x, op);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  if (nsp == 2)
    EMBER_PY_DISPATCH(Tensor, "aten.avg_pool2d.default", x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                      divisor_override);
  PoolGeometry g = regular_geometry(x, nsp, op, kernel_size, stride, padding, {}, ceil_mode);
  g.count_include_pad = count_include_pad;
  g.divisor_override = divisor_override.value_or(0);
  return avg_pool_core(x, g, kAvgPoolNodes[nsp - 1]);
}

PoolGeometry adaptive_geometry(const Tensor& x, size_t nsp, const char* op, IntArrayRef output_size) {
  const int64_t nd = static_cast<int64_t>(nsp);
  EMBER_CHECK(x.dim() == nd + 1 || x.dim() == nd + 2, op, "(): Expected ", nd + 1, "D or ", nd + 2,
              "D tensor, but got ", shape_str(x.sizes()));
  for (int64_t i = x.dim() - nd; i < x.dim(); ++i)
    EMBER_CHECK(x.size(i) > 0, op,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has "
                "sizes ",
                shape_str(x.sizes()), " with dimension ", i, " being empty");
  EMBER_CHECK(output_size.size() == nsp || output_size.size() == 1, op, ": output_size must be ", nsp);
  PoolGeometry g;
  g.in = spatial_of(x, nsp);
  g.out = output_size.size() == 1 ? DimVector(nsp, output_size[0]) : DimVector(output_size);
  for (int64_t o : g.out) {
    if (o >= 0) continue;
    std::string v = "{";
    for (size_t i = 0; i < nsp; ++i) {
      if (i) v += ", ";
      v += std::to_string(g.out[i]);
    }
    fail<Error>(op, ": elements of output_size must be greater than or equal to 0 but received ", v, "}");
  }
  return g;
}

Tensor adaptive_avg_pool(size_t nsp, const char* op, const Tensor& x, IntArrayRef output_size) {
  check_floating(x, op);
  if (nsp == 2) EMBER_PY_DISPATCH(Tensor, "aten.adaptive_avg_pool2d.default", x, output_size);
  return avg_pool_core(x, adaptive_geometry(x, nsp, op, output_size), kAdaptiveAvgNodes[nsp - 1]);
}

std::pair<Tensor, Tensor> adaptive_max_pool(size_t nsp, const char* op, const Tensor& x, IntArrayRef output_size) {
  check_floating(x, op);
  return max_pool_core(x, adaptive_geometry(x, nsp, op, output_size), kAdaptiveMaxNodes[nsp - 1], true);
}

Tensor max_unpool(size_t nsp, const char* op, const Tensor& x, const Tensor& indices, IntArrayRef kernel_size,
                  IntArrayRef stride_arg, IntArrayRef padding_arg, IntArrayRef output_size) {
  check_same_device(op, {&x, &indices});
  const int64_t nd = static_cast<int64_t>(nsp);
  EMBER_CHECK(x.dim() == nd + 1 || x.dim() == nd + 2, "Input to max_unpooling", nsp, "d should be a ", nd + 1, "d or ",
              nd + 2, "d Tensor, but got a tensor with ", x.dim(), " dimensions.");
  EMBER_CHECK(indices.dtype() == ScalarType::Int64,
              "elements in indices should be type int64 but got: ", type_label(indices.dtype()));
  EMBER_CHECK(indices.sizes().size() == x.sizes().size() &&
                  std::equal(indices.sizes().begin(), indices.sizes().end(), x.sizes().begin()),
              "Expected shape of indices to be same as that of the input tensor (", shape_str(x.sizes()),
              ") but got indices tensor with shape: ", shape_str(indices.sizes()));
  const DimVector k = pool_param(kernel_size, nsp, op, "kernel_size", " must either be a single int, or a tuple of ");
  const DimVector s = stride_arg.empty()
                          ? k
                          : pool_param(stride_arg, nsp, op, "stride", " must either be a single int, or a tuple of ");
  const DimVector p = pool_param(padding_arg.empty() ? IntArrayRef(DimVector{0}) : padding_arg, nsp, op, "padding",
                                 " must either be a single int, or a tuple of ");
  DimVector out;
  for (size_t i = 0; i < nsp; ++i)
    out.push_back((x.size(x.dim() - nd + static_cast<int64_t>(i)) - 1) * s[i] - 2 * p[i] + k[i]);
  if (!output_size.empty()) {
    EMBER_CHECK_VALUE(output_size.size() == nsp || output_size.size() == nsp + 2,
                      "output_size should be a sequence "
                      "containing ",
                      nsp, " or ", nsp + 2, " elements, but it has a length of '", output_size.size(), "'");
    const IntArrayRef want = output_size.subspan(output_size.size() - nsp);
    for (size_t i = 0; i < nsp; ++i)
      EMBER_CHECK_VALUE(out[i] - s[i] < want[i] && want[i] < out[i] + s[i], "invalid output_size \"",
                        shape_str(output_size), "\" (dim ", i, " must be between ", out[i] - s[i], " and ",
                        out[i] + s[i], ")");
    out = DimVector(want);
  }
  int64_t out_n = 1;
  for (int64_t o : out) out_n *= o;
  if (indices.numel() && !indices.is_meta()) {  // meta: no values to check (Note [Meta device])
    Tensor bad = logical_or(lt(indices, 0), ge(indices, out_n));
    if (item(any(bad)).to<bool>()) {
      std::string sizes;
      for (size_t i = 0; i < nsp; ++i) {
        if (i) sizes += "x";
        sizes += std::to_string(out[i]);
      }
      fail<Error>(op, ": Found an invalid max index: ", item(select(masked_select(indices, bad), 0, 0)).to<int64_t>(),
                  " (output volumes are of size ", sizes, ")");
    }
  }
  const int64_t planes = x.numel() / std::max<int64_t>(1, [&] {
                           int64_t n = 1;
                           for (int64_t i = x.dim() - nd; i < x.dim(); ++i) n *= x.size(i);
                           return n;
                         }());
  const DimVector os = with_spatial(x, nsp, out);
  if (x.numel() == 0) return zeros(os, TensorOptions(x.dtype()).device(x.device()));
  Tensor z = zeros({{planes, out_n}}, TensorOptions(x.dtype()).device(x.device()));
  return reshape(scatter(z, 1, reshape(indices, {{planes, -1}}), reshape(x, {{planes, -1}})), os);
}

// PyTorch's 2-d poolings and max_pool3d keep a channels-last input's layout (avg_pool3d and the adaptive 3-d poolings
// return row-major results, except adaptive_avg_pool3d to size 1, a mean, which keeps it). The CPU kernels pool
// channels-last tensors in place (kernel_format); elsewhere (CUDA) the kernels run on row-major tensors, so the result
// is laid out as the input was afterwards (one copy of the smaller tensor).
Tensor like_input(const Tensor& input, const Tensor& r) {
  const MemoryFormat f = suggest_memory_format(input);
  if (!r.defined() || f == MemoryFormat::Contiguous || r.dim() != input.dim()) return r;
  // channels-last strides exactly as PyTorch gives them (also on size-1 dims): C innermost, then W, H (D), N
  DimVector strides(r.dim());
  int64_t s = 1;
  for (int64_t d : r.dim() == 4 ? DimVector{1, 3, 2, 0} : DimVector{1, 4, 3, 2, 0}) {
    strides[d] = s;
    s *= std::max<int64_t>(r.size(d), 1);
  }
  return std::ranges::equal(r.strides(), strides) ? r : clone(r, f);
}
std::pair<Tensor, Tensor> like_input(const Tensor& input, std::pair<Tensor, Tensor> r) {
  return {like_input(input, r.first), like_input(input, r.second)};
}

}  // namespace

#define EMBER_DEFINE_POOL(N)                                                                                           \
  std::pair<Tensor, Tensor> max_pool##N##d_with_indices(const Tensor& input, IntArrayRef kernel_size,                  \
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, \
                                                        bool ceil_mode) {                                              \
    return like_input(input,                                                                                           \
                      max_pool(N, "max_pool" #N "d", input, kernel_size, stride, padding, dilation, ceil_mode, true)); \
  }                                                                                                                    \
  Tensor max_pool##N##d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,         \
                        IntArrayRef dilation, bool ceil_mode) {                                                        \
    return like_input(                                                                                                 \
        input, max_pool(N, "max_pool" #N "d", input, kernel_size, stride, padding, dilation, ceil_mode, false).first); \
  }                                                                                                                    \
  Tensor adaptive_avg_pool##N##d(const Tensor& input, IntArrayRef output_size) {                                       \
    Tensor r = adaptive_avg_pool(N, "adaptive_avg_pool" #N "d", input, output_size);                                   \
    const bool mean = std::ranges::all_of(output_size, [](int64_t o) { return o == 1; });                              \
    return N != 3 || mean ? like_input(input, r) : r;                                                                  \
  }                                                                                                                    \
  std::pair<Tensor, Tensor> adaptive_max_pool##N##d(const Tensor& input, IntArrayRef output_size) {                    \
    auto r = adaptive_max_pool(N, "adaptive_max_pool" #N "d", input, output_size);                                     \
    return N != 3 ? like_input(input, r) : r;                                                                          \
  }                                                                                                                    \
  Tensor max_unpool##N##d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride,     \
                          IntArrayRef padding, IntArrayRef output_size) {                                              \
    return max_unpool(N, "max_unpool" #N "d", input, indices, kernel_size, stride, padding, output_size);              \
  }
EMBER_DEFINE_POOL(1)
EMBER_DEFINE_POOL(2)
EMBER_DEFINE_POOL(3)
#undef EMBER_DEFINE_POOL

Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  return avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt);
}
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return like_input(input, avg_pool(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                    divisor_override));
}
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, avg_pool3d, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                 divisor_override);
  return avg_pool(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}

}  // namespace ember
