// A matrix product with the bias added by the GEMM itself, for backends whose BLAS can (cuBLASLt's epilogue on
// CUDA): addmm and linear then skip the pass that copies the broadcast bias into the output before the GEMM.
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// out [rows, n] (contiguous) = alpha * a [rows, k] @ b [k, n] + bias [n] (contiguous), one floating dtype, a and b
// row- or column-major, k > 0. Returns false, having written nothing, when the backend declines the case; the
// caller then copies the bias into out and runs the matmul kernel with beta 1. CUDA registers it (cuBLASLt), and
// the CPU for bfloat16/float16 (oneDNN).
inline constinit KernelSlot<bool(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                                 const Scalar& alpha)>
    matmul_bias_kernel{"matmul_bias"};

}  // namespace ember
