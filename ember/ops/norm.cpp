// Vector and matrix norms (torch.linalg.vector_norm, matrix_norm, norm; the legacy torch.norm), renorm and dist,
// composed of reductions, elementwise ops and (for the spectral and nuclear norms) the singular values. Vector norms
// record one node (their formula is 0 where the norm is 0, where the composition's would be nan).
#include "ember/ops/norm.h"

#include <cmath>
#include <limits>
#include <string_view>

#include "ember/autocast.h"
#include "ember/autograd/detail/reduce_grad.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/lapack_util.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;
using namespace linalg_detail;

namespace {

void check_norm_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CHECK(is_inexact(*dtype),
                "norm(): the desired output dtype should be either floating point or complex. "
                "Got ",
                *dtype, " instead.");
  } else {
    EMBER_CHECK(is_inexact(x.dtype()), "norm(): input dtype should be either floating point or complex. Got ",
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
    // Complex input: computed in its complex dtype (`out` is the real one), through |x|.
    const ScalarType in = is_complex(x.dtype()) ? to_complex(out) : out;
    const ScalarType compute = element_size(in) < 4 ? ScalarType::Float32 : in;
    const Tensor xf = to(x, compute);
    if (ord == 0)
      r = sum(ne(xf, 0), dims, keepdim, to_real(compute));
    else if (ord == std::numeric_limits<double>::infinity())
      r = amax(abs(xf), dims, keepdim);
    else if (ord == -std::numeric_limits<double>::infinity())
      r = amin(abs(xf), dims, keepdim);
    else if (ord == 1)
      r = sum(abs(xf), dims, keepdim);
    else if (ord == 2)
      r = is_complex(xf.dtype()) ? sqrt(sum(square(abs(xf)), dims, keepdim)) : sqrt(sum(mul(xf, xf), dims, keepdim));
    else
      r = pow(sum(pow(abs(xf), ord), dims, keepdim), 1.0 / ord);
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

// Reorders the two matrix dims `dim` of A to the end (for the norms computed from singular values).
Tensor matrix_dims_last(const Tensor& A, int64_t d0, int64_t d1) {
  const int64_t src[] = {d0, d1}, dst[] = {-2, -1};
  return movedim(A, src, dst);
}

}  // namespace

// ---- vector norms

Tensor linalg_vector_norm(const Tensor& x, double ord, IntArrayRef dims, bool keepdim,
                          std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, linalg_vector_norm, x, ord, dims, keepdim, dtype);
  const char* name = "linalg.vector_norm";
  EMBER_CHECK(is_inexact(x.dtype()), name, ": Expected a floating point or complex tensor as input. Got ", x.dtype());
  if (dtype) {
    EMBER_CHECK(is_inexact(*dtype), name, ": dtype should be floating point or complex, but got ", *dtype);
    EMBER_CHECK(is_complex(*dtype) == is_complex(x.dtype()), name, ": dtype should be ",
                is_complex(x.dtype()) ? "complex" : "real", " for ", is_complex(x.dtype()) ? "complex" : "real",
                " inputs, but got ", type_label(*dtype));
    EMBER_CHECK(promote_types(x.dtype(), *dtype) == *dtype, name, ": the dtype of the input (", x.dtype(),
                ") should be convertible without narrowing to the specified dtype (", *dtype, ")");
  }
  const DimVector d = reduction_dims(x, dims, name);
  if (x.numel() == 0 && (ord < 0 || std::isinf(ord))) {
    EMBER_CHECK(!dims.empty(), name, " cannot compute the ", ord,
                " norm on an empty tensor because the operation "
                "does not have an identity");
    for (int64_t i : d)
      EMBER_CHECK(x.sizes()[i] != 0, name, " cannot compute the ", ord, " norm on the dimension ", i,
                  " because "
                  "this dimension is empty and the operation does not have an identity");
  }
  EMBER_PY_DISPATCH(Tensor, "aten.linalg_vector_norm.default", x, Scalar(ord), dispatch::dims_or_none(dims), keepdim,
                    dtype);
  return compute_norm(x, ord, d, keepdim, to_real(dtype.value_or(x.dtype())), "LinalgVectorNormBackward0");
}

Tensor norm(const Tensor& x, double p, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, norm, x, p, dims, keepdim, dtype);
  check_norm_dtype(x, dtype);
  const DimVector d = reduction_dims(x, dims, "norm");
  const ScalarType out = to_real(dtype.value_or(x.dtype()));  // a complex input has a real norm
  // PyTorch's torch.norm with a numeric p is linalg_vector_norm: offered where the two agree (an empty input's norm
  // is 0 for a finite p >= 0 in both; a dtype linalg_vector_norm accepts).
  const bool as_vector_norm = (x.numel() > 0 || (p >= 0 && std::isfinite(p))) &&
                              (!dtype || (is_complex(*dtype) == is_complex(x.dtype()) &&
                                          promote_types(x.dtype(), *dtype) == *dtype));
  if (as_vector_norm)
    EMBER_PY_DISPATCH(Tensor, "aten.linalg_vector_norm.default", x, Scalar(p), dispatch::dims_or_none(dims), keepdim,
                      dtype);
  if (x.numel() == 0)
    return sum(is_complex(x.dtype()) ? abs(x) : x, d, keepdim, out);  // the legacy norm is 0 over nothing, for every p
  return compute_norm(x, p, d, keepdim, out, "NormBackward1");
}

Tensor norm(const Tensor& x, std::string_view p, IntArrayRef dims, bool keepdim) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, norm, x, p, dims, keepdim);
  if (p == "fro") {
    EMBER_CHECK(dims.size() <= 2, "norm(): p='fro' expects at most 2 dims, but got ", dims.size(),
                " dims: ", shape_str(dims));
    if (dims.size() == 2)
      EMBER_CHECK(wrap_dim(dims[0], x.dim(), "norm") != wrap_dim(dims[1], x.dim(), "norm"),
                  "norm(): Expected dims to be different, got ", shape_str(dims), " instead");
    return norm(x, 2.0, dims, keepdim);
  }
  if (p == "nuc") fail<NotImplementedError>("norm(): p='nuc' (the nuclear norm) is not supported by ember yet");
  fail<Error>("norm(): only valid string values are 'fro' and 'nuc', found ", p);
}

// ---- matrix norms

Tensor linalg_matrix_norm(const Tensor& A_in, double ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, linalg_matrix_norm, A_in, ord, dim, keepdim, dtype);
  const char* fn = "linalg.matrix_norm";
  EMBER_CHECK(A_in.dim() >= 2, fn, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(dim.size() == 2, fn, ": dim must be a 2-tuple. Got ", shape_str(dim));
  check_float(A_in, fn);
  const int64_t d0 = wrap_dim(dim[0], A_in.dim(), fn), d1 = wrap_dim(dim[1], A_in.dim(), fn);
  EMBER_CHECK(d0 != d1, fn, ": dims must be different. Got (", dim[0], ", ", dim[1], ")");
  const Tensor A = dtype && *dtype != A_in.dtype() ? to(A_in, *dtype) : A_in;
  const double a = std::abs(ord);
  if (a == 2) {
    const Tensor s = linalg_svdvals(matrix_dims_last(A, d0, d1));
    Tensor r = ord > 0 ? amax(s, {{-1}}) : amin(s, {{-1}});
    if (keepdim) {
      r = unsqueeze(r, std::min(d0, d1));
      r = unsqueeze(r, std::max(d0, d1));
    }
    return r;
  }
  EMBER_CHECK(a == 1 || std::isinf(a), fn, ": Order ", ord, " not supported.");
  // 1: the largest column sum of |A|; inf: the largest row sum (min for the negative orders).
  const int64_t summed = a == 1 ? d0 : d1, other = a == 1 ? d1 : d0;
  const Tensor s = sum(abs(A), {{summed}}, true);
  Tensor r = ord > 0 ? amax(s, {{other}}, true) : amin(s, {{other}}, true);
  if (!keepdim) {
    const int64_t dims[] = {d0, d1};
    r = squeeze(r, dims);
  }
  return r;
}

Tensor linalg_matrix_norm(const Tensor& A_in, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, linalg_matrix_norm, A_in, ord, dim, keepdim, dtype);
  const char* fn = "linalg.matrix_norm";
  EMBER_CHECK(ord == "fro" || ord == "nuc", fn, ": Order ", ord, " not supported.");
  EMBER_CHECK(A_in.dim() >= 2, fn, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(dim.size() == 2, fn, ": dim must be a 2-tuple. Got ", shape_str(dim));
  check_float(A_in, fn);
  const int64_t d0 = wrap_dim(dim[0], A_in.dim(), fn), d1 = wrap_dim(dim[1], A_in.dim(), fn);
  EMBER_CHECK(d0 != d1, fn, ": dims must be different. Got (", dim[0], ", ", dim[1], ")");
  const Tensor A = dtype && *dtype != A_in.dtype() ? to(A_in, *dtype) : A_in;
  if (ord == "fro") {
    const int64_t dims[] = {d0, d1};
    return linalg_vector_norm(A, 2, dims, keepdim);
  }
  Tensor r = sum(linalg_svdvals(matrix_dims_last(A, d0, d1)), {{-1}});
  if (keepdim) {
    r = unsqueeze(r, std::min(d0, d1));
    r = unsqueeze(r, std::max(d0, d1));
  }
  return r;
}

Tensor linalg_norm(const Tensor& A, std::optional<double> ord, std::optional<DimVector> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* fn = "linalg.norm";
  if (dim) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2, fn, ": If dim is specified, it must be of length 1 or 2. Got ",
                shape_str(*dim));
    if (dim->size() == 2)
      return ord ? linalg_matrix_norm(A, *ord, *dim, keepdim, dtype)
                 : linalg_matrix_norm(A, "fro", *dim, keepdim, dtype);
    return linalg_vector_norm(A, ord.value_or(2), *dim, keepdim, dtype);
  }
  if (!ord) return linalg_vector_norm(A, 2, {}, keepdim, dtype);
  EMBER_CHECK(A.dim() == 1 || A.dim() == 2, fn,
              ": If dim is not specified but ord is, the input must be 1D or 2D. "
              "Got ",
              A.dim(), "D.");
  if (A.dim() == 2) return linalg_matrix_norm(A, *ord, {{0, 1}}, keepdim, dtype);
  return linalg_vector_norm(A, *ord, {}, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& A, std::string_view ord, std::optional<DimVector> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* fn = "linalg.norm";
  if (dim) {
    EMBER_CHECK(dim->size() == 2, fn, ": If dim is specified, it must be of length 1 or 2. Got ", shape_str(*dim));
    return linalg_matrix_norm(A, ord, *dim, keepdim, dtype);
  }
  EMBER_CHECK(A.dim() == 2, fn, ": If dim is not specified but ord is, the input must be 1D or 2D. Got ", A.dim(),
              "D.");
  return linalg_matrix_norm(A, ord, {{0, 1}}, keepdim, dtype);
}

// ---- built on the norms

Tensor renorm(const Tensor& t, double p, int64_t dim, double maxnorm) {
  EMBER_CHECK(p > 0, "renorm: non-positive-norm not supported (p = ", p, ")");
  EMBER_CHECK(maxnorm >= 0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm);
  EMBER_CHECK(t.dim() > 1, "renorm: input needs at least 2 dimensions, got ", t.dim(), " dimensions");
  EMBER_CHECK(is_floating(t.dtype()), "renorm: expected a floating point tensor, got ", t.dtype());
  dim = wrap_dim(dim, t.dim(), "renorm");
  DimVector others;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != dim) others.push_back(d);
  // PyTorch's factor: maxnorm / (norm + 1e-7) for the slices whose norm exceeds maxnorm.
  const Tensor norm = linalg_vector_norm(t, p, others, /*keepdim=*/true);
  const Tensor factor = where(gt(norm, maxnorm), div(Scalar(maxnorm), add(norm, 1e-7)), Scalar(1.0));
  return mul(t, to(factor, t.dtype()));
}

Tensor dist(const Tensor& a, const Tensor& b, double p) {
  check_same_device("dist", {&a, &b});
  const Tensor d = sub(a, b);
  return linalg_vector_norm(is_inexact(d.dtype()) ? d : to(d, default_dtype()), p);
}

}  // namespace ember
