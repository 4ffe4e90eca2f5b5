// The LAPACK kernels of ember.linalg on CUDA: cuSOLVER's dense routines (and cuBLAS's trsm), called once per matrix of
// a batch of column-major matrices (backend/kernels/lapack.h) on the current stream; float32 and float64. cuSOLVER's
// batched routines are limited (getrf/potrf batched take pointer arrays, gesvdj batched stops at 32 x 32), so every
// routine loops over the batch here; batched variants are the place to speed up many small matrices.
//
// The ops may hand over `info`, `pivots` and `rank` in host memory (ops/lapack.cpp makes them on the CPU): those go
// through a device buffer and are copied back (which waits for the stream), so a host tensor and a device tensor both
// work.
//
// lstsq: the "gels" driver (QR) for m >= n, as PyTorch on CUDA; gelsy, gelsd and gelss raise NotImplementedError.
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/backend/cuda/blas_glue.h"
#include "ember/backend/cuda/cublas.h"
#include "ember/backend/kernels/lapack.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember::cuda {
namespace {

const char* cusolver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "CUSOLVER_STATUS_UNKNOWN";
  }
}

#define EMBER_CUSOLVER_CHECK(expr, ...)                                                                             \
  do {                                                                                                              \
    const cusolverStatus_t st_ = (expr);                                                                            \
    if (st_ != CUSOLVER_STATUS_SUCCESS) [[unlikely]]                                                                \
      ::ember::fail<::ember::Error>(__VA_ARGS__, ": cuSOLVER error ", cusolver_status_name(st_), " (", #expr, ")"); \
  } while (0)

struct SolverTag {};

// The calling thread's cuSOLVER handle for `device` (Note [Library handles] in cublas.h), on its current stream.
cusolverDnHandle_t solver_handle(int device) {
  cusolverDnHandle_t h = thread_handle<SolverTag, cusolverDnHandle_t>(device, [device] {
    cusolverDnHandle_t made = nullptr;
    EMBER_CUSOLVER_CHECK(cusolverDnCreate(&made), "cuSOLVER: creating a handle for cuda:", device);
    return made;
  });
  EMBER_CUSOLVER_CHECK(cusolverDnSetStream(h, stream_of(device)),
                       "cuSOLVER: binding the current stream of cuda:", device);
  return h;
}

// cuSOLVER's routine `name` for float (cusolverDnS...) or double (cusolverDnD...).
#define SOLVER(T, name)                     \
  [] {                                      \
    if constexpr (std::is_same_v<T, float>) \
      return &cusolverDnS##name;            \
    else                                    \
      return &cusolverDnD##name;            \
  }()

int solver_int(int64_t v, const char* op) {
  EMBER_CHECK(v <= INT_MAX, op, ": dimension ", v, " is too large for cuSOLVER (at most ", INT_MAX, ")");
  return static_cast<int>(v);
}

// A batch of column-major matrices: sizes, and the pointer to matrix i.
template <class T>
struct Batch {
  T* data;
  int64_t rows, cols, count;
  T* operator[](int64_t i) const { return data + i * rows * cols; }
  int ld(const char* op) const { return solver_int(std::max<int64_t>(rows, 1), op); }
};
template <class T>
Batch<T> batch_of(const Tensor& t) {
  const int64_t r = t.sizes()[t.dim() - 2], c = t.sizes()[t.dim() - 1];
  return {static_cast<T*>(t.data_ptr()), r, c, r * c != 0 ? t.numel() / (r * c) : 0};
}

// The int32 data of `t` (info, pivots) in device memory: t's own when it is a CUDA tensor, else a buffer that
// load() fills from t and store() copies back to t (waiting for the stream).
class DeviceInts {
 public:
  DeviceInts(const Tensor& t, int dev, int64_t count) : t_(t), dev_(dev), bytes_(sizeof(int) * count) {
    EMBER_CHECK(t.dtype() == ScalarType::Int32 && t.numel() >= count, "linalg: internal error: expected ", count,
                " int32 entries, got ", t.numel(), " of ", t.dtype());
    if (t.is_cuda())
      ptr_ = static_cast<int*>(t.data_ptr());
    else {
      buf_ = Workspace(dev, std::max<size_t>(bytes_, sizeof(int)));
      ptr_ = static_cast<int*>(buf_.get());
    }
  }
  int* get() const { return ptr_; }
  void load() const {
    if (!t_.is_cuda() && bytes_) cuda::memcpy(ptr_, t_.data_ptr(), bytes_, CopyKind::HostToDevice, dev_);
  }
  void store() const {
    if (!t_.is_cuda() && bytes_) cuda::memcpy(t_.data_ptr(), ptr_, bytes_, CopyKind::DeviceToHost, dev_);
  }

 private:
  Tensor t_;
  int dev_;
  size_t bytes_;
  Workspace buf_;
  int* ptr_ = nullptr;
};

// f(T{}) for float32 and float64 (the ops check dtypes first).
template <class F>
void on_float(const Tensor& t, const char* op, F&& f) {
  if (t.dtype() == ScalarType::Float32) return f(float{});
  if (t.dtype() == ScalarType::Float64) return f(double{});
  fail<NotImplementedError>(op, ": the CUDA kernel supports float32 and float64, not ", t.dtype());
}

std::string shape_of(const char* op, const Tensor& a) {
  return detail::cat(op, " of ", dims_str(a.sizes()), " ", a.dtype(), " on ", a.device());
}

struct Ctx {
  int dev;
  DeviceGuard guard;
  explicit Ctx(const Tensor& t) : dev(device_index(t.device())), guard(dev) {}
};

template <class T>
void lu_factor_impl(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  const char* op = "lu_factor";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int m = solver_int(A.rows, op), n = solver_int(A.cols, op), lda = A.ld(op), k = std::min(m, n);
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER(T, getrf_bufferSize)(h, m, n, A[0], lda, &lwork), shape_of(op, a));
  Workspace work(c.dev, sizeof(T) * std::max(lwork, 1));
  DeviceInts piv(pivots, c.dev, A.count * k), inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(
        SOLVER(T, getrf)(h, m, n, A[i], lda, static_cast<T*>(work.get()), piv.get() + i * k, inf.get() + i),
        shape_of(op, a));
  piv.store();
  inf.store();
}

template <class T>
void lu_solve_impl(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  const char* op = "lu_solve";
  Ctx c(b);
  const Batch<T> A = batch_of<T>(lu), B = batch_of<T>(b);
  if (B.count == 0) return;
  const int n = solver_int(A.rows, op), nrhs = solver_int(B.cols, op), lda = A.ld(op), ldb = B.ld(op);
  cusolverDnHandle_t h = solver_handle(c.dev);
  const Tensor getrs_info = empty({{B.count}}, TensorOptions(ScalarType::Int32).device(b.device()));
  DeviceInts piv(pivots, c.dev, B.count * n), inf(getrs_info, c.dev, B.count);
  piv.load();
  for (int64_t i = 0; i < B.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, getrs)(h, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, nrhs, A[i], lda,
                                          piv.get() + i * n, B[i], ldb, inf.get() + i),
                         shape_of(op, b));
}

// Bunch-Kaufman LDL^T of the lower triangle (cuSOLVER's sytrf: LAPACK's pivot format).
template <class T>
void ldl_factor_impl(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  const char* op = "ldl_factor";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int n = solver_int(A.rows, op), lda = A.ld(op);
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER(T, sytrf_bufferSize)(h, n, A[0], lda, &lwork), shape_of(op, a));
  Workspace work(c.dev, sizeof(T) * std::max(lwork, 1));
  DeviceInts piv(pivots, c.dev, A.count * n), inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, sytrf)(h, CUBLAS_FILL_MODE_LOWER, n, A[i], lda, piv.get() + i * n,
                                          static_cast<T*>(work.get()), lwork, inf.get() + i),
                         shape_of(op, a));
  piv.store();
  inf.store();
}

// sytrs through cuSOLVER's 64-bit API (the only one it has): int64 pivots on the device, device and host workspaces.
template <class T>
void ldl_solve_impl(const Tensor& ld, const Tensor& pivots, const Tensor& b) {
  const char* op = "ldl_solve";
  Ctx c(b);
  const Batch<T> A = batch_of<T>(ld), B = batch_of<T>(b);
  if (B.count == 0) return;
  EMBER_CHECK(A.count == B.count && A.rows == B.rows && pivots.numel() == B.count * A.rows, shape_of(op, b),
              ": internal error: ", A.count, " factors and ", pivots.numel(), " pivots for ", B.count,
              " right-hand sides");
  const int64_t n = A.rows, nrhs = B.cols, lda = std::max<int64_t>(n, 1), ldb = std::max<int64_t>(B.rows, 1);
  const Tensor piv64 = contiguous(to(pivots, b.device(), ScalarType::Int64));
  const int64_t* piv = static_cast<const int64_t*>(piv64.data_ptr());
  const cudaDataType dt = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
  cusolverDnHandle_t h = solver_handle(c.dev);
  size_t dev_bytes = 0, host_bytes = 0;
  EMBER_CUSOLVER_CHECK(cusolverDnXsytrs_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, nrhs, dt, A[0], lda, piv, dt, B[0],
                                                   ldb, &dev_bytes, &host_bytes),
                       shape_of(op, b));
  Workspace dwork(c.dev, std::max<size_t>(dev_bytes, 1));
  std::vector<char> hwork(std::max<size_t>(host_bytes, 1));
  const Tensor sytrs_info = empty({{B.count}}, TensorOptions(ScalarType::Int32).device(b.device()));
  DeviceInts inf(sytrs_info, c.dev, B.count);
  for (int64_t i = 0; i < B.count; ++i)
    EMBER_CUSOLVER_CHECK(cusolverDnXsytrs(h, CUBLAS_FILL_MODE_LOWER, n, nrhs, dt, A[i], lda, piv + i * n, dt, B[i], ldb,
                                          dwork.get(), dev_bytes, hwork.data(), host_bytes, inf.get() + i),
                         shape_of(op, b));
}

template <class T>
void cholesky_impl(const Tensor& a, bool upper, const Tensor& info) {
  const char* op = "cholesky";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int n = solver_int(A.rows, op), lda = A.ld(op);
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER(T, potrf_bufferSize)(h, uplo, n, A[0], lda, &lwork), shape_of(op, a));
  Workspace work(c.dev, sizeof(T) * std::max(lwork, 1));
  DeviceInts inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, potrf)(h, uplo, n, A[i], lda, static_cast<T*>(work.get()), lwork, inf.get() + i),
                         shape_of(op, a));
  // potrf leaves the other triangle as it was; a's logical (row, col) view makes it tril/triu.
  if (upper)
    triu_(a);
  else
    tril_(a);
  inf.store();
}

template <class T>
void triangular_solve_impl(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  const char* op = "triangular_solve";
  Ctx c(b);
  const Batch<T> A = batch_of<T>(a), B = batch_of<T>(b);
  if (B.count == 0) return;
  const int m = solver_int(B.rows, op), n = solver_int(B.cols, op), lda = A.ld(op), ldb = B.ld(op);
  cublasHandle_t h = cublas_handle(c.dev);
  const T one = 1;
  const auto side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const auto uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const auto diag = unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  EMBER_CHECK(A.count == B.count || A.count == 1, shape_of(op, b), ": internal error: ", A.count,
              " triangular matrices for ", B.count, " right-hand sides");
  const int64_t a_step = A.count == B.count ? 1 : 0;  // one triangle each, or one for all
  for (int64_t i = 0; i < B.count; ++i) {
    if constexpr (std::is_same_v<T, float>)
      EMBER_CUBLAS_CHECK(cublasStrsm(h, side, uplo, CUBLAS_OP_N, diag, m, n, &one, A[i * a_step], lda, B[i], ldb),
                         shape_of(op, b));
    else
      EMBER_CUBLAS_CHECK(cublasDtrsm(h, side, uplo, CUBLAS_OP_N, diag, m, n, &one, A[i * a_step], lda, B[i], ldb),
                         shape_of(op, b));
  }
}

template <class T>
void qr_impl(const Tensor& a, const Tensor& q, const Tensor& r) {
  const char* op = "qr";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int m = solver_int(A.rows, op), n = solver_int(A.cols, op), lda = A.ld(op), k = std::min(m, n);
  const int qc = q.defined() ? solver_int(q.sizes()[q.dim() - 1], op) : 0;
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lw1 = 0, lw2 = 0;
  Workspace tau(c.dev, sizeof(T) * std::max<int64_t>(A.count * k, 1));
  T* tau0 = static_cast<T*>(tau.get());
  EMBER_CUSOLVER_CHECK(SOLVER(T, geqrf_bufferSize)(h, m, n, A[0], lda, &lw1), shape_of(op, a));
  T* q0 = q.defined() ? static_cast<T*>(q.data_ptr()) : nullptr;
  if (q0 && qc > 0)
    EMBER_CUSOLVER_CHECK(SOLVER(T, orgqr_bufferSize)(h, m, qc, k, q0, lda, tau0, &lw2), shape_of(op, a));
  const int lwork = std::max({lw1, lw2, 1});
  Workspace work(c.dev, sizeof(T) * lwork);
  DeviceInts inf(empty({{A.count}}, TensorOptions(ScalarType::Int32).device(a.device())), c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(
        SOLVER(T, geqrf)(h, m, n, A[i], lda, tau0 + i * k, static_cast<T*>(work.get()), lwork, inf.get() + i),
        shape_of(op, a));
  // R: the upper triangle of the first R.rows rows (R.rows <= m).
  const int64_t rr = r.sizes()[r.dim() - 2];
  copy_into(r, triu(narrow(a, a.dim() - 2, 0, rr)));  // a's strides index it by (row, col)
  if (!q0 || qc == 0) return;
  // Q: the reflectors (the first min(n, qc) columns of each factored matrix), then orgqr's first qc columns.
  const size_t es = sizeof(T);
  EMBER_CUDA_CHECK(cudaMemcpy2DAsync(q0, es * m * qc, A.data, es * m * n, es * m * std::min(n, qc), A.count,
                                     cudaMemcpyDeviceToDevice, stream_of(c.dev)));
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, orgqr)(h, m, qc, k, q0 + i * m * qc, lda, tau0 + i * k, static_cast<T*>(work.get()),
                                          lwork, inf.get() + i),
                         shape_of(op, a));
}

// Jacobi SVD (gesvdj): any m and n, singular values sorted descending.
template <class T>
void svd_impl(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  const char* op = "svd";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int m = solver_int(A.rows, op), n = solver_int(A.cols, op), lda = A.ld(op), k = std::min(m, n);
  const bool vectors = u.defined();
  const int uc = vectors ? solver_int(u.sizes()[u.dim() - 1], op) : k;
  const int vr = vectors ? solver_int(vh.sizes()[vh.dim() - 2], op) : k;
  // econ: U [m, k] and V [n, k]; otherwise U [m, m] and V [n, n]. The CPU's rule for when to compute full ones.
  const bool full = vectors && ((uc == m && m != k) || (vr == n && n != k));
  const int econ = full ? 0 : 1;
  const int ucols = full ? m : k, vcols = full ? n : k;
  EMBER_CHECK(!vectors || (uc == ucols && vr == vcols), shape_of(op, a), ": internal error: U has ", uc,
              " columns and Vh ", vr, " rows, expected ", ucols, " and ", vcols);
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  cusolverDnHandle_t h = solver_handle(c.dev);
  gesvdjInfo_t params = nullptr;
  EMBER_CUSOLVER_CHECK(cusolverDnCreateGesvdjInfo(&params), shape_of(op, a));
  struct Destroy {
    gesvdjInfo_t p;
    ~Destroy() { cusolverDnDestroyGesvdjInfo(p); }
  } destroy{params};
  // V as gesvdj writes it (column-major [n, vcols]); Vh = V^T is copied into vh afterwards.
  Tensor v = vectors ? empty({{A.count * n * vcols}}, TensorOptions(a.dtype()).device(a.device())) : Tensor();
  T* u0 = vectors ? static_cast<T*>(u.data_ptr()) : nullptr;
  T* v0 = vectors ? static_cast<T*>(v.data_ptr()) : nullptr;
  T* s0 = static_cast<T*>(s.data_ptr());
  const int ldu = std::max(m, 1), ldv = std::max(n, 1);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(
      SOLVER(T, gesvdj_bufferSize)(h, jobz, econ, m, n, A[0], lda, s0, u0, ldu, v0, ldv, &lwork, params),
      shape_of(op, a));
  Workspace work(c.dev, sizeof(T) * std::max(lwork, 1));
  DeviceInts inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(
        SOLVER(T, gesvdj)(h, jobz, econ, m, n, A[i], lda, s0 + i * k, vectors ? u0 + i * m * ucols : nullptr, ldu,
                          vectors ? v0 + i * n * vcols : nullptr, ldv, static_cast<T*>(work.get()), lwork,
                          inf.get() + i, params),
        shape_of(op, a));
  if (vectors) {  // vh[b](i, j) = V[b](j, i), which sits at b * n * vcols + i * n + j
    DimVector sizes(vh.sizes()), strides(sizes.size(), 0);
    strides[sizes.size() - 2] = n;
    strides[sizes.size() - 1] = 1;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 3, step = int64_t(n) * vcols; d >= 0; --d) {
      strides[d] = step;
      step *= sizes[d];
    }
    copy_into(vh, make_view(v, sizes, strides, 0));
  }
  inf.store();
}

template <class T>
void eigh_impl(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  const char* op = "eigh";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int n = solver_int(A.rows, op), lda = A.ld(op);
  const cusolverEigMode_t jobz = compute_v ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  T* w0 = static_cast<T*>(w.data_ptr());
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER(T, syevd_bufferSize)(h, jobz, uplo, n, A[0], lda, w0, &lwork), shape_of(op, a));
  Workspace work(c.dev, sizeof(T) * std::max(lwork, 1));
  DeviceInts inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(
        SOLVER(T, syevd)(h, jobz, uplo, n, A[i], lda, w0 + i * n, static_cast<T*>(work.get()), lwork, inf.get() + i),
        shape_of(op, a));
  inf.store();
}

// gels through QR (m >= n): A = QR, then R x = Q^T b, in b's first n rows.
template <class T>
void lstsq_impl(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond,
                std::string_view driver, const Tensor& info) {
  const char* op = "lstsq";
  const Batch<T> A = batch_of<T>(a), B = batch_of<T>(b);
  EMBER_CHECK_T(NotImplementedError, driver == "gels",
                "torch.linalg.lstsq: `driver` other than `gels` is not "
                "supported on CUDA (got '",
                driver, "')");
  EMBER_CHECK_T(NotImplementedError, A.rows >= A.cols,
                "torch.linalg.lstsq: only overdetermined systems "
                "(input.size(-2) >= input.size(-1)) are allowed on CUDA, got ",
                dims_str(a.sizes()));
  Ctx c(a);
  if (A.count == 0 || B.cols == 0) return;
  const int m = solver_int(A.rows, op), n = solver_int(A.cols, op), lda = A.ld(op), nrhs = solver_int(B.cols, op),
            ldb = B.ld(op);
  cusolverDnHandle_t h = solver_handle(c.dev);
  cublasHandle_t bh = cublas_handle(c.dev);
  int lw1 = 0, lw2 = 0;
  Workspace tau(c.dev, sizeof(T) * std::max<int64_t>(A.count * n, 1));
  T* tau0 = static_cast<T*>(tau.get());
  EMBER_CUSOLVER_CHECK(SOLVER(T, geqrf_bufferSize)(h, m, n, A[0], lda, &lw1), shape_of(op, a));
  EMBER_CUSOLVER_CHECK(
      SOLVER(T, ormqr_bufferSize)(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, nrhs, n, A[0], lda, tau0, B[0], ldb, &lw2),
      shape_of(op, a));
  const int lwork = std::max({lw1, lw2, 1});
  Workspace work(c.dev, sizeof(T) * lwork);
  DeviceInts inf(info, c.dev, A.count);
  const T one = 1;
  for (int64_t i = 0; i < A.count; ++i) {
    T* wk = static_cast<T*>(work.get());
    EMBER_CUSOLVER_CHECK(SOLVER(T, geqrf)(h, m, n, A[i], lda, tau0 + i * n, wk, lwork, inf.get() + i), shape_of(op, a));
    EMBER_CUSOLVER_CHECK(SOLVER(T, ormqr)(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, nrhs, n, A[i], lda, tau0 + i * n, B[i],
                                          ldb, wk, lwork, inf.get() + i),
                         shape_of(op, a));
    if constexpr (std::is_same_v<T, float>)
      EMBER_CUBLAS_CHECK(cublasStrsm(bh, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n,
                                     nrhs, &one, A[i], lda, B[i], ldb),
                         shape_of(op, a));
    else
      EMBER_CUBLAS_CHECK(cublasDtrsm(bh, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n,
                                     nrhs, &one, A[i], lda, B[i], ldb),
                         shape_of(op, a));
  }
  inf.store();
}

void lu_factor_cuda(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_float(a, "lu_factor", [&](auto t) { lu_factor_impl<decltype(t)>(a, pivots, info); });
}
void lu_solve_cuda(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  on_float(lu, "lu_solve", [&](auto t) { lu_solve_impl<decltype(t)>(lu, pivots, b, transpose); });
}
void ldl_factor_cuda(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_float(a, "ldl_factor", [&](auto t) { ldl_factor_impl<decltype(t)>(a, pivots, info); });
}
void ldl_solve_cuda(const Tensor& ld, const Tensor& pivots, const Tensor& b) {
  on_float(ld, "ldl_solve", [&](auto t) { ldl_solve_impl<decltype(t)>(ld, pivots, b); });
}
void cholesky_cuda(const Tensor& a, bool upper, const Tensor& info) {
  on_float(a, "cholesky", [&](auto t) { cholesky_impl<decltype(t)>(a, upper, info); });
}
void triangular_solve_cuda(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  on_float(a, "triangular_solve",
           [&](auto t) { triangular_solve_impl<decltype(t)>(a, b, upper, left, unitriangular); });
}
void qr_cuda(const Tensor& a, const Tensor& q, const Tensor& r) {
  on_float(a, "qr", [&](auto t) { qr_impl<decltype(t)>(a, q, r); });
}
void svd_cuda(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  on_float(a, "svd", [&](auto t) { svd_impl<decltype(t)>(a, u, s, vh, info); });
}
void eigh_cuda(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  on_float(a, "eigh", [&](auto t) { eigh_impl<decltype(t)>(a, w, upper, compute_v, info); });
}
void lstsq_cuda(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond,
                std::string_view driver, const Tensor& info) {
  on_float(a, "lstsq", [&](auto t) { lstsq_impl<decltype(t)>(a, b, rank, sv, rcond, driver, info); });
}

}  // namespace

EMBER_REGISTER_KERNEL(lu_factor, CUDA, lu_factor_cuda)
EMBER_REGISTER_KERNEL(lu_solve, CUDA, lu_solve_cuda)
EMBER_REGISTER_KERNEL(cholesky, CUDA, cholesky_cuda)
EMBER_REGISTER_KERNEL(ldl_factor, CUDA, ldl_factor_cuda)
EMBER_REGISTER_KERNEL(ldl_solve, CUDA, ldl_solve_cuda)
EMBER_REGISTER_KERNEL(triangular_solve, CUDA, triangular_solve_cuda)
EMBER_REGISTER_KERNEL(qr, CUDA, qr_cuda)
EMBER_REGISTER_KERNEL(svd, CUDA, svd_cuda)
EMBER_REGISTER_KERNEL(eigh, CUDA, eigh_cuda)
EMBER_REGISTER_KERNEL(lstsq, CUDA, lstsq_cuda)

}  // namespace ember::cuda
