// Padding. Constant padding copies x into a filled tensor (its gradient is the negated padding of g); the other
// modes run the pad kernel (Note [Padding as a map of indices]), and their gradient is an index_add per padded dim
// (which sums the elements an output read twice), so its derivatives come from the indexing ops.
#include "ember/nn/functional/padding.h"

#include <algorithm>

#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/padding.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// The source index of each of the `len` outputs along a padded dim (the gradient's index_add).
Tensor pad_index(PadMode mode, const PadDim& d, int64_t len, Device device) {
  Tensor idx = empty(DimVector{len}, TensorOptions(ScalarType::Int64));
  int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0; i < len; ++i) p[i] = pad_source(mode, d, i);
  return device.is_cpu() ? idx : to(idx, device);
}

// The adjoint of the padding map, one dim at a time: each source element sums the outputs that read it.
Tensor pad_backward(const Tensor& g, const PadArgs& a, const DimVector& in_sizes) {
  Tensor r = g;
  for (int i = 0; i < a.k; ++i) {
    const int64_t d = g.dim() - 1 - i;
    if (r.sizes()[d] == in_sizes[d] && a.dims[i].lo == 0 && a.dims[i].c == 0) continue;  // an identity map
    DimVector shape(r.sizes());
    shape[d] = in_sizes[d];
    r = index_add(zeros(shape, TensorOptions(g.dtype()).device(g.device())), d,
                  pad_index(a.mode, a.dims[i], r.sizes()[d], g.device()), r);
  }
  return r;
}

}  // namespace

Tensor constant_pad_nd(const Tensor& x, IntArrayRef pad, const Scalar& value) {
  const int64_t k = static_cast<int64_t>(pad.size());
  EMBER_CHECK(k % 2 == 0, "Length of pad must be even but instead it equals ", k);
  EMBER_CHECK(k / 2 <= x.dim(),
              "Length of pad should be no more than twice the number of dimensions of the input. "
              "Pad length is ",
              k, " while the input has ", x.dim(), " dimensions.");
  DimVector shape(x.sizes());
  Tensor dst_region, src = x;
  for (int64_t i = 0; i < k / 2; ++i) {
    const int64_t d = x.dim() - 1 - i, lo = pad[2 * i], hi = pad[2 * i + 1];
    shape[d] = x.size(d) + lo + hi;
    EMBER_CHECK(shape[d] >= 0, "The input size ", x.size(d), ", plus negative padding ", lo, " and ", hi,
                " resulted in a negative output size, which is invalid. Check dimension ", d, " of your input.");
  }
  Tensor out = full(shape, value, TensorOptions(x.dtype()).device(x.device()));
  {
    autograd::NoGradGuard no_grad;
    Tensor dst = out;
    for (int64_t i = 0; i < k / 2; ++i) {
      const int64_t d = x.dim() - 1 - i, lo = pad[2 * i], hi = pad[2 * i + 1];
      const int64_t keep = x.size(d) + std::min<int64_t>(lo, 0) + std::min<int64_t>(hi, 0);  // x's part that stays
      if (keep <= 0) {
        dst = Tensor();
        break;
      }
      src = narrow(src, d, std::max<int64_t>(-lo, 0), keep);
      dst = narrow(dst, d, std::max<int64_t>(lo, 0), keep);
    }
    if (dst.defined() && dst.numel()) copy_into(dst, src);
  }
  DimVector back(pad);  // the gradient crops what was added and zero-pads what was cropped
  for (int64_t& p : back) p = -p;
  auto node = autograd::make_node("ConstantPadNdBackward0", {&x},
                                  [back](autograd::FormulaNode&, autograd::TensorList& g) {
                                    return autograd::TensorList{constant_pad_nd(g[0], back, 0)};
                                  });
  if (node) autograd::set_history(out, node);
  return out;
}

Tensor pad(const Tensor& x, IntArrayRef pad, std::string_view mode_name, std::optional<double> value) {
  const int64_t k = static_cast<int64_t>(pad.size());
  EMBER_CHECK(k % 2 == 0, "Padding length must be divisible by 2");
  EMBER_CHECK(k / 2 <= x.dim(), "Padding length too large");
  if (mode_name == "constant") return constant_pad_nd(x, pad, value.value_or(0.0));
  PadArgs a;
  if (mode_name == "reflect")
    a.mode = PadMode::Reflect;
  else if (mode_name == "replicate")
    a.mode = PadMode::Replicate;
  else if (mode_name == "circular")
    a.mode = PadMode::Circular;
  else
    fail<NotImplementedError>("Unrecognised padding mode ", mode_name);
  EMBER_CHECK(!value || *value == 0, "Padding mode \"", mode_name, "\" doesn't take in value argument");
  // As PyTorch: the last 1, 2 or 3 dims, of an input with one or two dims more (unbatched or batched).
  EMBER_CHECK_T(NotImplementedError, (k == 2 || k == 4 || k == 6) && (x.dim() == k / 2 + 1 || x.dim() == k / 2 + 2),
                "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  a.k = static_cast<int>(k / 2);
  DimVector shape(x.sizes());
  for (int64_t i = 0; i < k / 2; ++i) {
    const int64_t d = x.dim() - 1 - i, n = x.size(d);
    int64_t lo = pad[2 * i], hi = pad[2 * i + 1];
    a.dims[i] = PadDim{0, n, 0};
    if (lo == 0 && hi == 0) continue;
    if (a.mode == PadMode::Reflect)
      EMBER_CHECK(lo < n && hi < n, "Argument #", 4 + 2 * i,
                  ": Padding size should be less than the corresponding "
                  "input dimension, but got: padding (",
                  lo, ", ", hi, ") at dimension ", d, " of input ", shape_str(x.sizes()));
    int64_t m = n, c = 0;               // the stretch of the dim the map folds into
    if (a.mode == PadMode::Circular) {  // as PyTorch: crop first, then wrap around what is left
      EMBER_CHECK(lo <= n && hi <= n, "Padding value causes wrapping around more than once.");
      m = n + std::min<int64_t>(lo, 0) + std::min<int64_t>(hi, 0);
      EMBER_CHECK(m > 0, "Negative padding value is resulting in an empty dimension.");
      c = std::max<int64_t>(-lo, 0);
      lo = std::max<int64_t>(lo, 0);
      hi = std::max<int64_t>(hi, 0);
    }
    EMBER_CHECK(m > 0 && m + lo + hi >= 1, "input (W: ", n, ") is too small. Calculated output W: ", n + lo + hi);
    a.dims[i] = PadDim{lo, m, c};
    shape[x.dim() - 1 - i] = m + lo + hi;
  }
  Tensor out = empty(shape, TensorOptions(x.dtype()).device(x.device()));
  pad_kernel[x.device()](out, x, a);
  // PyTorch's names: the reflect and replicate kernels' nodes, and circular padding's slice assignments.
  static constexpr const char* kNames[2][3] = {
      {"ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0"},
      {"ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0"}};
  const char* name = a.mode == PadMode::Circular ? "CopySlices" : kNames[a.mode == PadMode::Replicate][a.k - 1];
  auto node = autograd::make_node(name, {&x},
                                  [a, in = DimVector(x.sizes())](autograd::FormulaNode&, autograd::TensorList& g) {
                                    return autograd::TensorList{pad_backward(g[0], a, in)};
                                  });
  if (node) autograd::set_history(out, node);
  return out;
}

}  // namespace ember
