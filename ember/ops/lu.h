// The LU and LDL^T families of torch.linalg (ops/lu.cpp): factorizations (with the *_ex forms that hand LAPACK's info
// back instead of raising), unpacking and solves. float32, float64, complex64, complex128; batched over leading dims.
#pragma once

#include <tuple>
#include <utility>

#include "ember/tensor.h"

namespace ember {

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
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true, bool adjoint = false);
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

}  // namespace ember
