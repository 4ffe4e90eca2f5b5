// Scans along a dim: dims, dtypes and output shapes; the loops are in the device's scan kernel.
#include "ember/autocast.h"
#include "ember/autograd/detail/reduce_grad.h"
#include "ember/autograd/grad_mode.h"
#include "ember/backend/kernels/scan.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// Records out = scan(x) along the wrapped dim (Note [Recording an op]); indices: cummax/cummin's positions.
void record_scan(ScanOp op, const Tensor& x, const Tensor& out, const Tensor& indices, int64_t dim) {
  const Tensor* in[] = {&x};
  switch (op) {
    case ScanOp::Sum:
      autograd::set_history(out, autograd::make_node("CumsumBackward0", in, [dim](FormulaNode&, TensorList& g) {
                              return TensorList{autograd::reversed_cumsum(g[0], dim)};
                            }));
      break;
    case ScanOp::Prod:
    case ScanOp::LogSumExp: {
      const bool prod = op == ScanOp::Prod;
      auto n = autograd::make_node(
          prod ? "CumprodBackward0" : "LogcumsumexpBackward0", in, [dim, prod](FormulaNode& n, TensorList& g) {
            const Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
            if (!prod) return TensorList{autograd::logcumsumexp_backward(g[0], x, y, dim)};
            // complex: the conjugate of the formula at conj(g) (Note [Complex gradients])
            if (is_complex(x.dtype()))
              return TensorList{conj_physical(autograd::cumprod_backward(conj_physical(g[0]), x, y, dim))};
            return TensorList{autograd::cumprod_backward(g[0], x, y, dim)};
          });
      n->save(x);
      autograd::set_history(out, n);
      n->save_output(out);
      break;
    }
    case ScanOp::Max:
    case ScanOp::Min: {  // every element's gradient goes to where its running extremum came from
      auto n = autograd::make_node(op == ScanOp::Max ? "CummaxBackward0" : "CumminBackward0", in,
                                   [dim, sizes = DimVector(x.sizes())](FormulaNode& n, TensorList& g) {
                                     if (sizes.empty()) return TensorList{g[0]};
                                     Tensor r = zeros(sizes, TensorOptions(g[0].dtype()).device(g[0].device()));
                                     scatter_add_(r, dim, n.saved_tensor(0), g[0]);
                                     return TensorList{r};
                                   });
      n->save(indices);
      autograd::set_history(out, n);
      break;
    }
  }
}

// A complex cumprod along dim, as a composition (the scan kernels are real): Hillis and Steele's prefix product,
// log2(n) rounds in which every element takes the product with the one `step` before it. Each round is one
// elementwise multiply over the whole tensor, so it runs on any device; n log n multiplies instead of n.
void complex_cumprod(const Tensor& out, const Tensor& in, int64_t dim) {
  copy_into(out, in);
  const int64_t n = out.size(dim);
  for (int64_t step = 1; step < n; step *= 2) {
    Tensor before = clone(narrow(out, dim, 0, n - step));
    Tensor after = narrow(out, dim, step, n - step);
    after.copy_(mul(after, before));
  }
}

// The scan of x (cast to out_dtype) along dim; `indices` receives int64 positions when given. A 0-d tensor scans
// as a 1-element vector.
Tensor scan(ScanOp op, const Tensor& x, int64_t dim, ScalarType out_dtype, const char* name,
            Tensor* indices = nullptr) {
  dim = wrap_dim(dim, x.dim(), name);
  const Tensor in = x.dtype() == out_dtype ? x : to(x, out_dtype);
  const TensorOptions opts = TensorOptions(out_dtype).device(x.device());
  Tensor out = empty(x.sizes(), opts);
  if (indices) *indices = empty(x.sizes(), TensorOptions(ScalarType::Int64).device(x.device()));
  if (out.numel()) {
    if (out_dtype == ScalarType::ComplexHalf) fail_complex_half(std::string(name) + "_out_cpu");  // Note [complex32]
    auto as_1d = [&](const Tensor& t) { return t.dim() ? t : make_view(t, {{1}}, {{1}}, t.storage_offset()); };
    if (is_complex(out_dtype) && op == ScanOp::Prod) {
      autograd::NoGradGuard no_grad;
      complex_cumprod(as_1d(out), resolve_conj(as_1d(in)), dim);
    } else if (is_complex(out_dtype)) {  // a complex cumsum is the cumsum of the (re, im) pairs (view_as_real's)
      EMBER_CHECK_T(NotImplementedError, op == ScanOp::Sum, "\"", name, "_cpu\" not implemented for '",
                    type_label(out_dtype), "'");
      autograd::NoGradGuard no_grad;
      scan_kernel[x.device()](op, view_as_real(as_1d(out)), Tensor(), view_as_real(resolve_conj(as_1d(in))), dim);
    } else {
      scan_kernel[x.device()](op, as_1d(out), indices ? as_1d(*indices) : Tensor(), as_1d(in), dim);
    }
  }
  if (autograd::needs_grad({&x})) [[unlikely]]
    record_scan(op, x, out, indices ? *indices : Tensor(), dim);
  return out;
}

ScalarType accumulate_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(x.dtype(), true) ? ScalarType::Int64 : x.dtype();
}

const Tensor& scan_inplace(ScanOp op, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype, const char* name) {
  EMBER_CHECK(!dtype || *dtype == x.dtype(), name, "(): Bad in-place call: input tensor dtype ", x.dtype(),
              " and output tensor dtype ", *dtype, " should match");
  if (autograd::needs_grad({&x}))  // cumprod's formula reads the old x, which the write replaces: it gets a copy
    return autograd::inplace_with_grad(
        x, name, [&] { return scan(op, op == ScanOp::Prod ? clone(x) : x, dim, x.dtype(), name); });
  return copy_(x, scan(op, x, dim, x.dtype(), name));
}

std::pair<Tensor, Tensor> cum_extremum(ScanOp op, const Tensor& x, int64_t dim, const char* name) {
  Tensor indices;
  Tensor values = scan(op, x, dim, x.dtype(), name, &indices);
  return {values, indices};
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, cumsum, x, dim, dtype);
  EMBER_PY_DISPATCH(Tensor, "aten.cumsum.default", x, dim, dtype);
  return scan(ScanOp::Sum, x, dim, accumulate_dtype(x, dtype), "cumsum");
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, cumprod, x, dim, dtype);
  return scan(ScanOp::Prod, x, dim, accumulate_dtype(x, dtype), "cumprod");
}
const Tensor& cumsum_(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_inplace(ScanOp::Sum, x, dim, dtype, "cumsum_");
}
const Tensor& cumprod_(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_inplace(ScanOp::Prod, x, dim, dtype, "cumprod_");
}

std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) { return cum_extremum(ScanOp::Max, x, dim, "cummax"); }
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) { return cum_extremum(ScanOp::Min, x, dim, "cummin"); }

Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  EMBER_CHECK(is_floating(x.dtype()), "logcumsumexp(): expected a floating point input, but got ", x.dtype());
  return scan(ScanOp::LogSumExp, x, dim, x.dtype(), "logcumsumexp");
}

}  // namespace ember
