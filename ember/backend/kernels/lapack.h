// The LAPACK kernels of torch.linalg (ops/lapack.cpp, ops/lu.cpp): OpenBLAS's LAPACK on the CPU
// (backend/cpu/lapack.cpp), cuSOLVER and cuBLAS on CUDA (backend/cuda/lapack.cpp; eig and the Hermitian complex
// ldl_factor_complex run the CPU kernel on host copies there: Note [LAPACK on the host]).
#pragma once

#include <string_view>

#include "ember/backend/kernels.h"

namespace ember {

// The LAPACK kernels work in place on batches of column-major matrices: a tensor [..., rows, cols] whose batch
// is contiguous and whose matrices are column-major (strides [..., rows * cols, 1, rows]), float32, float64, complex64
// or complex128 (for complex ones S, the eigenvalues of eigh and lstsq's singular values are of the matching real
// dtype, and "transpose" is the plain transpose, not the conjugate one).
// `info` is an int32 tensor with one entry per matrix that receives LAPACK's info (0: success).
//
// LU with partial pivoting (getrf): a becomes L and U; pivots int32 [..., min(rows, cols)], 1-based.
EMBER_DECLARE_KERNEL(lu_factor, const Tensor& a, const Tensor& pivots, const Tensor& info)
// Solves A X = B (or A^T X = B) from lu_factor's result (getrs); b [..., n, nrhs] becomes X.
EMBER_DECLARE_KERNEL(lu_solve, const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose)
// Cholesky (potrf): the lower (upper) triangle of a becomes L (U); the other triangle is zeroed.
EMBER_DECLARE_KERNEL(cholesky, const Tensor& a, bool upper, const Tensor& info)
// Triangular solve with the triangle of a (trsm): b becomes A^-1 B (left) or B A^-1 (right).
EMBER_DECLARE_KERNEL(triangular_solve, const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular)
// QR (geqrf + orgqr) of a [..., m, n] (destroyed): r [..., rr, n] upper triangular, q [..., m, qc] with orthonormal
// columns, or undefined for mode 'r'.
EMBER_DECLARE_KERNEL(qr, const Tensor& a, const Tensor& q, const Tensor& r)
// SVD (gesdd) of a [..., m, n] (destroyed): s [..., k] descending (contiguous, not column-major); u [..., m, uc]
// and vh [..., vr, n] (uc = vr = k, or m and n for full matrices), or both undefined for the values only.
EMBER_DECLARE_KERNEL(svd, const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info)
// geqrf alone: a [..., m, n] becomes R and the Householder vectors below its diagonal; tau [..., min(m, n)]
// (contiguous) receives the reflectors' scalars.
EMBER_DECLARE_KERNEL(geqrf, const Tensor& a, const Tensor& tau)
// ormqr / unmqr: c [..., mc, nc] becomes op(Q) c (left) or c op(Q), Q = H_1 ... H_k from geqrf's reflectors
// a [..., mc or nc, k] and tau [..., k] (contiguous); op is the conjugate transpose when transpose.
EMBER_DECLARE_KERNEL(ormqr, const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose)
// Nonsymmetric eigendecomposition (geev; CUDA: the CPU's on host copies) of a [..., n, n] (destroyed), real or complex:
// w [..., n] (contiguous) and v [..., n, n] (column-major, unit columns; undefined for the values only) are of the
// complex dtype.
EMBER_DECLARE_KERNEL(eig, const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info)
// Symmetric (Hermitian: heevd) eigendecomposition (syevd) reading one triangle of a: w [..., n] ascending (contiguous);
// with compute_v, a becomes the eigenvectors (columns).
EMBER_DECLARE_KERNEL(eigh, const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info)
// Least squares (gels, gelsy, gelsd, gelss) of a [..., m, n] (destroyed) and b [..., max(m, n), nrhs]: the first n
// rows of b become the solution. rank (int64 [...]) and sv ([..., min(m, n)], contiguous) are filled when defined.
EMBER_DECLARE_KERNEL(lstsq, const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond,
                     std::string_view driver, const Tensor& info)
// Bunch-Kaufman LDL^T of symmetric matrices (LAPACK sytrf reading the lower triangle; cuSOLVER sytrf) in the layout
// above: a becomes L and D compactly, pivots int32 [..., n] in LAPACK's format (negative for 2x2 blocks).
EMBER_DECLARE_KERNEL(ldl_factor, const Tensor& a, const Tensor& pivots, const Tensor& info)
// Solves A X = B from ldl_factor's result (sytrs; cuSOLVER's Xsytrs); b [..., n, nrhs] becomes X.
EMBER_DECLARE_KERNEL(ldl_solve, const Tensor& ld, const Tensor& pivots, const Tensor& b)
// The complex forms: complex symmetric matrices (sytrf, sytrs) or, with hermitian, Hermitian ones (hetrf, hetrs; on
// CUDA, hetrf is the CPU's on host copies and hetrs raises, as PyTorch's); the lower triangle, layouts and pivots as
// above.
EMBER_DECLARE_KERNEL(ldl_factor_complex, const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian)
EMBER_DECLARE_KERNEL(ldl_solve_complex, const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian)

}  // namespace ember
