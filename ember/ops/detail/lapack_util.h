// Helpers shared by the torch.linalg ops (ops/lapack.cpp, lu.cpp, matrix_functions.cpp, norm.cpp): layout of the LAPACK
// kernels' operands, PyTorch's argument checks and LAPACK info checks. Internal: included by those files only.
#pragma once

#include <algorithm>
#include <limits>
#include <string>

#include "ember/autograd/node.h"
#include "ember/backend/kernels/lapack.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/linalg.h"
#include "ember/ops/lu.h"

namespace ember::linalg_detail {

inline Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }
// The conjugate transpose (mT for real tensors): the gradient formulas are PyTorch's complex ones, which reduce to the
// real ones there.
inline Tensor mH(const Tensor& t) { return is_complex(t.dtype()) ? conj(mT(t)) : mT(t); }

inline int64_t rows(const Tensor& t) { return t.sizes()[t.dim() - 2]; }
inline int64_t cols(const Tensor& t) { return t.sizes()[t.dim() - 1]; }
inline DimVector batch_of(const Tensor& t) { return DimVector(t.sizes().first(t.dim() - 2)); }
inline DimVector with(IntArrayRef batch, std::initializer_list<int64_t> tail) {
  DimVector r(batch);
  for (int64_t s : tail) r.push_back(s);
  return r;
}
inline TensorOptions like(const Tensor& t, ScalarType dt) { return TensorOptions(dt).device(t.device()); }
inline TensorOptions like(const Tensor& t) { return like(t, t.dtype()); }
// Options of t's real dtype (float32 for complex64): singular values, Hermitian eigenvalues, norms.
inline TensorOptions like_real(const Tensor& t) { return like(t, to_real(t.dtype())); }

inline void check_float(const Tensor& A, const char* fn) {
  // NotImplementedError (a RuntimeError in Python), as PyTorch 2.15's checkFloatingOrComplex.
  EMBER_CHECK_T(NotImplementedError, is_inexact(A.dtype()), fn,
                ": Expected a floating point or complex tensor as input. Got ", type_label(A.dtype()));
  const ScalarType r = to_real(A.dtype());
  EMBER_CHECK_T(NotImplementedError, r == ScalarType::Float32 || r == ScalarType::Float64, fn,
                ": Low precision dtypes not supported. Got ", type_label(A.dtype()));
}

inline void check_matrix(const Tensor& A, const char* fn, bool square) {
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor A must have at least 2 dimensions.");
  if (square)
    EMBER_CHECK(rows(A) == cols(A), fn, ": A must be batches of square matrices, but they are ", rows(A), " by ",
                cols(A), " matrices");
  check_float(A, fn);
}

inline void check_same(const Tensor& A, const Tensor& B, const char* fn) {
  EMBER_CHECK(A.device() == B.device(), fn,
              ": Expected all tensors to be on the same device, but found at least two "
              "devices, ",
              A.device(), " and ", B.device(), "!");
  EMBER_CHECK(A.dtype() == B.dtype(), fn, ": Expected A and B to have the same dtype, but found A of type ",
              type_label(A.dtype()), " and B of type ", type_label(B.dtype()), " instead");
}

// An uninitialized batch of column-major matrices of this shape (the LAPACK kernels' layout).
inline Tensor empty_colmajor(IntArrayRef shape, TensorOptions opts) {
  DimVector st = contiguous_strides(shape);
  const size_t n = shape.size();
  st[n - 2] = 1;
  st[n - 1] = std::max<int64_t>(shape[n - 2], 1);
  return empty_strided(shape, st, opts);
}

// A column-major copy of x broadcast to `shape`, for a kernel to overwrite.
inline Tensor colmajor_copy(const Tensor& x, IntArrayRef shape) {
  Tensor r = empty_colmajor(shape, like(x));
  copy_into(r, x);
  return r;
}

// A tensor over t's storage with this geometry that is not a view of t (t is a buffer the op made, and the result
// must be a tensor of its own: Note [Composite forwards] in autograd/detail/shape_grad.h).
inline Tensor own(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return Tensor(make_intrusive<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides, offset));
}

inline Tensor info_tensor(IntArrayRef batch, Device d = Device(kCPU)) {
  return zeros(batch, TensorOptions(ScalarType::Int32).device(d));
}

// Raises fn's error for the first matrix whose LAPACK info is non-zero; msg(info) says what went wrong. Batched
// inputs name the matrix, as PyTorch does.
template <class E = LinAlgError, class F>
inline void check_info(const Tensor& info, const char* fn, bool batched, F&& msg) {
  if (info.is_meta()) return;                                          // nothing computed: nothing to check
  const Tensor host = info.device().is_cpu() ? info : to(info, kCPU);  // read on the host
  const int32_t* p = static_cast<const int32_t*>(host.data_ptr());
  for (int64_t i = 0; i < info.numel(); ++i)
    if (p[i] != 0) [[unlikely]] {
      if (batched) fail<E>(fn, ": (Batch element ", i, "): ", msg(p[i]));
      fail<E>(fn, ": ", msg(p[i]));
    }
}

// v [..., n] on the diagonal of [..., n, n] matrices (differentiable; ember::diag_embed without its view_scatter).
inline Tensor diag_matrix(const Tensor& v) {
  const int64_t n = v.sizes()[v.dim() - 1];
  return mul(unsqueeze(v, -1), eye(n, std::nullopt, like(v)));
}

inline bool same_shape(IntArrayRef a, IntArrayRef b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// A node for outputs PyTorch gives no derivative: backward raises.
inline void no_derivative(std::initializer_list<const Tensor*> inputs, std::initializer_list<const Tensor*> outputs,
                          const char* name, const char* op) {
  if (auto node = autograd::make_node(name, inputs,
                                      [op](autograd::FormulaNode&, autograd::TensorList&) -> autograd::TensorList {
                                        fail<NotImplementedError>("the derivative for '", op, "' is not implemented.");
                                      })) {
    node->num_outputs = static_cast<uint32_t>(outputs.size());
    uint32_t i = 0;
    for (const Tensor* t : outputs) autograd::set_history(*t, node, i++);
  }
}

inline double eps_of(ScalarType t) {
  return to_real(t) == ScalarType::Float64 ? std::numeric_limits<double>::epsilon()
                                           : static_cast<double>(std::numeric_limits<float>::epsilon());
}

// ---- LU

struct LU {
  Tensor lu, pivots, info;
};

// LU of A broadcast to `batch` (info left for the caller to check). The pivots and info are host tensors unless
// on_device (the CUDA kernel takes either; results handed to the user live on A's device, as PyTorch's).
inline LU lu_factor(const Tensor& A, IntArrayRef batch, bool on_device = false) {
  const int64_t n = rows(A), m = cols(A);
  const Device d = on_device ? A.device() : Device(kCPU);
  LU r{colmajor_copy(A, with(batch, {n, m})),
       empty(with(batch, {std::min(n, m)}), TensorOptions(ScalarType::Int32).device(d)), info_tensor(batch, d)};
  if (r.lu.numel()) lu_factor_kernel[A.device()](r.lu, r.pivots, r.info);
  return r;
}

}  // namespace ember::linalg_detail
