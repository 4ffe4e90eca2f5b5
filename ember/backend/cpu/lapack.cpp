// The LAPACK kernels of ember.linalg on the CPU: the routines OpenBLAS exports, called once per matrix of a batch of
// column-major matrices (backend/kernels/lapack.h), one after another with OpenBLAS threading inside (concurrent
// threaded calls contend on OpenBLAS's level-3 lock). float32, float64, complex64 and complex128 (the s, d, c and z
// routines, through the Lapack<T> table below; ember::Complex<T> has Fortran's COMPLEX layout).
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/backend/blas.h"
#include "ember/backend/kernels/lapack.h"
#include "ember/backend/math/lapack_types.h"

// LAPACK's Fortran interface (OpenBLAS has no LAPACKE header here). The trailing size_t arguments are the hidden
// lengths of the character arguments that gfortran-compiled routines expect. Complex matrices are passed as
// ember::Complex<float> / <double> (Fortran's COMPLEX / COMPLEX*16 layout).
using ember::Complex;
using c32 = Complex<float>;
using c64 = Complex<double>;
extern "C" {
#define EMBER_LAPACK_GETRF(p, T) void p##getrf_(const int* m, const int* n, T* a, const int* lda, int* ipiv, int* info);
#define EMBER_LAPACK_GETRS(p, T)                                                                                      \
  void p##getrs_(const char* trans, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv, T* b, \
                 const int* ldb, int* info, size_t);
#define EMBER_LAPACK_POTRF(p, T) \
  void p##potrf_(const char* uplo, const int* n, T* a, const int* lda, int* info, size_t);
#define EMBER_LAPACK_GEQRF(p, T) \
  void p##geqrf_(const int* m, const int* n, T* a, const int* lda, T* tau, T* work, const int* lwork, int* info);
#define EMBER_LAPACK_GELS(p, T)                                                                             \
  void p##gels_(const char* trans, const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b, \
                const int* ldb, T* work, const int* lwork, int* info, size_t);
#define EMBER_LAPACK_ALL(p, T) \
  EMBER_LAPACK_GETRF(p, T)     \
  EMBER_LAPACK_GETRS(p, T)     \
  EMBER_LAPACK_POTRF(p, T)     \
  EMBER_LAPACK_GEQRF(p, T)     \
  EMBER_LAPACK_GELS(p, T)
EMBER_LAPACK_ALL(s, float)
EMBER_LAPACK_ALL(d, double)
EMBER_LAPACK_ALL(c, c32)
EMBER_LAPACK_ALL(z, c64)
#undef EMBER_LAPACK_ALL
#undef EMBER_LAPACK_GELS
#undef EMBER_LAPACK_GEQRF
#undef EMBER_LAPACK_POTRF
#undef EMBER_LAPACK_GETRS
#undef EMBER_LAPACK_GETRF

void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info, size_t);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info, size_t);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
             const int* ldb, int* info, size_t);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t);
// LDL^T of complex symmetric (sytrf) and Hermitian (hetrf) matrices.
#define EMBER_LAPACK_LDL(name, T)                                                                                     \
  void name##trf_(const char* uplo, const int* n, T* a, const int* lda, int* ipiv, T* work, const int* lwork,         \
                  int* info, size_t);                                                                                 \
  void name##trs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv, T* b, \
                  const int* ldb, int* info, size_t);
EMBER_LAPACK_LDL(csy, c32)
EMBER_LAPACK_LDL(zsy, c64)
EMBER_LAPACK_LDL(che, c32)
EMBER_LAPACK_LDL(zhe, c64)
#undef EMBER_LAPACK_LDL
// Q from geqrf's reflectors: orgqr (real), ungqr (complex); applying Q: ormqr, unmqr.
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void cungqr_(const int* m, const int* n, const int* k, c32* a, const int* lda, const c32* tau, c32* work,
             const int* lwork, int* info);
void zungqr_(const int* m, const int* n, const int* k, c64* a, const int* lda, const c64* tau, c64* work,
             const int* lwork, int* info);
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const float* a,
             const int* lda, const float* tau, float* c, const int* ldc, float* work, const int* lwork, int* info,
             size_t, size_t);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
             const int* lda, const double* tau, double* c, const int* ldc, double* work, const int* lwork, int* info,
             size_t, size_t);
void cunmqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const c32* a,
             const int* lda, const c32* tau, c32* c, const int* ldc, c32* work, const int* lwork, int* info, size_t,
             size_t);
void zunmqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const c64* a,
             const int* lda, const c64* tau, c64* c, const int* ldc, c64* work, const int* lwork, int* info, size_t,
             size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t);
void cgesdd_(const char* jobz, const int* m, const int* n, c32* a, const int* lda, float* s, c32* u, const int* ldu,
             c32* vt, const int* ldvt, c32* work, const int* lwork, float* rwork, int* iwork, int* info, size_t);
void zgesdd_(const char* jobz, const int* m, const int* n, c64* a, const int* lda, double* s, c64* u, const int* ldu,
             c64* vt, const int* ldvt, c64* work, const int* lwork, double* rwork, int* iwork, int* info, size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void cheevd_(const char* jobz, const char* uplo, const int* n, c32* a, const int* lda, float* w, c32* work,
             const int* lwork, float* rwork, const int* lrwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void zheevd_(const char* jobz, const char* uplo, const int* n, c64* a, const int* lda, double* w, c64* work,
             const int* lwork, double* rwork, const int* lrwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr, float* wi,
            float* vl, const int* ldvl, float* vr, const int* ldvr, float* work, const int* lwork, int* info, size_t,
            size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info, size_t,
            size_t);
void cgeev_(const char* jobvl, const char* jobvr, const int* n, c32* a, const int* lda, c32* w, c32* vl,
            const int* ldvl, c32* vr, const int* ldvr, c32* work, const int* lwork, float* rwork, int* info, size_t,
            size_t);
void zgeev_(const char* jobvl, const char* jobvr, const int* n, c64* a, const int* lda, c64* w, c64* vl,
            const int* ldvl, c64* vr, const int* ldvr, c64* work, const int* lwork, double* rwork, int* info, size_t,
            size_t);
void sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, int* jpvt,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             int* jpvt, const double* rcond, int* rank, double* work, const int* lwork, int* info);
void cgelsy_(const int* m, const int* n, const int* nrhs, c32* a, const int* lda, c32* b, const int* ldb, int* jpvt,
             const float* rcond, int* rank, c32* work, const int* lwork, float* rwork, int* info);
void zgelsy_(const int* m, const int* n, const int* nrhs, c64* a, const int* lda, c64* b, const int* ldb, int* jpvt,
             const double* rcond, int* rank, c64* work, const int* lwork, double* rwork, int* info);
void sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info);
void dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* iwork, int* info);
void cgelsd_(const int* m, const int* n, const int* nrhs, c32* a, const int* lda, c32* b, const int* ldb, float* s,
             const float* rcond, int* rank, c32* work, const int* lwork, float* rwork, int* iwork, int* info);
void zgelsd_(const int* m, const int* n, const int* nrhs, c64* a, const int* lda, c64* b, const int* ldb, double* s,
             const double* rcond, int* rank, c64* work, const int* lwork, double* rwork, int* iwork, int* info);
void sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelss_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* info);
void cgelss_(const int* m, const int* n, const int* nrhs, c32* a, const int* lda, c32* b, const int* ldb, float* s,
             const float* rcond, int* rank, c32* work, const int* lwork, float* rwork, int* info);
void zgelss_(const int* m, const int* n, const int* nrhs, c64* a, const int* lda, c64* b, const int* ldb, double* s,
             const double* rcond, int* rank, c64* work, const int* lwork, double* rwork, int* info);
}

namespace ember::cpu {
namespace {

using namespace lapack_types;  // Real<T>, kComplex<T>, pick<T>(s, d, c, z)
#define LAPACK(T, name) pick<T>(&s##name##_, &d##name##_, &c##name##_, &z##name##_)
// Routines whose real and complex forms are named differently (orgqr / ungqr) or take other arguments: one table
// per kind, the callers branch on kComplex<T>.
#define LAPACK_REAL(T, name) pick<T>(&s##name##_, &d##name##_, nullptr, nullptr)
#define LAPACK_CPLX(T, name) pick<T>(nullptr, nullptr, &c##name##_, &z##name##_)

int lapack_int(int64_t v) {
  EMBER_CHECK(v <= std::numeric_limits<int>::max(), "linalg: dimension ", v, " is too large for LAPACK");
  return static_cast<int>(v);
}

// A matrix of a batch of column-major matrices (backend/kernels/lapack.h): rows, cols and the pointer to matrix i.
template <class T>
struct Batch {
  T* data;
  int64_t rows, cols, count;
  explicit Batch(const Tensor& t)
      : data(static_cast<T*>(t.data_ptr())), rows(t.sizes()[t.dim() - 2]), cols(t.sizes()[t.dim() - 1]),
        count(rows * cols != 0 ? t.numel() / (rows * cols) : 0) {}
  T* operator[](int64_t i) const { return data + i * rows * cols; }
  int ld() const { return lapack_int(std::max<int64_t>(rows, 1)); }
};

int* info_at(const Tensor& info, int64_t i) { return static_cast<int*>(info.data_ptr()) + i; }

// f(begin, end) over the whole batch, on this thread (see the file comment): the one place to change for a LAPACK
// that takes concurrent callers well.
template <class F>
void over_batch(int64_t count, const F& f) {
  blas_threads_for_lapack();
  f(0, count);
}

// The optimal workspace size LAPACK reports for a query call (lwork = -1), in the real part for complex routines.
template <class T>
int query_size(T w) {
  if constexpr (kComplex<T>)
    return std::max(1, static_cast<int>(w.re));
  else
    return std::max(1, static_cast<int>(w));
}

template <class T>
void lu_factor_impl(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  Batch<T> A(a);
  const int m = lapack_int(A.rows), n = lapack_int(A.cols), lda = A.ld(), k = std::min(m, n);
  int* piv = static_cast<int*>(pivots.data_ptr());
  over_batch(A.count, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) LAPACK(T, getrf)(&m, &n, A[i], &lda, piv + i * k, info_at(info, i));
  });
}

template <class T>
void lu_solve_impl(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  Batch<T> A(lu), B(b);
  const int n = lapack_int(A.rows), nrhs = lapack_int(B.cols), lda = A.ld(), ldb = B.ld();
  const char trans = transpose ? 'T' : 'N';
  const int* piv = static_cast<const int*>(pivots.data_ptr());
  over_batch(B.count, [&](int64_t s, int64_t e) {
    int info = 0;
    for (int64_t i = s; i < e; ++i) LAPACK(T, getrs)(&trans, &n, &nrhs, A[i], &lda, piv + i * n, B[i], &ldb, &info, 1);
  });
}

// Bunch-Kaufman LDL^T of the lower triangle; one workspace (the query for the first matrix) serves the batch.
template <class T>
void ldl_factor_impl(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  Batch<T> A(a);
  if (A.count == 0) return;
  const int n = lapack_int(A.rows), lda = A.ld(), query = -1;
  const char uplo = 'L';
  int* piv = static_cast<int*>(pivots.data_ptr());
  T size = 0;
  int qinfo = 0;
  LAPACK_REAL(T, sytrf)(&uplo, &n, A[0], &lda, piv, &size, &query, &qinfo, 1);
  const int lwork = query_size(size);
  std::vector<T> work(lwork);
  over_batch(A.count, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      LAPACK_REAL(T, sytrf)(&uplo, &n, A[i], &lda, piv + i * n, work.data(), &lwork, info_at(info, i), 1);
  });
}

template <class T>
void ldl_solve_impl(const Tensor& ld, const Tensor& pivots, const Tensor& b) {
  Batch<T> A(ld), B(b);
  const int n = lapack_int(A.rows), nrhs = lapack_int(B.cols), lda = A.ld(), ldb = B.ld();
  const char uplo = 'L';
  const int* piv = static_cast<const int*>(pivots.data_ptr());
  over_batch(B.count, [&](int64_t s, int64_t e) {
    int info = 0;
    for (int64_t i = s; i < e; ++i)
      LAPACK_REAL(T, sytrs)(&uplo, &n, &nrhs, A[i], &lda, piv + i * n, B[i], &ldb, &info, 1);
  });
}

// Complex symmetric (sytrf/sytrs) or Hermitian (hetrf/hetrs) LDL^T of the lower triangle.
template <class T>
void ldl_factor_complex_impl(const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian) {
  Batch<T> A(a);
  if (A.count == 0) return;
  const auto trf = hermitian ? LAPACK_CPLX(T, hetrf) : LAPACK_CPLX(T, sytrf);
  const int n = lapack_int(A.rows), lda = A.ld(), query = -1;
  const char uplo = 'L';
  int* piv = static_cast<int*>(pivots.data_ptr());
  T size = 0;
  int qinfo = 0;
  trf(&uplo, &n, A[0], &lda, piv, &size, &query, &qinfo, 1);
  const int lwork = query_size(size);
  std::vector<T> work(lwork);
  over_batch(A.count, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) trf(&uplo, &n, A[i], &lda, piv + i * n, work.data(), &lwork, info_at(info, i), 1);
  });
}

template <class T>
void ldl_solve_complex_impl(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) {
  Batch<T> A(ld), B(b);
  const auto trs = hermitian ? LAPACK_CPLX(T, hetrs) : LAPACK_CPLX(T, sytrs);
  const int n = lapack_int(A.rows), nrhs = lapack_int(B.cols), lda = A.ld(), ldb = B.ld();
  const char uplo = 'L';
  const int* piv = static_cast<const int*>(pivots.data_ptr());
  over_batch(B.count, [&](int64_t s, int64_t e) {
    int info = 0;
    for (int64_t i = s; i < e; ++i) trs(&uplo, &n, &nrhs, A[i], &lda, piv + i * n, B[i], &ldb, &info, 1);
  });
}

template <class T>
void cholesky_impl(const Tensor& a, bool upper, const Tensor& info) {
  Batch<T> A(a);
  const int n = lapack_int(A.rows), lda = A.ld();
  const char uplo = upper ? 'U' : 'L';
  over_batch(A.count, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      LAPACK(T, potrf)(&uplo, &n, A[i], &lda, info_at(info, i), 1);
      T* p = A[i];  // potrf leaves the other triangle as it was
      for (int64_t c = 0; c < n; ++c)
        for (int64_t r = 0; r < n; ++r)
          if (upper ? r > c : r < c) p[c * n + r] = T(0);
    }
  });
}

template <class T>
void triangular_solve_impl(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  Batch<T> A(a), B(b);
  const int m = lapack_int(B.rows), n = lapack_int(B.cols), lda = A.ld(), ldb = B.ld();
  const auto side = left ? CblasLeft : CblasRight;
  const auto uplo = upper ? CblasUpper : CblasLower;
  const auto diag = unitriangular ? CblasUnit : CblasNonUnit;
  const T one(1);
  over_batch(B.count, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) {
      if constexpr (std::is_same_v<T, float>)
        cblas_strsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0f, A[i], lda, B[i], ldb);
      else if constexpr (std::is_same_v<T, double>)
        cblas_dtrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0, A[i], lda, B[i], ldb);
      else if constexpr (std::is_same_v<T, c32>)
        cblas_ctrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, &one, A[i], lda, B[i], ldb);
      else
        cblas_ztrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, &one, A[i], lda, B[i], ldb);
    }
  });
}

// Q from geqrf's reflectors: orgqr for real T, ungqr for complex T.
template <class T>
void orgqr(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau, T* work, const int* lwork,
           int* info) {
  if constexpr (kComplex<T>)
    LAPACK_CPLX(T, ungqr)(m, n, k, a, lda, tau, work, lwork, info);
  else
    LAPACK_REAL(T, orgqr)(m, n, k, a, lda, tau, work, lwork, info);
}

template <class T>
void qr_impl(const Tensor& a, const Tensor& q, const Tensor& r) {
  Batch<T> A(a), R(r);
  const int m = lapack_int(A.rows), n = lapack_int(A.cols), lda = A.ld(), k = std::min(m, n);
  const int qc = q.defined() ? lapack_int(q.sizes()[q.dim() - 1]) : 0;
  T* q0 = q.defined() ? static_cast<T*>(q.data_ptr()) : nullptr;
  int lwork = 1, info = 0;
  {  // workspace for the larger of the two routines
    T w1 = 0, w2 = 0;
    const int query = -1;
    std::vector<T> tau(std::max(k, 1));
    LAPACK(T, geqrf)(&m, &n, nullptr, &lda, tau.data(), &w1, &query, &info);
    if (q.defined() && qc > 0) orgqr<T>(&m, &qc, &k, nullptr, &lda, tau.data(), &w2, &query, &info);
    lwork = std::max(query_size(w1), query_size(w2));
  }
  over_batch(A.count, [&](int64_t s, int64_t e) {
    std::vector<T> work(lwork), tau(std::max(k, 1));
    int inf = 0;
    for (int64_t i = s; i < e; ++i) {
      T* p = A[i];
      LAPACK(T, geqrf)(&m, &n, p, &lda, tau.data(), work.data(), &lwork, &inf);
      T* pr = R[i];  // R: the upper triangle of the first R.rows rows
      for (int64_t c = 0; c < n; ++c)
        for (int64_t row = 0; row < R.rows; ++row) pr[c * R.rows + row] = row <= c && row < m ? p[c * m + row] : T(0);
      if (!q0 || qc == 0) continue;
      T* pq = q0 + i * m * qc;  // the reflectors, then the first qc columns of Q
      std::memcpy(pq, p, sizeof(T) * m * std::min(n, qc));
      orgqr<T>(&m, &qc, &k, pq, &lda, tau.data(), work.data(), &lwork, &inf);
    }
  });
}

template <class T>
void geqrf_impl(const Tensor& a, const Tensor& tau) {
  Batch<T> A(a);
  const int m = lapack_int(A.rows), n = lapack_int(A.cols), lda = A.ld(), k = std::min(m, n);
  if (A.count == 0 || k == 0) return;
  T* t0 = static_cast<T*>(tau.data_ptr());
  int lwork = 1, info = 0;
  {
    T w = 0;
    const int query = -1;
    LAPACK(T, geqrf)(&m, &n, nullptr, &lda, t0, &w, &query, &info);
    lwork = query_size(w);
  }
  over_batch(A.count, [&](int64_t s, int64_t e) {
    std::vector<T> work(lwork);
    int inf = 0;
    for (int64_t i = s; i < e; ++i) LAPACK(T, geqrf)(&m, &n, A[i], &lda, t0 + i * k, work.data(), &lwork, &inf);
  });
}

template <class T>
void ormqr_impl(const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
  Batch<T> A(a), C(c);
  const int m = lapack_int(C.rows), n = lapack_int(C.cols), k = lapack_int(A.cols), lda = A.ld(), ldc = C.ld();
  if (C.count == 0 || k == 0) return;
  const char side = left ? 'L' : 'R', trans = !transpose ? 'N' : kComplex<T> ? 'C' : 'T';
  const T* t0 = static_cast<const T*>(tau.data_ptr());
  auto call = [&](const T* pa, const T* pt, T* pc, T* work, const int* lwork, int* inf) {
    if constexpr (kComplex<T>)
      LAPACK_CPLX(T, unmqr)(&side, &trans, &m, &n, &k, pa, &lda, pt, pc, &ldc, work, lwork, inf, 1, 1);
    else
      LAPACK_REAL(T, ormqr)(&side, &trans, &m, &n, &k, pa, &lda, pt, pc, &ldc, work, lwork, inf, 1, 1);
  };
  int lwork = 1;
  {
    T w = 0;
    int inf = 0;
    const int query = -1;
    call(A[0], t0, C[0], &w, &query, &inf);
    lwork = query_size(w);
  }
  over_batch(C.count, [&](int64_t s, int64_t e) {
    std::vector<T> work(lwork);
    int inf = 0;
    for (int64_t i = s; i < e; ++i) call(A[i], t0 + i * k, C[i], work.data(), &lwork, &inf);
  });
}

template <class T>
void svd_impl(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  using R = Real<T>;
  Batch<T> A(a);
  const int m = lapack_int(A.rows), n = lapack_int(A.cols), lda = A.ld(), k = std::min(m, n);
  const bool vectors = u.defined();
  const bool full = vectors && u.sizes()[u.dim() - 1] == m && m != k;
  const bool full_v = vectors && vh.sizes()[vh.dim() - 2] == n && n != k;
  const char jobz = !vectors ? 'N' : (full || full_v) ? 'A' : 'S';
  const int ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
  const int ldu = std::max(m, 1), ldvt = std::max(vrows, 1);
  R* s0 = static_cast<R*>(s.data_ptr());
  T* u0 = vectors ? static_cast<T*>(u.data_ptr()) : nullptr;
  T* v0 = vectors ? static_cast<T*>(vh.data_ptr()) : nullptr;
  // Complex gesdd's real workspace (LAPACK 3.7's bounds).
  const int64_t mn = std::max(k, 1), mx = std::max({m, n, 1});
  const int64_t lrwork = !kComplex<T>  ? 1
                         : jobz == 'N' ? 7 * mn
                                       : std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
  auto gesdd = [&](T* pa, R* ps, T* pu, T* pv, T* work, int lwork, R* rwork, int* iwork, int* inf) {
    if constexpr (kComplex<T>)
      LAPACK_CPLX(T, gesdd)(&jobz, &m, &n, pa, &lda, ps, pu, &ldu, pv, &ldvt, work, &lwork, rwork, iwork, inf, 1);
    else
      LAPACK_REAL(T, gesdd)(&jobz, &m, &n, pa, &lda, ps, pu, &ldu, pv, &ldvt, work, &lwork, iwork, inf, 1);
  };
  int lwork = 1;
  {
    T w = 0, dummy = 0;
    R rdummy = 0;
    int inf = 0;
    std::vector<int> iwork(8 * mn);
    gesdd(nullptr, &rdummy, &dummy, &dummy, &w, -1, &rdummy, iwork.data(), &inf);
    lwork = query_size(w);
  }
  over_batch(A.count, [&](int64_t b, int64_t e) {
    std::vector<T> work(lwork);
    std::vector<R> rwork(lrwork);
    std::vector<int> iwork(8 * mn);
    T dummy = 0;
    for (int64_t i = b; i < e; ++i)
      gesdd(A[i], s0 + i * k, vectors ? u0 + i * m * ucols : &dummy, vectors ? v0 + i * vrows * n : &dummy, work.data(),
            lwork, rwork.data(), iwork.data(), info_at(info, i));
  });
}

template <class T>
void eigh_impl(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  using R = Real<T>;
  Batch<T> A(a);
  const int n = lapack_int(A.rows), lda = A.ld();
  const char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  R* w0 = static_cast<R*>(w.data_ptr());
  auto evd = [&](T* pa, R* pw, T* work, int lwork, R* rwork, int lrwork, int* iwork, int liwork, int* inf) {
    if constexpr (kComplex<T>)
      LAPACK_CPLX(T, heevd)(&jobz, &uplo, &n, pa, &lda, pw, work, &lwork, rwork, &lrwork, iwork, &liwork, inf, 1, 1);
    else
      LAPACK_REAL(T, syevd)(&jobz, &uplo, &n, pa, &lda, pw, work, &lwork, iwork, &liwork, inf, 1, 1);
  };
  int lwork = 1, lrwork = 1, liwork = 1;
  {
    T wq = 0;
    R rq = 0;
    int iwq = 0, inf = 0;
    evd(nullptr, nullptr, &wq, -1, &rq, -1, &iwq, -1, &inf);
    lwork = query_size(wq);
    lrwork = std::max(1, static_cast<int>(rq));
    liwork = std::max(1, iwq);
  }
  over_batch(A.count, [&](int64_t b, int64_t e) {
    std::vector<T> work(lwork);
    std::vector<R> rwork(lrwork);
    std::vector<int> iwork(liwork);
    for (int64_t i = b; i < e; ++i)
      evd(A[i], w0 + i * n, work.data(), lwork, rwork.data(), lrwork, iwork.data(), liwork, info_at(info, i));
  });
}

// Eigenvectors of a real matrix as complex columns: geev stores a conjugate pair (w_j, w_j+1 = conj(w_j), Im w_j > 0)
// as the two real columns Re v_j, Im v_j.
template <class R>
void real_eigvecs_to_complex(int n, const R* wi, const R* vr, Complex<R>* v) {
  for (int j = 0; j < n; ++j) {
    const R* col = vr + static_cast<int64_t>(j) * n;
    Complex<R>* out = v + static_cast<int64_t>(j) * n;
    if (wi[j] == 0) {
      for (int r = 0; r < n; ++r) out[r] = Complex<R>(col[r], 0);
    } else if (j + 1 < n) {
      const R* next = col + n;
      Complex<R>* out2 = out + n;
      for (int r = 0; r < n; ++r) {
        out[r] = Complex<R>(col[r], next[r]);
        out2[r] = Complex<R>(col[r], -next[r]);
      }
      ++j;
    }
  }
}

template <class T>
void eig_impl(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) {
  using R = Real<T>;
  using C = Complex<R>;
  Batch<T> A(a);
  const int n = lapack_int(A.rows), lda = A.ld(), ldv = std::max(n, 1), one = 1;
  const bool vectors = v.defined();
  const char jobvl = 'N', jobvr = vectors ? 'V' : 'N';
  C* w0 = static_cast<C*>(w.data_ptr());
  C* v0 = vectors ? static_cast<C*>(v.data_ptr()) : nullptr;
  const int64_t nn = static_cast<int64_t>(n) * n;
  auto geev = [&](T* pa, C* pw, R* wr, R* wi, T* pv, T* work, int lwork, R* rwork, int* inf) {
    T dummy = 0;
    if constexpr (kComplex<T>)
      LAPACK_CPLX(T, geev)(&jobvl, &jobvr, &n, pa, &lda, pw, &dummy, &one, pv, &ldv, work, &lwork, rwork, inf, 1, 1);
    else
      LAPACK_REAL(T, geev)(&jobvl, &jobvr, &n, pa, &lda, wr, wi, &dummy, &one, pv, &ldv, work, &lwork, inf, 1, 1);
  };
  int lwork = 1;
  {
    T wq = 0, dv = 0;
    R r = 0;
    C c = 0;
    int inf = 0;
    geev(nullptr, &c, &r, &r, &dv, &wq, -1, &r, &inf);
    lwork = query_size(wq);
  }
  over_batch(A.count, [&](int64_t b, int64_t e) {
    std::vector<T> work(lwork);
    std::vector<R> rwork(kComplex<T> ? 2 * std::max(n, 1) : 1), wr(std::max(n, 1)), wi(std::max(n, 1));
    std::vector<T> vr(!kComplex<T> && vectors ? nn : 1);  // the real routine's eigenvectors, before pairing
    for (int64_t i = b; i < e; ++i) {
      C* pw = w0 + i * n;
      C* pv = vectors ? v0 + i * nn : nullptr;
      if constexpr (kComplex<T>) {
        T dummy = 0;
        geev(A[i], pw, nullptr, nullptr, pv ? pv : &dummy, work.data(), lwork, rwork.data(), info_at(info, i));
      } else {
        geev(A[i], nullptr, wr.data(), wi.data(), vr.data(), work.data(), lwork, nullptr, info_at(info, i));
        for (int j = 0; j < n; ++j) pw[j] = C(wr[j], wi[j]);
        if (pv) real_eigvecs_to_complex(n, wi.data(), vr.data(), pv);
      }
    }
  });
}

template <class T>
void lstsq_impl(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond_d,
                std::string_view driver, const Tensor& info) {
  using R = Real<T>;
  Batch<T> A(a), B(b);
  const int m = lapack_int(A.rows), n = lapack_int(A.cols), lda = A.ld(), nrhs = lapack_int(B.cols), ldb = B.ld();
  const int k = std::min(m, n);
  const R rcond = static_cast<R>(rcond_d);
  const char trans = 'N';
  int64_t* rank0 = rank.defined() ? static_cast<int64_t*>(rank.data_ptr()) : nullptr;
  R* sv0 = sv.defined() ? static_cast<R*>(sv.data_ptr()) : nullptr;
  const int64_t count = A.count;
  auto call = [&](T* pa, T* pb, R* ps, int* jpvt, int* rk, T* work, int lwork, R* rwork, int* iwork, int* inf) {
    if (driver == "gels") {
      LAPACK(T, gels)(&trans, &m, &n, &nrhs, pa, &lda, pb, &ldb, work, &lwork, inf, 1);
    } else if constexpr (kComplex<T>) {
      if (driver == "gelsy")
        LAPACK_CPLX(T, gelsy)(&m, &n, &nrhs, pa, &lda, pb, &ldb, jpvt, &rcond, rk, work, &lwork, rwork, inf);
      else if (driver == "gelsd")
        LAPACK_CPLX(T, gelsd)(&m, &n, &nrhs, pa, &lda, pb, &ldb, ps, &rcond, rk, work, &lwork, rwork, iwork, inf);
      else
        LAPACK_CPLX(T, gelss)(&m, &n, &nrhs, pa, &lda, pb, &ldb, ps, &rcond, rk, work, &lwork, rwork, inf);
    } else {
      (void)rwork;
      if (driver == "gelsy")
        LAPACK_REAL(T, gelsy)(&m, &n, &nrhs, pa, &lda, pb, &ldb, jpvt, &rcond, rk, work, &lwork, inf);
      else if (driver == "gelsd")
        LAPACK_REAL(T, gelsd)(&m, &n, &nrhs, pa, &lda, pb, &ldb, ps, &rcond, rk, work, &lwork, iwork, inf);
      else
        LAPACK_REAL(T, gelss)(&m, &n, &nrhs, pa, &lda, pb, &ldb, ps, &rcond, rk, work, &lwork, inf);
    }
  };
  int lwork = 1, liwork = 1, lrwork = 1;
  {
    T wq = 0;
    R sq = 0, rq = 0;
    int iwq = 1, rk = 0, inf = 0, jp = 0;
    call(nullptr, nullptr, &sq, &jp, &rk, &wq, -1, &rq, &iwq, &inf);
    lwork = query_size(wq);
    liwork = std::max(1, iwq);
    // The complex drivers' real workspace: gelsy 2n, gelss 5 min(m, n), gelsd what the query reported.
    if (kComplex<T>)
      lrwork = driver == "gelsy"   ? 2 * std::max(n, 1)
               : driver == "gelss" ? 5 * std::max(k, 1)
               : driver == "gelsd" ? std::max(1, static_cast<int>(rq))
                                   : 1;
  }
  over_batch(count, [&](int64_t s, int64_t e) {
    std::vector<T> work(lwork);
    std::vector<R> svals(std::max(k, 1)), rwork(lrwork);
    std::vector<int> iwork(liwork), jpvt(std::max(n, 1));
    for (int64_t i = s; i < e; ++i) {
      std::fill(jpvt.begin(), jpvt.end(), 0);  // all columns free to pivot
      int rk = 0;
      call(A[i], B[i], sv0 ? sv0 + i * k : svals.data(), jpvt.data(), &rk, work.data(), lwork, rwork.data(),
           iwork.data(), info_at(info, i));
      if (rank0) rank0[i] = rk;
    }
  });
}

// f(T{}) for float32, float64, complex64 and complex128 (the ops check dtypes first).
template <class F>
void on_lapack(const Tensor& t, F&& f) {
  on_lapack_type(t.dtype(), f, [&] {
    fail<NotImplementedError>("linalg: LAPACK kernels are not implemented for ", type_label(t.dtype()), " tensors");
  });
}

// The LDL^T kernels: float32 and float64 (sytrf/sytrs).
template <class F>
void on_float(const Tensor& t, F&& f) {
  if (t.dtype() == ScalarType::Float32) return f(float{});
  if (t.dtype() == ScalarType::Float64) return f(double{});
  fail<NotImplementedError>("linalg: LAPACK kernels are not implemented for ", type_label(t.dtype()), " tensors");
}

void lu_factor(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_lapack(a, [&](auto t) { lu_factor_impl<decltype(t)>(a, pivots, info); });
}
void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  on_lapack(lu, [&](auto t) { lu_solve_impl<decltype(t)>(lu, pivots, b, transpose); });
}
void ldl_factor(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_float(a, [&](auto t) { ldl_factor_impl<decltype(t)>(a, pivots, info); });
}
void ldl_solve(const Tensor& ld, const Tensor& pivots, const Tensor& b) {
  on_float(ld, [&](auto t) { ldl_solve_impl<decltype(t)>(ld, pivots, b); });
}
// The complex LDL^T kernels: complex64 and complex128.
template <class F>
void on_complex(const Tensor& t, F&& f) {
  if (t.dtype() == ScalarType::ComplexFloat) return f(c32{});
  if (t.dtype() == ScalarType::ComplexDouble) return f(c64{});
  fail<NotImplementedError>("linalg: LAPACK kernels are not implemented for ", type_label(t.dtype()), " tensors");
}
void ldl_factor_complex(const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian) {
  on_complex(a, [&](auto t) { ldl_factor_complex_impl<decltype(t)>(a, pivots, info, hermitian); });
}
void ldl_solve_complex(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) {
  on_complex(ld, [&](auto t) { ldl_solve_complex_impl<decltype(t)>(ld, pivots, b, hermitian); });
}
void cholesky(const Tensor& a, bool upper, const Tensor& info) {
  on_lapack(a, [&](auto t) { cholesky_impl<decltype(t)>(a, upper, info); });
}
void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  on_lapack(a, [&](auto t) { triangular_solve_impl<decltype(t)>(a, b, upper, left, unitriangular); });
}
void qr(const Tensor& a, const Tensor& q, const Tensor& r) {
  on_lapack(a, [&](auto t) { qr_impl<decltype(t)>(a, q, r); });
}
void geqrf(const Tensor& a, const Tensor& tau) {
  on_lapack(a, [&](auto t) { geqrf_impl<decltype(t)>(a, tau); });
}
void ormqr(const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
  on_lapack(a, [&](auto t) { ormqr_impl<decltype(t)>(a, tau, c, left, transpose); });
}
void svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  on_lapack(a, [&](auto t) { svd_impl<decltype(t)>(a, u, s, vh, info); });
}
void eigh(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  on_lapack(a, [&](auto t) { eigh_impl<decltype(t)>(a, w, upper, compute_v, info); });
}
void eig(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) {
  on_lapack(a, [&](auto t) { eig_impl<decltype(t)>(a, w, v, info); });
}
void lstsq(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond,
           std::string_view driver, const Tensor& info) {
  on_lapack(a, [&](auto t) { lstsq_impl<decltype(t)>(a, b, rank, sv, rcond, driver, info); });
}

}  // namespace

EMBER_REGISTER_KERNEL(lu_factor, CPU, lu_factor)
EMBER_REGISTER_KERNEL(lu_solve, CPU, lu_solve)
EMBER_REGISTER_KERNEL(cholesky, CPU, cholesky)
EMBER_REGISTER_KERNEL(ldl_factor, CPU, ldl_factor)
EMBER_REGISTER_KERNEL(ldl_solve, CPU, ldl_solve)
EMBER_REGISTER_KERNEL(ldl_factor_complex, CPU, ldl_factor_complex)
EMBER_REGISTER_KERNEL(ldl_solve_complex, CPU, ldl_solve_complex)
EMBER_REGISTER_KERNEL(triangular_solve, CPU, triangular_solve)
EMBER_REGISTER_KERNEL(qr, CPU, qr)
EMBER_REGISTER_KERNEL(geqrf, CPU, geqrf)
EMBER_REGISTER_KERNEL(ormqr, CPU, ormqr)
EMBER_REGISTER_KERNEL(svd, CPU, svd)
EMBER_REGISTER_KERNEL(eigh, CPU, eigh)
EMBER_REGISTER_KERNEL(eig, CPU, eig)
EMBER_REGISTER_KERNEL(lstsq, CPU, lstsq)

}  // namespace ember::cpu
