// The distribution samplers and the gamma reparameterization gradient on CUDA: the CPU's formulas
// (ember/backend/math/sampling.h), so a seed gives the same numbers on both devices. Outputs are contiguous float64.
#include <algorithm>

#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/kernels/sampling.h"
#include "ember/backend/math/sampling.h"
#include "ember/cuda.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

// The messages of parameters out of range, host literals carried through the report (Note [Deferred device errors]).
const char* domain_message(int kind) {
  switch (kind) {
    case rnd::kGamma: return "_standard_gamma: expects all elements of alpha to be non-negative";
    case rnd::kPoisson: return "poisson: invalid Poisson rate, expected rate to be non-negative";
    case rnd::kVonMises: return "_sample_von_mises: expects finite loc and concentration >= 0";
    default: return "binomial: expects count >= 0 and prob in [0, 1]";
  }
}

__global__ void sample_fill(double* out, int64_t n, int kind, const double* a, const double* b, double sa, double sb,
                            double tiny, PhiloxState s, DeviceErrorReport* err, const char* msg) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double pa = a ? a[i] : sa, pb = b ? b[i] : sb;
    if (a && !rnd::sample_params_ok(kind, pa, pb)) [[unlikely]] {
      report_error(err, kInvalidParameter, msg, i, 0, 0);
      out[i] = NAN;
      continue;
    }
    out[i] = rnd::sample_one(kind, pa, pb, tiny,
                             rnd::ElementWords(s, static_cast<uint64_t>(i) * rnd::sample_words(kind)));
  }
}

__global__ void gamma_grad_fill(double* out, int64_t n, const double* alpha, const double* x) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = rnd::standard_gamma_grad_one(alpha[i], x[i]);
}

int device_of(const Tensor& t) { return t.device().index >= 0 ? t.device().index : current_device(); }

unsigned grid_for(int64_t n) { return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65536)); }

const double* ptr(const Tensor& t) { return t.defined() ? static_cast<const double*>(t.data_ptr()) : nullptr; }

void sample(const Tensor& dst, int kind, const Tensor& a, const Tensor& b, double sa, double sb, double tiny,
            PhiloxState s) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const int dev = device_of(dst);
  DeviceGuard g(dev);
  auto stream = static_cast<cudaStream_t>(current_stream(dev).handle);
  DeviceErrorReport* err = a.defined() ? device_error_slot(dev) : nullptr;
  sample_fill<<<grid_for(n), kThreads, 0, stream>>>(static_cast<double*>(dst.data_ptr()), n, kind, ptr(a), ptr(b), sa,
                                                    sb, tiny, s, err, domain_message(kind));
  after_launch(dev);
}

void standard_gamma_grad(const Tensor& dst, const Tensor& alpha, const Tensor& x) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const int dev = device_of(dst);
  DeviceGuard g(dev);
  auto stream = static_cast<cudaStream_t>(current_stream(dev).handle);
  gamma_grad_fill<<<grid_for(n), kThreads, 0, stream>>>(static_cast<double*>(dst.data_ptr()), n, ptr(alpha), ptr(x));
  after_launch(dev);
}

}  // namespace

EMBER_REGISTER_KERNEL(sample, CUDA, sample)
EMBER_REGISTER_KERNEL(standard_gamma_grad, CUDA, standard_gamma_grad)

}  // namespace ember::cuda
