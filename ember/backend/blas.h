// What the ops need to know about BLAS: which matrix layouts it takes without a copy, and OpenBLAS's thread count.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ember {

// Whether a [rows, cols] matrix with element strides (s0, s1) is one BLAS takes as it is: row-major (trans false)
// or the transpose of a row-major matrix (trans true, i.e. column-major), with leading dimension ld. Size-1 dims
// may have any stride. Anything else (a broadcast or strided matrix) must be copied first. When both readings hold (a
// dim of size 1), row-major wins unless prefer_trans: cuBLAS conjugates only transposed operands (CUBLAS_OP_C).
inline bool blas_layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, bool& trans, int64_t& ld,
                        bool prefer_trans = false) {
  const bool row_major = (s1 == 1 || cols == 1) && (rows == 1 || s0 >= std::max<int64_t>(cols, 1));
  const bool col_major = (s0 == 1 || rows == 1) && (cols == 1 || s1 >= std::max<int64_t>(rows, 1));
  if (row_major && !(prefer_trans && col_major)) {
    trans = false;
    ld = rows == 1 ? std::max<int64_t>(cols, 1) : s0;
    return true;
  }
  if (col_major) {
    trans = true;
    ld = cols == 1 ? std::max<int64_t>(rows, 1) : s1;
    return true;
  }
  return false;
}

// OpenBLAS's thread count for what comes next on this thread (Note [GEMMs on ember's threads] in blas.cpp): one for a
// GEMM, GEMV or dot (ember splits products on its own pool), ember's count for a LAPACK routine (called outside
// ember's parallel regions; this also parks ember's spinning workers).
void blas_threads_for_gemm();
void blas_threads_for_lapack();

}  // namespace ember
