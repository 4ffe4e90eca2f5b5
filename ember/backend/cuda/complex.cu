// The elementwise kernels of complex64/complex128 on CUDA: the ops of the CPU's (backend/cpu/complex.cpp), through
// the one launcher (Note [CUDA elementwise launcher]). The transcendental functions are libcu++'s cuda::std::complex
// ones (C99 Annex G branch cuts, as the C library's that the CPU uses). Note [Complex kernels on CUDA].
//
// Note [Complex kernels on CUDA]
// nvcc compiles three kernels per functor and dtype (linear, strided with 32- and 64-bit offsets), and a complex
// transcendental function is large. So the ops of one signature share a functor that switches on the op at run
// time (the branch is uniform across the grid, and the kernels are bound by memory): one functor for C -> C
// (arithmetic with a scalar and the unary functions), one for C, C -> C, one each for C -> bool and C, C -> bool.
// That is 6 functors x 2 dtypes instead of ~35 x 2, and keeps this file's compile time near a real one's.
#include "ember/backend/cuda/complex_ops.h"
#include "ember/backend/cuda/elementwise.cuh"
#include "ember/backend/kernels/binary.h"
#include "ember/backend/kernels/ternary.h"
#include "ember/backend/kernels/unary.h"

namespace ember::cuda {

namespace {

using namespace complex_ops;

template <class T>
struct Identity {
  __device__ T operator()(T x) const { return x; }
};

template <class T>
struct FillFn {
  T v;
  __device__ void operator()(char* const* p) const { *reinterpret_cast<T*>(p[0]) = v; }
};

}  // namespace

bool unary_complex(UnaryOp op, const Runner& r, ScalarType compute) {
  return dispatch_complex(compute, [&](auto v) {
    using C = decltype(v);
    using T = typename C::value_type;
    if (unary_same(op)) {
      r.kernel<C, C, 1>(UnaryFn<T>{op});
      return true;
    }
    switch (op) {
      case UnaryOp::Abs: r.kernel<T, C, 1>(AbsFn<T>{}); return true;
      case UnaryOp::IsNan:
      case UnaryOp::IsInf:
      case UnaryOp::IsFinite:
      case UnaryOp::LogicalNot: r.kernel<bool, C, 1>(PredFn<T>{op}); return true;
      default: return false;
    }
  });
}

bool binary_complex(BinaryOp op, const Runner& r, ScalarType compute, const Scalar& alpha) {
  return dispatch_complex(compute, [&](auto v) {
    using C = decltype(v);
    using T = typename C::value_type;
    ArithFn<T> f{Arith::Mul, C(1)};
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub: {
        f.s = op == BinaryOp::Sub ? -alpha.to<C>() : alpha.to<C>();
        f.op = f.s == C(1) ? Arith::Add : f.s == C(-1) ? Arith::Sub : Arith::AddScaled;
        break;
      }
      case BinaryOp::Mul: f.op = Arith::Mul; break;
      case BinaryOp::Div: f.op = Arith::Div; break;
      case BinaryOp::Pow: f.op = Arith::Pow; break;
      case BinaryOp::Eq:
      case BinaryOp::Ne: r.kernel<bool, C, 2>(EqFn<T>{op == BinaryOp::Ne}); return true;
      default: return false;
    }
    r.kernel<C, C, 2>(f);
    return true;
  });
}

bool ternary_complex(TernaryOp op, const Runner& r, ScalarType compute) {
  if (op != TernaryOp::Where) return false;
  dispatch_complex(compute, [&](auto v) {
    using C = decltype(v);
    r.kernel<C, C, 3>(WhereFn<typename C::value_type>{});
  });
  return true;
}

// dst or src complex: one functor per complex dtype, the other side cast by the launcher on load or store.
void copy_complex(const Tensor& dst, const Tensor& src) {
  StridedIter it = StridedIter::make({&dst, &src}, dst.sizes());
  ScalarType c = is_complex(dst.dtype()) ? dst.dtype() : src.dtype();
  if (c == ScalarType::ComplexHalf) c = ScalarType::ComplexFloat;  // cast on load and store (Note [complex32])
  dispatch_complex(c, [&](auto v) {
    using C = decltype(v);
    gpu_kernel<C, C, 1>(it, Identity<C>{});
  });
}

void fill_complex(const Tensor& dst, const Scalar& value) {
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  if (dst.dtype() == ScalarType::ComplexHalf) {
    launch_elementwise<1>(it, FillFn<Complex<Half>>{value.to<Complex<Half>>()});
    return;
  }
  dispatch_complex(dst.dtype(), [&](auto v) {
    using C = decltype(v);
    launch_elementwise<1>(it, FillFn<C>{value.to<C>()});
  });
}

}  // namespace ember::cuda
