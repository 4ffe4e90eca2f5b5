// Sorting, selection and counting ops, aminmax and the vector norms: dims, dtypes, output shapes and argument
// checks. The per-slice work is in the device kernels; aminmax and the norms compose reductions and elementwise ops.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/reduce_grad.h"
#include "ember/backend/kernels/histogram.h"
#include "ember/backend/kernels/sort.h"
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

void check_norm_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CHECK(is_floating(*dtype), "norm(): the desired output dtype should be either floating point or complex. "
                "Got ", *dtype, " instead.");
  } else {
    EMBER_CHECK(is_floating(x.dtype()), "norm(): input dtype should be either floating point or complex. Got ",
                x.dtype(), " instead.");
  }
}

// The norm of x cast to `out` (16-bit floats compute in float32, as PyTorch's accumulators do), recorded as one node
// `grad_name`: its formula saves x and the norm, and is 0 where the norm is 0 (the composition's would be nan).
Tensor compute_norm(const Tensor& x, double ord, const DimVector& dims, bool keepdim, ScalarType out,
                    const char* grad_name) {
  Tensor r;
  {
    autograd::NoGradGuard no_grad;
    const ScalarType compute = element_size(out) < 4 ? ScalarType::Float32 : out;
    const Tensor xf = to(x, compute);
    if (ord == 0) r = sum(ne(xf, 0), dims, keepdim, compute);
    else if (ord == std::numeric_limits<double>::infinity()) r = amax(abs(xf), dims, keepdim);
    else if (ord == -std::numeric_limits<double>::infinity()) r = amin(abs(xf), dims, keepdim);
    else if (ord == 1) r = sum(abs(xf), dims, keepdim);
    else if (ord == 2) r = sqrt(sum(mul(xf, xf), dims, keepdim));
    else r = pow(sum(pow(abs(xf), ord), dims, keepdim), 1.0 / ord);
    r = to(r, out);
  }
  if (!autograd::needs_grad({&x})) [[likely]]
    return r;
  DimVector keep(x.sizes());
  for (int64_t d : dims) keep[d] = 1;
  auto n = autograd::make_node(grad_name, {&x}, [ord, dims, keep](FormulaNode& n, TensorList& g) {
    if (ord == 0) {  // a count: piecewise constant
      const autograd::TensorMeta& m = n.input_meta[0];
      return TensorList{zeros(m.shape, TensorOptions(m.dtype).device(m.device))};
    }
    return TensorList{autograd::norm_backward(g[0], n.saved_tensor(0), n.saved_tensor(1), ord, dims, keep)};
  });
  n->save(ord == 0 ? Tensor() : x);
  autograd::set_history(r, n);
  n->save_output(ord == 0 || ord == 1 ? Tensor() : r);
  return r;
}

}  // namespace

// ---- sorting

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool /*stable*/) {
  dim = wrap_dim(dim, x.dim(), "sort");
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
  dim = wrap_dim(dim, x.dim(), "topk");
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
  auto [values, perm] = sort(reshape(x, {{-1}}), 0);
  return unique_from_runs(values, perm, x, return_inverse);
}

UniqueResult unique_consecutive(const Tensor& x, bool return_inverse) {
  return unique_from_runs(contiguous(reshape(x, {{-1}})), Tensor(), x, return_inverse);
}

Tensor bincount(const Tensor& x, const Tensor& weights, int64_t minlength) {
  const char* domain = "bincount only supports 1-d non-negative integral inputs.";
  EMBER_CHECK(x.dim() == 1 && is_integral(x.dtype(), false), domain);
  EMBER_CHECK(minlength >= 0, "bincount(): minlength should be >= 0, but got ", minlength);
  if (weights.defined()) {
    EMBER_CHECK(weights.dim() == 1 && weights.numel() == x.numel(), "bincount(): weights should be 1-d and have "
                "the same length as input (input shape ", shape_str(x.sizes()), ", weights shape ",
                shape_str(weights.sizes()), ")");
    EMBER_CHECK(weights.device() == x.device(), "bincount(): weights are on ", weights.device(), " but input is on ",
                x.device());
  }
  int64_t len = minlength;
  if (x.numel()) {
    EMBER_CHECK(item(amin(x)).to_int() >= 0, domain);
    len = std::max(len, item(amax(x)).to_int() + 1);
  }
  const ScalarType out_t = !weights.defined()                     ? ScalarType::Int64
                           : weights.dtype() == ScalarType::Float32 ? ScalarType::Float32
                                                                    : ScalarType::Float64;
  const Tensor w = weights.defined() ? to(weights, out_t) : weights;
  Tensor out = empty({{len}}, like(x, out_t));
  bincount_kernel[x.device()](out, x, w);
  return out;
}

Tensor histc(const Tensor& x, int64_t bins, double min, double max) {
  EMBER_CHECK(is_floating(x.dtype()), "histc(): expected a floating point input, but got ", x.dtype());
  EMBER_CHECK(bins > 0, "histc(): bins must be > 0, but got ", bins);
  if (min == max && x.numel()) {  // the data's range
    min = item(amin(x)).to_double();
    max = item(amax(x)).to_double();
  }
  if (min == max) {
    min -= 1;
    max += 1;
  }
  EMBER_CHECK(std::isfinite(min) && std::isfinite(max), "histc(): range of [", min, ", ", max, "] is not finite");
  EMBER_CHECK(min < max, "histc(): max must be larger than min (min = ", min, ", max = ", max, ")");
  Tensor out = empty({{bins}}, like(x, x.dtype()));
  histc_kernel[x.device()](out, x, min, max);
  return out;
}

std::pair<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) {
    EMBER_CHECK(x.numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                "identity.");
    return {amin(x, {}, keepdim), amax(x, {}, keepdim)};
  }
  const int64_t d = wrap_dim(*dim, x.dim(), "aminmax");
  check_nonempty_dim(x, d, "aminmax");
  const IntArrayRef dims(&d, 1);
  return {amin(x, dims, keepdim), amax(x, dims, keepdim)};
}

// ---- norms

Tensor linalg_vector_norm(const Tensor& x, double ord, IntArrayRef dims, bool keepdim,
                          std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, linalg_vector_norm, x, ord, dims, keepdim, dtype);
  const char* name = "linalg.vector_norm";
  EMBER_CHECK(is_floating(x.dtype()), name, ": Expected a floating point or complex tensor as input. Got ",
              x.dtype());
  if (dtype) {
    EMBER_CHECK(is_floating(*dtype), name, ": dtype should be floating point or complex, but got ", *dtype);
    EMBER_CHECK(promote_types(x.dtype(), *dtype) == *dtype, name, ": the dtype of the input (", x.dtype(),
                ") should be convertible without narrowing to the specified dtype (", *dtype, ")");
  }
  const DimVector d = reduction_dims(x, dims, name);
  if (x.numel() == 0 && (ord < 0 || std::isinf(ord))) {
    EMBER_CHECK(!dims.empty(), name, " cannot compute the ", ord, " norm on an empty tensor because the operation "
                "does not have an identity");
    for (int64_t i : d)
      EMBER_CHECK(x.sizes()[i] != 0, name, " cannot compute the ", ord, " norm on the dimension ", i, " because "
                  "this dimension is empty and the operation does not have an identity");
  }
  return compute_norm(x, ord, d, keepdim, dtype.value_or(x.dtype()), "LinalgVectorNormBackward0");
}

Tensor norm(const Tensor& x, double p, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, norm, x, p, dims, keepdim, dtype);
  check_norm_dtype(x, dtype);
  const DimVector d = reduction_dims(x, dims, "norm");
  const ScalarType out = dtype.value_or(x.dtype());
  if (x.numel() == 0) return sum(x, d, keepdim, out);  // the legacy norm is 0 over nothing, for every p
  return compute_norm(x, p, d, keepdim, out, "NormBackward1");
}

Tensor norm(const Tensor& x, std::string_view p, IntArrayRef dims, bool keepdim) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, norm, x, p, dims, keepdim);
  if (p == "fro") {
    EMBER_CHECK(dims.size() <= 2, "norm(): p='fro' expects at most 2 dims, but got ", dims.size(), " dims: ",
                shape_str(dims));
    if (dims.size() == 2)
      EMBER_CHECK(wrap_dim(dims[0], x.dim(), "norm") != wrap_dim(dims[1], x.dim(), "norm"),
                  "norm(): Expected dims to be different, got ", shape_str(dims), " instead");
    return norm(x, 2.0, dims, keepdim);
  }
  if (p == "nuc") fail<NotImplementedError>("norm(): p='nuc' (the nuclear norm) is not supported by ember yet");
  fail<Error>("norm(): only valid string values are 'fro' and 'nuc', found ", p);
}

}  // namespace ember
