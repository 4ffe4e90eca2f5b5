// The LAPACK kernels of ember.linalg on the CPU: the routines OpenBLAS exports, called once per matrix of a batch of
// column-major matrices (backend/kernels/lapack.h), one after another with OpenBLAS threading inside (concurrent
// threaded calls contend on OpenBLAS's level-3 lock).
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/backend/blas.h"
#include "ember/backend/kernels/lapack.h"

// LAPACK's Fortran interface (OpenBLAS has no LAPACKE header here). The trailing size_t arguments are the hidden
// lengths of the character arguments that gfortran-compiled routines expect.
extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info, size_t);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info, size_t);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
             const int* ldb, int* info, size_t);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
            const int* ldb, float* work, const int* lwork, int* info, size_t);
void dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
            const int* ldb, double* work, const int* lwork, int* info, size_t);
void sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, int* jpvt,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             int* jpvt, const double* rcond, int* rank, double* work, const int* lwork, int* info);
void sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info);
void dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* iwork, int* info);
void sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelss_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* info);
}

namespace ember::cpu {
namespace {

// The routine of LAPACK(T, getrf) for float (sgetrf_) or double (dgetrf_).
template <class T, class S, class D>
constexpr auto pick(S s, D d) {
  if constexpr (std::is_same_v<T, float>)
    return s;
  else
    return d;
}
#define LAPACK(T, name) pick<T>(&s##name##_, &d##name##_)

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

// The optimal workspace size LAPACK reports for a query call (lwork = -1).
template <class T>
int query_size(T w) {
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
  LAPACK(T, sytrf)(&uplo, &n, A[0], &lda, piv, &size, &query, &qinfo, 1);
  const int lwork = query_size(size);
  std::vector<T> work(lwork);
  over_batch(A.count, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      LAPACK(T, sytrf)(&uplo, &n, A[i], &lda, piv + i * n, work.data(), &lwork, info_at(info, i), 1);
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
    for (int64_t i = s; i < e; ++i) LAPACK(T, sytrs)(&uplo, &n, &nrhs, A[i], &lda, piv + i * n, B[i], &ldb, &info, 1);
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
  over_batch(B.count, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) {
      if constexpr (std::is_same_v<T, float>)
        cblas_strsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0f, A[i], lda, B[i], ldb);
      else
        cblas_dtrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0, A[i], lda, B[i], ldb);
    }
  });
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
    if (q.defined() && qc > 0) LAPACK(T, orgqr)(&m, &qc, &k, nullptr, &lda, tau.data(), &w2, &query, &info);
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
      LAPACK(T, orgqr)(&m, &qc, &k, pq, &lda, tau.data(), work.data(), &lwork, &inf);
    }
  });
}

template <class T>
void svd_impl(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  Batch<T> A(a);
  const int m = lapack_int(A.rows), n = lapack_int(A.cols), lda = A.ld(), k = std::min(m, n);
  const bool vectors = u.defined();
  const bool full = vectors && u.sizes()[u.dim() - 1] == m && m != k;
  const bool full_v = vectors && vh.sizes()[vh.dim() - 2] == n && n != k;
  const char jobz = !vectors ? 'N' : (full || full_v) ? 'A' : 'S';
  const int ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
  const auto gesdd = LAPACK(T, gesdd);  // named: clang-format takes a wrapped LAPACK(T, name)(...) for two statements
  const int ldu = std::max(m, 1), ldvt = std::max(vrows, 1);
  T* s0 = static_cast<T*>(s.data_ptr());
  T* u0 = vectors ? static_cast<T*>(u.data_ptr()) : nullptr;
  T* v0 = vectors ? static_cast<T*>(vh.data_ptr()) : nullptr;
  int lwork = 1;
  {
    T w = 0, dummy = 0;
    int inf = 0;
    const int query = -1;
    std::vector<int> iwork(8 * std::max(k, 1));
    gesdd(&jobz, &m, &n, nullptr, &lda, nullptr, &dummy, &ldu, &dummy, &ldvt, &w, &query, iwork.data(), &inf, 1);
    lwork = query_size(w);
  }
  over_batch(A.count, [&](int64_t b, int64_t e) {
    std::vector<T> work(lwork);
    std::vector<int> iwork(8 * std::max(k, 1));
    T dummy = 0;
    for (int64_t i = b; i < e; ++i)
      gesdd(&jobz, &m, &n, A[i], &lda, s0 + i * k, vectors ? u0 + i * m * ucols : &dummy, &ldu,
            vectors ? v0 + i * vrows * n : &dummy, &ldvt, work.data(), &lwork, iwork.data(), info_at(info, i), 1);
  });
}

template <class T>
void eigh_impl(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  Batch<T> A(a);
  const int n = lapack_int(A.rows), lda = A.ld();
  const char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  const auto syevd = LAPACK(T, syevd);
  T* w0 = static_cast<T*>(w.data_ptr());
  int lwork = 1, liwork = 1;
  {
    T wq = 0;
    int iwq = 0, inf = 0;
    const int query = -1;
    syevd(&jobz, &uplo, &n, nullptr, &lda, nullptr, &wq, &query, &iwq, &query, &inf, 1, 1);
    lwork = query_size(wq);
    liwork = std::max(1, iwq);
  }
  over_batch(A.count, [&](int64_t b, int64_t e) {
    std::vector<T> work(lwork);
    std::vector<int> iwork(liwork);
    for (int64_t i = b; i < e; ++i)
      syevd(&jobz, &uplo, &n, A[i], &lda, w0 + i * n, work.data(), &lwork, iwork.data(), &liwork, info_at(info, i), 1,
            1);
  });
}

template <class T>
void lstsq_impl(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond_d,
                std::string_view driver, const Tensor& info) {
  Batch<T> A(a), B(b);
  const int m = lapack_int(A.rows), n = lapack_int(A.cols), lda = A.ld(), nrhs = lapack_int(B.cols), ldb = B.ld();
  const int k = std::min(m, n);
  const T rcond = static_cast<T>(rcond_d);
  const char trans = 'N';
  int64_t* rank0 = rank.defined() ? static_cast<int64_t*>(rank.data_ptr()) : nullptr;
  T* sv0 = sv.defined() ? static_cast<T*>(sv.data_ptr()) : nullptr;
  const int64_t count = A.count;
  auto call = [&](T* pa, T* pb, T* ps, int* jpvt, int* rk, T* work, int lwork, int* iwork, int* inf) {
    if (driver == "gels")
      LAPACK(T, gels)(&trans, &m, &n, &nrhs, pa, &lda, pb, &ldb, work, &lwork, inf, 1);
    else if (driver == "gelsy")
      LAPACK(T, gelsy)(&m, &n, &nrhs, pa, &lda, pb, &ldb, jpvt, &rcond, rk, work, &lwork, inf);
    else if (driver == "gelsd")
      LAPACK(T, gelsd)(&m, &n, &nrhs, pa, &lda, pb, &ldb, ps, &rcond, rk, work, &lwork, iwork, inf);
    else
      LAPACK(T, gelss)(&m, &n, &nrhs, pa, &lda, pb, &ldb, ps, &rcond, rk, work, &lwork, inf);
  };
  int lwork = 1, liwork = 1;
  {
    T wq = 0, sq = 0;
    int iwq = 1, rk = 0, inf = 0, jp = 0;
    call(nullptr, nullptr, &sq, &jp, &rk, &wq, -1, &iwq, &inf);
    lwork = query_size(wq);
    liwork = std::max(1, iwq);
  }
  over_batch(count, [&](int64_t s, int64_t e) {
    std::vector<T> work(lwork), svals(std::max(k, 1));
    std::vector<int> iwork(liwork), jpvt(std::max(n, 1));
    for (int64_t i = s; i < e; ++i) {
      std::fill(jpvt.begin(), jpvt.end(), 0);  // all columns free to pivot
      int rk = 0;
      call(A[i], B[i], sv0 ? sv0 + i * k : svals.data(), jpvt.data(), &rk, work.data(), lwork, iwork.data(),
           info_at(info, i));
      if (rank0) rank0[i] = rk;
    }
  });
}

// f(T{}) for float32 and float64 (the ops check dtypes first).
template <class F>
void on_float(const Tensor& t, F&& f) {
  if (t.dtype() == ScalarType::Float32) return f(float{});
  if (t.dtype() == ScalarType::Float64) return f(double{});
  fail<NotImplementedError>("linalg: LAPACK kernels are not implemented for ", type_label(t.dtype()), " tensors");
}

void lu_factor(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_float(a, [&](auto t) { lu_factor_impl<decltype(t)>(a, pivots, info); });
}
void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  on_float(lu, [&](auto t) { lu_solve_impl<decltype(t)>(lu, pivots, b, transpose); });
}
void ldl_factor(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_float(a, [&](auto t) { ldl_factor_impl<decltype(t)>(a, pivots, info); });
}
void ldl_solve(const Tensor& ld, const Tensor& pivots, const Tensor& b) {
  on_float(ld, [&](auto t) { ldl_solve_impl<decltype(t)>(ld, pivots, b); });
}
void cholesky(const Tensor& a, bool upper, const Tensor& info) {
  on_float(a, [&](auto t) { cholesky_impl<decltype(t)>(a, upper, info); });
}
void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  on_float(a, [&](auto t) { triangular_solve_impl<decltype(t)>(a, b, upper, left, unitriangular); });
}
void qr(const Tensor& a, const Tensor& q, const Tensor& r) {
  on_float(a, [&](auto t) { qr_impl<decltype(t)>(a, q, r); });
}
void svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  on_float(a, [&](auto t) { svd_impl<decltype(t)>(a, u, s, vh, info); });
}
void eigh(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  on_float(a, [&](auto t) { eigh_impl<decltype(t)>(a, w, upper, compute_v, info); });
}
void lstsq(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond,
           std::string_view driver, const Tensor& info) {
  on_float(a, [&](auto t) { lstsq_impl<decltype(t)>(a, b, rank, sv, rcond, driver, info); });
}

}  // namespace

EMBER_REGISTER_KERNEL(lu_factor, CPU, lu_factor)
EMBER_REGISTER_KERNEL(lu_solve, CPU, lu_solve)
EMBER_REGISTER_KERNEL(cholesky, CPU, cholesky)
EMBER_REGISTER_KERNEL(ldl_factor, CPU, ldl_factor)
EMBER_REGISTER_KERNEL(ldl_solve, CPU, ldl_solve)
EMBER_REGISTER_KERNEL(triangular_solve, CPU, triangular_solve)
EMBER_REGISTER_KERNEL(qr, CPU, qr)
EMBER_REGISTER_KERNEL(svd, CPU, svd)
EMBER_REGISTER_KERNEL(eigh, CPU, eigh)
EMBER_REGISTER_KERNEL(lstsq, CPU, lstsq)

}  // namespace ember::cpu
