// How the CUDA elementwise launcher (Note [CUDA elementwise launcher] in backend/cuda/launch.cuh) runs a
// StridedIter: plain host logic, compiled in every build so that tests/test_launch_plan.cpp checks it without a GPU.
#pragma once

#include "ember/iterator.h"

namespace ember {

struct LaunchPlan {
  enum Kind { Linear, Strided, Cast } kind;
  bool index32;  // every element index and byte offset fits in 31 bits: the kernel divides in 32-bit arithmetic
  int vec;       // elements per thread of the linear kernel: vec_max, or 1 when a pointer is not aligned for it
};

// want[k] is the dtype the functor reads (or, for k = 0, writes) for operand k of `it`. vec_max: the widest vector
// (in elements) that 16-byte loads allow for the functor's types. Operands with stride 0 everywhere are broadcast
// and need no alignment.
LaunchPlan plan_launch(const StridedIter& it, const ScalarType* want, int vec_max);

}  // namespace ember
