// The kernel registry: a slot per device kernel (KernelSlot), EMBER_DECLARE_KERNEL to declare one and
// EMBER_REGISTER_KERNEL to fill it. Each kernel is declared once, in ember/backend/kernels/<topic>.h (the kernels of
// torch.nn's ops in backend/kernels/nn/), included by the op sources that call it and the backends that implement it,
// never by public headers. A backend registers its implementation in its own source files; a device without one
// raises NotImplementedError naming the kernel and the device. The slots are constant-initialized, so registration
// at static-init time is safe in any order. Kernels receive validated, allocated operands on one device. The meta
// device's kernels do nothing (backend/meta/, Note [Meta device]): the op computed the output's geometry before.
#pragma once

#include <array>
#include <type_traits>
#include <utility>

#include "ember/error.h"
#include "ember/profiler/hook.h"
#include "ember/tensor.h"

namespace ember {

// Note [The conjugate bit] (ember/ops/conj_bit.cpp): kernels read and write memory, never the bit. A kernel call with
// a conjugate-bit tensor argument goes through resolved copies; these two do the work (defined in ops/conj_bit.cpp).
namespace conj_bit {
// t's elements (the conjugates of its memory) in new memory without the bit.
Tensor resolved(const Tensor& t);
// Stores `values` into dst, a tensor with the bit: its memory takes their conjugates.
void write_back(const Tensor& dst, const Tensor& values);
// A kernel argument of type A: a `const Tensor&` is a tensor the bit applies to (a `Tensor&` is one the kernel sets).
template <class A, class V>
const Tensor* tensor_arg(const V& a) {
  if constexpr (std::is_same_v<A, const Tensor&>)
    return &a;
  else
    return nullptr;
}
template <class A, class V>
bool is_conj_arg(const V& a) {
  if constexpr (std::is_same_v<A, const Tensor&>)
    return a.defined() && a.is_conj();
  else
    return false;
}
// The argument passed on: the resolved copy when there is one.
template <class A>
A&& pass(A&& a, const Tensor& resolved) {
  if constexpr (std::is_same_v<A, const Tensor&>)
    return resolved.defined() ? resolved : a;
  else
    return std::forward<A>(a);
}
// A tensor argument that the kernel takes with its bit (`const conj_bit::Operand&` in the declaration): the call passes
// it on as it is and every backend's kernel reads t.is_conj() itself. The matmul kernels fold the bit into BLAS's
// conjugate flags (Note [Conjugate operands of GEMM] in backend/cpu/blas.cpp), where a resolved copy costs a pass
// over the matrix.
class Operand : public Tensor {
 public:
  Operand(const Tensor& t) : Tensor(t) {}  // NOLINT(google-explicit-constructor): callers pass tensors
};
}  // namespace conj_bit

namespace profiler {
inline KernelArg kernel_arg(const conj_bit::Operand& t) { return kernel_arg(static_cast<const Tensor&>(t)); }
}  // namespace profiler

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
      // One byte load per tensor argument; complex tensors only ever have the bit (Note [The conjugate bit]).
      if ((conj_bit::is_conj_arg<Args>(args) || ...)) [[unlikely]]
        return resolving_conj(std::index_sequence_for<Args...>{}, std::forward<Args>(args)...);
      if (profiler::active()) [[unlikely]] {
        profiler::KernelScope scope(name, d, {profiler::kernel_arg(args)...});
        return f(std::forward<Args>(args)...);
      }
      return f(std::forward<Args>(args)...);
    }

    // The kernel on resolved copies of the conjugate-bit tensors; the first tensor argument is the one kernels write
    // (their declarations list outputs first), so when it has the bit, the result is written back conjugated.
    template <size_t... I>
    R resolving_conj(std::index_sequence<I...>, Args... args) const {
      std::array<Tensor, sizeof...(Args)> tmp;
      const Tensor* dst = nullptr;
      size_t dst_index = 0;
      int tensors = 0;
      auto prepare = [&](size_t i, const Tensor* t) {
        if (!t) return;
        if (t->defined() && t->is_conj()) {
          tmp[i] = conj_bit::resolved(*t);
          if (tensors == 0) dst = t, dst_index = i;
        }
        ++tensors;
      };
      (prepare(I, conj_bit::tensor_arg<Args>(args)), ...);
      if constexpr (std::is_void_v<R>) {
        (*this)(conj_bit::pass<Args>(std::forward<Args>(args), tmp[I])...);
        if (dst) conj_bit::write_back(*dst, tmp[dst_index]);
      } else {
        R r = (*this)(conj_bit::pass<Args>(std::forward<Args>(args), tmp[I])...);
        if (dst) conj_bit::write_back(*dst, tmp[dst_index]);
        return r;
      }
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
