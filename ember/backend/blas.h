// What the ops need to know about BLAS: which matrix layouts it takes without a copy, and the hook that keeps
// OpenBLAS's thread count equal to ember's (called by set_num_threads, Note [Intra-op parallelism]).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ember {

// Whether a [rows, cols] matrix with element strides (s0, s1) is one BLAS takes as it is: row-major (trans false)
// or the transpose of a row-major matrix (trans true, i.e. column-major), with leading dimension ld. Size-1 dims
// may have any stride. Anything else (a broadcast or strided matrix) must be copied first.
inline bool blas_layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, bool& trans, int64_t& ld) {
  if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= std::max<int64_t>(cols, 1))) {
    trans = false;
    ld = rows == 1 ? std::max<int64_t>(cols, 1) : s0;
    return true;
  }
  if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= std::max<int64_t>(rows, 1))) {
    trans = true;
    ld = cols == 1 ? std::max<int64_t>(rows, 1) : s1;
    return true;
  }
  return false;
}

// Sets the number of threads OpenBLAS uses inside one call (ember's count; ember calls BLAS and LAPACK from one
// thread at a time, outside its parallel regions: Note [Batches of GEMMs] in blas.cpp).
void set_blas_num_threads(int n);
// Gives OpenBLAS ember's thread count once, before the first BLAS or LAPACK call (OpenBLAS starts with its own
// default, e.g. from OPENBLAS_NUM_THREADS, while ember's may come from EMBER_NUM_THREADS).
void sync_blas_threads_once();

}  // namespace ember
