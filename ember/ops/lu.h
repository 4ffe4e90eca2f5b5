// More of torch.linalg (ops/lapack.cpp, ops/lapack_more.cpp): the LU and LDL^T families, the *_ex forms that hand
// LAPACK's info back instead of raising, the Cholesky helpers, and the matrix functions composed of other ops
// (matrix_rank, cond, matrix_exp, tensorinv/tensorsolve, householder_product, geqrf). float32 and float64, batched
// over leading dims, differentiable where PyTorch's are. Kept apart from ops/linalg.h so that adding to it rebuilds
// few files.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

// torch.linalg.LinAlgError (a RuntimeError): a singular or not positive-definite input, or a factorization that
// did not converge.
struct LinAlgError : Error {
  using Error::Error;
};

// The *_ex forms return (result, info): info int32 [...] on the input's device, LAPACK's code per matrix (0: fine);
// check_errors raises LinAlgError as the plain form does.
std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);
std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                                          bool check_errors = false);
std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);

// LU with partial pivoting of A [..., m, n]: (LU, pivots int32 [..., min(m, n)] 1-based, info). pivot = false is
// refused (as PyTorch on the CPU). lu_factor raises (RuntimeError, as PyTorch) for an exactly singular U.
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
std::pair<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true);
// (P, L, U) with A = P L U: P [..., m, m], L [..., m, k] unit lower, U [..., k, n] upper.
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true);
// (P, L, U) from lu_factor's result; the parts not asked for are empty tensors.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data = true,
                                             bool unpack_pivots = true);
// Solves A X = B (left) or X A = B, with A^T for adjoint, from lu_factor's result; batch dims broadcast.
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                       bool adjoint = false);
// The deprecated torch.lu (PyTorch's _lu_with_info: never raises for a singular U) and torch.lu_solve(b, LU,
// pivots); unlike the linalg forms they run in float32 under CPU autocast, as PyTorch's.
std::tuple<Tensor, Tensor, Tensor> lu_with_info(const Tensor& A, bool pivot = true);
Tensor lu_solve(const Tensor& b, const Tensor& LU, const Tensor& pivots);

// torch.linalg.ldl_factor(_ex) and ldl_solve for real symmetric A (hermitian changes nothing for real matrices);
// LD holds D and L's multipliers in its lower triangle (the rest zero). Not differentiable (as in PyTorch 1.13).
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool hermitian = false,
                                                        bool check_errors = false);
std::pair<Tensor, Tensor> linalg_ldl_factor(const Tensor& A, bool hermitian = false);
Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);

// torch.cholesky_solve(B, L): X with (L L^T) X = B (U^T U for upper); torch.cholesky_inverse: (L L^T)^-1.
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);
Tensor cholesky_inverse(const Tensor& L, bool upper = false);
// torch.triangular_solve(b, A): (solution of op(A) X = b, A broadcast to the batch and cloned).
std::pair<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper = true, bool transpose = false,
                                           bool unitriangular = false);

// The number of singular values (|eigenvalues| when hermitian) above max(atol, rtol * largest); undefined
// tolerances take PyTorch's defaults (atol 0; rtol eps * max(m, n), or 0 where atol > 0). int64 [...].
Tensor linalg_matrix_rank(const Tensor& A, const Tensor& atol = {}, const Tensor& rtol = {}, bool hermitian = false);
// The condition number in the norm p: nullopt (2), +-2, +-1, +-inf; or "fro", "nuc".
Tensor linalg_cond(const Tensor& A, std::optional<double> p = std::nullopt);
Tensor linalg_cond(const Tensor& A, std::string_view p);
// exp(A) by scaling and squaring with a degree-13 Pade approximant (Higham 2005), composed of ember ops.
Tensor linalg_matrix_exp(const Tensor& A);
Tensor linalg_tensorinv(const Tensor& A, int64_t ind = 2);
Tensor linalg_tensorsolve(const Tensor& A, const Tensor& B, std::optional<DimVector> dims = std::nullopt);
// The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i below the diagonal of A's column i.
Tensor linalg_householder_product(const Tensor& A, const Tensor& tau);
// LAPACK's geqrf: (a, tau), R on and above the diagonal of a and the Householder vectors below it.
std::pair<Tensor, Tensor> geqrf(const Tensor& A);

}  // namespace ember
