// CUDA kernels of the fused optimizer steps (ember/optim/fused.h, Note [Fused optimizer steps]): every parameter of a
// group in one multi-tensor launch (reduce.cuh: plan_chunk_launches). The launch's table (each tensor's slot
// pointers and coefficients, each block's chunk) is a kernel argument passed by value, so nothing is copied to the
// device or read back per step. The per-element formulas are the CPU's (ember/backend/cpu/optim.cpp), formula for
// formula, with the coefficients fused.cpp computed, in the parameter's dtype (float32 or float64: fused.cpp runs
// float16/bfloat16 parameters through float32 temporaries).
#include <climits>
#include <cmath>

#include "ember/backend/cuda/reduce.cuh"
#include "ember/backend/kernels/optim.h"

namespace ember::cuda {

namespace {

using optim::Algo;

constexpr int kMaxTensors = 48;
constexpr int kMaxChunks = 768;
constexpr int64_t kChunk = 65536;  // elements per block
constexpr int kThreads = 512;

// Kernel parameters may be up to 32 KiB (CUDA 12.1+, sm_70+); stay well below.
template <class T>
struct Table {
  T* q[kMaxTensors][optim::kSlots];
  T c[kMaxTensors][optim::kCoefs];
  int64_t numel[kMaxTensors];
  int32_t chunk_tensor[kMaxChunks];
  int32_t chunk_index[kMaxChunks];
};
static_assert(sizeof(Table<double>) < 30000, "optimizer launch table too large for a kernel argument");

template <class T>
__device__ __forceinline__ T nanmax(T a, T b) {
  return a != a ? a : (a > b ? a : b);
}

template <class T>
__device__ __forceinline__ T l2_grad(T p, T g, T dir, T wd) {
  g = dir * g;
  return wd != 0 ? g + wd * p : g;
}

// Adam, NAdam, RAdam's common start (their first seven coefficients share one layout): weight decay, then m and v
// updated and stored.
template <class T>
struct Moments {
  T p, g, m, v;
};
template <class T>
__device__ __forceinline__ Moments<T> adam_moments(T* const* q, const T* c, int64_t i) {
  using namespace optim::adam;
  T p = q[0][i];
  T g = c[dir] * q[1][i];
  if (c[wd] != 0) {
    if (c[decoupled] != 0)
      p = p * (1 - c[lr] * c[wd]);
    else
      g = g + c[wd] * p;
  }
  T m = q[2][i];
  m = m + (1 - c[b1]) * (g - m);
  const T v = c[b2] * q[3][i] + (1 - c[b2]) * g * g;
  q[2][i] = m;
  q[3][i] = v;
  return {p, g, m, v};
}

template <Algo A, class T>
__device__ __forceinline__ void update(T* const* q, const T* c, int64_t i) {
  if constexpr (A == Algo::SGD) {
    using namespace optim::sgd;
    const T p = q[0][i];
    T d = l2_grad(p, q[1][i], c[dir], c[wd]);
    if (c[momentum] != 0) {
      const T buf = c[optim::sgd::init] != 0 ? d : c[momentum] * q[2][i] + (1 - c[dampening]) * d;
      q[2][i] = buf;
      d = c[nesterov] != 0 ? d + c[momentum] * buf : buf;
    }
    q[0][i] = p - c[lr] * d;
  } else if constexpr (A == Algo::Adam) {
    using namespace optim::adam;
    Moments<T> s = adam_moments(q, c, i);
    if (c[amsgrad] != 0) {
      s.v = nanmax(q[4][i], s.v);
      q[4][i] = s.v;
    }
    const T denom = dsqrt(s.v) / c[bc2_sqrt] + c[eps];
    q[0][i] = s.p - c[step_size] * (s.m / denom);
  } else if constexpr (A == Algo::NAdam) {
    using namespace optim::nadam;
    const Moments<T> s = adam_moments(q, c, i);
    const T denom = dsqrt(s.v / c[bc2]) + c[eps];
    q[0][i] = (s.p - c[coef_grad] * (s.g / denom)) - c[coef_avg] * (s.m / denom);
  } else if constexpr (A == Algo::RAdam) {
    using namespace optim::radam;
    const Moments<T> s = adam_moments(q, c, i);
    const T corrected = s.m / c[bc1];
    if (c[rect] != 0)
      q[0][i] = s.p - corrected * c[lr] * (c[bc2_sqrt] / (dsqrt(s.v) + c[eps])) * c[rect];
    else
      q[0][i] = s.p - corrected * c[lr];
  } else if constexpr (A == Algo::RMSprop) {
    using namespace optim::rmsprop;
    const T p = q[0][i];
    const T g = l2_grad(p, q[1][i], c[dir], c[wd]);
    const T sq = c[alpha] * q[2][i] + (1 - c[alpha]) * g * g;
    q[2][i] = sq;
    T avg = dsqrt(sq);
    if (c[centered] != 0) {
      T ga = q[3][i];
      ga = ga + (1 - c[alpha]) * (g - ga);
      q[3][i] = ga;
      avg = dsqrt(sq - ga * ga);
    }
    avg = avg + c[eps];
    if (c[momentum] > 0) {
      const T buf = c[momentum] * q[4][i] + g / avg;
      q[4][i] = buf;
      q[0][i] = p - c[lr] * buf;
    } else {
      q[0][i] = p - c[lr] * (g / avg);
    }
  } else if constexpr (A == Algo::Adagrad) {
    using namespace optim::adagrad;
    const T p = q[0][i];
    const T g = l2_grad(p, q[1][i], c[dir], c[wd]);
    const T sum = q[2][i] + g * g;
    q[2][i] = sum;
    q[0][i] = p - c[clr] * (g / (dsqrt(sum) + c[eps]));
  } else if constexpr (A == Algo::Adadelta) {
    using namespace optim::adadelta;
    const T p = q[0][i];
    const T g = l2_grad(p, q[1][i], c[dir], c[wd]);
    const T sq = c[rho] * q[2][i] + (1 - c[rho]) * g * g;
    const T acc = q[3][i];
    const T delta = dsqrt(acc + c[eps]) / dsqrt(sq + c[eps]) * g;
    q[2][i] = sq;
    q[3][i] = c[rho] * acc + (1 - c[rho]) * delta * delta;
    q[0][i] = p - c[lr] * delta;
  } else if constexpr (A == Algo::Rprop) {
    using namespace optim::rprop;
    const T g = c[dir] * q[1][i];
    const T prod = g * q[2][i];
    const T eta = prod > 0 ? c[etaplus] : (prod < 0 ? c[etaminus] : T(1));
    T step = q[3][i] * eta;
    step = step < c[lo] ? c[lo] : (step > c[hi] ? c[hi] : step);
    const T kept = prod < 0 ? T(0) : g;
    const T sign = kept > 0 ? T(1) : (kept < 0 ? T(-1) : T(0));
    q[3][i] = step;
    q[0][i] = q[0][i] - sign * step;
    q[2][i] = kept;
  } else if constexpr (A == Algo::ASGD) {
    using namespace optim::asgd;
    T p = q[0][i];
    const T g = l2_grad(p, q[1][i], c[dir], c[wd]);
    p = p * c[decay];
    p = p + c[neg_eta] * g;
    q[0][i] = p;
    q[2][i] = c[average] != 0 ? q[2][i] + (p - q[2][i]) * c[mu] : p;
  } else {  // Adamax
    using namespace optim::adamax;
    const T p = q[0][i];
    const T g = l2_grad(p, q[1][i], c[dir], c[wd]);
    T m = q[2][i];
    m = m + (1 - c[b1]) * (g - m);
    const T u = nanmax(c[b2] * q[3][i], dfabs(g) + c[eps]);
    q[2][i] = m;
    q[3][i] = u;
    q[0][i] = p - c[clr] * (m / u);
  }
}

template <Algo A, class T>
__global__ void __launch_bounds__(kThreads) optim_kernel(const __grid_constant__ Table<T> tab) {
  const int t = tab.chunk_tensor[blockIdx.x];
  const int64_t begin = tab.chunk_index[blockIdx.x] * kChunk;
  const int64_t end = std::min<int64_t>(tab.numel[t], begin + kChunk);
  T* q[optim::kSlots];
#pragma unroll
  for (int k = 0; k < optim::kSlots; ++k) q[k] = tab.q[t][k];
  T c[optim::kCoefs];
#pragma unroll
  for (int k = 0; k < optim::kCoefs; ++k) c[k] = tab.c[t][k];
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) update<A, T>(q, c, i);
}

template <Algo A, class T>
void run(const std::vector<const optim::Work*>& work, int device) {
  std::vector<int64_t> numels;
  for (const optim::Work* w : work) numels.push_back(w->t[0].numel());
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  for (const ChunkLaunch& l : plan_chunk_launches(numels, kChunk, kMaxTensors, kMaxChunks)) {
    Table<T> tab{};
    for (size_t k = 0; k < l.tensors.size(); ++k) {
      const optim::Work& w = *work[l.tensors[k]];
      for (int s = 0; s < optim::kSlots; ++s)
        tab.q[k][s] = w.t[s].defined() ? static_cast<T*>(w.t[s].data_ptr()) : nullptr;
      for (int s = 0; s < optim::kCoefs; ++s) tab.c[k][s] = T(w.c[s]);
      tab.numel[k] = numels[l.tensors[k]];
    }
    for (size_t b = 0; b < l.chunks.size(); ++b) {
      EMBER_CHECK(l.chunks[b].second <= INT_MAX, "optimizer step: parameter too large for a CUDA launch");
      tab.chunk_tensor[b] = l.chunks[b].first;
      tab.chunk_index[b] = static_cast<int32_t>(l.chunks[b].second);
    }
    optim_kernel<A, T><<<static_cast<unsigned>(l.chunks.size()), kThreads, 0, stream>>>(tab);
    after_launch(device);
  }
}

template <class T>
void step_typed(Algo algo, const std::vector<const optim::Work*>& work, int device) {
  switch (algo) {
    case Algo::SGD: return run<Algo::SGD, T>(work, device);
    case Algo::Adam: return run<Algo::Adam, T>(work, device);
    case Algo::RMSprop: return run<Algo::RMSprop, T>(work, device);
    case Algo::Adagrad: return run<Algo::Adagrad, T>(work, device);
    case Algo::Adadelta: return run<Algo::Adadelta, T>(work, device);
    case Algo::Adamax: return run<Algo::Adamax, T>(work, device);
    case Algo::NAdam: return run<Algo::NAdam, T>(work, device);
    case Algo::RAdam: return run<Algo::RAdam, T>(work, device);
    case Algo::Rprop: return run<Algo::Rprop, T>(work, device);
    case Algo::ASGD: return run<Algo::ASGD, T>(work, device);
  }
}

// Tensors: contiguous, float32 or float64, all on one CUDA device (fused.cpp sees to it).
void optim_step(Algo algo, const std::vector<optim::Work>& work) {
  if (work.empty()) return;
  const int device = work[0].t[0].device().index;
  DeviceGuard guard(device);
  std::vector<const optim::Work*> f32, f64;
  for (const optim::Work& w : work) {
    EMBER_CHECK(w.t[0].device().index == device, "optimizer step: parameters on several CUDA devices in one call");
    if (w.t[0].numel() == 0) continue;
    (w.t[0].dtype() == ScalarType::Float64 ? f64 : f32).push_back(&w);
  }
  if (!f32.empty()) step_typed<float>(algo, f32, device);
  if (!f64.empty()) step_typed<double>(algo, f64, device);
}

}  // namespace

EMBER_REGISTER_KERNEL(optim_step, CUDA, optim_step)

}  // namespace ember::cuda
