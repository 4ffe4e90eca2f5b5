// Reductions: dims, dtypes and output shapes; the loops are in the device kernels. Mean, var, std
// and logsumexp are compositions of the primitive reductions and elementwise ops, computed without recording and
// recorded as one node each (their formulas save less than the composition's nodes would).
#include "ember/ops/reduce.h"

#include <cmath>
#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/detail/reduce_grad.h"
#include "ember/backend/kernels/reduce.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/conj_bit.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

const char* name_of(ReduceOp op) { return reduce_op_name(op); }

DimVector keepdim_shape(const Tensor& x, const DimVector& dims) {
  DimVector s(x.sizes());
  for (int64_t d : dims) s[d] = 1;
  return s;
}

Tensor drop_dims(const Tensor& t, const DimVector& dims, bool keepdim) {
  if (keepdim || dims.empty()) return t;
  return squeeze(t, dims);
}

// Records the formula of sum, nansum, prod, amax and amin (the others give bool or integer results).
void record_reduce(ReduceOp op, const Tensor& x, Tensor& r, const DimVector& dims, IntArrayRef keep, bool whole) {
  const Tensor* in[] = {&x};
  switch (op) {
    case ReduceOp::Sum:
      autograd::set_history(
          r, autograd::make_node(whole ? "SumBackward0" : "SumBackward1", in,
                                 [keep = DimVector(keep), sizes = DimVector(x.sizes())](FormulaNode&, TensorList& g) {
                                   return TensorList{autograd::sum_backward(g[0], keep, sizes)};
                                 }));
      break;
    case ReduceOp::NanSum: {  // keeps the mask of non-NaN elements, smaller than x
      auto n = autograd::make_node(
          "NansumBackward0", in, [keep = DimVector(keep), sizes = DimVector(x.sizes())](FormulaNode& n, TensorList& g) {
            return TensorList{mul(autograd::sum_backward(g[0], keep, sizes), n.saved_tensor(0))};
          });
      n->save(logical_not(isnan(x)));
      autograd::set_history(r, n);
      break;
    }
    case ReduceOp::Prod: {
      auto n = autograd::make_node(
          whole ? "ProdBackward0" : "ProdBackward1", in, [dims, keep = DimVector(keep)](FormulaNode& n, TensorList& g) {
            if (!is_complex(g[0].dtype()))
              return TensorList{autograd::prod_backward(g[0], n.saved_tensor(0), n.saved_tensor(1), dims, keep)};
            // Note [Complex gradients]: conj of the formula at conj(g)
            return TensorList{conj_physical(
                autograd::prod_backward(conj_physical(g[0]), n.saved_tensor(0), n.saved_tensor(1), dims, keep))};
          });
      n->save(x);
      autograd::set_history(r, n);
      n->save_output(r);
      break;
    }
    case ReduceOp::Max:
      autograd::record_evenly_distributed(whole ? "MaxBackward1" : "AmaxBackward0", x, r, dims, keep);
      break;
    case ReduceOp::Min:
      autograd::record_evenly_distributed(whole ? "MinBackward1" : "AminBackward0", x, r, dims, keep);
      break;
    default: break;
  }
}

// Note [Complex sums by lanes]: the complex kernel adds pairs one at a time; a complex sum is the real sums of the
// parts, and a contiguous tensor's memory read as rows of kLanes complex numbers is a real [rows, 2 kLanes] matrix
// whose column sums the real kernel computes at memory speed (vectorized along the row, pairwise down the columns).
// The 2 kLanes column sums then fold into the two parts, and the last n % kLanes elements are added on. Used for the
// sum of a whole contiguous tensor (x.sum()); the other reductions go to the complex kernel.
bool complex_sum_by_lanes(const Tensor& out, const Tensor& x) {
  constexpr int64_t kLanes = 64, kMinRows = 32;  // 128 reals a row: the real column sums run at memory speed
  const int64_t n = x.numel(), rows = n / kLanes;
  if (out.numel() != 1 || !x.is_contiguous() || rows < kMinRows) return false;
  const Tensor in = conj_bit::physical(x);  // a conjugate view's sum is the conjugate of its memory's
  const ScalarType rt = to_real(in.dtype());
  const TensorOptions ro = TensorOptions(rt).device(in.device());
  Tensor body = make_view(in, {{rows, 2 * kLanes}}, {{2 * kLanes, 1}}, in.storage_offset() * 2, rt);
  Tensor columns = empty({{1, 2 * kLanes}}, ro);
  reduce_kernel[in.device()](ReduceOp::Sum, columns, body);
  Tensor parts = empty({{1, 2}}, ro);
  reduce_kernel[in.device()](ReduceOp::Sum, parts, make_view(columns, {{kLanes, 2}}, {{2, 1}}, 0));
  Tensor total = view_as_complex(reshape(parts, {{2}}));
  if (const int64_t rest = n - rows * kLanes) {
    Tensor tail_sum = empty({{1}}, TensorOptions(in.dtype()).device(in.device()));
    reduce_kernel[in.device()](ReduceOp::Sum, tail_sum,
                               make_view(in, {{rest}}, {{1}}, in.storage_offset() + rows * kLanes));
    total = add(total, tail_sum);
  }
  copy_into(out, reshape(x.is_conj() ? conj(total) : total, out.sizes()));
  return true;
}

// Complex sums and products have complex kernels; the other reductions PyTorch has for complex are of the nonzero test.
void reduce_complex(ReduceOp op, const Tensor& out, const Tensor& in) {
  autograd::NoGradGuard no_grad;
  if (in.dtype() == ScalarType::ComplexHalf && (op == ReduceOp::Sum || op == ReduceOp::Prod)) {
    // PyTorch has no complex32 sum or product kernel (Note [complex32]); an empty input needs none.
    EMBER_CHECK_T(NotImplementedError, in.numel() == 0, "\"", op == ReduceOp::Sum ? "sum_cpu" : "prod_out_cpu",
                  "\" not implemented for 'ComplexHalf'");
    fill_(out, Scalar(op == ReduceOp::Sum ? 0 : 1));
    return;
  }
  switch (op) {
    case ReduceOp::Sum:
      if (complex_sum_by_lanes(out, in)) return;
      reduce_kernel[in.device()](op, out, in);
      return;
    case ReduceOp::Prod: reduce_kernel[in.device()](op, out, in); return;
    case ReduceOp::NanSum: fail<NotImplementedError>("nansum on CPU does not support complex inputs");
    case ReduceOp::All:
    case ReduceOp::Any:
    case ReduceOp::CountNonzero: reduce_kernel[in.device()](op, out, ne(in, 0)); return;
    default:
      fail<NotImplementedError>("\"", op == ReduceOp::Max ? "max" : "min", "_all\" not implemented for '",
                                type_label(in.dtype()), "'");
  }
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
  // Sums and products accumulate in the output dtype: the kernel reads the input in that dtype. (The CPU kernel
  // sums 16-bit floats in float32 already, so it reads them as they are for a float32 sum.)
  const bool same_dtype = op == ReduceOp::Sum || op == ReduceOp::NanSum || op == ReduceOp::Prod;
  const bool widening_sum = op != ReduceOp::Prod && out_dtype == ScalarType::Float32 && x.device().is_cpu() &&
                            (x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16);
  Tensor in = same_dtype && x.dtype() != out_dtype && !widening_sum ? to(x, out_dtype) : x;
  if (out.numel()) {
    if (is_complex(in.dtype())) [[unlikely]]
      reduce_complex(op, out, in);
    else
      reduce_kernel[x.device()](op, out, in);
  }
  Tensor r = drop_dims(out, dims, keepdim);
  if (autograd::needs_grad({&x})) [[unlikely]]
    record_reduce(op, x, r, dims, out.sizes(), dims_in.empty());
  return r;
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

std::pair<Tensor, Tensor> max_min(ReduceOp op, const Tensor& x, int64_t dim, bool keepdim, const char* name,
                                  const char* grad_name) {
  auto r = reduce_with_index(op, x, dim, keepdim, name);
  autograd::record_value_selecting(grad_name, x, r.first, r.second, wrap_dim(dim, x.dim(), name), keepdim);
  return r;
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
  if (dispatch::enabled()) [[unlikely]] {
    if (dims.empty() && !keepdim)
      EMBER_PY_DISPATCH(Tensor, "aten.sum.default", x, dtype);
    else
      EMBER_PY_DISPATCH(Tensor, "aten.sum.dim_IntList", x, dims, keepdim, dtype);
  }
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, sum, x, dims, keepdim, dtype);
  const ScalarType t = sum_dtype(x, dtype);
  return reduce(ReduceOp::Sum, x, dims, keepdim, t);
}

Tensor nansum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce(ReduceOp::NanSum, x, dims, keepdim, sum_dtype(x, dtype));
}

Tensor prod(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32, prod, x, dims, keepdim, dtype);
  if (dims.size() == 1) EMBER_PY_DISPATCH(Tensor, "aten.prod.dim_int", x, dims[0], keepdim, dtype);
  if (dims.empty() && !keepdim) EMBER_PY_DISPATCH(Tensor, "aten.prod.default", x, dtype);
  return reduce(ReduceOp::Prod, x, dims, keepdim, sum_dtype(x, dtype));
}

Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (dispatch::enabled()) [[unlikely]] {
    if (dims.empty() && !keepdim)
      EMBER_PY_DISPATCH(Tensor, "aten.mean.default", x, dtype);
    else
      EMBER_PY_DISPATCH(Tensor, "aten.mean.dim", x, dims, keepdim, dtype);
  }
  const ScalarType t = dtype.value_or(x.dtype());
  EMBER_CHECK(is_inexact(t),
              "mean(): could not infer output dtype. Input dtype must be either a floating point or "
              "complex dtype. Got: ",
              t);
  const DimVector d = reduction_dims(x, dims, "mean");
  const double n = static_cast<double>(reduced_count(x, d));
  Tensor r;
  {
    autograd::NoGradGuard no_grad;
    // 16-bit floats: the float32 sum is divided before it is rounded, as PyTorch does (the sum alone may overflow)
    const bool narrow = (t == ScalarType::Float16 || t == ScalarType::BFloat16) && x.dtype() == t;
    r = narrow ? to(div(sum(x, dims, keepdim, ScalarType::Float32), n), t) : div(sum(x, dims, keepdim, t), n);
  }
  if (autograd::needs_grad({&x})) [[unlikely]]
    autograd::set_history(r, autograd::make_node(dims.empty() ? "MeanBackward0" : "MeanBackward1", {&x},
                                                 [n, keep = keepdim_shape(x, d), sizes = DimVector(x.sizes())](
                                                     FormulaNode&, TensorList& g) {
                                                   return TensorList{div(autograd::sum_backward(g[0], keep, sizes), n)};
                                                 }));
  return r;
}

Tensor nanmean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(x.dtype());
  EMBER_CHECK(is_floating(t), "nanmean(): expected input to have floating point dtype but got ", t);
  Tensor count = sum(logical_not(isnan(x)), dims, keepdim);
  return div(nansum(x, dims, keepdim, t), count);
}

Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim) {
  EMBER_PY_DISPATCH(Tensor, "aten.amax.default", x, dims, keepdim);
  return reduce(ReduceOp::Max, x, dims, keepdim, x.dtype());
}
Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim) {
  EMBER_PY_DISPATCH(Tensor, "aten.amin.default", x, dims, keepdim);
  return reduce(ReduceOp::Min, x, dims, keepdim, x.dtype());
}

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
  EMBER_CHECK(x.numel() > 0,
              "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  EMBER_PY_DISPATCH(Tensor, "aten.max.default", x);
  return reduce(ReduceOp::Max, x, {}, false, x.dtype());
}
Tensor min(const Tensor& x) {
  EMBER_CHECK(x.numel() > 0,
              "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  EMBER_PY_DISPATCH(Tensor, "aten.min.default", x);
  return reduce(ReduceOp::Min, x, {}, false, x.dtype());
}

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  EMBER_PY_DISPATCH(dispatch::Pair, "aten.max.dim", x, dim, keepdim);
  return max_min(ReduceOp::Max, x, dim, keepdim, "max", "MaxBackward0");
}
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  EMBER_PY_DISPATCH(dispatch::Pair, "aten.min.dim", x, dim, keepdim);
  return max_min(ReduceOp::Min, x, dim, keepdim, "min", "MinBackward0");
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  EMBER_PY_DISPATCH(Tensor, "aten.argmax.default", x, dim, keepdim);
  if (dim) return reduce_with_index(ReduceOp::Max, x, *dim, keepdim, "argmax").second;
  EMBER_CHECK(x.numel() > 0, "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor r = reduce_with_index(ReduceOp::Max, reshape(x, {{-1}}), 0, false, "argmax").second;
  if (keepdim) return reshape(r, DimVector(x.dim(), 1));
  return r;
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  EMBER_PY_DISPATCH(Tensor, "aten.argmin.default", x, dim, keepdim);
  if (dim) return reduce_with_index(ReduceOp::Min, x, *dim, keepdim, "argmin").second;
  EMBER_CHECK(x.numel() > 0, "argmin(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor r = reduce_with_index(ReduceOp::Min, reshape(x, {{-1}}), 0, false, "argmin").second;
  if (keepdim) return reshape(r, DimVector(x.dim(), 1));
  return r;
}

namespace {

enum class Moments : uint8_t { Var, Std, VarMean, StdMean };

// var or std, and the mean when asked, recorded as one node (output 0: var or std; output 1: the mean).
std::pair<Tensor, Tensor> moments(Moments kind, const Tensor& x_in, IntArrayRef dims, double correction, bool keepdim) {
  const bool root = kind == Moments::Std || kind == Moments::StdMean;
  const bool with_mean = kind == Moments::VarMean || kind == Moments::StdMean;
  if (is_complex(x_in.dtype())) [[unlikely]] {
    // PyTorch's: the mean of |x - mean|^2, in the real dtype: the variances of the real and imaginary parts, summed
    // (a composition, so autograd differentiates it). complex32 computes in complex64 (Note [complex32]).
    const bool chalf = x_in.dtype() == ScalarType::ComplexHalf;
    const Tensor x = chalf ? to(x_in, ScalarType::ComplexFloat) : x_in;
    Tensor v = add(moments(Moments::Var, real(x), dims, correction, keepdim).first,
                   moments(Moments::Var, imag(x), dims, correction, keepdim).first);
    if (root) v = sqrt(v);
    Tensor m = with_mean ? mean(x, dims, keepdim, std::nullopt) : Tensor();
    if (chalf) {
      v = to(v, ScalarType::Float16);
      if (m.defined()) m = to(m, ScalarType::ComplexHalf);
    }
    return {v, m};
  }
  EMBER_CHECK(is_floating(x_in.dtype()), "var(): input dtype should be floating point, but got ", x_in.dtype());
  const DimVector d = reduction_dims(x_in, dims, "var");
  Tensor v, m;
  {
    autograd::NoGradGuard no_grad;
    // 16-bit floats compute in float32 (as PyTorch's accumulation type): their intermediate sums overflow
    // float16 long before the variance does.
    const bool narrow = x_in.dtype() == ScalarType::Float16 || x_in.dtype() == ScalarType::BFloat16;
    const Tensor x = narrow ? to(x_in, ScalarType::Float32) : x_in;
    m = mean(x, dims, true);
    Tensor dev = sub(x, m);
    Tensor ss = sum(mul(dev, dev), dims, keepdim);
    const double n = static_cast<double>(reduced_count(x, d)) - correction;
    v = div(ss, n > 0 ? n : 0.0);  // n <= 0 gives inf/nan, as in PyTorch
    if (root) v = sqrt(v);
    m = drop_dims(m, d, keepdim);
    if (narrow) {
      v = to(v, x_in.dtype());
      m = to(m, x_in.dtype());
    }
  }
  if (!autograd::needs_grad({&x_in})) [[likely]]
    return {v, m};
  const char* node = kind == Moments::Var       ? "VarBackward0"
                     : kind == Moments::Std     ? "StdBackward0"
                     : kind == Moments::VarMean ? "VarMeanBackward0"
                                                : "StdMeanBackward0";
  auto n = autograd::make_node(node, {&x_in},
                               [root, d, correction, keep = keepdim_shape(x_in, d), sizes = DimVector(x_in.sizes()),
                                count = static_cast<double>(reduced_count(x_in, d))](FormulaNode& n, TensorList& g) {
                                 Tensor gv = g[0], gx;
                                 if (gv.defined() && root) {  // std = sqrt(var); 0 where std is 0, as PyTorch
                                   const Tensor s = n.saved_tensor(1);
                                   gv = where(eq(s, 0), 0.0, div(gv, mul(s, 2.0)));
                                 }
                                 if (gv.defined())
                                   gx = autograd::var_backward(gv, n.saved_tensor(0), d, correction, keep);
                                 if (g.size() > 1 && g[1].defined()) {
                                   Tensor gm = div(autograd::sum_backward(g[1], keep, sizes), count);
                                   gx = gx.defined() ? add(gx, gm) : gm;
                                 }
                                 return TensorList{gx};
                               });
  n->num_outputs = with_mean ? 2 : 1;
  n->save(x_in);
  autograd::set_history(v, n, 0);
  if (with_mean) autograd::set_history(m, n, 1);
  if (root) n->save_output(v);
  return {v, m};
}

}  // namespace

std::pair<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  return moments(Moments::VarMean, x, dims, correction, keepdim);
}
std::pair<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  return moments(Moments::StdMean, x, dims, correction, keepdim);
}
Tensor var(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  EMBER_PY_DISPATCH(Tensor, "aten.var.correction", x, dispatch::dims_or_none(dims), Scalar(correction), keepdim);
  return moments(Moments::Var, x, dims, correction, keepdim).first;
}
Tensor std(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  EMBER_PY_DISPATCH(Tensor, "aten.std.correction", x, dispatch::dims_or_none(dims), Scalar(correction), keepdim);
  return moments(Moments::Std, x, dims, correction, keepdim).first;
}

Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, logsumexp, x, dims, keepdim);
  const DimVector d = reduction_dims(x, dims, "logsumexp");
  Tensor r;
  {
    autograd::NoGradGuard no_grad;
    Tensor xf = is_floating(x.dtype()) ? x : to(x, default_dtype());
    if (xf.numel() == 0) {
      r = log(sum(exp(xf), dims, keepdim));
    } else {
      Tensor m = amax(xf, dims, true);
      // Rows whose max is infinite would give inf - inf = nan; shift them by 0 instead.
      Tensor shift = where(isinf(m), zeros_like(m), m);
      r = drop_dims(add(log(sum(exp(sub(xf, shift)), dims, true)), shift), d, keepdim);
    }
  }
  if (!autograd::needs_grad({&x})) [[likely]]
    return r;
  auto n = autograd::make_node("LogsumexpBackward0", {&x}, [keep = keepdim_shape(x, d)](FormulaNode& n, TensorList& g) {
    const Tensor lse = autograd::restore_reduced(n.saved_tensor(1), keep);
    return TensorList{mul(autograd::restore_reduced(g[0], keep), exp(sub(n.saved_tensor(0), lse)))};
  });
  n->save(x);
  autograd::set_history(r, n);
  n->save_output(r);
  return r;
}

Tensor sum_to_size(const Tensor& t, IntArrayRef size) {
  EMBER_CHECK(autograd::is_expandable_to(size, t.sizes()), "sum_to_size: size {", shape_str(size),
              "} is not expandable to size {", shape_str(t.sizes()), "}.");
  return autograd::sum_to(t, size);
}

}  // namespace ember
