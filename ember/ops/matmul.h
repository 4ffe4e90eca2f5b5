// The matrix products (ops/matmul.cpp, einsum in ops/einsum.cpp): matmul and its special cases, the add* forms,
// tensordot, einsum, multi_dot, linear and bilinear. On the CPU they run on OpenBLAS's GEMM (backend/cpu/blas.cpp).
// Each records its formula (a matmul of the gradient with the other operand); compositions get theirs from their
// parts.
#pragma once

#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// dtypes must match (PyTorch promotes nothing here); 16-bit floats are computed in float32 and rounded, integers
// with a plain loop, bool is refused.
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
Tensor addbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1);
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
Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);

}  // namespace ember
