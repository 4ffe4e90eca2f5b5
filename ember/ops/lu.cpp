// The LU and LDL^T families, the Cholesky helpers and the matrix functions of torch.linalg built on the LAPACK
// kernels (getrf, getrs, sytrf, sytrs, trsm) or composed of ember ops (matrix_rank, cond, matrix_exp, tensorinv,
// tensorsolve, householder_product, geqrf): compositions get their gradient, CUDA support and batching from the
// ops they are made of; the rest record PyTorch's formulas, written with ember ops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/lapack.h"
#include "ember/ops/detail/lapack_util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;
using namespace linalg_detail;

namespace {

void check_pivot(bool pivot, const Tensor& A, const char* fn) {
  EMBER_CHECK(pivot, fn, ": LU without pivoting is not implemented", A.is_cuda() ? " in ember" : " on the CPU");
}

bool same_shape(IntArrayRef a, IntArrayRef b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

void check_dims(const Tensor& A, const char* fn) {
  EMBER_CHECK(A.dim() >= 2, fn, ": Expected tensor with 2 or more dimensions. Got size: ", shape_str(A.sizes()),
              " instead");
}

// PyTorch's linalg_lu_backward: the gradient of A = P L U from those of L [..., m, k] and U [..., k, n] (either
// may be undefined); P is constant.
Tensor lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L, const Tensor& U) {
  if (!gL.defined() && !gU.defined()) return {};
  const int64_t m = rows(L), n = cols(U), k = std::min(m, n);
  Tensor gA;
  if (m == n) {  // P L^-T [L^T gL o 1_L + gU U^T o 1_U] U^-T
    if (gL.defined()) gA = tril(matmul(mT(L), gL), -1);
    if (gU.defined()) {
      const Tensor t = triu(matmul(gU, mT(U)));
      gA = gA.defined() ? add(gA, t) : t;
    }
    gA = linalg_solve_triangular(mT(U), gA, false, false);
    gA = linalg_solve_triangular(mT(L), gA, true, true, true);
  } else if (m < n) {  // wide: U = [U1 | U2]
    const Tensor U1 = narrow(U, -1, 0, k);
    if (gL.defined()) gA = matmul(mT(L), gL);
    if (gU.defined()) {
      const Tensor t = matmul(triu(gU), mT(U));
      gA = gA.defined() ? sub(gA, t) : neg(t);
    }
    gA = linalg_solve_triangular(mT(U1), tril(gA, -1), false, false);
    if (gU.defined()) gA = cat({add(gA, triu(narrow(gU, -1, 0, k))), narrow(gU, -1, k, n - k)}, -1);
    gA = linalg_solve_triangular(mT(L), gA, true, true, true);
    if (!gU.defined()) gA = cat({gA, zeros_like(narrow(U, -1, k, n - k))}, -1);
  } else {  // tall: L = [L1; L2]
    const Tensor L1 = narrow(L, -2, 0, k);
    if (gU.defined()) gA = matmul(gU, mT(U));
    if (gL.defined()) {
      const Tensor t = matmul(mT(L), tril(gL, -1));
      gA = gA.defined() ? sub(gA, t) : neg(t);
    }
    gA = linalg_solve_triangular(mT(L1), triu(gA), true, true, true);
    if (gL.defined()) gA = cat({add(gA, tril(narrow(gL, -2, 0, k), -1)), narrow(gL, -2, k, m - k)}, -2);
    gA = linalg_solve_triangular(mT(U), gA, false, false);
    if (!gL.defined()) gA = cat({gA, zeros_like(narrow(L, -2, k, m - k))}, -2);
  }
  return matmul(P, gA);
}

// L (unit lower, [..., m, k]) and U ([..., k, n]) of a packed LU; differentiable (they are tril/triu of LU).
std::pair<Tensor, Tensor> unpack_data(const Tensor& LU) {
  const int64_t m = rows(LU), n = cols(LU), k = std::min(m, n);
  const Tensor L = add(tril(narrow(LU, -1, 0, k), -1), eye(m, k, like(LU)));
  return {L, triu(narrow(LU, -2, 0, k))};
}

// The permutation matrix P [..., m, m] of LAPACK's 1-based row swaps: A = P L U. The swaps are sequential, so they
// are replayed on the host (one int per row), then P is built on the device from the permutation.
Tensor unpack_pivots(const Tensor& pivots, int64_t m, Device dev, ScalarType dt) {
  const Tensor piv = contiguous(to(pivots, kCPU));
  const int64_t k = piv.dim() ? piv.sizes()[piv.dim() - 1] : 0;
  const int64_t count = k ? piv.numel() / k : 0;
  DimVector shape(pivots.sizes().first(pivots.dim() - 1));
  const int64_t batch = [&] {
    int64_t b = 1;
    for (int64_t s : shape) b *= s;
    return b;
  }();
  shape.push_back(m);
  Tensor perm = empty(shape, TensorOptions(ScalarType::Int64));
  int64_t* pp = perm.data<int64_t>();
  const int32_t* pv = piv.data<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    int64_t* row = pp + b * m;
    for (int64_t i = 0; i < m; ++i) row[i] = i;
    if (b >= count) continue;
    for (int64_t i = 0; i < k; ++i) {
      const int32_t p = pv[b * k + i];
      EMBER_CHECK(p >= 1 && p <= m, "lu_unpack: pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                  "inclusive.Did you properly pass the result of lu_factor?");
      std::swap(row[i], row[p - 1]);
    }
  }
  // Row i of P^T A is row perm[i] of A: P[perm[i], i] = 1.
  perm = to(perm, dev);
  const Tensor PT = eq(unsqueeze(perm, -1), arange(m, TensorOptions(ScalarType::Int64).device(dev)));
  return contiguous(mT(to(PT, dt)));
}

std::string lu_message(int i) {
  return detail::cat("U[", i, ",", i, "] is zero and using it on lu_solve would result in a division by zero. If you "
                     "still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                     "linalg.lu_factor_ex(A, pivot)");
}

std::tuple<Tensor, Tensor, Tensor> lu_factor_impl(const Tensor& A, bool pivot, bool check_errors, const char* fn) {
  check_dims(A, fn);
  check_float(A, fn);
  check_pivot(pivot, A, fn);
  LU f;
  {
    autograd::NoGradGuard no_grad;
    f = lu_factor(A, batch_of(A), true);
    if (check_errors) check_info<Error>(f.info, fn, A.dim() > 2, lu_message);
  }
  if (auto node = autograd::make_node("LinalgLuFactorExBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        const Tensor LU = nd.saved_tensor(0), piv = nd.saved_tensor(1);
        const int64_t k = std::min(rows(LU), cols(LU));
        auto [P, L, U] = lu_unpack(LU, piv);
        return TensorList{lu_backward(narrow(g[0], -1, 0, k), narrow(g[0], -2, 0, k), P, L, U)};
      })) {
    node->num_outputs = 3;
    autograd::set_history(f.lu, node, 0);
    node->save_output(f.lu);
    node->save(f.pivots);
  }
  return {f.lu, f.pivots, f.info};
}

}  // namespace

// ---- LU

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  return lu_factor_impl(A, pivot, check_errors, "torch.linalg.lu_factor_ex");
}

std::pair<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  auto [LU, piv, info] = lu_factor_impl(A, pivot, true, "torch.linalg.lu_factor");
  return {LU, piv};
}

std::tuple<Tensor, Tensor, Tensor> lu_with_info(const Tensor& A, bool pivot) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, lu_with_info, A, pivot);
  return lu_factor_impl(A, pivot, false, "torch.lu");
}

Tensor lu_solve(const Tensor& b, const Tensor& LU, const Tensor& pivots) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, lu_solve, b, LU, pivots);
  return linalg_lu_solve(LU, pivots, b);
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data_,
                                             bool unpack_pivots_) {
  const char* fn = "torch.lu_unpack";
  check_dims(LU, fn);
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32, fn, ": LU_pivots is expected to be a contiguous tensor of "
              "torch.int32 dtype.\nNote: this function is intended to be used with the output produced by "
              "torch.linalg.lu_factor");
  const int64_t m = rows(LU), n = cols(LU), k = std::min(m, n);
  const DimVector batch = batch_of(LU);
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.sizes()[pivots.dim() - 1] == k &&
                  same_shape(pivots.sizes().first(pivots.dim() - 1), batch),
              fn, ": Expected LU_pivots of shape ", shape_str(with(batch, {k})), " but got ",
              shape_str(pivots.sizes()));
  EMBER_CHECK(LU.device() == pivots.device(), fn, ": Expected LU and LU_pivots on the same device, but got ",
              LU.device(), " and ", pivots.device());
  Tensor P = empty({{0}}, like(LU)), L = P, U = P;
  if (unpack_data_) std::tie(L, U) = unpack_data(LU);
  if (unpack_pivots_) {
    autograd::NoGradGuard no_grad;
    P = unpack_pivots(pivots, m, LU.device(), LU.dtype());
  }
  (void)n;
  return {P, L, U};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  const char* fn = "linalg.lu";
  check_dims(A, fn);
  check_float(A, fn);
  check_pivot(pivot, A, fn);
  Tensor P, L, U;
  {
    autograd::NoGradGuard no_grad;
    LU f = lu_factor(A, batch_of(A), true);
    std::tie(P, L, U) = lu_unpack(f.lu, f.pivots);
  }
  if (auto node = autograd::make_node("LinalgLuBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        return TensorList{lu_backward(g[1], g[2], nd.saved_tensor(0), nd.saved_tensor(1), nd.saved_tensor(2))};
      })) {
    node->num_outputs = 3;
    node->save(P);
    autograd::set_history(L, node, 1);
    autograd::set_history(U, node, 2);
    node->save_output(L);
    node->save_output(U);
  }
  return {P, L, U};
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* fn = "linalg.lu_solve";
  EMBER_CHECK(LU.dim() >= 2, "torch.", fn, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(rows(LU) == cols(LU), "torch.", fn, ": A must be batches of square matrices, but they are ", rows(LU),
              " by ", cols(LU), " matrices");
  check_float(LU, fn);
  EMBER_CHECK(B.dim() >= 2, fn, ": The input tensor B must have at least 2 dimensions.");
  const int64_t n = rows(LU);
  EMBER_CHECK((left ? rows(B) : cols(B)) == n, fn, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows(B), "x", cols(B), ")");
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32, fn, ": pivots should be a Tensor of scalar type torch.int32");
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.sizes()[pivots.dim() - 1] == n, fn,
              ": Number of pivots per batch should be same as the dimension of the matrix");
  EMBER_CHECK(LU.dtype() == B.dtype(), fn, ": Expected LU and B to have the same dtype, but found LU of type ",
              type_label(LU.dtype()), " and B of type ", type_label(B.dtype()), " instead");
  EMBER_CHECK(LU.device() == B.device() && LU.device() == pivots.device(), fn,
              ": Expected LU, pivots and B on the same device, but got ", LU.device(), ", ", pivots.device(), " and ",
              B.device());
  DimVector batch = broadcast_shapes(batch_of(LU), batch_of(B), fn);
  batch = broadcast_shapes(batch, pivots.sizes().first(pivots.dim() - 1), fn);
  Tensor X;
  {
    autograd::NoGradGuard no_grad;
    // left: op(A) X = B; right: X op(A) = B, that is op(A)^T X^T = B^T.
    const Tensor Bl = left ? B : mT(B);
    X = colmajor_copy(Bl, with(batch, {n, cols(Bl)}));
    if (X.numel()) {
      const Tensor lu = colmajor_copy(LU, with(batch, {n, n}));
      const Tensor piv = contiguous(expand(pivots, with(batch, {n})));
      lu_solve_kernel[LU.device()](lu, piv, X, left ? adjoint : !adjoint);
    }
    if (!left) X = contiguous(mT(X));
  }
  if (auto node = autograd::make_node("LinalgLuSolveBackward0", {&LU, &B},
          [left, adjoint](FormulaNode& nd, TensorList& g) {
            const Tensor LU = nd.saved_tensor(0), piv = nd.saved_tensor(1), X = nd.saved_tensor(2);
            const Tensor gB = linalg_lu_solve(LU, piv, g[0], left, !adjoint);
            Tensor gLU;
            // gA of A = P L U, then through the unpacking: gL = tril(P^T gA U^T, -1), gU = triu(L^T P^T gA)
            if (nd.needs(0)) {
              Tensor gA = neg(left ? matmul(gB, mT(X)) : matmul(mT(X), gB));
              if (adjoint) gA = mT(gA);
              auto [P, L, U] = lu_unpack(LU, piv);
              const Tensor PgA = matmul(mT(P), gA);
              gLU = add(tril(matmul(PgA, mT(U)), -1), triu(matmul(mT(L), PgA)));
            }
            return TensorList{gLU, nd.needs(1) ? gB : Tensor()};
          })) {
    node->save(LU);
    node->save(pivots);
    autograd::set_history(X, node);
    node->save_output(X);
  }
  return X;
}

// ---- LDL^T

namespace {

// A node for outputs PyTorch gives no derivative: backward raises.
void no_derivative(std::initializer_list<const Tensor*> inputs, std::initializer_list<const Tensor*> outputs,
                   const char* name, const char* op) {
  if (auto node = autograd::make_node(name, inputs, [op](FormulaNode&, TensorList&) -> TensorList {
        fail<NotImplementedError>("the derivative for '", op, "' is not implemented.");
      })) {
    node->num_outputs = static_cast<uint32_t>(outputs.size());
    uint32_t i = 0;
    for (const Tensor* t : outputs) autograd::set_history(*t, node, i++);
  }
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors) {
  (void)hermitian;  // real matrices: symmetric and Hermitian are one thing
  const char* fn = check_errors ? "torch.linalg.ldl_factor" : "torch.linalg.ldl_factor_ex";
  check_matrix(A, "torch.linalg.ldl_factor_ex", true);
  const DimVector batch = batch_of(A);
  const int64_t n = rows(A);
  Tensor LD, piv, info;
  {
    autograd::NoGradGuard no_grad;
    Tensor buf = colmajor_copy(A, A.sizes());
    piv = zeros(with(batch, {n}), like(A, ScalarType::Int32));
    info = info_tensor(batch, A.device());
    if (buf.numel()) ldl_factor_kernel[A.device()](buf, piv, info);
    LD = tril(buf);
    if (check_errors)
      check_info(info, fn, A.dim() > 2, [](int i) {
        return detail::cat("The factorization could not be completed because the block diagonal matrix D is exactly "
                           "singular (D[", i, ",", i, "] is zero).");
      });
  }
  no_derivative({&A}, {&LD}, "LinalgLdlFactorExBackward0", "linalg_ldl_factor_ex");
  return {LD, piv, info};
}

std::pair<Tensor, Tensor> linalg_ldl_factor(const Tensor& A, bool hermitian) {
  auto [LD, piv, info] = linalg_ldl_factor_ex(A, hermitian, true);
  return {LD, piv};
}

Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  (void)hermitian;
  const char* fn = "torch.linalg.ldl_solve";
  check_matrix(LD, fn, true);
  EMBER_CHECK(B.dim() >= 2, fn, ": The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32 || pivots.dtype() == ScalarType::Int64, fn,
              ": pivots should be a Tensor of scalar type torch.int32");
  EMBER_CHECK(same_shape(pivots.sizes(), LD.sizes().first(LD.dim() - 1)), fn, ": Expected LD.shape[:-1] and "
              "pivots.shape to be the same, but got pivots with shape ", shape_str(pivots.sizes()), " instead");
  EMBER_CHECK(B.dtype() == LD.dtype(), fn, ": Expected b and A to have the same dtype, but found b of type ",
              type_label(B.dtype()), " and A of type ", type_label(LD.dtype()), " instead.");
  EMBER_CHECK(LD.device() == B.device() && LD.device() == pivots.device(), fn,
              ": Expected LD, pivots and B on the same device, but got ", LD.device(), ", ", pivots.device(), " and ",
              B.device());
  const int64_t n = rows(LD);
  EMBER_CHECK(rows(B) == n, "Incompatible matrix sizes for ", fn, ": each A matrix is ", n, " by ", n,
              " but each b matrix is ", rows(B), " by ", cols(B));
  const DimVector batch = broadcast_shapes(batch_of(LD), batch_of(B), fn);
  Tensor X;
  {
    autograd::NoGradGuard no_grad;
    X = colmajor_copy(B, with(batch, {n, cols(B)}));
    if (X.numel()) {
      const Tensor ld = colmajor_copy(LD, with(batch, {n, n}));
      const Tensor piv = contiguous(to(expand(pivots, with(batch, {n})), ScalarType::Int32));
      ldl_solve_kernel[LD.device()](ld, piv, X);
    }
  }
  no_derivative({&LD, &B}, {&X}, "LinalgLdlSolveBackward0", "linalg_ldl_solve");
  return X;
}

// ---- Cholesky helpers and the deprecated triangular solve

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, cholesky_solve, B, L, upper);
  const char* fn = "cholesky_solve";
  EMBER_CHECK(B.dim() >= 2, fn, ": b should have at least 2 dimensions, but has ", B.dim(), " dimensions instead");
  EMBER_CHECK(L.dim() >= 2, fn, ": u should have at least 2 dimensions, but has ", L.dim(), " dimensions instead");
  EMBER_CHECK(B.dtype() == L.dtype(), fn, ": Expected b and A to have the same dtype, but found b of type ",
              type_label(B.dtype()), " and A of type ", type_label(L.dtype()), " instead.");
  check_float(L, fn);
  EMBER_CHECK(L.device() == B.device(), fn, ": Expected b and A to be on the same device, but found b on ",
              B.device(), " and A on ", L.device(), " instead.");
  EMBER_CHECK(rows(L) == cols(L) && rows(L) == rows(B), "Incompatible matrix sizes for ", fn, ": each A matrix is ",
              rows(L), " by ", cols(L), " but each b matrix is ", rows(B), " by ", cols(B));
  Tensor X;
  {
    autograd::NoGradGuard no_grad;
    const Tensor Y = linalg_solve_triangular(upper ? mT(L) : L, B, false);
    X = linalg_solve_triangular(upper ? L : mT(L), Y, true);
  }
  // PyTorch's formula: L is differentiated as a full matrix of A = L L^T (U^T U).
  if (auto node = autograd::make_node("CholeskySolveBackward0", {&B, &L}, [upper](FormulaNode& nd, TensorList& g) {
        const Tensor L = nd.saved_tensor(0), X = nd.saved_tensor(1);
        const Tensor gB = cholesky_solve(g[0], L, upper);
        Tensor gL;
        if (nd.needs(1)) {
          Tensor common = matmul(gB, mT(X));
          common = add(common, mT(common));
          gL = neg(upper ? matmul(L, common) : matmul(common, L));
        }
        return TensorList{nd.needs(0) ? gB : Tensor(), gL};
      })) {
    node->save(L);
    autograd::set_history(X, node);
    node->save_output(X);
  }
  return X;
}

Tensor cholesky_inverse(const Tensor& L, bool upper) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, cholesky_inverse, L, upper);
  const char* fn = "cholesky_inverse";
  check_matrix(L, fn, true);
  const int64_t n = rows(L);
  Tensor R;
  {
    autograd::NoGradGuard no_grad;
    if (L.numel()) {  // LAPACK's potri: info i for the first zero on the diagonal
      const Tensor zero = eq(diagonal(L, 0, -2, -1), 0);
      if (any(zero).item<bool>()) {
        const Tensor info = to(where(any(zero, {{-1}}), add(argmax(to(zero, ScalarType::Int32), -1), 1), 0),
                               ScalarType::Int32);
        check_info(info, fn, L.dim() > 2, [](int i) {
          return detail::cat("The diagonal element ", i, " is zero, the inversion could not be completed because the "
                             "input matrix is singular.");
        });
      }
    }
    const Tensor Linv = linalg_solve_triangular(L, expand(eye(n, std::nullopt, like(L)), L.sizes()), upper);
    R = upper ? matmul(Linv, mT(Linv)) : matmul(mT(Linv), Linv);
  }
  if (auto node = autograd::make_node("CholeskyInverseBackward0", {&L}, [upper](FormulaNode& nd, TensorList& g) {
        const Tensor L = nd.saved_tensor(0), R = nd.saved_tensor(1);
        const Tensor common = matmul(R, matmul(add(g[0], mT(g[0])), R));
        return TensorList{neg(upper ? matmul(L, common) : matmul(common, L))};
      })) {
    node->save(L);
    autograd::set_history(R, node);
    node->save_output(R);
  }
  return R;
}

std::pair<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper, bool transpose,
                                           bool unitriangular) {
  const char* fn = "torch.triangular_solve";
  EMBER_AUTOCAST(autocast::kFp32Cpu, triangular_solve, b, A, upper, transpose, unitriangular);
  EMBER_CHECK(b.dim() >= 2, fn, ": Expected b to have at least 2 dimensions, but it has ", b.dim(),
              " dimensions instead");
  EMBER_CHECK(A.dim() >= 2, fn, ": Expected A to have at least 2 dimensions, but it has ", A.dim(),
              " dimensions instead");
  const DimVector batch = broadcast_shapes(batch_of(b), batch_of(A), fn);
  const Tensor X = linalg_solve_triangular(transpose ? mT(A) : A, b, upper != transpose, true, unitriangular);
  return {X, contiguous(expand(A, with(batch, {rows(A), cols(A)})))};
}

// ---- matrix functions

Tensor linalg_matrix_rank(const Tensor& A, const Tensor& atol, const Tensor& rtol, bool hermitian) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_matrix_rank, A, atol, rtol, hermitian);
  const char* fn = "torch.linalg.matrix_rank";
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor input must have at least 2 dimensions.");
  check_float(A, fn);
  autograd::NoGradGuard no_grad;
  const int64_t m = rows(A), n = cols(A);
  const Tensor S = hermitian ? abs(linalg_eigvalsh(A)) : linalg_svdvals(A);
  const auto opts = like(A);
  const Tensor at = atol.defined() ? to(atol, A.device(), A.dtype()) : zeros({}, opts);
  const Tensor def = full({}, eps_of(A.dtype()) * static_cast<double>(std::max(m, n)), opts);
  const Tensor rt = rtol.defined() ? to(rtol, A.device(), A.dtype()) : atol.defined() ? where(gt(at, 0), 0.0, def)
                                                                                        : def;
  if (std::min(m, n) == 0) {
    const DimVector shape = broadcast_shapes(broadcast_shapes(batch_of(A), at.sizes(), fn), rt.sizes(), fn);
    return zeros(shape, like(A, ScalarType::Int64));
  }
  const Tensor tol = maximum(at, mul(rt, amax(S, {{-1}})));
  return sum(gt(S, unsqueeze(tol, -1)), {{-1}}, false, ScalarType::Int64);
}

namespace {

std::string ord_label(double p) {
  if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
  return detail::cat(p);
}

// cond for the norms other than 2: norm(A) norm(A^-1), inf for a singular A (PyTorch's rule).
template <class Ord>
Tensor cond_by_inverse(const Tensor& A, Ord p, const std::string& label) {
  const std::string fn = "linalg.cond(ord=" + label + ")";
  check_float(A, "linalg.cond");
  EMBER_CHECK(rows(A) == cols(A), fn, ": A must be batches of square matrices, but they are ", rows(A), " by ",
              cols(A), " matrices");
  if (A.numel() == 0) return zeros(batch_of(A), like(A));
  auto [inv, info] = linalg_inv_ex(A);
  const Tensor singular = unsqueeze(unsqueeze(gt(info, 0), -1), -1);
  const Tensor invm = where(singular, std::numeric_limits<double>::infinity(), inv);
  return mul(linalg_matrix_norm(A, p), linalg_matrix_norm(invm, p));
}

}  // namespace

Tensor linalg_cond(const Tensor& A, std::optional<double> p) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_cond, A, p);
  const char* fn = "linalg.cond";
  if (p) {
    const double a = std::abs(*p);
    EMBER_CHECK(a == 1 || a == 2 || std::isinf(a), fn, " got an invalid norm type: ", ord_label(*p));
  }
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor must have at least 2 dimensions.");
  if (p && std::abs(*p) != 2) return cond_by_inverse(A, *p, ord_label(*p));
  check_float(A, fn);
  if (std::min(rows(A), cols(A)) == 0) return zeros(batch_of(A), like(A));
  const Tensor S = linalg_svdvals(A);
  const int64_t k = S.sizes()[S.dim() - 1];
  const Tensor first = select(S, -1, 0), last = select(S, -1, k - 1);
  return p && *p < 0 ? div(last, first) : div(first, last);
}

Tensor linalg_cond(const Tensor& A, std::string_view p) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_cond, A, p);
  const char* fn = "linalg.cond";
  EMBER_CHECK(p == "fro" || p == "nuc", fn, " got an invalid norm type: ", p);
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor must have at least 2 dimensions.");
  if (p == "nuc" && A.numel() > 0) {  // PyTorch's: from the singular values, sum(S) sum(1 / S)
    check_float(A, fn);
    EMBER_CHECK(rows(A) == cols(A), "linalg.cond(ord=nuc): A must be batches of square matrices, but they are ",
                rows(A), " by ", cols(A), " matrices");
    const Tensor S = linalg_svdvals(A);
    return mul(sum(S, {{-1}}), sum(reciprocal(S), {{-1}}));
  }
  return cond_by_inverse(A, p, std::string(p));
}

Tensor linalg_matrix_exp(const Tensor& A) {
  const char* fn = "linalg.matrix_exp";
  EMBER_CHECK(is_floating(A.dtype()), "matrix_exp: Expected a floating point or complex tensor as input. Got ",
              type_label(A.dtype()));
  check_matrix(A, fn, true);
  const int64_t n = rows(A);
  if (A.numel() == 0) return clone(A);
  // Scaling and squaring (Higham 2005): A / 2^s has 1-norm <= theta_13, where the [13/13] Pade approximant is exact
  // to double precision; then R^(2^s). s is chosen per matrix; a batch squares as often as its largest s needs.
  constexpr double theta13 = 5.371920351148152;
  constexpr double b[] = {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
                          129060195264000.,   10559470521600.,    670442572800.,    33522128640.,
                          1323241920.,        40840800.,          960960.,          16380.,
                          182.,               1.};
  Tensor s;
  int64_t smax = 0;
  {
    autograd::NoGradGuard no_grad;
    const Tensor norm1 = amax(sum(abs(A), {{-2}}), {{-1}});
    s = clamp(ceil(div(log(div(norm1, theta13)), std::log(2.0))), 0.0, 1024.0);
    s = where(isfinite(s), s, 0.0);  // NaN input: no squaring, the NaNs carry through
    smax = static_cast<int64_t>(amax(s).item<double>());
  }
  const Tensor As = mul(A, unsqueeze(unsqueeze(pow(2.0, neg(s)), -1), -1));
  const Tensor I = expand(eye(n, std::nullopt, like(A)), A.sizes());
  const Tensor A2 = matmul(As, As), A4 = matmul(A2, A2), A6 = matmul(A4, A2);
  auto comb = [&](double c6, double c4, double c2, double c0) {
    Tensor r = add(add(mul(A6, c6), mul(A4, c4)), mul(A2, c2));
    return c0 != 0 ? add(r, mul(I, c0)) : r;
  };
  const Tensor U = matmul(As, add(matmul(A6, comb(b[13], b[11], b[9], 0)), comb(b[7], b[5], b[3], b[1])));
  const Tensor V = add(matmul(A6, comb(b[12], b[10], b[8], 0)), comb(b[6], b[4], b[2], b[0]));
  Tensor R = linalg_solve(sub(V, U), add(V, U));
  const bool uniform = A.dim() == 2 || [&] {
    autograd::NoGradGuard no_grad;
    return all(eq(s, static_cast<double>(smax))).item<bool>();
  }();
  for (int64_t i = 0; i < smax; ++i) {
    const Tensor R2 = matmul(R, R);
    R = uniform ? R2 : where(unsqueeze(unsqueeze(gt(s, static_cast<double>(i)), -1), -1), R2, R);
  }
  return R;
}

Tensor linalg_tensorinv(const Tensor& A, int64_t ind) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_tensorinv, A, ind);
  const char* fn = "linalg.tensorinv";
  EMBER_CHECK(ind > 0, fn, ": Expected a strictly positive integer for 'ind', but got ", ind);
  EMBER_CHECK(ind <= A.dim(), fn, ": Expected 'ind' to be at most the number of dimensions (", A.dim(), "), but got ",
              ind);
  int64_t lead = 1, rest = 1;
  DimVector shape;
  for (int64_t i = ind; i < A.dim(); ++i) {
    rest *= A.sizes()[i];
    shape.push_back(A.sizes()[i]);
  }
  for (int64_t i = 0; i < ind; ++i) {
    lead *= A.sizes()[i];
    shape.push_back(A.sizes()[i]);
  }
  EMBER_CHECK(lead == rest, fn, ": Expected self to satisfy the requirement prod(self.shape[ind:]) == "
              "prod(self.shape[:ind]), but got ", rest, " != ", lead);
  return reshape(linalg_inv(reshape(A, {{lead, rest}})), shape);
}

Tensor linalg_tensorsolve(const Tensor& A_in, const Tensor& B, std::optional<DimVector> dims) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_tensorsolve, A_in, B, dims);
  const char* fn = "linalg.tensorsolve";
  Tensor A = A_in;
  if (dims && !dims->empty()) {
    DimVector dest;
    const int64_t nd = static_cast<int64_t>(dims->size());
    for (int64_t i = 0; i < nd; ++i) dest.push_back(A.dim() - nd + i);
    A = movedim(A, *dims, dest);
  }
  EMBER_CHECK(B.dim() <= A.dim(), fn, ": Expected other.ndim (", B.dim(), ") to be at most self.ndim (", A.dim(),
              ")");
  const DimVector result_shape(A.sizes().subspan(std::min(B.dim(), A.dim())));
  int64_t result_product = 1;
  for (int64_t s : result_shape) result_product *= s;
  EMBER_CHECK(result_product == B.numel(), fn, ": Expected self to satisfy the requirement "
              "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got ", result_product, " != ",
              B.numel());
  return reshape(linalg_solve(reshape(A, {{result_product, result_product}}), flatten(B)), result_shape);
}

Tensor linalg_householder_product(const Tensor& A, const Tensor& tau) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_householder_product, A, tau);
  const char* fn = "torch.linalg.householder_product";
  EMBER_CHECK(A.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  EMBER_CHECK(rows(A) >= cols(A), fn, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(tau.dim() >= 1 && cols(A) >= tau.sizes()[tau.dim() - 1], fn,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(A.dim() - tau.dim() == 1, fn, ": Expected tau to have one dimension less than input, but got "
              "tau.ndim equal to ", tau.dim(), " and input.ndim is equal to ", A.dim());
  EMBER_CHECK(same_shape(tau.sizes().first(tau.dim() - 1), batch_of(A)), fn,
              ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
              shape_str(tau.sizes().first(tau.dim() - 1)));
  EMBER_CHECK(tau.dtype() == A.dtype(), fn, ": tau dtype ", type_label(tau.dtype()), " does not match input dtype ",
              type_label(A.dtype()));
  EMBER_CHECK(tau.device() == A.device(), fn, ": Expected input and tau to be on the same device, but found input on ",
              A.device(), " and tau on ", tau.device(), " instead.");
  check_float(A, fn);
  const int64_t m = rows(A), n = cols(A), k = tau.sizes()[tau.dim() - 1];
  // Q = H_1 ... H_k I[:, :n], applied right to left: Q <- Q - tau_i v_i (v_i^T Q); v_i unit lower (composed ops).
  Tensor Q = expand(eye(m, n, like(A)), A.sizes());
  if (k == 0) return contiguous(Q);
  const Tensor V = add(tril(narrow(A, -1, 0, k), -1), eye(m, k, like(A)));
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor v = narrow(V, -1, i, 1), t = unsqueeze(narrow(tau, -1, i, 1), -1);
    Q = sub(Q, matmul(mul(v, t), matmul(mT(v), Q)));
  }
  return Q;
}

std::pair<Tensor, Tensor> geqrf(const Tensor& A) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, geqrf, A);
  const char* fn = "torch.geqrf";
  EMBER_CHECK(A.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  check_float(A, fn);
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n);
  Tensor R, tau;
  {
    autograd::NoGradGuard no_grad;
    R = contiguous(clone(A));
    tau = empty(with(batch_of(A), {k}), like(A));
    // LAPACK's dgeqr2 column by column with dlarfg's reflector: beta = -sign(alpha) |x|, tau = (beta - alpha) / beta,
    // v = x / (alpha - beta); H = I when x below the diagonal is zero (tau 0).
    for (int64_t j = 0; j < k && R.numel(); ++j) {
      const Tensor col = narrow(narrow(R, -1, j, 1), -2, j, m - j);
      const Tensor alpha = narrow(col, -2, 0, 1), x = narrow(col, -2, 1, m - j - 1);
      const Tensor xnorm = linalg_vector_norm(x, 2, {{-2}}, true);
      const Tensor nz = ne(xnorm, 0);
      const Tensor beta = neg(copysign(hypot(alpha, xnorm), alpha));
      const Tensor t = where(nz, div(sub(beta, alpha), beta), 0.0);
      const Tensor v = mul(x, where(nz, reciprocal(sub(alpha, beta)), 1.0));
      const Tensor new_alpha = where(nz, beta, alpha);
      copy_into(narrow(tau, -1, j, 1), squeeze(t, -1));
      if (j + 1 < n) {  // the trailing columns: C <- C - tau v (v^T C)
        const Tensor C = narrow(narrow(R, -1, j + 1, n - j - 1), -2, j, m - j);
        const Tensor vf = cat({ones_like(alpha), v}, -2);
        copy_into(C, sub(C, matmul(mul(vf, t), matmul(mT(vf), C))));
      }
      copy_into(alpha, new_alpha);
      copy_into(x, v);
    }
  }
  no_derivative({&A}, {&R, &tau}, "GeqrfBackward0", "geqrf");
  return {R, tau};
}

}  // namespace ember
