// The matmul kernel on the CPU: batches of GEMMs through OpenBLAS (GEMV and DOT when a side is a vector), with
// the transpose flags taking row- and column-major operands as they are; integers through a plain loop.
#include "ember/backend/blas.h"

#include <cblas.h>

#include <atomic>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/dnnl.h"
#include "ember/backend/kernels/blas.h"
#include "ember/ops.h"
#include "ember/parallel.h"

namespace ember {

namespace {

std::atomic<int> g_blas_threads{0};  // what OpenBLAS was last told (0: not yet)

void blas_threads(int n) {
  if (g_blas_threads.exchange(n, std::memory_order_relaxed) != n) openblas_set_num_threads(n);
}

}  // namespace

void blas_threads_for_gemm() { blas_threads(1); }

void blas_threads_for_lapack() {
  park_threads();  // OpenBLAS's threads need the cores
  blas_threads(get_num_threads());
}

namespace cpu {
namespace {

// Note [GEMMs on ember's threads]
// OpenBLAS runs single-threaded here, and ember splits every product on its own pool: the matrices of a batch, and
// each large matrix's output in blocks of whole columns (rows, when the rows are the longer side), each block an
// independent one-thread GEMM that the caller and the workers claim (Note [Intra-op parallelism]). OpenBLAS's own
// threads split a product statically and then busy-wait for the next: with one busy process beside it a neural
// collaborative-filtering training step ran 7x slower on two threads than on one. Concurrent one-thread calls do
// not contend inside OpenBLAS 0.3.21 (only its threaded path takes the level-3 lock), and the split is faster than
// OpenBLAS's own threading even on an idle machine (two cores, float32: 1024x256x128 294 us against 413 us,
// 128x512x256 145 against 181, 512^3 1192 against 1264). Integer and tiny float products are ember's own loop
// (loop_matmul), split across threads too. LAPACK (lapack.cpp) still runs with OpenBLAS's threads.
//
// Note [float32 GEMM]
// float32 products (the blocks above) run oneDNN's sgemm rather than OpenBLAS's: its JIT kernels use AVX-512 where
// the CPU has it, where Debian's OpenBLAS 0.3.21 has no kernels for recent Xeons. One thread each, on the
// development machine (Sapphire Rapids): 700x10000x256 (an LSTM language model's output layer) 69 ms against 114,
// 1024x1024x256 10 ms against 13 (with b transposed, as nn.Linear's weight: 6.7 against 34), 128x256x1024 1.2
// against 2.6, 32^3 1.7 us against 8.2. float64 stays with OpenBLAS (oneDNN has no dgemm); so do GEMV and dot.
//
// Note [Conjugate operands of GEMM]
// The matmul kernel takes a and b with their conjugate bit (conj_bit::Operand, Note [The conjugate bit]): a.mH @ b,
// and the gradients of complex products (grad @ b.mH, a.mH @ grad), multiply the memory as it is, with BLAS's flag
// for the conjugate. A column-major operand (a transposed view) with the bit is CblasConjTrans, standard BLAS; a
// row-major one is CblasConjNoTrans, an extension of OpenBLAS's cblas (its cblas.h declares it, and 0.3.21's gemm
// and gemv honour it in row-major order: python/tests/test_conj_matmul.py checks every combination against NumPy).
// Dots use dotc (which conjugates its first vector), or the conjugate of dotu when both vectors have the bit; a GEMV
// whose vector has the bit (GEMV cannot conjugate x) runs as a GEMM with one column. So no layout of a conjugate
// operand costs a copy on the CPU. cuBLAS has CUBLAS_OP_C but no conjugate without transpose: there a row-major
// conjugate operand is resolved first (backend/cuda/blas.cpp).

// BLAS's flag for an operand stored row-major (trans false) or column-major (trans true), with the bit or not.
CBLAS_TRANSPOSE blas_op(bool trans, bool conj) {
  if (conj) return trans ? CblasConjTrans : CblasConjNoTrans;
  return trans ? CblasTrans : CblasNoTrans;
}

template <class T>
struct Blas;
template <>
struct Blas<float> {
  // float32 GEMMs run oneDNN's sgemm (Note [float32 GEMM]), on one OpenMP thread: ember's pool splits the product.
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const float* a, int lda,
                   const float* b, int ldb, float beta, float* c, int ldc) {
    dnnl_cpu::follow_openmp_threads();
    static std::atomic<bool> compiled{false};  // its kernels are written once, at the first call
    if (!compiled.load(std::memory_order_relaxed)) dnnl_cpu::room_for_code();
    compiled.store(true, std::memory_order_relaxed);
    if (dnnl_sgemm(ta == CblasTrans ? 'T' : 'N', tb == CblasTrans ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c,
                   ldc) == dnnl_success)
      return;
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, int m, int n, float alpha, const float* a, int lda, const float* x, int incx,
                   float beta, float* y) {
    cblas_sgemv(CblasRowMajor, t, m, n, alpha, a, lda, x, incx, beta, y, 1);
  }
  static float dot(bool, bool, int n, const float* x, int incx, const float* y, int incy) {
    return cblas_sdot(n, x, incx, y, incy);
  }
};
template <>
struct Blas<double> {
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha, const double* a, int lda,
                   const double* b, int ldb, double beta, double* c, int ldc) {
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, int m, int n, double alpha, const double* a, int lda, const double* x, int incx,
                   double beta, double* y) {
    cblas_dgemv(CblasRowMajor, t, m, n, alpha, a, lda, x, incx, beta, y, 1);
  }
  static double dot(bool, bool, int n, const double* x, int incx, const double* y, int incy) {
    return cblas_ddot(n, x, incx, y, incy);
  }
};

// complex64 and complex128: cgemm and zgemm take alpha and beta by address, and the dot's result through a pointer.
template <class R, auto Gemm, auto Gemv, auto Dotu, auto Dotc>
struct ComplexBlas {
  using T = Complex<R>;
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha, const T* a, int lda,
                   const T* b, int ldb, T beta, T* c, int ldc) {
    Gemm(CblasRowMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, int m, int n, T alpha, const T* a, int lda, const T* x, int incx, T beta, T* y) {
    Gemv(CblasRowMajor, t, m, n, &alpha, a, lda, x, incx, &beta, y, 1);
  }
  // The sum of x[i] * y[i], each conjugated where cx / cy say (Note [Conjugate operands of GEMM]).
  static T dot(bool cx, bool cy, int n, const T* x, int incx, const T* y, int incy) {
    T r;
    if (cx && !cy)
      Dotc(n, x, incx, y, incy, &r);
    else if (cy && !cx)
      Dotc(n, y, incy, x, incx, &r);
    else
      Dotu(n, x, incx, y, incy, &r);
    return cx && cy ? conj(r) : r;
  }
};
template <>
struct Blas<Complex<float>> : ComplexBlas<float, cblas_cgemm, cblas_cgemv, cblas_cdotu_sub, cblas_cdotc_sub> {};
template <>
struct Blas<Complex<double>> : ComplexBlas<double, cblas_zgemm, cblas_zgemv, cblas_zdotu_sub, cblas_zdotc_sub> {};

// Element offsets of a's and b's matrices for each matrix of out, in out's (row-major) batch order.
void batch_offsets(const Tensor& out, const Tensor& a, const Tensor& b, std::vector<int64_t>& ao,
                   std::vector<int64_t>& bo) {
  const int64_t nb = out.dim() - 2;
  int64_t count = 1;
  for (int64_t d = 0; d < nb; ++d) count *= out.sizes()[d];
  ao.resize(count);
  bo.resize(count);
  DimVector idx(std::max<int64_t>(nb, 1), 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < count; ++i) {
    ao[i] = oa;
    bo[i] = ob;
    for (int64_t d = nb - 1; d >= 0; --d) {  // odometer step
      oa += a.strides()[d];
      ob += b.strides()[d];
      if (++idx[d] < out.sizes()[d]) break;
      oa -= a.strides()[d] * idx[d];
      ob -= b.strides()[d] * idx[d];
      idx[d] = 0;
    }
  }
}

int blas_int(int64_t v, const char* what) {
  EMBER_CHECK(v <= std::numeric_limits<int>::max(), "matmul: ", what, " ", v, " is too large for BLAS (at most ",
              std::numeric_limits<int>::max(), ")");
  return static_cast<int>(v);
}

// Multiply-adds below which a piece of a product is not worth a chunk of its own on the pool.
constexpr int64_t kMinGemmPiece = int64_t{1} << 18;
// Output blocks are whole multiples of this many columns (or rows), so every block keeps OpenBLAS's full-width
// micro-kernels busy.
constexpr int64_t kGemmBlock = 16;

template <class T>
void gemm_batch(const Tensor& out, const Tensor& a, const Tensor& b, T alpha, T beta) {
  const int64_t m = out.sizes()[out.dim() - 2], n = out.sizes()[out.dim() - 1], k = a.sizes()[a.dim() - 1];
  const int64_t count = out.numel() / (m * n);
  T* c0 = static_cast<T*>(out.data_ptr());
  if (k == 0) {  // an empty sum: out = beta * out
    for (int64_t i = 0; i < out.numel(); ++i) c0[i] = beta == T(0) ? T(0) : beta * c0[i];
    return;
  }
  bool ta, tb;
  int64_t lda, ldb;
  const int64_t as0 = a.strides()[a.dim() - 2], as1 = a.strides()[a.dim() - 1];
  const int64_t bs0 = b.strides()[b.dim() - 2], bs1 = b.strides()[b.dim() - 1];
  EMBER_CHECK(blas_layout(m, k, as0, as1, ta, lda) && blas_layout(k, n, bs0, bs1, tb, ldb),
              "matmul: internal error: operands with a layout BLAS does not take");
  const int im = blas_int(m, "size"), in = blas_int(n, "size"), ik = blas_int(k, "size");
  const int ilda = blas_int(lda, "leading dimension"), ildb = blas_int(ldb, "leading dimension");
  // The element strides along k of a row of a and a column of b (vector cases); any stride works for one element.
  const int inc_a = k == 1 ? 1 : blas_int(as1, "stride"), inc_b = k == 1 ? 1 : blas_int(bs0, "stride");
  std::vector<int64_t> ao, bo;
  batch_offsets(out, a, b, ao, bo);
  const T* a0 = static_cast<const T*>(a.data_ptr());
  const T* b0 = static_cast<const T*>(b.data_ptr());
  // Complex operands may have the bit (Note [Conjugate operands of GEMM]); GEMV cannot conjugate its vector.
  const bool ca = a.is_conj(), cb = b.is_conj();
  const CBLAS_TRANSPOSE op_a = blas_op(ta, ca), op_b = blas_op(tb, cb);
  const bool vector = (m == 1 && n == 1) || (n == 1 && !cb) || (m == 1 && !ca);
  // Each matrix's output in `blocks` pieces (Note [GEMMs on ember's threads]): column blocks, or row blocks when the
  // rows are the longer side.
  const int64_t macs = m * n * k;
  const bool by_rows = m > n;
  const int64_t side = by_rows ? m : n;
  // GEMV too, in one block per thread: a classifier's 2048x1000 weight at batch 1, read once, goes no faster than
  // one core's share of the bandwidth (83 us at one thread, 51 at two).
  const int64_t blocks = m == 1 && n == 1 ? 1
                                          : std::clamp<int64_t>(std::min(macs / kMinGemmPiece, side / kGemmBlock), 1,
                                                                int64_t{vector ? 1 : 4} * get_num_threads());
  // A block's rows or columns: the blocks cover the side; the last may be narrower, or empty.
  const int64_t width = ((side + blocks - 1) / blocks + kGemmBlock - 1) / kGemmBlock * kGemmBlock;
  blas_threads_for_gemm();
  auto piece = [&](int64_t u) {
    const int64_t i = u / blocks, j0 = (u % blocks) * width, j1 = std::min(side, j0 + width);
    if (j0 >= j1) return;
    T* c = c0 + i * m * n;
    const T* A = a0 + ao[i];
    const T* B = b0 + bo[i];
    if (m == 1 && n == 1) {
      const T d = Blas<T>::dot(ca, cb, ik, A, inc_a, B, inc_b);
      c[0] = alpha * d + (beta == T(0) ? T(0) : beta * c[0]);
      return;
    }
    const int w = static_cast<int>(j1 - j0);
    if (vector && beta == T(0)) std::fill(c + j0, c + j1, T(0));  // GEMV's beta 0 need not clear NaN
    if (vector && n == 1) {  // rows [j0, j1) of c = A b: A row-major [m, k], or its transpose stored row-major [k, m]
      Blas<T>::gemv(op_a, ta ? ik : w, ta ? w : ik, alpha, A + (ta ? j0 : j0 * lda), ilda, B, inc_b, beta, c + j0);
    } else if (vector) {  // m == 1: columns [j0, j1) of c^T = B^T a^T
      Blas<T>::gemv(blas_op(!tb, cb), tb ? w : ik, tb ? ik : w, alpha, B + (tb ? j0 * ldb : j0), ildb, A, inc_a, beta,
                    c + j0);
    } else if (by_rows) {  // rows [j0, j1) of c from rows [j0, j1) of op(A)
      Blas<T>::gemm(op_a, op_b, static_cast<int>(j1 - j0), in, ik, alpha, A + (ta ? j0 : j0 * lda), ilda, B, ildb, beta,
                    c + j0 * n, in);
    } else {  // columns [j0, j1) of c from columns [j0, j1) of op(B)
      Blas<T>::gemm(op_a, op_b, im, static_cast<int>(j1 - j0), ik, alpha, A, ilda, B + (tb ? j0 * ldb : j0), ildb, beta,
                    c + j0, in);
    }
  };
  const int64_t per_piece = std::max<int64_t>(1, macs / blocks);
  parallel_for(0, count * blocks, std::max<int64_t>(1, kMinGemmPiece / per_piece), [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) piece(u);
  });
}

// A plain loop, split across threads over the rows of all matrices: for integers (PyTorch multiplies them on the CPU,
// wrapping around on overflow: accumulated in uint64, where that is defined), and for tiny float products, whose
// BLAS call would cost more than the arithmetic. Conj: complex operands with the bit (conjugated as they are read).
template <class T, class Acc, bool Conj>
void loop_matmul(const Tensor& out, const Tensor& a, const Tensor& b, Acc al, Acc be) {
  const int64_t m = out.sizes()[out.dim() - 2], n = out.sizes()[out.dim() - 1], k = a.sizes()[a.dim() - 1];
  const int64_t count = out.numel() / (m * n);
  const int64_t as0 = a.strides()[a.dim() - 2], as1 = a.strides()[a.dim() - 1];
  const int64_t bs0 = b.strides()[b.dim() - 2], bs1 = b.strides()[b.dim() - 1];
  std::vector<int64_t> ao, bo;
  batch_offsets(out, a, b, ao, bo);
  const T* a0 = static_cast<const T*>(a.data_ptr());
  const T* b0 = static_cast<const T*>(b.data_ptr());
  T* c0 = static_cast<T*>(out.data_ptr());
  const bool ca = a.is_conj(), cb = b.is_conj();
  auto read = [](T v, bool c) {
    if constexpr (Conj) return c ? conj(v) : v;
    return v;
  };
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * k, 1));
  parallel_for(0, count * m, grain, [&](int64_t r0, int64_t r1) {
    std::vector<Acc> acc(n);
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t i = r / m, row = r % m;
      const T* A = a0 + ao[i] + row * as0;
      const T* B = b0 + bo[i];
      T* c = c0 + r * n;
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t p = 0; p < k; ++p) {
        const Acc av = static_cast<Acc>(read(A[p * as1], ca));
        for (int64_t j = 0; j < n; ++j) acc[j] += av * static_cast<Acc>(read(B[p * bs0 + j * bs1], cb));
      }
      for (int64_t j = 0; j < n; ++j)
        c[j] = static_cast<T>(al * acc[j] + (be == Acc(0) ? Acc(0) : be * static_cast<Acc>(c[j])));
    }
  });
}

template <class T, class Acc>
void loop_matmul(const Tensor& out, const Tensor& a, const Tensor& b, Acc al, Acc be) {
  if constexpr (is_complex_v<T>) {
    if (a.is_conj() || b.is_conj()) return loop_matmul<T, Acc, true>(out, a, b, al, be);
  }
  loop_matmul<T, Acc, false>(out, a, b, al, be);
}

// Products of at most this many multiply-adds per matrix run in loop_matmul (PyTorch's CPU bmm has such a cutoff).
constexpr int64_t kTinyGemm = 512;

template <class T>
void float_matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta) {
  const int64_t m = out.sizes()[out.dim() - 2], n = out.sizes()[out.dim() - 1], k = a.sizes()[a.dim() - 1];
  if (m * n * k <= kTinyGemm) return loop_matmul<T, T>(out, a, b, alpha.to<T>(), beta.to<T>());
  gemm_batch<T>(out, a, b, alpha.to<T>(), beta.to<T>());
}

template <class T>
void int_matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta) {
  loop_matmul<T, uint64_t>(out, a, b, static_cast<uint64_t>(alpha.to<T>()), static_cast<uint64_t>(beta.to<T>()));
}

// bfloat16 and float16 as PyTorch computes them on the CPU: 16-bit operands, float32 accumulation, one rounding. Tiny
// and empty (k = 0) products run in loop_matmul, the rest in oneDNN (AMX / AVX512-BF16 kernels), and what oneDNN
// has no fast kernel for in float32 through OpenBLAS on widened copies.
template <class T>
void half_matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta) {
  const int64_t m = out.sizes()[out.dim() - 2], n = out.sizes()[out.dim() - 1], k = a.sizes()[a.dim() - 1];
  const float al = alpha.to<float>(), be = beta.to<float>();
  if (k == 0 || m * n * k <= kTinyGemm) return loop_matmul<T, float>(out, a, b, al, be);
  if (dnnl_cpu::matmul(out, a, b, Tensor(), al, be)) return;
  const auto f = ScalarType::Float32;
  Tensor o = be == 0.0f ? empty(out.sizes(), TensorOptions(f)) : to(out, f);
  gemm_batch<float>(o, contiguous(to(a, f)), contiguous(to(b, f)), al, be);
  copy_(out, o);
}

void matmul(const Tensor& out, const conj_bit::Operand& a, const conj_bit::Operand& b, const Scalar& alpha,
            const Scalar& beta) {
  if (out.numel() == 0) return;
  switch (out.dtype()) {
    case ScalarType::Float32: return float_matmul<float>(out, a, b, alpha, beta);
    case ScalarType::Float64: return float_matmul<double>(out, a, b, alpha, beta);
    case ScalarType::ComplexFloat: return float_matmul<Complex<float>>(out, a, b, alpha, beta);
    case ScalarType::ComplexDouble: return float_matmul<Complex<double>>(out, a, b, alpha, beta);
    case ScalarType::BFloat16: return half_matmul<BFloat16>(out, a, b, alpha, beta);
    case ScalarType::Float16: return half_matmul<Half>(out, a, b, alpha, beta);
    case ScalarType::UInt8: return int_matmul<uint8_t>(out, a, b, alpha, beta);
    case ScalarType::Int8: return int_matmul<int8_t>(out, a, b, alpha, beta);
    case ScalarType::Int16: return int_matmul<int16_t>(out, a, b, alpha, beta);
    case ScalarType::Int32: return int_matmul<int32_t>(out, a, b, alpha, beta);
    case ScalarType::Int64: return int_matmul<int64_t>(out, a, b, alpha, beta);
    default: fail<NotImplementedError>("matmul: not implemented for ", type_label(out.dtype()), " tensors");
  }
}

// 16-bit products with a bias: oneDNN adds it before the one rounding (float32 and float64 decline: OpenBLAS has no
// epilogue, so the caller's copy of the bias into out, then beta 1, is as fast).
bool matmul_bias(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, const Scalar& alpha) {
  const ScalarType dt = out.dtype();
  if (!(dt == ScalarType::BFloat16 || dt == ScalarType::Float16) || alpha.to_double() != 1.0) return false;
  const int64_t m = out.sizes()[0], n = out.sizes()[1], k = a.sizes()[1];
  if (m * n * k <= kTinyGemm) return false;
  return dnnl_cpu::matmul(out, a, b, bias, 1.0f, 0.0f);
}

}  // namespace

EMBER_REGISTER_KERNEL(matmul, CPU, matmul)
EMBER_REGISTER_KERNEL(matmul_bias, CPU, matmul_bias)

}  // namespace cpu
}  // namespace ember
