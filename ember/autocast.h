// Automatic mixed precision (torch.autocast): thread-local state and the per-op cast policies.
//
// Note [Autocast]
// Autocast state is per thread, like grad mode: an enabled flag and a lower-precision dtype per device type
// (CPU: bfloat16, CUDA: float16 by default), whether the cast cache is used, and the nesting depth of autocast
// regions (Python's torch.autocast counts it; leaving the outermost region clears the cache).
//
// Each op that autocast affects declares its policy at its C++ entry point, in one line:
//     EMBER_AUTOCAST(autocast::kLower, mm, a, b);
// When autocast is enabled for the device type of the op's tensors, that line casts the op's eligible tensor
// arguments and calls the op again with autocast excluded (so that a composite op does not cast again inside);
// otherwise it does nothing. Policies (PyTorch's, per device type; docs/amp.md lists the ops):
//   Lower:   floating inputs other than float64 are cast to the lower-precision dtype (matmul, conv, linear, ...).
//   Fp32:    float16/bfloat16 inputs are cast to float32 (softmax, norms, losses, exp/log on CUDA, ...).
//   Promote: floating inputs other than float64 are cast to the widest of them (cat, addcmul, ...).
//   Banned:  the op raises (binary_cross_entropy on CUDA, which is unsafe in float16).
// Only tensors on the op's device type are cast; float64, integer and bool tensors are left alone. An op given an
// explicit output or dtype is not eligible (callers pass such calls straight to the body).
//
// Cast cache: a float32 leaf that requires grad (a weight) cast to the lower dtype is remembered for the rest of
// the outermost region, so a weight used by several ops is cast once. The cache holds the source tensor, checks
// its version (an in-place update makes the entry stale) and is cleared when the outermost region ends.
//
// Backward runs with autocast disabled (autograd/engine.cpp): each backward op runs in the dtype the forward op
// chose, and the cast's own backward casts the gradient back to the source's dtype, so float32 leaves get float32
// gradients.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::autocast {

enum class Policy : uint8_t { None, Lower, Fp32, Promote, Banned };
// An op's policy on each device type.
struct OpPolicy {
  Policy cpu, cuda;
  const char* name = nullptr;  // for the Banned error message
};

inline constexpr OpPolicy kLower{Policy::Lower, Policy::Lower};
inline constexpr OpPolicy kLowerCuda{Policy::None, Policy::Lower};
inline constexpr OpPolicy kFp32{Policy::Fp32, Policy::Fp32};
inline constexpr OpPolicy kFp32Cuda{Policy::None, Policy::Fp32};
inline constexpr OpPolicy kFp32Cpu{Policy::Fp32, Policy::None};
inline constexpr OpPolicy kPromote{Policy::Promote, Policy::Promote};
inline constexpr OpPolicy kPromoteCuda{Policy::None, Policy::Promote};
inline constexpr OpPolicy kPromoteCpu{Policy::Promote, Policy::None};

// ---- state (all thread-local)
bool is_enabled(DeviceType t);
void set_enabled(DeviceType t, bool enabled);
ScalarType get_dtype(DeviceType t);
void set_dtype(DeviceType t, ScalarType dtype);
bool is_cache_enabled();
void set_cache_enabled(bool enabled);
int increment_nesting();
int decrement_nesting();  // returns the new depth; the caller clears the cache at 0
void clear_cache();
size_t cache_size();  // entries in this thread's cache (tests)
// True when autocast is enabled for some device type and not excluded on this thread (the ops' fast check).
bool any_active();

// RAII: excludes autocast for a scope (an op's body runs under it).
class ExcludeGuard {
 public:
  ExcludeGuard();
  ~ExcludeGuard();
  ExcludeGuard(const ExcludeGuard&) = delete;
  ExcludeGuard& operator=(const ExcludeGuard&) = delete;

 private:
  bool prev_;
};

// RAII: disables autocast on every device type for a scope (the engine runs backward under it); unlike
// ExcludeGuard, an autocast region entered inside (a custom_bwd) takes effect.
class DisabledGuard {
 public:
  DisabledGuard();
  ~DisabledGuard();
  DisabledGuard(const DisabledGuard&) = delete;
  DisabledGuard& operator=(const DisabledGuard&) = delete;

 private:
  bool prev_cpu_, prev_cuda_;
};

// ---- the op machinery behind EMBER_AUTOCAST
namespace detail {

// Casts t to dtype when it is eligible (floating, not float64, on device type dt); uses the cache for weights.
Tensor cast(const Tensor& t, ScalarType dtype, DeviceType dt, bool fp32_policy);
// The policy that applies on device type dt (None when autocast is off there); throws for Banned.
Policy resolve(const OpPolicy& p, DeviceType dt);

inline const Tensor* first_tensor(const Tensor& t) { return t.defined() ? &t : nullptr; }
inline const Tensor* first_tensor(const std::vector<Tensor>& v) {
  for (const Tensor& t : v)
    if (t.defined()) return &t;
  return nullptr;
}
template <class T>
const Tensor* first_tensor(const T&) {
  return nullptr;
}

// Promote policy: float32 if any eligible input is float32 (or a different 16-bit float), else the lower dtype.
inline void widest(ScalarType& w, const Tensor& t, DeviceType dt) {
  if (t.defined() && t.device().type == dt && is_floating(t.dtype()) && t.dtype() != ScalarType::Float64 &&
      t.dtype() != w)
    w = ScalarType::Float32;
}
inline void widest(ScalarType& w, const std::vector<Tensor>& v, DeviceType dt) {
  for (const Tensor& t : v) widest(w, t, dt);
}
template <class T>
void widest(ScalarType&, const T&, DeviceType) {}

struct Caster {
  ScalarType dtype;
  DeviceType dt;
  bool fp32;
  Tensor operator()(const Tensor& t) const { return cast(t, dtype, dt, fp32); }
  std::vector<Tensor> operator()(const std::vector<Tensor>& v) const {
    std::vector<Tensor> r;
    r.reserve(v.size());
    for (const Tensor& t : v) r.push_back(cast(t, dtype, dt, fp32));
    return r;
  }
  template <class T>
  const T& operator()(const T& x) const {
    return x;
  }
};

}  // namespace detail

// The policy to apply to a call with these arguments, and the device type of its tensors (None: run the op as is).
template <class... Args>
std::pair<Policy, DeviceType> policy_for(const OpPolicy& p, const Args&... args) {
  if (!any_active()) [[likely]]
    return {Policy::None, DeviceType::CPU};
  const Tensor* first = nullptr;
  ((first = first ? first : detail::first_tensor(args)), ...);
  if (!first) return {Policy::None, DeviceType::CPU};
  DeviceType dt = first->device().type;
  return {detail::resolve(p, dt), dt};
}

// Casts the arguments for the policy and calls f with them, autocast excluded.
template <class F, class... Args>
decltype(auto) run(std::pair<Policy, DeviceType> pol, F&& f, const Args&... args) {
  auto [policy, dt] = pol;
  ScalarType dtype = get_dtype(dt);
  if (policy == Policy::Fp32) {
    dtype = ScalarType::Float32;
  } else if (policy == Policy::Promote) {
    (detail::widest(dtype, args, dt), ...);
  }
  detail::Caster c{dtype, dt, policy == Policy::Fp32};
  ExcludeGuard guard;
  return f(c(args)...);
}

}  // namespace ember::autocast

// One line at the top of an op: under autocast, casts the arguments per `policy` and returns fn(casted...) run
// with autocast excluded (Note [Autocast]).
#define EMBER_AUTOCAST(policy, fn, ...)                                          \
  if (auto ember_autocast_ = ::ember::autocast::policy_for(policy, __VA_ARGS__); \
      ember_autocast_.first != ::ember::autocast::Policy::None) [[unlikely]]     \
  return ::ember::autocast::run(                                                 \
      ember_autocast_, [&](const auto&... ember_xs_) -> decltype(auto) { return fn(ember_xs_...); }, __VA_ARGS__)
