// searchsorted, bucketize and isin. One kernel (Note [searchsorted kernel]) does the binary search; isin sorts the
// test elements and searches them, or compares all pairs when there are few.
#include "ember/ops/search.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/backend/kernels/search.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

bool resolve_right(bool right, std::optional<std::string_view> side) {
  if (!side) return right;
  EMBER_CHECK(*side == "left" || *side == "right", "torch.searchsorted(): side can only be 'left' or 'right' but got ",
              *side);
  EMBER_CHECK(!(right && *side == "left"),
              "torch.searchsorted(): side and right can't be set to opposites, got side "
              "of left while right was True");
  return *side == "right";
}

// values_scalar: `values` came from a Python number (0-d; a number-only error for n-d sequences).
Tensor search(const Tensor& seq, const Tensor& values, ScalarType common, bool out_int32, bool right,
              const Tensor& sorter, bool values_scalar) {
  check_same_device("torch.searchsorted()", {&seq, &values, &sorter});
  EMBER_CHECK(seq.dim() > 0,
              "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
              "dimension");
  if (seq.dim() > 1) {
    EMBER_CHECK(!values_scalar && values.dim() > 0,
                "torch.searchsorted(): input value can be a scalar only when "
                "boundaries tensor dimension is 1, but we got boundaries tensor dim(",
                seq.dim(), ") and input value's dim(", values.dim(), ") numel(", values.numel(), ")");
    bool match = values.dim() == seq.dim();
    for (int64_t d = 0; match && d + 1 < seq.dim(); ++d) match = values.sizes()[d] == seq.sizes()[d];
    EMBER_CHECK(match,
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
                shape_str(seq.sizes()), " and input value tensor ", shape_str(values.sizes()));
  }
  EMBER_CHECK(common != ScalarType::Bool, "torch.searchsorted(): not implemented for 'Bool' (sequence ", seq.dtype(),
              ", values ", values.dtype(), ")");
  const int64_t n = seq.sizes().back();
  if (sorter.defined()) {
    EMBER_CHECK(sorter.dtype() == ScalarType::Int64,
                "torch.searchsorted(): sorter must be a tensor of long dtype but "
                "got dtype ",
                sorter.dtype());
    EMBER_CHECK(std::ranges::equal(sorter.sizes(), seq.sizes()),
                "torch.searchsorted(): boundary and sorter must have "
                "the same size, but got boundary tensor ",
                shape_str(seq.sizes()), " and got sorter tensor ", shape_str(sorter.sizes()));
    if (sorter.numel() && !sorter.is_meta()) {  // meta: no values to check (Note [Meta device])
      auto [lo, hi] = host_extrema(sorter);
      EMBER_CHECK_INDEX(lo.to<int64_t>() >= 0 && hi.to<int64_t>() < n,
                        "torch.searchsorted(): sorter index out of "
                        "range: its entries must lie in [0, ",
                        n, "), got [", lo.to<int64_t>(), ", ", hi.to<int64_t>(), "]");
    }
  }
  const ScalarType out_dtype = out_int32 ? ScalarType::Int32 : ScalarType::Int64;
  if (out_int32)
    EMBER_CHECK(n < (int64_t{1} << 31), "torch.searchsorted(): the size of boundaries' last dimension (", n,
                ") does not fit out_int32=True");
  autograd::NoGradGuard no_grad;  // an integer result: nothing to differentiate
  Tensor out = empty(values.sizes(), TensorOptions(out_dtype).device(seq.device()));
  if (out.numel() == 0) return out;
  if (n == 0) return out.fill_(0);
  const int64_t rows = seq.numel() / n;
  const Tensor b = contiguous(to(reshape(seq, {{rows, n}}), common));
  const Tensor v = contiguous(to(reshape(values, {{rows == 1 ? int64_t{1} : rows, -1}}), common));
  const Tensor s = sorter.defined() ? contiguous(reshape(sorter, {{rows, n}})) : Tensor();
  searchsorted_kernel[seq.device()](out, b, v, s, right);
  return out;
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor& sorter) {
  right = resolve_right(right, side);
  return search(sorted_sequence, values, result_type(sorted_sequence, values), out_int32, right, sorter, false);
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor& sorter) {
  right = resolve_right(right, side);
  const ScalarType common = result_type(sorted_sequence, value);
  return search(sorted_sequence, full({}, value, TensorOptions(common).device(sorted_sequence.device())), common,
                out_int32, right, sorter, true);
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "torch.bucketize(): boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ") (shape ", shape_str(boundaries.sizes()), ")");
  return searchsorted(boundaries, input, out_int32, right);
}

Tensor bucketize(const Scalar& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "torch.bucketize(): boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ") (shape ", shape_str(boundaries.sizes()), ")");
  return searchsorted(boundaries, input, out_int32, right);
}

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // a hint for PyTorch's algorithm choice; the result is the same
  check_same_device("isin", {&elements, &test_elements});
  const ScalarType common = result_type(elements, test_elements);
  EMBER_CHECK(common != ScalarType::Bool, "Unsupported input type encountered for isin(): ", common, " (elements ",
              elements.dtype(), ", test_elements ", test_elements.dtype(), ")");
  autograd::NoGradGuard no_grad;
  const Tensor e = to(elements, common);
  const Tensor t = flatten(to(test_elements, common));
  const int64_t n = t.numel();
  Tensor found;
  if (n == 0 || elements.numel() == 0) {
    found = zeros(elements.sizes(), TensorOptions(ScalarType::Bool).device(elements.device()));
  } else if (static_cast<double>(n) < 10.0 * std::pow(static_cast<double>(elements.numel()), 0.145)) {
    // Few test elements (PyTorch's threshold): compare every pair.
    const int64_t last[] = {-1};
    found = any(eq(unsqueeze(e, -1), t), last);
  } else {
    // Sort the test elements and look each element up. NaNs sort last but compare below everything in the search
    // (Note [searchsorted kernel]), so they become +inf there, and +inf elements are looked up separately.
    Tensor sorted = sort(t).first;
    const bool floating = is_floating(common);
    if (floating) sorted = where(isnan(sorted), full({}, INFINITY, TensorOptions(common).device(t.device())), sorted);
    const Tensor idx = clamp(searchsorted(sorted, e), std::nullopt, Scalar(n - 1));
    found = eq(take(sorted, idx), e);
    if (floating) {
      const Tensor e_inf = eq(e, INFINITY);
      found = where(e_inf, any(eq(t, INFINITY)), found);
    }
  }
  return invert ? logical_not(found) : found;
}

Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  const ScalarType dtype = result_type(test_elements, element);
  return isin(full({}, element, TensorOptions(dtype).device(test_elements.device())), test_elements, assume_unique,
              invert);
}

Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  const ScalarType dtype = result_type(elements, test_element);
  return isin(elements, full({}, test_element, TensorOptions(dtype).device(elements.device())), assume_unique, invert);
}

}  // namespace ember
