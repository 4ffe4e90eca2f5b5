// CUDA cross entropy over class indices (the `cross_entropy_logits` slot, ember/backend/kernels/nn/loss.h; CPU
// reference ember/backend/cpu/loss.cpp): per position, lse = logsumexp over the classes (shifted by the max, or by 0
// when the max is infinite) and nll = lse - x[target] (0 where target == ignore_index). A target outside [0, C) is
// reported through Note [Deferred device errors] and raised at the next host wait as an IndexError naming
// cross_entropy. Also CTC's forward and backward recursions.
#include <climits>
#include <cmath>

#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/cuda/reduce.cuh"
#include "ember/backend/kernels/nn/loss.h"
#include "ember/cuda.h"

namespace ember::cuda {

namespace {

template <class T>
__device__ __forceinline__ T finite_or_zero(T m) {
  return disinf(m) ? T(0) : m;
}

template <class T>
struct Finish {
  T *nll, *lse;
  const int64_t* target;
  int64_t ignore_index, classes;
  DeviceErrorReport* report;
  // pos: the position; first: x at class 0 for it; stride: between classes.
  __device__ void operator()(int64_t pos, const T* first, int64_t stride, T l) const {
    lse[pos] = l;
    const int64_t t = target[pos];
    if (t == ignore_index) {
      nll[pos] = T(0);
      return;
    }
    if (t < 0 || t >= classes) {
      report_index_error(report, "cross_entropy", t, 1, classes);
      nll[pos] = T(NAN);
      return;
    }
    nll[pos] = l - first[t * stride];
  }
};

constexpr int kWarpRows = 8;
constexpr int kBlockThreads = 512;

// Rows of contiguous classes (inner == 1): a warp per row (Warp) or a block per row.
template <class T, bool Warp>
__global__ void ce_rows_kernel(const T* __restrict__ x, int64_t rows, int64_t C, Finish<T> fin) {
  __shared__ T scratch[32];
  const int64_t r = Warp ? blockIdx.x * static_cast<int64_t>(kWarpRows) + threadIdx.y : blockIdx.x;
  if (Warp && r >= rows) return;  // whole warps leave together
  const T* row = x + r * C;
  T m = -INFINITY;
  for (int64_t c = threadIdx.x; c < C; c += blockDim.x) m = NanMaxOp{}(m, row[c]);
  m = Warp ? warp_reduce(m, NanMaxOp{}) : block_reduce(m, NanMaxOp{}, scratch);
  m = finite_or_zero(m);
  T s = 0;
  for (int64_t c = threadIdx.x; c < C; c += blockDim.x) s += dexp(row[c] - m);
  s = Warp ? warp_reduce(s, SumOp{}) : block_reduce(s, SumOp{}, scratch);
  if (threadIdx.x == 0) fin(r, row, 1, dlog(s) + m);
}

// Spatial inputs: a thread per position; consecutive threads read consecutive memory at each class.
template <class T>
__global__ void ce_strided_kernel(const T* __restrict__ x, int64_t outer, int64_t C, int64_t inner, Finish<T> fin) {
  const int64_t n = outer * inner;
  for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < n;
       p += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* base = x + (p / inner) * C * inner + p % inner;
    T m = -INFINITY;
    for (int64_t c = 0; c < C; ++c) m = NanMaxOp{}(m, base[c * inner]);
    m = finite_or_zero(m);
    T s = 0;
    for (int64_t c = 0; c < C; ++c) s += dexp(base[c * inner] - m);
    fin(p, base, inner, dlog(s) + m);
  }
}

void cross_entropy_logits(const Tensor& nll, const Tensor& lse, const Tensor& x, const Tensor& target,
                          int64_t ignore_index) {
  const int64_t outer = x.size(0), C = x.size(1), inner = x.size(2);
  if (outer * inner == 0) return;
  const int device = x.device().index;
  DeviceGuard guard(device);
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  auto go = [&](auto v) {
    using T = decltype(v);
    const T* xp = static_cast<const T*>(x.data_ptr());
    const Finish<T> fin{static_cast<T*>(nll.data_ptr()),
                        static_cast<T*>(lse.data_ptr()),
                        static_cast<const int64_t*>(target.data_ptr()),
                        ignore_index,
                        C,
                        device_error_slot(device)};
    if (inner == 1 && C <= 1024) {
      const int64_t blocks = (outer + kWarpRows - 1) / kWarpRows;
      EMBER_CHECK(blocks <= INT_MAX, "cross_entropy: too many rows for one CUDA launch (", outer, ")");
      ce_rows_kernel<T, true><<<static_cast<unsigned>(blocks), dim3(32, kWarpRows), 0, stream>>>(xp, outer, C, fin);
    } else if (inner == 1) {
      EMBER_CHECK(outer <= INT_MAX, "cross_entropy: too many rows for one CUDA launch (", outer, ")");
      ce_rows_kernel<T, false><<<static_cast<unsigned>(outer), kBlockThreads, 0, stream>>>(xp, outer, C, fin);
    } else {
      const int64_t blocks = std::min<int64_t>((outer * inner + 255) / 256, int64_t(1) << 20);
      ce_strided_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(xp, outer, C, inner, fin);
    }
  };
  if (x.dtype() == ScalarType::Float64)
    go(double());
  else
    go(float());
  after_launch(device);
}

// ---- CTC (Graves et al. 2006, in log space): a block per sample; its threads take the positions s of the extended
// target l' = (blank, l1, blank, ..., blank) at each time step, the steps in order with a barrier between them.
// Same recursions and summation order per element as the CPU's.
template <class T>
__device__ __forceinline__ T neg_inf() {
  return -INFINITY;
}
template <class T>
__device__ T log_sum3(T a, T b, T c) {
  // std::max(a, std::max(b, c)) as the CPU computes it
  const T bc = b < c ? c : b;
  const T m = a < bc ? bc : a;
  if (m == neg_inf<T>()) return neg_inf<T>();
  return dlog(dexp(a - m) + dexp(b - m) + dexp(c - m)) + m;
}
template <class T>
__device__ T log_add(T a, T b) {
  return log_sum3(a, b, neg_inf<T>());
}

// Per sample: input length, target length, offset of its targets (int64 each, on the device).
struct CtcDevArgs {
  const int64_t* il;
  const int64_t* tl;
  const int64_t* off;
  const int64_t* targets;
  int64_t steps, batch, classes, width, blank;
};

__device__ __forceinline__ int64_t ctc_label(const CtcDevArgs& a, const int64_t* tgt, int64_t s) {
  return s % 2 == 0 ? a.blank : tgt[s / 2];
}

template <class T>
__global__ void ctc_forward_kernel(T* __restrict__ nll, T* __restrict__ alpha_all, const T* __restrict__ lp,
                                   CtcDevArgs a) {
  const int64_t n = blockIdx.x;
  const int64_t L = a.tl[n], il = a.il[n], len = 2 * L + 1;
  const int64_t* tgt = a.targets + a.off[n];
  T* alpha = alpha_all + n * a.steps * a.width;
  for (int64_t i = threadIdx.x; i < a.steps * a.width; i += blockDim.x) alpha[i] = neg_inf<T>();
  __syncthreads();
  auto prob = [&](int64_t t, int64_t s) { return lp[(t * a.batch + n) * a.classes + ctc_label(a, tgt, s)]; };
  if (il == 0) {  // only the empty target is possible
    if (threadIdx.x == 0) nll[n] = L == 0 ? T(0) : T(INFINITY);
    return;
  }
  if (threadIdx.x == 0) {
    alpha[0] = prob(0, 0);
    if (L > 0) alpha[1] = prob(0, 1);
  }
  __syncthreads();
  for (int64_t t = 1; t < il; ++t) {
    const T* prev = alpha + (t - 1) * a.width;
    T* cur = alpha + t * a.width;
    for (int64_t s = threadIdx.x; s < len; s += blockDim.x) {
      const T stay = prev[s], step = s > 0 ? prev[s - 1] : neg_inf<T>();
      const bool skip_ok = s > 1 && ctc_label(a, tgt, s - 2) != ctc_label(a, tgt, s);
      const T skip = skip_ok ? prev[s - 2] : neg_inf<T>();
      cur[s] = log_sum3(stay, step, skip) + prob(t, s);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const T* last = alpha + (il - 1) * a.width;
    nll[n] = -(L > 0 ? log_add(last[len - 1], last[len - 2]) : last[0]);
  }
}

template <class T>
__global__ void ctc_backward_kernel(T* __restrict__ g, T* __restrict__ beta_all, const T* __restrict__ lp,
                                    const T* __restrict__ loss, const T* __restrict__ alpha_all, CtcDevArgs a,
                                    bool zero_infinity) {
  const int64_t n = blockIdx.x;
  const int64_t L = a.tl[n], il = a.il[n], len = 2 * L + 1;
  const int64_t* tgt = a.targets + a.off[n];
  const T* alpha = alpha_all + n * a.steps * a.width;
  T* beta = beta_all + n * a.steps * a.width;
  auto at = [&](int64_t t, int64_t c) -> T& { return g[(t * a.batch + n) * a.classes + c]; };
  auto prob = [&](int64_t t, int64_t s) { return lp[(t * a.batch + n) * a.classes + ctc_label(a, tgt, s)]; };
  for (int64_t i = threadIdx.x; i < a.steps * a.classes; i += blockDim.x) at(i / a.classes, i % a.classes) = T(0);
  if (il == 0 || (zero_infinity && disinf(loss[n]))) return;
  for (int64_t i = threadIdx.x; i < a.steps * a.width; i += blockDim.x) beta[i] = neg_inf<T>();
  __syncthreads();
  if (threadIdx.x == 0) {
    T* last = beta + (il - 1) * a.width;
    last[len - 1] = prob(il - 1, len - 1);
    if (L > 0) last[len - 2] = prob(il - 1, len - 2);
  }
  __syncthreads();
  for (int64_t t = il - 2; t >= 0; --t) {
    const T* next = beta + (t + 1) * a.width;
    T* cur = beta + t * a.width;
    for (int64_t s = threadIdx.x; s < len; s += blockDim.x) {
      const T stay = next[s], step = s + 1 < len ? next[s + 1] : neg_inf<T>();
      const bool skip_ok = s + 2 < len && ctc_label(a, tgt, s + 2) != ctc_label(a, tgt, s);
      const T skip = skip_ok ? next[s + 2] : neg_inf<T>();
      cur[s] = log_sum3(stay, step, skip) + prob(t, s);
    }
    __syncthreads();
  }
  // d nll / d log_probs[t, c] = -dexp(occupancy(c) + nll - lp[t, c]), occupancy(c) = logsumexp over the s with
  // l'(s) = c of alpha_t(s) + beta_t(s), summed in the order of s as on the CPU. A thread per (t, c).
  for (int64_t i = threadIdx.x; i < il * a.classes; i += blockDim.x) {
    const int64_t t = i / a.classes, c = i % a.classes;
    T occ = neg_inf<T>();
    for (int64_t s = 0; s < len; ++s)
      if (ctc_label(a, tgt, s) == c) occ = log_add(occ, alpha[t * a.width + s] + beta[t * a.width + s]);
    if (occ != neg_inf<T>()) at(t, c) = -dexp(occ + loss[n] - lp[(t * a.batch + n) * a.classes + c]);
  }
}

// The per-sample lengths and offsets on the device (one small host-to-device copy).
Tensor ctc_args_on_device(const CtcArgs& args, int device) {
  const int64_t N = static_cast<int64_t>(args.input_lengths.size());
  std::vector<int64_t> host;
  host.insert(host.end(), args.input_lengths.begin(), args.input_lengths.end());
  host.insert(host.end(), args.target_lengths.begin(), args.target_lengths.end());
  host.insert(host.end(), args.offsets.begin(), args.offsets.end());
  EMBER_CHECK(static_cast<int64_t>(host.size()) == 3 * N, "ctc_loss: inconsistent per-sample arguments");
  Tensor d = device_workspace(3 * N * 8, device);
  if (N) memcpy(d.data_ptr(), host.data(), 3 * N * 8, CopyKind::HostToDevice, device);
  return d;
}

CtcDevArgs dev_args(const Tensor& d, const Tensor& log_probs, const Tensor& targets, int64_t width,
                    const CtcArgs& args) {
  const int64_t N = log_probs.size(1);
  const int64_t* p = static_cast<const int64_t*>(d.data_ptr());
  return {p,
          p + N,
          p + 2 * N,
          static_cast<const int64_t*>(targets.data_ptr()),
          log_probs.size(0),
          N,
          log_probs.size(2),
          width,
          args.blank};
}

constexpr int kCtcThreads = 256;

// f(T{}, device args, stream) on log_probs' device, T its dtype; nothing for an empty batch.
template <class F>
void with_ctc(const Tensor& log_probs, const Tensor& targets, int64_t width, const CtcArgs& args, F f) {
  const int64_t N = log_probs.size(1);
  if (N == 0) return;
  EMBER_CHECK(N <= INT_MAX, "ctc_loss: batch too large for one CUDA launch");
  const int device = log_probs.device().index;
  DeviceGuard guard(device);
  const Tensor d = ctc_args_on_device(args, device);
  const CtcDevArgs a = dev_args(d, log_probs, targets, width, args);
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  if (log_probs.dtype() == ScalarType::Float64)
    f(double(), a, stream, device);
  else
    f(float(), a, stream, device);
  after_launch(device);
}

void ctc_loss_forward(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
                      const CtcArgs& args) {
  with_ctc(log_probs, targets, log_alpha.size(2), args, [&](auto v, const CtcDevArgs& a, cudaStream_t stream, int) {
    using T = decltype(v);
    ctc_forward_kernel<T><<<static_cast<unsigned>(a.batch), kCtcThreads, 0, stream>>>(
        static_cast<T*>(nll.data_ptr()), static_cast<T*>(log_alpha.data_ptr()),
        static_cast<const T*>(log_probs.data_ptr()), a);
  });
}

void ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets, const Tensor& nll,
                       const Tensor& log_alpha, const CtcArgs& args, bool zero_infinity) {
  with_ctc(log_probs, targets, log_alpha.size(2), args,
           [&](auto v, const CtcDevArgs& a, cudaStream_t stream, int device) {
             using T = decltype(v);
             Tensor beta = device_workspace(a.batch * a.steps * a.width * static_cast<int64_t>(sizeof(T)), device);
             ctc_backward_kernel<T><<<static_cast<unsigned>(a.batch), kCtcThreads, 0, stream>>>(
                 static_cast<T*>(grad.data_ptr()), static_cast<T*>(beta.data_ptr()),
                 static_cast<const T*>(log_probs.data_ptr()), static_cast<const T*>(nll.data_ptr()),
                 static_cast<const T*>(log_alpha.data_ptr()), a, zero_infinity);
           });
}

}  // namespace

EMBER_REGISTER_KERNEL(cross_entropy_logits, CUDA, cross_entropy_logits)
EMBER_REGISTER_KERNEL(ctc_loss_forward, CUDA, ctc_loss_forward)
EMBER_REGISTER_KERNEL(ctc_loss_backward, CUDA, ctc_loss_backward)

}  // namespace ember::cuda
