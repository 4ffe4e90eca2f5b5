// The LU and LDL^T families of torch.linalg on the LAPACK kernels (getrf, getrs, sytrf, sytrs): they record PyTorch's
// formulas, written with ember ops (the LDL^T ops are not differentiable, as in PyTorch).
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

void check_dims(const Tensor& A, const char* fn) {
  EMBER_CHECK(A.dim() >= 2, fn, ": Expected tensor with 2 or more dimensions. Got size: ", shape_str(A.sizes()),
              " instead");
}

// Note [Checking pivots]
// getrs and sytrs (LAPACK's and cuSOLVER's) swap rows by the pivots they are given without checking them, so a pivot
// out of range reads and writes outside the matrix. The solvers check user pivots first, on a host copy (n ints per
// matrix, small beside the solve): LU pivots in [1, n]; LDL^T pivots (sytrf's, lower) either positive, at most n, or a
// 2x2 block: two equal negative entries -p with p at most n.
Tensor host_pivots(const Tensor& pivots) { return contiguous(to(to(pivots, kCPU), ScalarType::Int64)); }

void check_lu_pivots(const Tensor& pivots, int64_t n, const char* fn) {
  const Tensor piv = host_pivots(pivots);
  const int64_t* p = piv.data<int64_t>();
  for (int64_t i = 0; i < piv.numel(); ++i)
    EMBER_CHECK(p[i] >= 1 && p[i] <= n, fn, ": pivots must be between 1 and ", n,
                " (the matrices' size), as lu_factor returns them, but found ", p[i]);
}

void check_ldl_pivots(const Tensor& pivots, int64_t n, const char* fn) {
  const Tensor piv = host_pivots(pivots);
  const int64_t* p = piv.data<int64_t>();
  for (int64_t b = 0; b < (n ? piv.numel() / n : 0); ++b) {
    const int64_t* row = p + b * n;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = row[i];
      EMBER_CHECK(v != 0 && v >= -n && v <= n, fn, ": pivots must be between -", n, " and ", n,
                  " and nonzero, as ldl_factor returns them, but found ", v);
      if (v > 0) continue;
      EMBER_CHECK(i + 1 < n && row[i + 1] == v, fn,
                  ": a negative pivot (a 2x2 block) must be followed by the same value, as ldl_factor returns them, "
                  "but pivot ",
                  i, " is ", v, " and the next is ", i + 1 < n ? detail::cat(row[i + 1]) : std::string("missing"));
      ++i;
    }
  }
}

// PyTorch's linalg_lu_backward: the gradient of A = P L U from those of L [..., m, k] and U [..., k, n] (either
// may be undefined); P is constant.
Tensor lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L, const Tensor& U) {
  if (!gL.defined() && !gU.defined()) return {};
  const int64_t m = rows(L), n = cols(U), k = std::min(m, n);
  Tensor gA;
  if (m == n) {  // P L^-T [L^T gL o 1_L + gU U^T o 1_U] U^-T
    if (gL.defined()) gA = tril(matmul(mH(L), gL), -1);
    if (gU.defined()) {
      const Tensor t = triu(matmul(gU, mH(U)));
      gA = gA.defined() ? add(gA, t) : t;
    }
    gA = linalg_solve_triangular(mH(U), gA, false, false);
    gA = linalg_solve_triangular(mH(L), gA, true, true, true);
  } else if (m < n) {  // wide: U = [U1 | U2]
    const Tensor U1 = narrow(U, -1, 0, k);
    if (gL.defined()) gA = matmul(mH(L), gL);
    if (gU.defined()) {
      const Tensor t = matmul(triu(gU), mH(U));
      gA = gA.defined() ? sub(gA, t) : neg(t);
    }
    gA = linalg_solve_triangular(mH(U1), tril(gA, -1), false, false);
    if (gU.defined()) gA = cat({add(gA, triu(narrow(gU, -1, 0, k))), narrow(gU, -1, k, n - k)}, -1);
    gA = linalg_solve_triangular(mH(L), gA, true, true, true);
    if (!gU.defined()) gA = cat({gA, zeros_like(narrow(U, -1, k, n - k))}, -1);
  } else {  // tall: L = [L1; L2]
    const Tensor L1 = narrow(L, -2, 0, k);
    if (gU.defined()) gA = matmul(gU, mH(U));
    if (gL.defined()) {
      const Tensor t = matmul(mH(L), tril(gL, -1));
      gA = gA.defined() ? sub(gA, t) : neg(t);
    }
    gA = linalg_solve_triangular(mH(L1), triu(gA), true, true, true);
    if (gL.defined()) gA = cat({add(gA, tril(narrow(gL, -2, 0, k), -1)), narrow(gL, -2, k, m - k)}, -2);
    gA = linalg_solve_triangular(mH(U), gA, false, false);
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
      EMBER_CHECK(p >= 1 && p <= m,
                  "lu_unpack: pivots passed to lu_unpack must be between 1 and LU.size(-2) "
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
  return detail::cat("U[", i, ",", i,
                     "] is zero and using it on lu_solve would result in a division by zero. If you "
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
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32, fn,
              ": LU_pivots is expected to be a contiguous tensor of "
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
    P = LU.is_meta() ? empty(with(batch, {m, m}), like(LU)) : unpack_pivots(pivots, m, LU.device(), LU.dtype());
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
    // left: op(A) X = B; right: X op(A) = B, that is op(A)^T X^T = B^T. The kernel solves with A or A^T; with
    // op(A) = A^H of a complex A, conj(X) solves with A^T (left) or A (right) for conj(B).
    const bool conjugate = adjoint && is_complex(LU.dtype());
    const Tensor Bl = conjugate ? conj(left ? B : mT(B)) : left ? B : mT(B);
    X = colmajor_copy(Bl, with(batch, {n, cols(Bl)}));
    if (X.numel()) {
      if (!pivots.is_meta()) check_lu_pivots(pivots, n, fn);  // Note [Checking pivots]
      const Tensor lu = colmajor_copy(LU, with(batch, {n, n}));
      const Tensor piv = contiguous(expand(pivots, with(batch, {n})));
      lu_solve_kernel[LU.device()](lu, piv, X, left ? adjoint : !adjoint);
    }
    if (conjugate) X = conj(X);
    if (!left) X = contiguous(mT(X));
  }
  if (auto node = autograd::make_node(
          "LinalgLuSolveBackward0", {&LU, &B}, [left, adjoint](FormulaNode& nd, TensorList& g) {
            const Tensor LU = nd.saved_tensor(0), piv = nd.saved_tensor(1), X = nd.saved_tensor(2);
            const Tensor gB = linalg_lu_solve(LU, piv, g[0], left, !adjoint);
            Tensor gLU;
            // gA of A = P L U, then through the unpacking: gL = tril(P^T gA U^T, -1), gU = triu(L^T P^T gA)
            if (nd.needs(0)) {
              Tensor gA = neg(left ? matmul(gB, mH(X)) : matmul(mH(X), gB));
              if (adjoint) gA = mH(gA);
              auto [P, L, U] = lu_unpack(LU, piv);
              const Tensor PgA = matmul(mH(P), gA);
              gLU = add(tril(matmul(PgA, mH(U)), -1), triu(matmul(mH(L), PgA)));
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

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors) {
  // Real matrices: symmetric and Hermitian are one thing; complex ones: sytrf (symmetric) or hetrf (hermitian).
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
    if (buf.numel() && is_complex(A.dtype()))
      ldl_factor_complex_kernel[A.device()](buf, piv, info, hermitian);
    else if (buf.numel())
      ldl_factor_kernel[A.device()](buf, piv, info);
    LD = tril(buf);
    if (check_errors)
      check_info(info, fn, A.dim() > 2, [](int i) {
        return detail::cat(
            "The factorization could not be completed because the block diagonal matrix D is exactly "
            "singular (D[",
            i, ",", i, "] is zero).");
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
  const char* fn = "torch.linalg.ldl_solve";
  check_matrix(LD, fn, true);
  EMBER_CHECK(B.dim() >= 2, fn, ": The input tensor B must have at least 2 dimensions.");
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32 || pivots.dtype() == ScalarType::Int64, fn,
              ": pivots should be a Tensor of scalar type torch.int32");
  EMBER_CHECK(same_shape(pivots.sizes(), LD.sizes().first(LD.dim() - 1)), fn,
              ": Expected LD.shape[:-1] and "
              "pivots.shape to be the same, but got pivots with shape ",
              shape_str(pivots.sizes()), " instead");
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
      check_ldl_pivots(pivots, n, fn);  // Note [Checking pivots]
      const Tensor ld = colmajor_copy(LD, with(batch, {n, n}));
      const Tensor piv = contiguous(to(expand(pivots, with(batch, {n})), ScalarType::Int32));
      if (is_complex(LD.dtype()))
        ldl_solve_complex_kernel[LD.device()](ld, piv, X, hermitian);
      else
        ldl_solve_kernel[LD.device()](ld, piv, X);
    }
  }
  no_derivative({&LD, &B}, {&X}, "LinalgLdlSolveBackward0", "linalg_ldl_solve");
  return X;
}

}  // namespace ember
