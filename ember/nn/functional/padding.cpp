// Padding. Constant padding copies x into a filled tensor (its gradient is the negated padding of g); the other
// modes gather along each padded dim with an index computed once per dim, so their gradient (index_select's,
// which sums the rows an output read twice) and its derivatives come from the indexing ops.
#include "ember/nn/functional/padding.h"

#include <algorithm>

#include "ember/autograd/node.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

enum class Mode { Constant, Reflect, Replicate, Circular };

// The source index of each of the n + lo + hi outputs along a dim of size n.
Tensor pad_index(Mode mode, int64_t n, int64_t lo, int64_t hi, Device device) {
  const int64_t len = n + lo + hi;
  Tensor idx = empty(DimVector{len}, TensorOptions(ScalarType::Int64));
  int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0; i < len; ++i) {
    int64_t j = i - lo;
    if (mode == Mode::Reflect)
      j = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
    else if (mode == Mode::Replicate)
      j = std::clamp<int64_t>(j, 0, n - 1);
    else
      j = ((j % n) + n) % n;
    p[i] = j;
  }
  return device.is_cpu() ? idx : to(idx, device);
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
  Mode mode;
  if (mode_name == "constant")
    mode = Mode::Constant;
  else if (mode_name == "reflect")
    mode = Mode::Reflect;
  else if (mode_name == "replicate")
    mode = Mode::Replicate;
  else if (mode_name == "circular")
    mode = Mode::Circular;
  else
    fail<NotImplementedError>("Unrecognised padding mode ", mode_name);
  if (mode == Mode::Constant) return constant_pad_nd(x, pad, value.value_or(0.0));
  EMBER_CHECK(!value || *value == 0, "Padding mode \"", mode_name, "\" doesn't take in value argument");
  // As PyTorch: the last 1, 2 or 3 dims, of an input with one or two dims more (unbatched or batched).
  EMBER_CHECK_T(NotImplementedError, (k == 2 || k == 4 || k == 6) && (x.dim() == k / 2 + 1 || x.dim() == k / 2 + 2),
                "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  Tensor r = x;
  for (int64_t i = 0; i < k / 2; ++i) {
    const int64_t d = x.dim() - 1 - i, n = x.size(d);
    int64_t lo = pad[2 * i], hi = pad[2 * i + 1];
    if (lo == 0 && hi == 0) continue;
    if (mode == Mode::Reflect)
      EMBER_CHECK(lo < n && hi < n, "Argument #", 4 + 2 * i,
                  ": Padding size should be less than the corresponding "
                  "input dimension, but got: padding (",
                  lo, ", ", hi, ") at dimension ", d, " of input ", shape_str(x.sizes()));
    int64_t m = n;                 // the size the index refers to
    if (mode == Mode::Circular) {  // as PyTorch: crop first, then wrap around what is left
      EMBER_CHECK(lo <= n && hi <= n, "Padding value causes wrapping around more than once.");
      m = n + std::min<int64_t>(lo, 0) + std::min<int64_t>(hi, 0);
      EMBER_CHECK(m > 0, "Negative padding value is resulting in an empty dimension.");
      if (m < n) r = narrow(r, d, std::max<int64_t>(-lo, 0), m);
      lo = std::max<int64_t>(lo, 0);
      hi = std::max<int64_t>(hi, 0);
      if (lo == 0 && hi == 0) continue;
    }
    EMBER_CHECK(m > 0 && m + lo + hi >= 1, "input (W: ", n, ") is too small. Calculated output W: ", n + lo + hi);
    r = index_select(r, d, pad_index(mode, m, lo, hi, x.device()));
  }
  return r;
}

}  // namespace ember
