// The FFT kernels on CUDA (backend/kernels/fft.h) through cuFFT, and each device's plan cache
// (ember.backends.cuda.cufft_plan_cache).
//
// Note [cuFFT plans]
// Each kernel call is one 1-d transform of every line along `dim` (the op runs one per transformed dim, as on the
// CPU). Its layout (Note [cuFFT layouts] in cufft_glue.h) keys a plan in the device's PlanCache (Note [Plan caches]):
// a cufftHandle made with cufftMakePlanMany64 without its own work area. Each run takes the plan's lock, binds the
// current stream and a work area from the caching allocator (stream-ordered, so it returns to the pool once enqueued),
// and enqueues the calls; nothing waits for the device. cuFFT scales nothing, so a scale other than 1 is a multiply
// afterwards. c2r may overwrite its input, so it always reads a copy; the whole spectrum of a real input (onesided
// False) is the c2c transform of the input made complex.
#include <cufft.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/backend/cuda/cublas.h"
#include "ember/backend/cuda/cufft_glue.h"
#include "ember/backend/cufft_plan_cache.h"
#include "ember/backend/kernels/fft.h"
#include "ember/backend/plan_cache.h"
#include "ember/ops.h"

namespace ember::cuda {

namespace {

const char* cufft_status_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "CUFFT_UNKNOWN_ERROR";
  }
}

#define EMBER_CUFFT_CHECK(expr, ...)                                                                         \
  do {                                                                                                       \
    const cufftResult r_ = (expr);                                                                           \
    if (r_ != CUFFT_SUCCESS) [[unlikely]]                                                                    \
      ::ember::fail<::ember::Error>(__VA_ARGS__, ": cuFFT error ", cufft_status_name(r_), " (", #expr, ")"); \
  } while (0)

struct CufftPlan {
  cufftHandle handle = 0;
  size_t work_bytes = 0;
  std::mutex mu;  // one run at a time binds its stream and work area
  ~CufftPlan() {
    if (handle) cufftDestroy(handle);  // errors ignored: nothing to do about them in a destructor
  }
};

using Cache = PlanCache<FftKey, CufftPlan, FftKeyHash>;

int checked_device(int device) {
  const int n = device_count();
  EMBER_CHECK(device >= 0 && device < n, "cufft_plan_cache: expected 0 <= device index < ", n,
              ", but got device with index ", device);
  return device;
}

// The caches of all devices, made on first use and never destroyed (plans outliving the driver at exit would fail
// to destroy; Note [Library handles] in cublas.h does the same for handles).
Cache& cache(int device) {
  static std::vector<std::unique_ptr<Cache>>* caches = [] {
    auto* v = new std::vector<std::unique_ptr<Cache>>();
    for (int d = 0; d < device_count(); ++d) v->push_back(std::make_unique<Cache>());
    return v;
  }();
  return *(*caches)[checked_device(device)];
}

cufftType type_of(FftKind kind, bool dbl) {
  switch (kind) {
    case FftKind::C2C: return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    case FftKind::R2C: return dbl ? CUFFT_D2Z : CUFFT_R2C;
    default: return dbl ? CUFFT_Z2D : CUFFT_C2R;
  }
}

std::unique_ptr<CufftPlan> make_plan(const FftKey& k, int device) {
  auto plan = std::make_unique<CufftPlan>();
  DeviceGuard guard(device);
  const char* what = "cuFFT: making a plan";
  EMBER_CUFFT_CHECK(cufftCreate(&plan->handle), what);
  EMBER_CUFFT_CHECK(cufftSetAutoAllocation(plan->handle, 0), what);
  // Rank 1: cuFFT reads only the strides and distances; the embeds must be given for those to count.
  const long long n = k.n;
  const long long in_len = k.kind == FftKind::C2R ? k.n / 2 + 1 : k.n;
  const long long out_len = k.kind == FftKind::R2C ? k.n / 2 + 1 : k.n;
  long long nn[1] = {n}, inembed[1] = {in_len}, onembed[1] = {out_len};
  EMBER_CUFFT_CHECK(cufftMakePlanMany64(plan->handle, 1, nn, inembed, k.istride, k.idist, onembed, k.ostride, k.odist,
                                        type_of(k.kind, k.double_precision), k.batch, &plan->work_bytes),
                    what, " for ", k.n, " points x ", k.batch, " lines (strides ", k.istride, "/", k.ostride,
                    ", distances ", k.idist, "/", k.odist, ")");
  return plan;
}

// An operand as cuFFT reads it: its element strides (complex numbers for a complex side, whose tensor is in
// view_as_real's layout with `rank` index dims), or false when they cannot be expressed so.
bool element_strides(const Tensor& t, int64_t rank, bool complex_side, std::vector<int64_t>& st) {
  st.assign(static_cast<size_t>(rank), 0);
  if (!complex_side) {
    for (int64_t d = 0; d < rank; ++d) st[d] = t.stride(d);
    return true;
  }
  if (t.stride(rank) != 1 || reinterpret_cast<uintptr_t>(t.data_ptr()) % (2 * t.element_size()) != 0) return false;
  for (int64_t d = 0; d < rank; ++d) {
    if (t.size(d) > 1 && t.stride(d) % 2 != 0) return false;
    st[d] = t.stride(d) / 2;
  }
  return true;
}

// A fresh contiguous copy of t with index dim `dim` moved innermost (before view_as_real's pair dim when complex).
Tensor dim_last_copy(const Tensor& t, int64_t dim, int64_t rank) {
  const Tensor m = movedim(t, {dim}, {rank - 1});
  Tensor r = empty(m.sizes(), TensorOptions(t.dtype()).device(t.device()));
  r.copy_(m);
  return r;
}

struct Transform {
  FftKind kind;
  int64_t dim, rank, n;  // rank: the index dims (a complex side's dim() - 1)
  bool forward;
};

// Runs the planned calls of out = FFT(in) (no scaling) on the current stream; false (nothing run) when the layout
// is not plannable in place.
bool try_run(const Transform& tr, const Tensor& out, const Tensor& in) {
  const bool in_complex = tr.kind != FftKind::R2C, out_complex = tr.kind != FftKind::C2R;
  std::vector<int64_t> si, so;
  if (!element_strides(in, tr.rank, in_complex, si) || !element_strides(out, tr.rank, out_complex, so)) return false;
  FftLines l;
  l.n = tr.n;
  l.in_stride = si[tr.dim];
  l.out_stride = so[tr.dim];
  for (int64_t d = 0; d < tr.rank; ++d) {
    if (d == tr.dim) continue;
    l.sizes.push_back(out.size(d));
    l.in_strides.push_back(si[d]);
    l.out_strides.push_back(so[d]);
  }
  FftLayout p;
  if (!plan_fft_lines(l, p)) return false;
  const bool dbl = in.dtype() == ScalarType::Float64;
  const int device = device_index(out.device());
  DeviceGuard guard(device);
  const FftKey key = fft_key(tr.kind, dbl, tr.n, p);
  std::shared_ptr<CufftPlan> plan = cache(device).get(key, [&] { return make_plan(key, device); });
  std::lock_guard<std::mutex> lock(plan->mu);
  const char* what = "fft: cuFFT transform";
  EMBER_CUFFT_CHECK(cufftSetStream(plan->handle, stream_of(device)), what);
  Workspace ws(device, plan->work_bytes);
  if (plan->work_bytes) EMBER_CUFFT_CHECK(cufftSetWorkArea(plan->handle, ws.get()), what);
  const size_t real = dbl ? 8 : 4;  // bytes of one real number
  const size_t in_el = in_complex ? 2 * real : real, out_el = out_complex ? 2 * real : real;
  char* ip = static_cast<char*>(in.data_ptr());
  char* op = static_cast<char*>(out.data_ptr());
  const int dir = tr.forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  for (int64_t c = 0, calls = p.calls(); c < calls; ++c) {
    int64_t a, b;
    p.call_offsets(c, a, b);
    void* x = ip + a * in_el;
    void* y = op + b * out_el;
    switch (tr.kind) {
      case FftKind::C2C:
        if (dbl)
          EMBER_CUFFT_CHECK(
              cufftExecZ2Z(plan->handle, static_cast<cufftDoubleComplex*>(x), static_cast<cufftDoubleComplex*>(y), dir),
              what);
        else
          EMBER_CUFFT_CHECK(
              cufftExecC2C(plan->handle, static_cast<cufftComplex*>(x), static_cast<cufftComplex*>(y), dir), what);
        break;
      case FftKind::R2C:
        if (dbl)
          EMBER_CUFFT_CHECK(
              cufftExecD2Z(plan->handle, static_cast<cufftDoubleReal*>(x), static_cast<cufftDoubleComplex*>(y)), what);
        else
          EMBER_CUFFT_CHECK(cufftExecR2C(plan->handle, static_cast<cufftReal*>(x), static_cast<cufftComplex*>(y)),
                            what);
        break;
      case FftKind::C2R:
        if (dbl)
          EMBER_CUFFT_CHECK(
              cufftExecZ2D(plan->handle, static_cast<cufftDoubleComplex*>(x), static_cast<cufftDoubleReal*>(y)), what);
        else
          EMBER_CUFFT_CHECK(cufftExecC2R(plan->handle, static_cast<cufftComplex*>(x), static_cast<cufftReal*>(y)),
                            what);
        break;
    }
  }
  return true;
}

// out = scale * FFT(in): in place where cuFFT can read the layouts, else through buffers with `dim` innermost.
void run(const Transform& tr, const Tensor& out, const Tensor& in, double scale) {
  autograd::NoGradGuard no_grad;
  if (out.numel() == 0) return;
  Tensor src = in;
  if (tr.kind == FftKind::C2R) {  // cuFFT's c2r overwrites its input: it reads a copy of the n / 2 + 1 bins it uses
    const Tensor bins = narrow(in, tr.dim, 0, tr.n / 2 + 1);
    src = empty(bins.sizes(), TensorOptions(in.dtype()).device(in.device()));
    src.copy_(bins);
  }
  if (!try_run(tr, out, src)) {
    src = dim_last_copy(src, tr.dim, tr.rank);
    Tensor buf = empty(movedim(out, {tr.dim}, {tr.rank - 1}).sizes(), TensorOptions(out.dtype()).device(out.device()));
    Transform last = tr;
    last.dim = tr.rank - 1;
    EMBER_CHECK(try_run(last, buf, src), "fft: internal error: cuFFT cannot read a contiguous layout");
    movedim(out, {tr.dim}, {tr.rank - 1}).copy_(buf);
  }
  if (scale != 1.0) binary_op(BinaryOp::Mul, out, scale, out);
}

void check_dtype(const Tensor& t, const char* op) {
  EMBER_CHECK_T(NotImplementedError, t.dtype() == ScalarType::Float32 || t.dtype() == ScalarType::Float64, op,
                ": cuFFT transforms float32 and float64 data here, but got ", t.dtype());
}

void fft_c2c_cuda(const Tensor& out, const Tensor& in, int64_t dim, bool forward, double scale) {
  check_dtype(in, "fft_c2c");
  const int64_t rank = in.dim() - 1;
  run({FftKind::C2C, dim, rank, in.size(dim), forward}, out, in, scale);
}

void fft_r2c_cuda(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  check_dtype(in, "fft_r2c");
  const int64_t rank = in.dim(), n = in.size(dim);
  if (out.size(dim) != n / 2 + 1) {  // the whole spectrum: the c2c transform of the input made complex
    autograd::NoGradGuard no_grad;
    Tensor z = zeros(out.sizes(), TensorOptions(in.dtype()).device(in.device()));
    select(z, -1, 0).copy_(in);
    run({FftKind::C2C, dim, rank, n, true}, out, z, scale);
    return;
  }
  run({FftKind::R2C, dim, rank, n, true}, out, in, scale);
}

void fft_c2r_cuda(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  check_dtype(in, "fft_c2r");
  run({FftKind::C2R, dim, out.dim(), out.size(dim), false}, out, in, scale);
}

}  // namespace

int64_t cufft_plan_cache_size(int device) { return cache(device).size(); }
int64_t cufft_plan_cache_max_size(int device) { return cache(device).max_size(); }
void set_cufft_plan_cache_max_size(int device, int64_t max_size) { cache(device).set_max_size(max_size); }
void clear_cufft_plan_cache(int device) { cache(device).clear(); }

EMBER_REGISTER_KERNEL(fft_c2c, CUDA, fft_c2c_cuda)
EMBER_REGISTER_KERNEL(fft_r2c, CUDA, fft_r2c_cuda)
EMBER_REGISTER_KERNEL(fft_c2r, CUDA, fft_c2r_cuda)

}  // namespace ember::cuda
