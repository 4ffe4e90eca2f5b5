// Linear algebra: the matrix products (ops/linalg.cpp, einsum in ops/einsum.cpp) and torch.linalg's
// factorizations, solvers and matrix functions (ops/lapack.cpp). On the CPU the products run on OpenBLAS's GEMM
// and the factorizations on the LAPACK routines OpenBLAS exports (backend/cpu/blas.cpp, lapack.cpp).
//
// Every op here is batched over leading dims and differentiable: products record their formula (a matmul of the
// gradient with the other operand), factorizations the standard formulas written with ember ops (so they are
// differentiable again); ops built from other ops (einsum, tensordot, linear, matrix_norm, ...) get their
// gradient from those.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- matrix products (ops/linalg.cpp). dtypes must match (PyTorch promotes nothing here); 16-bit floats are
// computed in float32 and rounded, integers with a plain loop, bool is refused.
// matmul: PyTorch's cases: dot (1-d, 1-d), mv (2-d, 1-d), a 1-d operand as a row/column otherwise, and batched
// matrix products that broadcast the batch dims.
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& mat, const Tensor& vec);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor vdot(const Tensor& a, const Tensor& b);  // dot with a conjugated; the same for real tensors
Tensor outer(const Tensor& a, const Tensor& b);
Tensor inner(const Tensor& a, const Tensor& b);
// beta * input + alpha * product; input broadcasts to the product's shape; beta 0 ignores input (NaN included).
Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addr(const Tensor& input, const Tensor& v1, const Tensor& v2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1,
               const Scalar& alpha = 1);
// beta * input + alpha * sum over the batch of b1[i] @ b2[i].
Tensor addbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1,
              const Scalar& alpha = 1);
// In-place forms: self = op(self, ...).
const Tensor& addmm_(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1,
                     const Scalar& alpha = 1);
const Tensor& addmv_(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
                     const Scalar& alpha = 1);
const Tensor& addr_(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta = 1,
                    const Scalar& alpha = 1);
const Tensor& baddbmm_(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1,
                       const Scalar& alpha = 1);
const Tensor& addbmm_(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1,
                      const Scalar& alpha = 1);
// Contracts the last `dims` dims of a with the first `dims` of b, or the listed dims pairwise.
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
// Einstein summation (ops/einsum.cpp): explicit ("ij,jk->ik") or implicit output, '...' broadcasting, repeated
// indices (diagonals), sums over indices missing from the output; contracted left to right through bmm.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands);
// torch.linalg.multi_dot (1-d first and last operands allowed) and torch.chain_matmul (2-d only).
Tensor multi_dot(const std::vector<Tensor>& tensors);
Tensor chain_matmul(const std::vector<Tensor>& matrices);
// torch.nn.functional.linear: input @ weight.T + bias; bilinear: x1^T W[o] x2 + bias[o] over the last dims.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias = {});

// ---- torch.linalg (ops/lapack.cpp): float32 and float64, batched over leading dims.
Tensor linalg_inv(const Tensor& A);
// B is a vector right-hand side when it is 1-d or has A's shape without the last dim (PyTorch's rule); the batch
// dims broadcast. left = false solves X A = B.
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);
Tensor linalg_det(const Tensor& A);
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A);  // (sign, logabsdet)
Tensor logdet(const Tensor& A);                             // log(det): NaN for a negative determinant
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
// mode: "reduced", "complete" or "r" (Q is then undefined).
std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced");
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true);  // (U, S, Vh)
Tensor linalg_svdvals(const Tensor& A);
// uplo: "L" or "U", the triangle read. (eigenvalues ascending, eigenvectors as columns)
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view uplo = "L");
Tensor linalg_eigvalsh(const Tensor& A, std::string_view uplo = "L");
struct LstsqResult {
  Tensor solution, residuals, rank, singular_values;
};
// driver: "gelsy" (the default on the CPU), "gels" (the default and only one on CUDA), "gelsd" or "gelss"; rcond
// defaults to eps * max(m, n). Outputs as PyTorch's: residuals when m > n and every matrix has full rank (empty
// otherwise; not for gelsy's rank-deficient case), rank except for gels, singular values for gelsd and gelss.
LstsqResult linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond = {},
                         std::optional<std::string_view> driver = {});
// Pseudo-inverse through the SVD (eigh when hermitian): singular values below max(atol, rtol * largest) are dropped;
// rtol defaults to eps * max(m, n) when atol is not given, else to 0.
Tensor linalg_pinv(const Tensor& A, std::optional<double> atol = {}, std::optional<double> rtol = {},
                   bool hermitian = false);
Tensor linalg_matrix_power(const Tensor& A, int64_t n);
// ord: 'fro', 'nuc', +-inf, +-1, +-2 over the two dims `dim`.
Tensor linalg_matrix_norm(const Tensor& A, double ord, IntArrayRef dim = {{-2, -1}}, bool keepdim = false,
                          std::optional<ScalarType> dtype = {});
Tensor linalg_matrix_norm(const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {{-2, -1}},
                          bool keepdim = false, std::optional<ScalarType> dtype = {});
// torch.linalg.norm: a vector norm over one dim (or all of them when ord and dim are not given), a matrix norm
// over two dims (or a 2-d input with ord given and dim not).
Tensor linalg_norm(const Tensor& A, std::optional<double> ord, std::optional<DimVector> dim = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor linalg_norm(const Tensor& A, std::string_view ord, std::optional<DimVector> dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = {});
Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);

}  // namespace ember
