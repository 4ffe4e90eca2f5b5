// The matrix-product kernels (ops/matmul.cpp): OpenBLAS's GEMM and oneDNN on the CPU (backend/cpu/blas.cpp,
// dnnl_matmul.cpp), cuBLAS and cuBLASLt on CUDA.
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// out [..., m, n] (contiguous) = alpha * a @ b + beta * out, where a [..., m, k] and b [..., k, n] have out's batch
// shape (broadcast batch dims have stride 0) and their last two dims are row- or column-major (blas_layout);
// beta 0 ignores out's contents (NaN included). Floating dtypes: float32, float64, and float16/bfloat16 with float32
// accumulation and one rounding (oneDNN on the CPU, cuBLAS on CUDA); integer dtypes run a plain loop. a and b may
// have the conjugate bit (conj_bit::Operand): the kernel multiplies their elements, the conjugates of their memory,
// without a resolved copy where its BLAS has the flag for it (Note [Conjugate operands of GEMM]).
EMBER_DECLARE_KERNEL(matmul, const Tensor& out, const conj_bit::Operand& a, const conj_bit::Operand& b,
                     const Scalar& alpha, const Scalar& beta)

// A matrix product with the bias added by the GEMM itself, for backends whose BLAS can (cuBLASLt's epilogue on
// CUDA): addmm and linear then skip the pass that copies the broadcast bias into the output before the GEMM.
// out [rows, n] (contiguous) = alpha * a [rows, k] @ b [k, n] + bias [n] (contiguous), one floating dtype, a and b
// row- or column-major, k > 0. Returns false, having written nothing, when the backend declines the case; the
// caller then copies the bias into out and runs the matmul kernel with beta 1. CUDA registers it (cuBLASLt), and
// the CPU for bfloat16/float16 (oneDNN).
inline constinit KernelSlot<bool(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                                 const Scalar& alpha)>
    matmul_bias_kernel{"matmul_bias"};

}  // namespace ember
