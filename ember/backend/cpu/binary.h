// CPU elementwise kernels: the runner that gives the shared formulas (Note [Shared elementwise math]) the CPU's loop;
// binary kernels split over two files by op group to keep compile units small.
#pragma once

#include <array>
#include <type_traits>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/math/common.h"
#include "ember/ops/binary_op.h"
#include "ember/ops/ternary_op.h"
#include "ember/ops/unary.h"

namespace ember::cpu {

using math::Acc;
using math::is_fp;

[[noreturn]] void zero_division(const char* op);

// The runner of Note [Shared elementwise math]: cpu_kernel over one StridedIter; errors raise at once.
struct Runner {
  const StridedIter& it;
  static constexpr const char* kDevice = "CPU";
  struct Errors {
    [[noreturn]] void zero_division(const char* op) const { cpu::zero_division(op); }
  };
  Errors errors() const { return {}; }
  template <class Out, class In, int N, class F>
  void kernel(F f) const {
    cpu_kernel<Out, In, N>(it, f);
  }
};

// Whether every operand of `it` has element type T, in one flat run: the output (operand 0) contiguous, each input
// contiguous or one value repeated (stride 0, marked in `one`). The layouts the vector kernels of vec_math.cpp take.
template <class T>
bool flat_or_repeated(const StridedIter& it, std::array<bool, StridedIter::kMaxOperands>& one) {
  constexpr int64_t kSize = sizeof(T);
  one = {};
  for (int i = 0; i < it.ntensors; ++i)
    if (it.dtypes[i] != scalar_type_of<T>) return false;
  if (it.ndim == 0) return true;
  if (it.ndim > 1 || it.strides[0][0] != kSize) return false;
  for (int i = 1; i < it.ntensors; ++i) {
    one[i] = it.strides[i][0] == 0;
    if (!one[i] && it.strides[i][0] != kSize) return false;
  }
  return true;
}

// Each returns false when the op is not in its group.
bool binary_arith(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha);
bool binary_logic(BinaryOp op, const StridedIter& it, ScalarType compute);
// The special functions (special.cpp): false when op is not one or has no kernel for compute.
bool binary_special(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha);
bool unary_special(UnaryOp op, const StridedIter& it, ScalarType compute, const UnaryArgs& args);
// The complex dtypes' kernels (complex.cpp): false when op has none.
bool binary_complex(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha);
bool unary_complex(UnaryOp op, const StridedIter& it, ScalarType compute);
bool ternary_complex(TernaryOp op, const StridedIter& it, ScalarType compute);

}  // namespace ember::cpu
