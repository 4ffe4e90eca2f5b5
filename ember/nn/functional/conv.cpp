// Convolutions: argument checks with PyTorch's messages, output sizes, and the differentiable primitives.
//
// Note [Convolution as three maps]
// Every convolution op and every derivative of one is one of three bilinear maps of a convolution geometry g
// (ConvGeometry): y = F(x, w) (conv_forward), x' = B(y', w) (the input gradient, which is also the transposed
// convolution), w' = W(y', x) (the weight gradient). Each one's partial derivatives are the other two:
//   F(x, w):  dx = B(gy, w)          dw = W(gy, x)
//   B(y', w): dy' = F(gx, w)         dw = W(y', gx)
//   W(y', x): dy' = F(x, gw)         dx = B(y', gw)
// so the formulas close over the maps and derivatives of every order are exact. B and W are one op,
// conv_backward (one node, as PyTorch's convolution_backward), so that a backend can prepare grad_out once for
// both and fuse the bias gradient; a device provides two kernels, conv_forward and conv_backward.
// conv_transpose is B on the geometry whose input is the transposed convolution's output (its weight
// [C_in, C_out / groups, *k] is then exactly the forward weight's layout) plus the bias; its output_padding
// lengthens that input, which pad_r (or, past what the stride absorbs, crop) accounts for.
#include "ember/nn/functional/conv.h"

#include <algorithm>
#include <optional>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/conv.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/detail/conv.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/sizes.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// PyTorch's C++ names of the floating types, as its bias-dtype message prints them.
const char* c_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    case ScalarType::Float16: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    default: return type_label(t);
  }
}

// "(2 x 3)"
std::string paren(IntArrayRef v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += " x ";
    s += std::to_string(v[i]);
  }
  return s + ")";
}

DimVector expand_param(IntArrayRef v, size_t nsp, int64_t def, const char* what) {
  if (v.empty()) return DimVector(nsp, def);
  if (v.size() == 1) return DimVector(nsp, v[0]);
  EMBER_CHECK(v.size() == nsp, "expected ", what, " to be a single integer value or a list of ", nsp,
              " values to match the convolution dimensions, but got ", what, "=", shape_str(v));
  return DimVector(v);
}

DimVector channel_sum_dims(int64_t ndim) {
  DimVector d{0};
  for (int64_t i = 2; i < ndim; ++i) d.push_back(i);
  return d;
}

bool has_crop(const ConvGeometry& g) {
  return std::any_of(g.crop.begin(), g.crop.end(), [](int64_t c) { return c != 0; });
}

// The input-side sizes the kernels see: the trailing `crop` elements dropped.
DimVector cropped_sizes(IntArrayRef sizes, const ConvGeometry& g) {
  DimVector s(sizes);
  for (size_t i = 0; i < g.dims(); ++i) s[i + 2] -= g.crop[i];
  return s;
}

Tensor crop(const Tensor& x, const ConvGeometry& g) {
  Tensor r = x;
  for (size_t i = 0; i < g.dims(); ++i)
    if (g.crop[i]) r = narrow(r, static_cast<int64_t>(i) + 2, 0, r.size(static_cast<int64_t>(i) + 2) - g.crop[i]);
  return r;
}

// [N, O, *out] of geometry g for an input of `in` sizes and a weight of `w` sizes.
DimVector output_sizes(IntArrayRef in, IntArrayRef w, const ConvGeometry& g) {
  DimVector s{in[0], w[0]};
  for (size_t i = 0; i < g.dims(); ++i) {
    const int64_t span = in[i + 2] - g.crop[i] + g.pad_l[i] + g.pad_r[i] - g.dilation[i] * (w[i + 2] - 1) - 1;
    s.push_back(span / g.stride[i] + 1);
  }
  return s;
}

TensorOptions options_of(const Tensor& t) { return TensorOptions(t.dtype()).device(t.device()); }

// Whether a convolution keeps a channels-last input's layout (PyTorch's): a 4-d (5-d) CPU input dense in it and not
// row-major, without a cropped tail. The CPU kernels take any strides for oneDNN and copy for their own loops.
std::optional<MemoryFormat> channels_last_of(const Tensor& x, const ConvGeometry& g) {
  if (!x.device().is_cpu() || has_crop(g)) return std::nullopt;
  const MemoryFormat f = suggest_memory_format(x);
  return f == MemoryFormat::Contiguous ? std::nullopt : std::optional<MemoryFormat>(f);
}

// t dense in format f when given, else row-major.
Tensor dense_as(const Tensor& t, std::optional<MemoryFormat> f) { return f ? contiguous(t, *f) : contiguous(t); }

// Whether a geometry is one aten.convolution's arguments describe (the same padding at both ends, no crop).
bool aten_geometry(const ConvGeometry& g) {
  return g.pad_l == g.pad_r && std::ranges::all_of(g.crop, [](int64_t c) { return c == 0; });
}

// ConvolutionBackward0 offered to __torch_dispatch__ as aten.convolution_backward (Note [Python dispatch]).
std::optional<TensorList> py_convolution_backward(const Tensor& gy, const Tensor& x, const Tensor& w,
                                                  const ConvGeometry& g, std::array<bool, 3> mask) {
  if (!x.defined() || !w.defined() || !aten_geometry(g)) return std::nullopt;
  std::optional<std::vector<int64_t>> bias_sizes;
  if (mask[2]) bias_sizes = std::vector<int64_t>{w.size(0)};
  const DimVector zeros_(g.dims(), 0);
  auto r = dispatch::call("aten.convolution_backward.default",
                          dispatch::values(gy, x, w, bias_sizes, IntArrayRef(g.stride), IntArrayRef(g.pad_l),
                                           IntArrayRef(g.dilation), false, IntArrayRef(zeros_), g.groups, mask));
  if (!r) return std::nullopt;
  r->resize(3);
  return TensorList{(*r)[0], (*r)[1], (*r)[2]};
}

// Note [Taps that see only padding]
// A kernel tap whose every output position reads padding multiplies zeros: it adds nothing to the output, its share of
// the input gradient lands in the padding, and its weight gradient is zero. Deep layers of networks on small images
// have such taps. ResNet-18 on CIFAR's 32x32 images runs its last stage's 3x3 convolutions over 1x1 inputs, where
// only the centre tap reads the input; oneDNN computed all nine over a batch of 32 and reordered the whole weight
// into and out of its blocked layouts three times a step (a third of the training step). So the kernels are handed
// the weight narrowed to the live taps, a view where the kernels take strided weights (the CPU's) and a dense copy
// elsewhere, with the padding reduced to match: tap j of dim i reads j * dilation - pad_l + o * stride for outputs
// o, so dropping `first` leading taps lowers pad_l by first * dilation and dropping trailing taps lowers pad_r alike,
// which leaves the padded span, and with it the output size, unchanged. A dim is narrowed only where both pads stay
// non-negative (with dilation a live tap's first read can lie past the input's start). The weight gradient is zero
// at the dropped taps.
struct LiveTaps {
  ConvGeometry g;           // the geometry of the narrowed weight
  DimVector first, length;  // per spatial dim, the live taps
  bool narrowed = false;
  // w (or its gradient) at the live taps.
  Tensor view(const Tensor& w) const {
    Tensor r = w;
    if (!narrowed) return r;
    for (size_t i = 0; i < g.dims(); ++i) r = narrow(r, static_cast<int64_t>(i) + 2, first[i], length[i]);
    return r;
  }
  // The weight for a kernel: the view on the CPU (Note [Taps that see only padding]), else dense.
  Tensor operand(const Tensor& w, std::optional<MemoryFormat> cl) const {
    return !narrowed || w.device().is_cpu() ? view(w) : dense_as(view(w), cl);
  }
};

// The taps of weight sizes `ws` that read the input of sizes `in` (its crop dropped) for output sizes `out`.
LiveTaps live_taps(IntArrayRef in, IntArrayRef ws, IntArrayRef out, const ConvGeometry& g) {
  LiveTaps t{g, DimVector(g.dims()), DimVector(g.dims())};
  for (size_t i = 0; i < g.dims(); ++i) {
    const int64_t k = ws[i + 2], n = in[i + 2], d = g.dilation[i], reach = (out[i + 2] - 1) * g.stride[i];
    int64_t first = 0, last = k;  // tap j reads [j d - pad_l, j d - pad_l + reach]
    while (first < last && first * d - g.pad_l[i] + reach < 0) ++first;
    while (last > first && (last - 1) * d - g.pad_l[i] >= n) --last;
    const int64_t pad_l = g.pad_l[i] - first * d, pad_r = g.pad_r[i] - (k - last) * d;
    if (last == first || pad_l < 0 || pad_r < 0 || last - first == k) {
      t.length[i] = k;
      continue;
    }
    t.first[i] = first;
    t.length[i] = last - first;
    t.g.pad_l[i] = pad_l;
    t.g.pad_r[i] = pad_r;
    t.narrowed = true;
  }
  return t;
}

}  // namespace

// ---- the primitives (Note [Convolution as three maps])

Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  const DimVector os = output_sizes(x.sizes(), w.sizes(), g);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    const std::optional<MemoryFormat> cl = channels_last_of(x, g);
    Tensor xc = dense_as(crop(x, g), cl), wc = dense_as(w, cl), bc = b.defined() ? contiguous(b) : Tensor();
    if (xc.numel() == 0 || wc.numel() == 0) {  // nothing to sum: the bias alone
      out = zeros(os, options_of(x));
      if (bc.defined() && out.numel()) {
        DimVector bs(os.size(), 1);
        bs[1] = os[1];
        copy_into(out, view(bc, bs));
      }
    } else {
      out = cl ? empty(os, options_of(x), *cl) : empty(os, options_of(x));
      const LiveTaps taps = live_taps(xc.sizes(), wc.sizes(), os, g);
      conv_forward_kernel[x.device()](out, xc, taps.operand(wc, cl), bc, taps.g);
    }
  }
  if (auto n = autograd::make_node(
          "ConvolutionBackward0", {&x, &w, &b},
          [g, xs = DimVector(x.sizes()), ws = DimVector(w.sizes())](FormulaNode& n, TensorList& gr) {
            if (dispatch::enabled()) [[unlikely]] {
              if (auto r = py_convolution_backward(gr[0], n.saved_tensor(0), n.saved_tensor(1), g,
                                                   {n.needs(0), n.needs(1), n.needs(2)}))
                return std::move(*r);
            }
            ConvGrads r = conv_backward(gr[0], n.saved_tensor(0), n.saved_tensor(1), xs, ws, g,
                                        {n.needs(0), n.needs(1), n.needs(2)});
            return TensorList{r.input, r.weight, r.bias};
          })) {
    // both when __torch_dispatch__ is on: aten.convolution_backward takes them (Note [Python dispatch])
    n->save(n->needs(1) || dispatch::enabled() ? x : Tensor());
    n->save(n->needs(0) || dispatch::enabled() ? w : Tensor());
    autograd::set_history(out, n);
  }
  return out;
}

ConvGrads conv_backward(const Tensor& gy, const Tensor& x, const Tensor& w, IntArrayRef xs, IntArrayRef ws,
                        const ConvGeometry& g, std::array<bool, 3> need, const char* node) {
  ConvGrads r;
  {
    autograd::NoGradGuard no_grad;
    const TensorOptions opts = options_of(gy);
    // channels-last when the saved input (or, for a double backward without one, grad_out) is
    const std::optional<MemoryFormat> cl = channels_last_of(x.defined() ? x : gy, g);
    Tensor gc = dense_as(gy, cl);
    Tensor xc = need[1] ? dense_as(crop(x, g), cl) : Tensor(), wc = need[0] ? dense_as(w, cl) : Tensor();
    // Kernel outputs: the input gradient without the cropped tail (written into zeros when there is one).
    Tensor gx, gw, gb;
    if (need[0])
      r.input = has_crop(g) || !gc.numel() || !wc.numel() ? zeros(xs, opts)
                : cl                                      ? empty(xs, opts, *cl)
                                                          : empty(xs, opts);
    if (need[0] && gc.numel() && wc.numel()) gx = has_crop(g) ? empty(cropped_sizes(xs, g), opts) : r.input;
    const LiveTaps taps = live_taps(cropped_sizes(xs, g), ws, gy.sizes(), g);
    if (need[1]) {
      // laid out as the weight when it is channels-last too, so that AccumulateGrad need not copy it
      const bool w_cl = cl && w.defined() && !w.is_contiguous() && is_contiguous(w, *cl);
      r.weight = !(gc.numel() && xc.numel()) ? zeros(ws, opts) : w_cl ? empty(ws, opts, *cl) : empty(ws, opts);
      if (gc.numel() && xc.numel()) {
        if (taps.narrowed) r.weight.zero_();  // the dropped taps' gradient (Note [Taps that see only padding])
        gw = taps.operand(r.weight, w_cl ? cl : std::nullopt);
      }
    }
    if (need[2]) {
      r.bias = gw.defined() ? empty({{ws[0]}}, opts) : sum(gc, channel_sum_dims(gc.dim()));
      if (gw.defined()) gb = r.bias;
    }
    if (gx.defined() || gw.defined())
      conv_backward_kernel[gy.device()](gx, gw, gb, gc, xc, wc.defined() ? taps.operand(wc, cl) : wc, taps.g);
    if (gx.defined() && !gx.is_same(r.input)) copy_into(crop(r.input, g), gx);
    if (gw.defined() && taps.narrowed && !gw.device().is_cpu()) copy_into(taps.view(r.weight), gw);
  }
  // Each gradient is bilinear in grad_out and one operand, so its derivatives are convolutions again:
  // d grad_out = F(G_input, w) + F(x, G_weight) + G_bias, d x = B(grad_out, G_weight), d w = W(grad_out, G_input).
  if (auto n = autograd::make_node(node, {&gy, &x, &w},
                                   [g, xs = DimVector(xs), ws = DimVector(ws)](FormulaNode& n, TensorList& gr) {
                                     const Tensor &gx = gr[0], &gw = gr[1], &gb = gr[2];
                                     const Tensor gy = n.saved_tensor(0), x = n.saved_tensor(1), w = n.saved_tensor(2);
                                     TensorList d(3);
                                     if (n.needs(0)) {
                                       if (gx.defined()) d[0] = conv_forward(gx, w, {}, g);
                                       if (gw.defined()) {
                                         Tensor t = conv_forward(x, gw, gb, g);
                                         d[0] = d[0].defined() ? add(d[0], t) : t;
                                       } else if (gb.defined()) {
                                         DimVector bs(xs.size(), 1);
                                         bs[1] = ws[0];
                                         Tensor t = reshape(gb, bs);
                                         d[0] = d[0].defined() ? add(d[0], t) : expand(t, n.input_meta[0].shape);
                                       }
                                     }
                                     if (n.needs(1) && gw.defined())
                                       d[1] = conv_backward(gy, {}, gw, xs, ws, g, {true, false, false}).input;
                                     if (n.needs(2) && gx.defined())
                                       d[2] = conv_backward(gy, gx, {}, xs, ws, g, {false, true, false}).weight;
                                     return d;
                                   })) {
    n->num_outputs = 3;
    n->save(n->needs(1) || n->needs(2) ? gy : Tensor());
    n->save(n->needs(0) && need[1] ? x : Tensor());
    n->save(n->needs(0) && need[0] ? w : Tensor());
    const Tensor* outs[] = {&r.input, &r.weight, &r.bias};
    for (uint32_t i = 0; i < 3; ++i)
      if (outs[i]->defined()) autograd::set_history(*outs[i], n, i);
  }
  return r;
}

Tensor conv_input_grad(const Tensor& gy, const Tensor& w, IntArrayRef input_sizes, const ConvGeometry& g,
                       const char* node) {
  DimVector ws(w.sizes());
  return conv_backward(gy, {}, w, input_sizes, ws, g, {true, false, false}, node).input;
}

Tensor conv_weight_grad(const Tensor& gy, const Tensor& x, IntArrayRef weight_sizes, const ConvGeometry& g) {
  DimVector xs(x.sizes());
  return conv_backward(gy, x, {}, xs, weight_sizes, g, {false, true, false}).weight;
}

// ---- the public ops

namespace {

struct Padding {
  IntArrayRef values;
  std::string_view mode;  // "" (values), "same" or "valid"
};

Tensor convolution(const char* name, size_t nsp, bool transposed, const Tensor& input, const Tensor& weight,
                   const Tensor& bias, IntArrayRef stride_arg, Padding padding_arg, IntArrayRef dilation_arg,
                   IntArrayRef output_padding_arg, int64_t groups) {
  EMBER_AUTOCAST(autocast::kLower, convolution, name, nsp, transposed, input, weight, bias, stride_arg, padding_arg,
                 dilation_arg, output_padding_arg, groups);
  EMBER_CHECK(input.defined() && weight.defined(), name, "(): input and weight must be defined tensors");
  const int64_t nd = static_cast<int64_t>(nsp);
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, "Expected ", nd + 1, "D (unbatched) or ", nd + 2,
              "D (batched) input to ", name, ", but got input of size: ", shape_str(input.sizes()));
  const bool batched = input.dim() == nd + 2;
  const Tensor x = batched ? input : unsqueeze(input, 0);
  EMBER_CHECK(weight.dim() == nd + 2, "Expected ", weight.dim(), "-dimensional input for ", weight.dim(),
              "-dimensional weight ", shape_str(weight.sizes()), ", but got ", x.dim(), "-dimensional input of size ",
              shape_str(x.sizes()), " instead");
  EMBER_CHECK(x.dtype() == weight.dtype(), "expected scalar type ", type_label(x.dtype()), " but found ",
              type_label(weight.dtype()));
  EMBER_CHECK(!bias.defined() || bias.dtype() == x.dtype(), "Input type (", c_type_name(x.dtype()), ") and bias type (",
              c_type_name(bias.dtype()), ") should be the same");
  check_same_device(name, {&x, &weight, &bias});
  EMBER_CHECK_T(NotImplementedError, is_floating(x.dtype()), "\"", name, "\" not implemented for '",
                type_label(x.dtype()), "'");

  const DimVector stride = expand_param(stride_arg, nsp, 1, "stride");
  const DimVector dilation = expand_param(dilation_arg, nsp, 1, "dilation");
  const DimVector output_padding = expand_param(output_padding_arg, nsp, 0, "output_padding");
  DimVector padding = padding_arg.mode.empty() ? expand_param(padding_arg.values, nsp, 0, "padding")
                                               : DimVector(nsp, 0);
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  for (size_t i = 0; i < nsp; ++i) {
    EMBER_CHECK(stride[i] > 0, "non-positive stride is not supported");
    EMBER_CHECK(padding[i] >= 0, "negative padding is not supported");
    EMBER_CHECK(output_padding[i] >= 0, "negative output_padding is not supported");
    EMBER_CHECK(dilation[i] > 0, "dilation should be greater than zero, but got dilation=", shape_str(dilation));
  }
  EMBER_CHECK(weight.size(0) >= groups, "Given groups=", groups, ", expected weight to be at least ", groups,
              " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  const int64_t in_channels = transposed ? weight.size(0) : weight.size(1) * groups;
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  if (transposed)
    EMBER_CHECK(x.size(1) == in_channels, "Given transposed=1, weight of size ", shape_str(weight.sizes()),
                ", expected input", shape_str(x.sizes()), " to have ", in_channels, " channels, but got ", x.size(1),
                " channels instead");
  else
    EMBER_CHECK(x.size(1) == in_channels, "Given groups=", groups, ", weight of size ", shape_str(weight.sizes()),
                ", expected input", shape_str(x.sizes()), " to have ", in_channels, " channels, but got ", x.size(1),
                " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels), "Given ",
              transposed ? "transposed=1, " : "", "weight of size ", shape_str(weight.sizes()),
              ", expected bias to be 1-dimensional with ", out_channels, " elements, but got bias of size ",
              bias.defined() ? shape_str(bias.sizes()) : "", " instead");

  ConvGeometry g;
  g.stride = stride;
  g.dilation = dilation;
  g.groups = groups;
  g.crop = DimVector(nsp, 0);
  g.pad_l = padding;
  g.pad_r = padding;
  if (padding_arg.mode == "same") {
    for (int64_t s : stride) EMBER_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
    for (size_t i = 0; i < nsp; ++i) {  // an odd total pads one more at the end, as PyTorch does
      const int64_t total = checked_mul(dilation[i], weight.size(static_cast<int64_t>(i) + 2) - 1, "convolution",
                                        "padding='same'");
      g.pad_l[i] = total / 2;
      g.pad_r[i] = total - total / 2;
    }
  } else {
    EMBER_CHECK(padding_arg.mode.empty() || padding_arg.mode == "valid", "Invalid padding string: '", padding_arg.mode,
                "'");
  }

  if (dispatch::enabled() && (transposed || aten_geometry(g))) [[unlikely]] {  // Note [Python dispatch]
    if (auto r = dispatch::call(
            "aten.convolution.default",
            dispatch::values(x, weight, bias, IntArrayRef(stride), IntArrayRef(g.pad_l), IntArrayRef(dilation),
                             transposed, IntArrayRef(output_padding), groups))) {
      Tensor out = dispatch::result<Tensor>(std::move(*r));
      return batched || !out.defined() ? out : squeeze(out, 0);
    }
  }

  if (!transposed) {
    DimVector padded(nsp), kernel(nsp);
    for (size_t i = 0; i < nsp; ++i) {
      padded[i] = checked_add(checked_add(x.size(static_cast<int64_t>(i) + 2), g.pad_l[i], "convolution", "padding"),
                              g.pad_r[i], "convolution", "padding");
      kernel[i] = checked_add(
          checked_mul(dilation[i], weight.size(static_cast<int64_t>(i) + 2) - 1, "convolution", "dilated kernel size"),
          1, "convolution", "dilated kernel size");
    }
    for (size_t i = 0; i < nsp; ++i)
      EMBER_CHECK(padded[i] >= kernel[i], "Calculated padded input size per channel: ", paren(padded),
                  ". Kernel size: ", paren(kernel), ". Kernel size can't be greater than actual input size");
  }

  DimVector out_sizes{x.size(0), out_channels};
  if (transposed) {
    for (size_t i = 0; i < nsp; ++i) {
      if (output_padding[i] >= stride[i] && output_padding[i] >= dilation[i]) {
        static const char* axis[] = {"depth", "height", "width"};
        std::string msg = "output padding must be smaller than either stride or dilation, but got";
        for (const char* what : {"output_padding", "stride", "dilation"})
          for (size_t j = 0; j < nsp; ++j) {
            const DimVector& v = what[0] == 'o' ? output_padding : what[0] == 's' ? stride : dilation;
            msg += std::string(" ") + what + "_" + axis[3 - nsp + j] + ": " + std::to_string(v[j]);
          }
        fail<Error>(msg);
      }
    }
    DimVector in_sp, out_sp;
    for (size_t i = 0; i < nsp; ++i) {
      const int64_t k = weight.size(static_cast<int64_t>(i) + 2), in = x.size(static_cast<int64_t>(i) + 2);
      in_sp.push_back(in);
      const char* what = "transposed output size";
      const int64_t grown = checked_add(checked_mul(in - 1, stride[i], "conv_transpose", what),
                                        checked_mul(dilation[i], k - 1, "conv_transpose", what), "conv_transpose",
                                        what);
      out_sp.push_back(checked_add(grown - checked_mul(2, padding[i], "conv_transpose", what), output_padding[i] + 1,
                                   "conv_transpose", what));
    }
    for (int64_t o : out_sp)
      EMBER_CHECK(o > 0, "Given input size per channel: ", paren(in_sp),
                  ". Calculated output size per channel: ", paren(out_sp), ". Output size is too small");
    for (size_t i = 0; i < nsp; ++i) {
      // pad_r - output_padding, raised by up to stride - 1 (which the output size's floor absorbs); what stays
      // negative crops the input (Note [Convolution as three maps]).
      int64_t r = padding[i] - output_padding[i];
      if (r < 0) r += std::min(-r, stride[i] - 1);
      g.pad_r[i] = std::max<int64_t>(r, 0);
      g.crop[i] = std::max<int64_t>(-r, 0);
      out_sizes.push_back(out_sp[i]);
    }
  }

  // float16 and bfloat16 go to the kernels as they are (oneDNN on the CPU, cuDNN: float32 accumulation, one rounding),
  // except CPU transposed convolutions, computed in float32 (the casts record their gradients) so that the bias,
  // added after the kernel here, is rounded together with the sum.
  const ScalarType dt = x.dtype();
  const bool widen = !x.is_cuda() && transposed && (dt == ScalarType::Float16 || dt == ScalarType::BFloat16);
  const Tensor xw = widen ? to(x, ScalarType::Float32) : x;
  const Tensor ww = widen ? to(weight, ScalarType::Float32) : weight;
  const Tensor bw = widen && bias.defined() ? to(bias, ScalarType::Float32) : bias;
  Tensor out;
  if (!transposed) {
    out = conv_forward(xw, ww, bw, g);
  } else {
    out = conv_input_grad(xw, ww, out_sizes, g, "ConvolutionBackward0");
    if (bw.defined()) {
      DimVector bs(out_sizes.size(), 1);
      bs[1] = out_channels;
      out = add(out, reshape(bw, bs));
    }
  }
  if (widen) out = to(out, dt);
  return batched ? out : squeeze(out, 0);
}

}  // namespace

#define EMBER_DEFINE_CONV(N)                                                                                           \
  Tensor conv##N##d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,                 \
                    IntArrayRef padding, IntArrayRef dilation, int64_t groups) {                                       \
    return convolution("conv" #N "d", N, false, input, weight, bias, stride, {padding, {}}, dilation, {}, groups);     \
  }                                                                                                                    \
  Tensor conv##N##d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,                 \
                    std::string_view padding, IntArrayRef dilation, int64_t groups) {                                  \
    return convolution("conv" #N "d", N, false, input, weight, bias, stride, {{}, padding}, dilation, {}, groups);     \
  }                                                                                                                    \
  Tensor conv_transpose##N##d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,       \
                              IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) { \
    return convolution("conv_transpose" #N "d", N, true, input, weight, bias, stride, {padding, {}}, dilation,         \
                       output_padding, groups);                                                                        \
  }
EMBER_DEFINE_CONV(1)
EMBER_DEFINE_CONV(2)
EMBER_DEFINE_CONV(3)
#undef EMBER_DEFINE_CONV

}  // namespace ember
