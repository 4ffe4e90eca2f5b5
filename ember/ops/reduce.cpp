// Reductions: dims, dtypes and output shapes; the loops are in the device kernels. Mean, var, std
// and logsumexp are compositions of the primitive reductions and elementwise ops.
#include "ember/ops/reduce.h"

#include <cmath>
#include <limits>

#include "ember/ops.h"
#include "ember/ops/util.h"

namespace ember {

namespace {

const char* name_of(ReduceOp op) {
  static const char* names[] = {"sum", "nansum", "prod", "amax", "amin", "all", "any", "count_nonzero"};
  return names[static_cast<int>(op)];
}

DimVector keepdim_shape(const Tensor& x, const DimVector& dims) {
  DimVector s(x.sizes());
  for (int64_t d : dims) s[d] = 1;
  return s;
}

Tensor drop_dims(const Tensor& t, const DimVector& dims, bool keepdim) {
  if (keepdim || dims.empty()) return t;
  return squeeze(t, dims);
}

Tensor reduce(ReduceOp op, const Tensor& x, IntArrayRef dims_in, bool keepdim, ScalarType out_dtype) {
  const char* name = name_of(op);
  DimVector dims = reduction_dims(x, dims_in, name);
  if (op == ReduceOp::Max || op == ReduceOp::Min) {
    for (int64_t d : dims)
      EMBER_CHECK(x.dim() == 0 || x.sizes()[d] != 0, name, "(): Expected reduction dim ", d,
                  " to have non-zero size. (input shape ", shape_str(x.sizes()), ")");
  }
  Tensor out = empty(keepdim_shape(x, dims), TensorOptions(out_dtype).device(x.device()));
  // Sums and products accumulate in the output dtype: the kernel reads the input in that dtype.
  const bool same_dtype = op == ReduceOp::Sum || op == ReduceOp::NanSum || op == ReduceOp::Prod;
  Tensor in = same_dtype && x.dtype() != out_dtype ? to(x, out_dtype) : x;
  if (out.numel()) reduce_kernel[x.device()](op, out, in);
  return drop_dims(out, dims, keepdim);
}

ScalarType sum_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(x.dtype(), true) ? ScalarType::Int64 : x.dtype();
}

// The number of elements each output of a reduction over dims combines.
int64_t reduced_count(const Tensor& x, const DimVector& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= x.dim() ? x.sizes()[d] : 1;
  return n;
}

std::pair<Tensor, Tensor> reduce_with_index(ReduceOp op, const Tensor& x, int64_t dim, bool keepdim, const char* name) {
  dim = wrap_dim(dim, x.dim(), name);
  EMBER_CHECK_INDEX(x.dim() == 0 || x.sizes()[dim] != 0, name, "(): Expected reduction dim ", dim,
                    " to have non-zero size. (input shape ", shape_str(x.sizes()), ")");
  DimVector shape(x.sizes());
  if (x.dim()) shape[dim] = 1;
  Tensor values = empty(shape, TensorOptions(x.dtype()).device(x.device()));
  Tensor indices = empty(shape, TensorOptions(ScalarType::Int64).device(x.device()));
  if (values.numel()) reduce_with_index_kernel[x.device()](op, values, indices, x, x.dim() ? dim : 0);
  if (!keepdim && x.dim()) return {squeeze(values, dim), squeeze(indices, dim)};
  return {values, indices};
}

}  // namespace

DimVector reduction_dims(const Tensor& x, IntArrayRef dims, const char* name) {
  DimVector r;
  if (dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) r.push_back(d);
    return r;
  }
  SmallVector<bool, 8> seen(std::max<int64_t>(x.dim(), 1), false);
  for (int64_t d : dims) {
    d = wrap_dim(d, x.dim(), name);
    EMBER_CHECK(!seen[d], name, "(): dim ", d, " appears multiple times in the list of dims");
    seen[d] = true;
  }
  for (int64_t d = 0; d < x.dim(); ++d)
    if (seen[d]) r.push_back(d);
  return r;
}

Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType t = sum_dtype(x, dtype);
  return reduce(ReduceOp::Sum, x, dims, keepdim, t);
}

Tensor nansum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce(ReduceOp::NanSum, x, dims, keepdim, sum_dtype(x, dtype));
}

Tensor prod(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce(ReduceOp::Prod, x, dims, keepdim, sum_dtype(x, dtype));
}

Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(x.dtype());
  EMBER_CHECK(is_floating(t), "mean(): could not infer output dtype. Input dtype must be either a floating point or "
              "complex dtype. Got: ", t);
  DimVector d = reduction_dims(x, dims, "mean");
  Tensor s = sum(x, dims, keepdim, t);
  return div(s, static_cast<double>(reduced_count(x, d)));
}

Tensor nanmean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(x.dtype());
  EMBER_CHECK(is_floating(t), "nanmean(): expected input to have floating point dtype but got ", t);
  Tensor count = sum(logical_not(isnan(x)), dims, keepdim);
  return div(nansum(x, dims, keepdim, t), count);
}

Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim) { return reduce(ReduceOp::Max, x, dims, keepdim, x.dtype()); }
Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim) { return reduce(ReduceOp::Min, x, dims, keepdim, x.dtype()); }

Tensor all(const Tensor& x, IntArrayRef dims, bool keepdim) {
  return reduce(ReduceOp::All, x, dims, keepdim, x.dtype() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool);
}
Tensor any(const Tensor& x, IntArrayRef dims, bool keepdim) {
  return reduce(ReduceOp::Any, x, dims, keepdim, x.dtype() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool);
}
Tensor count_nonzero(const Tensor& x, IntArrayRef dims) {
  return reduce(ReduceOp::CountNonzero, x, dims, false, ScalarType::Int64);
}

Tensor max(const Tensor& x) {
  EMBER_CHECK(x.numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  return reduce(ReduceOp::Max, x, {}, false, x.dtype());
}
Tensor min(const Tensor& x) {
  EMBER_CHECK(x.numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  return reduce(ReduceOp::Min, x, {}, false, x.dtype());
}

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return reduce_with_index(ReduceOp::Max, x, dim, keepdim, "max");
}
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return reduce_with_index(ReduceOp::Min, x, dim, keepdim, "min");
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return reduce_with_index(ReduceOp::Max, x, *dim, keepdim, "argmax").second;
  EMBER_CHECK(x.numel() > 0, "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor r = reduce_with_index(ReduceOp::Max, reshape(x, {{-1}}), 0, false, "argmax").second;
  if (keepdim) return reshape(r, DimVector(x.dim(), 1));
  return r;
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return reduce_with_index(ReduceOp::Min, x, *dim, keepdim, "argmin").second;
  EMBER_CHECK(x.numel() > 0, "argmin(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor r = reduce_with_index(ReduceOp::Min, reshape(x, {{-1}}), 0, false, "argmin").second;
  if (keepdim) return reshape(r, DimVector(x.dim(), 1));
  return r;
}

std::pair<Tensor, Tensor> var_mean(const Tensor& x_in, IntArrayRef dims, double correction, bool keepdim) {
  EMBER_CHECK(is_floating(x_in.dtype()), "var(): input dtype should be floating point, but got ", x_in.dtype());
  // 16-bit floats compute in float32 (as PyTorch's accumulation type): their intermediate sums overflow
  // float16 long before the variance does.
  const bool narrow = x_in.dtype() == ScalarType::Float16 || x_in.dtype() == ScalarType::BFloat16;
  const Tensor x = narrow ? to(x_in, ScalarType::Float32) : x_in;
  DimVector d = reduction_dims(x, dims, "var");
  Tensor m = mean(x, dims, true);
  Tensor dev = sub(x, m);
  Tensor ss = sum(mul(dev, dev), dims, keepdim);
  const double n = static_cast<double>(reduced_count(x, d)) - correction;
  Tensor v = div(ss, n > 0 ? n : 0.0);  // n <= 0 gives inf/nan, as in PyTorch
  if (!keepdim) m = drop_dims(m, d, false);
  if (narrow) return {to(v, x_in.dtype()), to(m, x_in.dtype())};
  return {v, m};
}

Tensor var(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  return var_mean(x, dims, correction, keepdim).first;
}
std::pair<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  auto [v, m] = var_mean(x, dims, correction, keepdim);
  return {sqrt(v), m};
}
Tensor std(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  return sqrt(var_mean(x, dims, correction, keepdim).first);
}

Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  Tensor xf = is_floating(x.dtype()) ? x : to(x, default_dtype());
  if (xf.numel() == 0) return log(sum(exp(xf), dims, keepdim));
  Tensor m = amax(xf, dims, true);
  // Rows whose max is infinite would give inf - inf = nan; shift them by 0 instead.
  Tensor shift = where(isinf(m), zeros_like(m), m);
  Tensor r = add(log(sum(exp(sub(xf, shift)), dims, true)), shift);
  return keepdim ? r : drop_dims(r, reduction_dims(x, dims, "logsumexp"), false);
}

}  // namespace ember
