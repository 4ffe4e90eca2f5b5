// Sorting, selection (topk, kthvalue, median, mode, aminmax) and unique: dims, dtypes, output shapes and argument
// checks. The per-slice work is in the device kernels; aminmax composes reductions.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/detail/reduce_grad.h"
#include "ember/backend/kernels/sort.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// Kernels work on dims; a 0-d tensor is a 1-element vector to them.
Tensor as_1d(const Tensor& t) { return t.dim() ? t : reshape(t, {{1}}); }

int64_t slice_size(const Tensor& x, int64_t dim) { return x.dim() ? x.sizes()[dim] : 1; }

TensorOptions like(const Tensor& x, ScalarType dtype) { return TensorOptions(dtype).device(x.device()); }

void check_nonempty_dim(const Tensor& x, int64_t dim, const char* name) {
  EMBER_CHECK_INDEX(slice_size(x, dim) != 0, name, "(): Expected reduction dim ", dim,
                    " to have non-zero size. (input shape ", shape_str(x.sizes()), ")");
}

// One element per slice along a wrapped, non-empty dim (slice_select's ops); records the gradient as `grad_name`.
std::pair<Tensor, Tensor> select_along(SelectOp op, const Tensor& x, int64_t dim, bool keepdim, const char* grad_name,
                                       int64_t k = 0) {
  DimVector shape(x.sizes());
  if (x.dim()) shape[dim] = 1;
  Tensor values = empty(shape, like(x, x.dtype())), indices = empty(shape, like(x, ScalarType::Int64));
  if (values.numel()) slice_select_kernel[x.device()](op, as_1d(values), as_1d(indices), as_1d(x), dim, k);
  if (!keepdim && x.dim()) {
    values = squeeze(values, dim);
    indices = squeeze(indices, dim);
  }
  autograd::record_value_selecting(grad_name, x, values, indices, dim, keepdim);
  return {values, indices};
}

std::pair<Tensor, Tensor> median_along(SelectOp op, const Tensor& x, int64_t dim, bool keepdim, const char* name,
                                       const char* grad_name) {
  dim = wrap_dim(dim, x.dim(), name);
  check_nonempty_dim(x, dim, name);
  return select_along(op, x, dim, keepdim, grad_name);
}

// The gradient is split evenly among the elements equal to the median, as PyTorch does.
Tensor median_all(SelectOp op, const Tensor& x, const char* name, const char* grad_name) {
  Tensor r;
  if (x.numel() == 0) {
    EMBER_CHECK(is_floating(x.dtype()), name, "(): the median of an empty tensor is NaN, which dtype ", x.dtype(),
                " cannot hold");
    r = full({}, std::numeric_limits<double>::quiet_NaN(), like(x, x.dtype()));
  } else {
    autograd::NoGradGuard no_grad;  // the flattened x is only the kernel's input
    r = select_along(op, reshape(x, {{-1}}), 0, false, nullptr).first;
  }
  if (autograd::needs_grad({&x})) [[unlikely]] {
    DimVector all(x.dim()), keep(x.dim(), 1);
    for (int64_t i = 0; i < x.dim(); ++i) all[i] = i;
    autograd::record_evenly_distributed(grad_name, x, r, all, keep);
  }
  return r;
}

UniqueResult unique_from_runs(const Tensor& runs, const Tensor& perm, const Tensor& x, bool return_inverse) {
  UniqueResult r;
  Tensor inverse = return_inverse ? empty({{x.numel()}}, like(x, ScalarType::Int64)) : Tensor();
  unique_runs_kernel[x.device()](runs, perm, inverse, r.values, r.counts);
  if (return_inverse) r.inverse = view(inverse, x.sizes());
  return r;
}

}  // namespace

// ---- sorting

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool /*stable*/) {
  EMBER_PY_DISPATCH(dispatch::Pair, "aten.sort.default", x, dim, descending);
  dim = wrap_dim(dim, x.dim(), "sort");
  EMBER_CHECK_TYPE(!is_complex(x.dtype()), " Sort does not support complex dtypes on CPU");  // PyTorch's message
  Tensor values = empty(x.sizes(), like(x, x.dtype())), indices = empty(x.sizes(), like(x, ScalarType::Int64));
  if (x.numel()) sort_kernel[x.device()](as_1d(values), as_1d(indices), as_1d(x), dim, descending);
  autograd::record_value_selecting("SortBackward0", x, values, indices, dim, true);
  return {values, indices};
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return sort(x, dim, descending, stable).second;
}

Tensor msort(const Tensor& x) { return sort(x, 0).first; }

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  EMBER_PY_DISPATCH(dispatch::Pair, "aten.topk.default", x, k, dim, largest, sorted);
  dim = wrap_dim(dim, x.dim(), "topk");
  EMBER_CHECK_TYPE(!is_complex(x.dtype()), " topk does not support complex dtypes on CPU");  // PyTorch's message
  const int64_t n = slice_size(x, dim);
  EMBER_CHECK(k >= 0 && k <= n, "topk(): selected index k out of range (k = ", k, ", but dim ", dim, " has size ", n,
              ")");
  if (x.dim() == 0) return {clone(x), zeros({}, like(x, ScalarType::Int64))};  // k = 0 too, as in PyTorch
  DimVector shape(x.sizes());
  shape[dim] = k;
  Tensor values = empty(shape, like(x, x.dtype())), indices = empty(shape, like(x, ScalarType::Int64));
  if (values.numel()) topk_kernel[x.device()](values, indices, x, k, dim, largest, sorted);
  autograd::record_value_selecting("TopkBackward0", x, values, indices, dim, true);
  return {values, indices};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  dim = wrap_dim(dim, x.dim(), "kthvalue");
  check_nonempty_dim(x, dim, "kthvalue");
  const int64_t n = slice_size(x, dim);
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", dim, " (k = ", k,
              ", but the dimension has size ", n, ")");
  return select_along(SelectOp::Kth, x, dim, keepdim, "KthvalueBackward0", k - 1);
}

Tensor median(const Tensor& x) { return median_all(SelectOp::Median, x, "median", "MedianBackward0"); }
Tensor nanmedian(const Tensor& x) { return median_all(SelectOp::NanMedian, x, "nanmedian", "NanmedianBackward0"); }

std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim) {
  return median_along(SelectOp::Median, x, dim, keepdim, "median", "MedianBackward1");
}
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  return median_along(SelectOp::NanMedian, x, dim, keepdim, "nanmedian", "NanmedianBackward1");
}
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim, bool keepdim) {
  return median_along(SelectOp::Mode, x, dim, keepdim, "mode", "ModeBackward0");
}

// ---- counting

UniqueResult unique(const Tensor& x, bool /*sorted*/, bool return_inverse) {
  check_has_data(x, "unique");
  auto [values, perm] = sort(reshape(x, {{-1}}), 0);
  return unique_from_runs(values, perm, x, return_inverse);
}

UniqueResult unique_consecutive(const Tensor& x, bool return_inverse) {
  check_has_data(x, "unique_consecutive");
  return unique_from_runs(contiguous(reshape(x, {{-1}})), Tensor(), x, return_inverse);
}

std::pair<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) {
    EMBER_CHECK(x.numel() > 0,
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                "identity.");
    return {amin(x, {}, keepdim), amax(x, {}, keepdim)};
  }
  const int64_t d = wrap_dim(*dim, x.dim(), "aminmax");
  check_nonempty_dim(x, d, "aminmax");
  const IntArrayRef dims(&d, 1);
  return {amin(x, dims, keepdim), amax(x, dims, keepdim)};
}

}  // namespace ember
