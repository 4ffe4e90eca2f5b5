// The device kernels, each declared once: here, or in its op family's header under ember/ops/. A backend
// registers its implementation with EMBER_REGISTER_KERNEL in its own source files; a device without one
// raises NotImplementedError naming the kernel and the device. The slots are constant-initialized, so registration at static-init time
// is safe in any order. Kernels receive validated, allocated operands on one device.
#pragma once

#include "ember/error.h"
#include "ember/generator.h"
#include "ember/profiler/hook.h"
#include "ember/tensor.h"

namespace ember {

template <class Fn>
struct KernelSlot;

template <class R, class... Args>
struct KernelSlot<R(Args...)> {
  using Fn = R(Args...);
  const char* name;
  Fn* fn[2] = {nullptr, nullptr};  // indexed by DeviceType

  // What `slot[device]` gives: the kernel, called inside a profiler scope named after the slot while the
  // profiler is on (ember/profiler/hook.h); when it is off, the cost is one relaxed load.
  struct Call {
    const char* name;
    Fn* f;
    Device d;
    R operator()(Args... args) const {
      if (profiler::active()) [[unlikely]] {
        profiler::KernelScope scope(name, d, {profiler::kernel_arg(args)...});
        return f(std::forward<Args>(args)...);
      }
      return f(std::forward<Args>(args)...);
    }
  };

  Call operator[](Device d) const {
    Fn* f = fn[static_cast<int>(d.type)];
    if (!f) [[unlikely]]
      fail<NotImplementedError>(name, ": not implemented for ", d.is_cuda() ? "cuda" : "cpu", " tensors");
    return {name, f, d};
  }
};

#define EMBER_DECLARE_KERNEL(name, ...) inline constinit KernelSlot<void(__VA_ARGS__)> name##_kernel{#name};

// dst and src have the same shape and device; dtypes may differ (the copy casts).
EMBER_DECLARE_KERNEL(copy, const Tensor& dst, const Tensor& src)
EMBER_DECLARE_KERNEL(fill, const Tensor& dst, const Scalar& value)
// dst is contiguous: dst[i] = start + i * step.
EMBER_DECLARE_KERNEL(arange, const Tensor& dst, const Scalar& start, const Scalar& step)
// dst is contiguous with n elements: evenly spaced from start to end; with log_scale, base ** that.
EMBER_DECLARE_KERNEL(linspace, const Tensor& dst, double start, double end, bool log_scale, double base)
// Random kernels write a contiguous dst from the Philox stream `s` (Note [Random numbers]).
EMBER_DECLARE_KERNEL(uniform, const Tensor& dst, double from, double to, PhiloxState s)
// mean and std come from the scalars, or from float64 tensors of dst's shape where those are defined.
EMBER_DECLARE_KERNEL(normal, const Tensor& dst, double mean, double std, const Tensor& mean_t, const Tensor& std_t,
                     PhiloxState s)
// Integers uniform in [low, low + range); range 0 means the full 64-bit range.
EMBER_DECLARE_KERNEL(random_int, const Tensor& dst, int64_t low, uint64_t range, PhiloxState s)
// dst[i] = u_i < p[i] with p a float tensor of dst's shape.
EMBER_DECLARE_KERNEL(bernoulli, const Tensor& dst, const Tensor& p, PhiloxState s)
// Host-side samplers: dst is an int64 CPU tensor. randperm: a permutation of 0..n-1 (Fisher-Yates).
EMBER_DECLARE_KERNEL(randperm, const Tensor& dst, PhiloxState s)
// probs: float64 [rows, categories], rows validated; dst: int64 [rows, num_samples].
EMBER_DECLARE_KERNEL(multinomial, const Tensor& dst, const Tensor& probs, bool replacement, PhiloxState s)

#define EMBER_CONCAT_(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_(a, b)
#define EMBER_REGISTER_KERNEL(name, device, impl)                                   \
  [[maybe_unused]] static const bool EMBER_CONCAT(ember_reg_##name##_, __LINE__) = \
      (::ember::name##_kernel.fn[static_cast<int>(::ember::DeviceType::device)] = (impl), true);

}  // namespace ember
