// The kernel registry: a slot per device kernel (KernelSlot), EMBER_DECLARE_KERNEL to declare one and
// EMBER_REGISTER_KERNEL to fill it. Each kernel is declared once, in ember/backend/kernels/<topic>.h (the kernels of
// torch.nn's ops in backend/kernels/nn/), included by the op sources that call it and the backends that implement it,
// never by public headers. A backend registers its implementation in its own source files; a device without one
// raises NotImplementedError naming the kernel and the device. The slots are constant-initialized, so registration
// at static-init time is safe in any order. Kernels receive validated, allocated operands on one device. The meta
// device's kernels do nothing (backend/meta/, Note [Meta device]): the op computed the output's geometry before.
#pragma once

#include "ember/error.h"
#include "ember/profiler/hook.h"
#include "ember/tensor.h"

namespace ember {

template <class Fn>
struct KernelSlot;

template <class R, class... Args>
struct KernelSlot<R(Args...)> {
  using Fn = R(Args...);
  const char* name;
  Fn* fn[kNumDeviceTypes] = {};  // indexed by DeviceType

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
      fail<NotImplementedError>(name, ": not implemented for ", device_type_name(d.type), " tensors");
    return {name, f, d};
  }
};

#define EMBER_DECLARE_KERNEL(name, ...) inline constinit KernelSlot<void(__VA_ARGS__)> name##_kernel{#name};

#define EMBER_CONCAT_(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_(a, b)
#define EMBER_REGISTER_KERNEL(name, device, impl)  \
  [[maybe_unused]] static const bool EMBER_CONCAT( \
      ember_reg_##name##_,                         \
      __LINE__) = (::ember::name##_kernel.fn[static_cast<int>(::ember::DeviceType::device)] = (impl), true);

}  // namespace ember
