// The LAPACK kernels of ember.linalg on CUDA: cuSOLVER's dense routines (and cuBLAS's trsm), called once per matrix of
// a batch of column-major matrices (backend/kernels/lapack.h) on the current stream; float32, float64, complex64 and
// complex128 (the S, D, C and Z routines through one template per kernel: CudaType and pick below). cuSOLVER's
// batched routines are limited (getrf/potrf batched take pointer arrays, gesvdj batched stops at 32 x 32), so every
// routine loops over the batch here; batched variants are the place to speed up many small matrices.
//
// The ops may hand over `info`, `pivots` and `rank` in host memory (ops/lapack.cpp makes them on the CPU): those go
// through a device buffer and are copied back (which waits for the stream), so a host tensor and a device tensor both
// work.
//
// lstsq: the "gels" driver (QR) for m >= n, as PyTorch on CUDA; gelsy, gelsd and gelss raise NotImplementedError.
// eig and the Hermitian complex LDL^T factorization run the CPU kernels on host copies (Note [LAPACK on the host]).
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/backend/cuda/blas_glue.h"
#include "ember/backend/cuda/cublas.h"
#include "ember/backend/kernels/lapack.h"
#include "ember/backend/math/lapack_types.h"
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

// The element types: ember's (float, double, Complex<float>, Complex<double>) in the tensors and the kernels' code,
// cuSOLVER's and cuBLAS's (float, double, cuComplex, cuDoubleComplex) at the calls, through cu(p). Complex<T> has the
// layout of cuComplex / cuDoubleComplex (two T, aligned to their sum), as of Fortran's COMPLEX.
using c32 = Complex<float>;
using c64 = Complex<double>;
template <class T>
struct CudaType {
  using type = T;
};
template <>
struct CudaType<c32> {
  using type = cuComplex;
};
template <>
struct CudaType<c64> {
  using type = cuDoubleComplex;
};
static_assert(sizeof(c32) == sizeof(cuComplex) && alignof(c32) == alignof(cuComplex));
static_assert(sizeof(c64) == sizeof(cuDoubleComplex) && alignof(c64) == alignof(cuDoubleComplex));
template <class T>
typename CudaType<T>::type* cu(T* p) {
  return reinterpret_cast<typename CudaType<T>::type*>(p);
}
template <class T>
const typename CudaType<T>::type* cu(const T* p) {
  return reinterpret_cast<const typename CudaType<T>::type*>(p);
}

using namespace lapack_types;  // Real<T>, kComplex<T>, pick<T>(s, d, c, z)
#define SOLVER(T, name) pick<T>(&cusolverDnS##name, &cusolverDnD##name, &cusolverDnC##name, &cusolverDnZ##name)
// Routines named differently in their real and complex forms, with the same arguments (orgqr / ungqr, ormqr / unmqr,
// syevd / heevd).
#define SOLVER_RC(T, real, cplx) pick<T>(&cusolverDnS##real, &cusolverDnD##real, &cusolverDnC##cplx, &cusolverDnZ##cplx)
#define CUBLAS(T, name) pick<T>(&cublasS##name, &cublasD##name, &cublasC##name, &cublasZ##name)

// op(A) = A^H for complex T, A^T for real T.
template <class T>
constexpr cublasOperation_t kAdjoint = kComplex<T> ? CUBLAS_OP_C : CUBLAS_OP_T;

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

// f(T{}) for float32, float64, complex64 and complex128 (the ops check dtypes first).
template <class F>
void on_lapack(const Tensor& t, const char* op, F&& f) {
  on_lapack_type(t.dtype(), f, [&] {
    fail<NotImplementedError>(op, ": the CUDA kernel supports float32, float64, complex64 and complex128, not ",
                              t.dtype());
  });
}

// f(T{}) for the complex dtypes (complex = true) or the real ones: the LDL^T kernels come in the two kinds.
template <bool complex, class F>
void on_kind(const Tensor& t, const char* op, F&& f) {
  on_lapack(t, op, [&](auto x) {
    if constexpr (kComplex<decltype(x)> == complex)
      f(x);
    else
      fail<Error>(op, ": internal error: the ", complex ? "complex" : "real", " CUDA kernel called on ", t.dtype());
  });
}

std::string shape_of(const char* op, const Tensor& a) {
  return detail::cat(op, " of ", dims_str(a.sizes()), " ", a.dtype(), " on ", a.device());
}

struct Ctx {
  int dev;
  DeviceGuard guard;
  explicit Ctx(const Tensor& t) : dev(device_index(t.device())), guard(dev) {}
};

// A device buffer of `count` elements of T (at least one), for cuSOLVER's workspaces and tau.
template <class T>
struct Buffer {
  Workspace ws;
  Buffer(int dev, int64_t count) : ws(dev, sizeof(T) * static_cast<size_t>(std::max<int64_t>(count, 1))) {}
  T* get() const { return static_cast<T*>(ws.get()); }
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
  EMBER_CUSOLVER_CHECK(SOLVER(T, getrf_bufferSize)(h, m, n, cu(A[0]), lda, &lwork), shape_of(op, a));
  Buffer<T> work(c.dev, lwork);
  DeviceInts piv(pivots, c.dev, A.count * k), inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, getrf)(h, m, n, cu(A[i]), lda, cu(work.get()), piv.get() + i * k, inf.get() + i),
                         shape_of(op, a));
  piv.store();
  inf.store();
}

// transpose: the plain transpose, complex or not (the ops conjugate for the adjoint).
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
    EMBER_CUSOLVER_CHECK(SOLVER(T, getrs)(h, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, nrhs, cu(A[i]), lda,
                                          piv.get() + i * n, cu(B[i]), ldb, inf.get() + i),
                         shape_of(op, b));
}

// Bunch-Kaufman LDL^T of the lower triangle (cuSOLVER's sytrf: LAPACK's pivot format); complex matrices are
// symmetric (not Hermitian) here, as LAPACK's csytrf.
template <class T>
void ldl_factor_impl(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  const char* op = "ldl_factor";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int n = solver_int(A.rows, op), lda = A.ld(op);
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER(T, sytrf_bufferSize)(h, n, cu(A[0]), lda, &lwork), shape_of(op, a));
  Buffer<T> work(c.dev, lwork);
  DeviceInts piv(pivots, c.dev, A.count * n), inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, sytrf)(h, CUBLAS_FILL_MODE_LOWER, n, cu(A[i]), lda, piv.get() + i * n,
                                          cu(work.get()), std::max(lwork, 1), inf.get() + i),
                         shape_of(op, a));
  piv.store();
  inf.store();
}

template <class T>
constexpr cudaDataType kDataType = std::is_same_v<T, float>    ? CUDA_R_32F
                                   : std::is_same_v<T, double> ? CUDA_R_64F
                                   : std::is_same_v<T, c32>    ? CUDA_C_32F
                                                               : CUDA_C_64F;

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
  const cudaDataType dt = kDataType<T>;
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
  EMBER_CUSOLVER_CHECK(SOLVER(T, potrf_bufferSize)(h, uplo, n, cu(A[0]), lda, &lwork), shape_of(op, a));
  Buffer<T> work(c.dev, lwork);
  DeviceInts inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, potrf)(h, uplo, n, cu(A[i]), lda, cu(work.get()), std::max(lwork, 1), inf.get() + i),
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
  const T one(1);
  const auto side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const auto uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const auto diag = unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  EMBER_CHECK(A.count == B.count || A.count == 1, shape_of(op, b), ": internal error: ", A.count,
              " triangular matrices for ", B.count, " right-hand sides");
  const int64_t a_step = A.count == B.count ? 1 : 0;  // one triangle each, or one for all
  for (int64_t i = 0; i < B.count; ++i)
    EMBER_CUBLAS_CHECK(
        CUBLAS(T, trsm)(h, side, uplo, CUBLAS_OP_N, diag, m, n, cu(&one), cu(A[i * a_step]), lda, cu(B[i]), ldb),
        shape_of(op, b));
}

// geqrf of each matrix of A into its reflectors and tau0 + i * k (k = min(rows, cols)); info into inf.
template <class T>
void geqrf_batch(cusolverDnHandle_t h, const Batch<T>& A, T* tau0, int64_t k, Buffer<T>& work, int lwork, int* inf,
                 const char* op, const Tensor& a) {
  const int m = solver_int(A.rows, op), n = solver_int(A.cols, op), lda = A.ld(op);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER(T, geqrf)(h, m, n, cu(A[i]), lda, cu(tau0 + i * k), cu(work.get()), lwork, inf + i),
                         shape_of(op, a));
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
  Buffer<T> tau(c.dev, A.count * k);
  T* tau0 = tau.get();
  EMBER_CUSOLVER_CHECK(SOLVER(T, geqrf_bufferSize)(h, m, n, cu(A[0]), lda, &lw1), shape_of(op, a));
  T* q0 = q.defined() ? static_cast<T*>(q.data_ptr()) : nullptr;
  if (q0 && qc > 0)
    EMBER_CUSOLVER_CHECK(SOLVER_RC(T, orgqr_bufferSize, ungqr_bufferSize)(h, m, qc, k, cu(q0), lda, cu(tau0), &lw2),
                         shape_of(op, a));
  const int lwork = std::max({lw1, lw2, 1});
  Buffer<T> work(c.dev, lwork);
  DeviceInts inf(empty({{A.count}}, TensorOptions(ScalarType::Int32).device(a.device())), c.dev, A.count);
  geqrf_batch(h, A, tau0, k, work, lwork, inf.get(), op, a);
  // R: the upper triangle of the first R.rows rows (R.rows <= m).
  const int64_t rr = r.sizes()[r.dim() - 2];
  copy_into(r, triu(narrow(a, a.dim() - 2, 0, rr)));  // a's strides index it by (row, col)
  if (!q0 || qc == 0) return;
  // Q: the reflectors (the first min(n, qc) columns of each factored matrix), then orgqr's first qc columns.
  const size_t es = sizeof(T);
  EMBER_CUDA_CHECK(cudaMemcpy2DAsync(q0, es * m * qc, A.data, es * m * n, es * m * std::min(n, qc), A.count,
                                     cudaMemcpyDeviceToDevice, stream_of(c.dev)));
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER_RC(T, orgqr, ungqr)(h, m, qc, k, cu(q0 + i * m * qc), lda, cu(tau0 + i * k),
                                                    cu(work.get()), lwork, inf.get() + i),
                         shape_of(op, a));
}

// geqrf alone: a becomes R and the reflectors, tau [..., min(m, n)] their scalars.
template <class T>
void geqrf_impl(const Tensor& a, const Tensor& tau) {
  const char* op = "geqrf";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  const int m = solver_int(A.rows, op), n = solver_int(A.cols, op), lda = A.ld(op), k = std::min(m, n);
  if (A.count == 0 || k == 0) return;
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER(T, geqrf_bufferSize)(h, m, n, cu(A[0]), lda, &lwork), shape_of(op, a));
  lwork = std::max(lwork, 1);
  Buffer<T> work(c.dev, lwork);
  DeviceInts inf(empty({{A.count}}, TensorOptions(ScalarType::Int32).device(a.device())), c.dev, A.count);
  geqrf_batch(h, A, static_cast<T*>(tau.data_ptr()), k, work, lwork, inf.get(), op, a);
}

// op(Q) C or C op(Q) (ormqr / unmqr) with Q from geqrf's reflectors a [..., mc or nc, k] and tau [..., k].
template <class T>
void ormqr_impl(const Tensor& a, const Tensor& tau, const Tensor& c_, bool left, bool transpose) {
  const char* op = "ormqr";
  Ctx c(c_);
  const Batch<T> A = batch_of<T>(a), C = batch_of<T>(c_);
  const int m = solver_int(C.rows, op), n = solver_int(C.cols, op), k = solver_int(A.cols, op), lda = A.ld(op),
            ldc = C.ld(op);
  if (C.count == 0 || k == 0) return;
  EMBER_CHECK(A.count == C.count, shape_of(op, c_), ": internal error: ", A.count, " reflector sets for ", C.count,
              " matrices");
  const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasOperation_t trans = transpose ? kAdjoint<T> : CUBLAS_OP_N;
  const T* t0 = static_cast<const T*>(tau.data_ptr());
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER_RC(T, ormqr_bufferSize, unmqr_bufferSize)(h, side, trans, m, n, k, cu(A[0]), lda, cu(t0),
                                                                        cu(C[0]), ldc, &lwork),
                       shape_of(op, c_));
  lwork = std::max(lwork, 1);
  Buffer<T> work(c.dev, lwork);
  DeviceInts inf(empty({{C.count}}, TensorOptions(ScalarType::Int32).device(c_.device())), c.dev, C.count);
  for (int64_t i = 0; i < C.count; ++i)
    EMBER_CUSOLVER_CHECK(SOLVER_RC(T, ormqr, unmqr)(h, side, trans, m, n, k, cu(A[i]), lda, cu(t0 + i * k), cu(C[i]),
                                                    ldc, cu(work.get()), lwork, inf.get() + i),
                         shape_of(op, c_));
}

// Jacobi SVD (gesvdj): any m and n, singular values sorted descending.
template <class T>
void svd_impl(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  using R = Real<T>;
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
  // V as gesvdj writes it (column-major [n, vcols]); Vh = V^H is copied into vh afterwards.
  Tensor v = vectors ? empty({{A.count * n * vcols}}, TensorOptions(a.dtype()).device(a.device())) : Tensor();
  T* u0 = vectors ? static_cast<T*>(u.data_ptr()) : nullptr;
  T* v0 = vectors ? static_cast<T*>(v.data_ptr()) : nullptr;
  R* s0 = static_cast<R*>(s.data_ptr());
  const int ldu = std::max(m, 1), ldv = std::max(n, 1);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(
      SOLVER(T, gesvdj_bufferSize)(h, jobz, econ, m, n, cu(A[0]), lda, s0, cu(u0), ldu, cu(v0), ldv, &lwork, params),
      shape_of(op, a));
  lwork = std::max(lwork, 1);
  Buffer<T> work(c.dev, lwork);
  DeviceInts inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(
        SOLVER(T, gesvdj)(h, jobz, econ, m, n, cu(A[i]), lda, s0 + i * k, vectors ? cu(u0 + i * m * ucols) : nullptr,
                          ldu, vectors ? cu(v0 + i * n * vcols) : nullptr, ldv, cu(work.get()), lwork, inf.get() + i,
                          params),
        shape_of(op, a));
  if (vectors) {  // vh[b](i, j) = conj(V[b](j, i)), which sits at b * n * vcols + i * n + j
    DimVector sizes(vh.sizes()), strides(sizes.size(), 0);
    strides[sizes.size() - 2] = n;
    strides[sizes.size() - 1] = 1;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 3, step = int64_t(n) * vcols; d >= 0; --d) {
      strides[d] = step;
      step *= sizes[d];
    }
    copy_into(vh, make_view(v, sizes, strides, 0));
    if constexpr (kComplex<T>) conj_physical_(vh);
  }
  inf.store();
}

// syevd (real) or heevd (complex) reading one triangle; real eigenvalues ascending.
template <class T>
void eigh_impl(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  using R = Real<T>;
  const char* op = "eigh";
  Ctx c(a);
  const Batch<T> A = batch_of<T>(a);
  if (A.count == 0) return;
  const int n = solver_int(A.rows, op), lda = A.ld(op);
  const cusolverEigMode_t jobz = compute_v ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  R* w0 = static_cast<R*>(w.data_ptr());
  cusolverDnHandle_t h = solver_handle(c.dev);
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(SOLVER_RC(T, syevd_bufferSize, heevd_bufferSize)(h, jobz, uplo, n, cu(A[0]), lda, w0, &lwork),
                       shape_of(op, a));
  lwork = std::max(lwork, 1);
  Buffer<T> work(c.dev, lwork);
  DeviceInts inf(info, c.dev, A.count);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(
        SOLVER_RC(T, syevd, heevd)(h, jobz, uplo, n, cu(A[i]), lda, w0 + i * n, cu(work.get()), lwork, inf.get() + i),
        shape_of(op, a));
  inf.store();
}

// gels through QR (m >= n): A = QR, then R x = Q^H b, in b's first n rows.
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
  Buffer<T> tau(c.dev, A.count * n);
  T* tau0 = tau.get();
  const cublasOperation_t adj = kAdjoint<T>;
  EMBER_CUSOLVER_CHECK(SOLVER(T, geqrf_bufferSize)(h, m, n, cu(A[0]), lda, &lw1), shape_of(op, a));
  EMBER_CUSOLVER_CHECK(SOLVER_RC(T, ormqr_bufferSize, unmqr_bufferSize)(h, CUBLAS_SIDE_LEFT, adj, m, nrhs, n, cu(A[0]),
                                                                        lda, cu(tau0), cu(B[0]), ldb, &lw2),
                       shape_of(op, a));
  const int lwork = std::max({lw1, lw2, 1});
  Buffer<T> work(c.dev, lwork);
  DeviceInts inf(info, c.dev, A.count);
  const T one(1);
  geqrf_batch(h, A, tau0, n, work, lwork, inf.get(), op, a);
  for (int64_t i = 0; i < A.count; ++i) {
    EMBER_CUSOLVER_CHECK(
        SOLVER_RC(T, ormqr, unmqr)(h, CUBLAS_SIDE_LEFT, adj, m, nrhs, n, cu(A[i]), lda, cu(tau0 + i * n), cu(B[i]), ldb,
                                   cu(work.get()), lwork, inf.get() + i),
        shape_of(op, a));
    EMBER_CUBLAS_CHECK(CUBLAS(T, trsm)(bh, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                       n, nrhs, cu(&one), cu(A[i]), lda, cu(B[i]), ldb),
                       shape_of(op, a));
  }
  inf.store();
}

// ---- the CPU's kernels on copies (Note [LAPACK on the host])
//
// Note [LAPACK on the host]
// linalg.eig and ldl_factor(hermitian=True) of a complex CUDA tensor copy the operands to the host, run the CPU
// kernel (OpenBLAS's LAPACK) and copy the results back; the copies wait for the stream, and the results are the CPU's
// exactly. PyTorch 2.15 computes eig on CUDA with cuSOLVER's Xgeev (CUDA 12.6+; the same values, eigenvectors up to
// their phases, perhaps in another order): calling it here is the way to speed eig up, once a GPU run can check it
// against the CPU through what is unique. cuSOLVER has no Hermitian Bunch-Kaufman (hetrf): PyTorch 2.15, without
// MAGMA, raises for that factorization on CUDA; ember computes it on the host (and, as PyTorch, refuses the matching
// Hermitian solve, below).

// A host tensor with t's sizes and strides (undefined for undefined t); with_values: t's values too.
Tensor host_twin(const Tensor& t, bool with_values) {
  if (!t.defined() || t.device().is_cpu()) return t;
  Tensor h = empty_strided(t.sizes(), t.strides(), TensorOptions(t.dtype()));
  if (with_values) copy_into(h, t);
  return h;
}
void copy_back(const Tensor& t, const Tensor& host) {
  if (t.defined() && !t.device().is_cpu()) copy_into(t, host);
}

void eig_cuda(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) {
  const Tensor ha = host_twin(a, true), hw = host_twin(w, false), hv = host_twin(v, false), hi = host_twin(info, true);
  eig_kernel[Device(kCPU)](ha, hw, hv, hi);
  copy_back(w, hw);
  copy_back(v, hv);
  copy_back(info, hi);
}

void ldl_factor_complex_cuda(const Tensor& a, const Tensor& pivots, const Tensor& info, bool hermitian) {
  if (!hermitian) return on_kind<true>(a, "ldl_factor", [&](auto t) { ldl_factor_impl<decltype(t)>(a, pivots, info); });
  const Tensor ha = host_twin(a, true), hp = host_twin(pivots, true), hi = host_twin(info, true);
  ldl_factor_complex_kernel[Device(kCPU)](ha, hp, hi, true);
  copy_back(a, ha);
  copy_back(pivots, hp);
  copy_back(info, hi);
}

void ldl_solve_complex_cuda(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) {
  // PyTorch's: its CUDA ldl_solve is cuSOLVER's sytrs alone.
  EMBER_CHECK(!hermitian,
              "torch.linalg.ldl_solve: complex tensors with hermitian=True flag are not supported on CUDA.");
  on_kind<true>(ld, "ldl_solve", [&](auto t) { ldl_solve_impl<decltype(t)>(ld, pivots, b); });
}

void lu_factor_cuda(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_lapack(a, "lu_factor", [&](auto t) { lu_factor_impl<decltype(t)>(a, pivots, info); });
}
void lu_solve_cuda(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  on_lapack(lu, "lu_solve", [&](auto t) { lu_solve_impl<decltype(t)>(lu, pivots, b, transpose); });
}
// ldl_factor / ldl_solve: the real kernels (the complex ones above).
void ldl_factor_cuda(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  on_kind<false>(a, "ldl_factor", [&](auto t) { ldl_factor_impl<decltype(t)>(a, pivots, info); });
}
void ldl_solve_cuda(const Tensor& ld, const Tensor& pivots, const Tensor& b) {
  on_kind<false>(ld, "ldl_solve", [&](auto t) { ldl_solve_impl<decltype(t)>(ld, pivots, b); });
}
void cholesky_cuda(const Tensor& a, bool upper, const Tensor& info) {
  on_lapack(a, "cholesky", [&](auto t) { cholesky_impl<decltype(t)>(a, upper, info); });
}
void triangular_solve_cuda(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  on_lapack(a, "triangular_solve",
            [&](auto t) { triangular_solve_impl<decltype(t)>(a, b, upper, left, unitriangular); });
}
void qr_cuda(const Tensor& a, const Tensor& q, const Tensor& r) {
  on_lapack(a, "qr", [&](auto t) { qr_impl<decltype(t)>(a, q, r); });
}
void geqrf_cuda(const Tensor& a, const Tensor& tau) {
  on_lapack(a, "geqrf", [&](auto t) { geqrf_impl<decltype(t)>(a, tau); });
}
void ormqr_cuda(const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
  on_lapack(a, "ormqr", [&](auto t) { ormqr_impl<decltype(t)>(a, tau, c, left, transpose); });
}
void svd_cuda(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor& info) {
  on_lapack(a, "svd", [&](auto t) { svd_impl<decltype(t)>(a, u, s, vh, info); });
}
void eigh_cuda(const Tensor& a, const Tensor& w, bool upper, bool compute_v, const Tensor& info) {
  on_lapack(a, "eigh", [&](auto t) { eigh_impl<decltype(t)>(a, w, upper, compute_v, info); });
}
void lstsq_cuda(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv, double rcond,
                std::string_view driver, const Tensor& info) {
  on_lapack(a, "lstsq", [&](auto t) { lstsq_impl<decltype(t)>(a, b, rank, sv, rcond, driver, info); });
}

}  // namespace

EMBER_REGISTER_KERNEL(lu_factor, CUDA, lu_factor_cuda)
EMBER_REGISTER_KERNEL(lu_solve, CUDA, lu_solve_cuda)
EMBER_REGISTER_KERNEL(cholesky, CUDA, cholesky_cuda)
EMBER_REGISTER_KERNEL(ldl_factor, CUDA, ldl_factor_cuda)
EMBER_REGISTER_KERNEL(ldl_solve, CUDA, ldl_solve_cuda)
EMBER_REGISTER_KERNEL(ldl_factor_complex, CUDA, ldl_factor_complex_cuda)
EMBER_REGISTER_KERNEL(ldl_solve_complex, CUDA, ldl_solve_complex_cuda)
EMBER_REGISTER_KERNEL(triangular_solve, CUDA, triangular_solve_cuda)
EMBER_REGISTER_KERNEL(qr, CUDA, qr_cuda)
EMBER_REGISTER_KERNEL(geqrf, CUDA, geqrf_cuda)
EMBER_REGISTER_KERNEL(ormqr, CUDA, ormqr_cuda)
EMBER_REGISTER_KERNEL(svd, CUDA, svd_cuda)
EMBER_REGISTER_KERNEL(eigh, CUDA, eigh_cuda)
EMBER_REGISTER_KERNEL(eig, CUDA, eig_cuda)
EMBER_REGISTER_KERNEL(lstsq, CUDA, lstsq_cuda)

}  // namespace ember::cuda
