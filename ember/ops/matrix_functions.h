// The matrix functions of torch.linalg composed of other ops (ops/matrix_functions.cpp): matrix_rank, cond,
// matrix_exp, tensorinv, tensorsolve, householder_product, geqrf, ormqr, polar and matrix_sqrth. float32, float64,
// complex64 and complex128, batched over leading dims.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "ember/tensor.h"

namespace ember {

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
// torch.ormqr: op(Q) C (left) or C op(Q), Q = H_1 ... H_k from geqrf's (A, tau), op(Q) = Q^H when transpose.
// LAPACK's ormqr/unmqr; with a gradient, composed of ember ops (differentiable in A, tau and C).
Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left = true, bool transpose = false);
// torch.linalg.polar: A = U H for A [..., m, n] with m >= n: U with orthonormal columns, H Hermitian positive
// semi-definite (through the SVD, as PyTorch on the CPU).
std::pair<Tensor, Tensor> linalg_polar(const Tensor& A);
// torch.linalg.matrix_sqrth: the principal square root of a Hermitian positive-definite matrix (lower triangle read;
// through eigh, negative eigenvalues count as 0).
Tensor linalg_matrix_sqrth(const Tensor& A);

}  // namespace ember
