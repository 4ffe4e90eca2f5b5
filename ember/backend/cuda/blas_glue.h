// Host-side planning of the cuBLAS calls behind the matmul kernel: how ember's row-major product with row- or
// column-major operands and strided (possibly broadcast) batch dims becomes column-major cuBLAS calls. Plain C++
// (no CUDA headers), so that tests/test_cuda_glue.cpp checks it on machines without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/backend/blas.h"
#include "ember/small_vector.h"

namespace ember::cuda {

// "[2, 3, 4]", for error messages (any sequence of integers).
template <class V>
std::string dims_str(const V& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Note [Row-major products on cuBLAS]
// ember's out [m, n] is row-major, which cuBLAS (column-major) sees as out^T [n, m]; out^T = b^T a^T, so cuBLAS's
// A is ember's b and its B is ember's a, with cuBLAS's (m, n, k) = ember's (n, m, k). A row-major operand is, seen
// column-major, its own transpose: it needs no transpose flag; a column-major one (blas_layout's trans) needs 'T', or
// 'C' when it has the conjugate bit (a row-major one with the bit is resolved first: cuBLAS has no conjugate without
// transpose).
//
// The batch: out's batch dims are contiguous; a's and b's have any strides (0 where broadcast). Dims that merge in
// all three operands (stride[d] == stride[d + 1] * size[d + 1], or size 1) are merged; the innermost merged dim is
// the strided batch of one cublasGemmStridedBatchedEx call and the others, if any, a loop on the host.
struct GemmPlan {
  bool trans_a = false, trans_b = false;             // cuBLAS's transa (applies to ember's b) and transb (ember's a)
  int64_t m = 0, n = 0, k = 0;                       // cuBLAS's sizes: m = ember's n, n = ember's m
  int64_t lda = 1, ldb = 1, ldc = 1;                 // leading dimensions of ember's b, a, out
  int64_t batch = 1;                                 // the strided batch of one call
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // its element strides in ember's b, a, out
  // Host loop over the remaining batch dims (outermost first): sizes and element strides of b, a, out.
  std::vector<int64_t> loop_sizes, loop_a, loop_b, loop_c;
  int64_t calls() const {
    int64_t c = 1;
    for (int64_t s : loop_sizes) c *= s;
    return c;
  }
  // The element offsets into ember's b, a and out of call i (0 <= i < calls()), in row-major order of the loop.
  void call_offsets(int64_t i, int64_t& off_a, int64_t& off_b, int64_t& off_c) const {
    off_a = off_b = off_c = 0;
    for (size_t d = loop_sizes.size(); d-- > 0;) {
      const int64_t idx = i % loop_sizes[d];
      i /= loop_sizes[d];
      off_a += idx * loop_a[d];
      off_b += idx * loop_b[d];
      off_c += idx * loop_c[d];
    }
  }
};

// Plans out [..., m, n] (contiguous) = a [..., m, k] @ b [..., k, n]: sizes and element strides of the three tensors,
// all with out's number of dims (the matmul kernel's contract, ember/backend/kernels/blas.h). Returns false, with the
// reason in `why`, when a matrix's layout is neither row- nor column-major (the caller copies it first). conj_a /
// conj_b: the operand has the conjugate bit, so its column-major reading is taken where both hold (CUBLAS_OP_C).
inline bool plan_gemm(IntArrayRef out_sizes, IntArrayRef a_strides, IntArrayRef b_strides, int64_t k, GemmPlan& p,
                      std::string* why = nullptr, bool conj_a = false, bool conj_b = false) {
  const size_t nd = out_sizes.size();
  if (nd < 2 || a_strides.size() != nd || b_strides.size() != nd) {
    if (why) *why = "operands must have out's number of dims (at least 2)";
    return false;
  }
  const int64_t m = out_sizes[nd - 2], n = out_sizes[nd - 1];
  bool ta = false, tb = false;
  int64_t lda = 0, ldb = 0;
  if (!blas_layout(m, k, a_strides[nd - 2], a_strides[nd - 1], ta, lda, conj_a)) {
    if (why) *why = "a's matrices are neither row- nor column-major";
    return false;
  }
  if (!blas_layout(k, n, b_strides[nd - 2], b_strides[nd - 1], tb, ldb, conj_b)) {
    if (why) *why = "b's matrices are neither row- nor column-major";
    return false;
  }
  p = GemmPlan{};
  p.trans_a = tb;
  p.trans_b = ta;
  p.m = n;
  p.n = m;
  p.k = k;
  p.lda = ldb;
  p.ldb = lda;
  p.ldc = std::max<int64_t>(n, 1);
  // Batch dims (outermost first) without size-1 dims, merged where all three operands allow it.
  struct Dim {
    int64_t size, sa, sb, sc;  // strides in ember's b, a, out
  };
  std::vector<Dim> dims;
  int64_t c_stride = m * n;
  std::vector<int64_t> c_strides(nd - 2);
  for (size_t d = nd - 2; d-- > 0;) {
    c_strides[d] = c_stride;
    c_stride *= out_sizes[d];
  }
  for (size_t d = 0; d + 2 < nd; ++d) {
    if (out_sizes[d] == 1) continue;
    const Dim cur{out_sizes[d], b_strides[d], a_strides[d], c_strides[d]};
    if (!dims.empty()) {
      Dim& prev = dims.back();
      if (prev.sa == cur.sa * cur.size && prev.sb == cur.sb * cur.size && prev.sc == cur.sc * cur.size) {
        prev = Dim{prev.size * cur.size, cur.sa, cur.sb, cur.sc};
        continue;
      }
    }
    dims.push_back(cur);
  }
  if (!dims.empty()) {
    const Dim inner = dims.back();
    dims.pop_back();
    p.batch = inner.size;
    p.stride_a = inner.sa;
    p.stride_b = inner.sb;
    p.stride_c = inner.sc;
  } else {
    p.stride_c = m * n;
  }
  for (const Dim& d : dims) {
    p.loop_sizes.push_back(d.size);
    p.loop_a.push_back(d.sa);
    p.loop_b.push_back(d.sb);
    p.loop_c.push_back(d.sc);
  }
  return true;
}

// cuBLASLt's view of one planned GEMM (batch 1, one call): the column-major layouts (rows, cols, leading dim) of its
// A (ember's b, stored transposed when trans_a), B (ember's a) and C = D (out).
struct LtLayout {
  int64_t rows, cols, ld;
};
struct LtShapes {
  LtLayout a, b, c;
};
inline LtShapes lt_shapes(const GemmPlan& p) {
  return {{p.trans_a ? p.k : p.m, p.trans_a ? p.m : p.k, p.lda},
          {p.trans_b ? p.n : p.k, p.trans_b ? p.k : p.n, p.ldb},
          {p.m, p.n, p.ldc}};
}

// The alignment cuBLASLt may assume of a buffer: the largest power of two (at most 256, its default) dividing the
// address. Its heuristic otherwise assumes 256 and may pick a kernel that faults on a view's offset pointer.
inline uint32_t lt_alignment(uintptr_t address) {
  uint32_t a = 256;
  while (a > 1 && address % a != 0) a /= 2;
  return a;
}

}  // namespace ember::cuda
