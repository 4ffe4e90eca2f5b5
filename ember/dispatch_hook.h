// __torch_dispatch__'s hook in the C++ ops (Note [Python dispatch]). Included by the op sources that offer their
// calls to it, never by public headers.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::dispatch {

// Note [Python dispatch]
// PyTorch's __torch_dispatch__ (TorchDispatchModes and wrapper subclasses) sees the ATen-level ops that run, below
// autograd, so the ops of a backward too. In ember the ops that take part start with one line,
//     EMBER_PY_DISPATCH(Tensor, "aten.mm.default", a, b);
// naming the op overload and passing its arguments in the order of its ATen schema. The line tests one global
// counter (g_enabled: Python dispatch modes pushed on any thread, plus the live classes that define
// __torch_dispatch__); while it is zero nothing else happens. Otherwise the hook the Python bindings installed gets the
// call, and when a mode is on this thread's stack or an argument is a tensor with __torch_dispatch__, the handler's
// result is the op's result; else (the common case inside a handler, which runs with its mode popped) the op runs as
// usual. The ops of a backward are ember ops called by the gradient formulas, so a mode sees them as it sees the
// forward's.

extern std::atomic<int> g_enabled;
inline bool enabled() { return g_enabled.load(std::memory_order_relaxed) != 0; }

using Value = std::variant<std::monostate, Tensor, std::vector<Tensor>, Scalar, int64_t, double, bool,
                           std::vector<int64_t>, ScalarType, std::string, std::vector<bool>>;

// The Python side: returns the handler's tensors (one per output; an undefined tensor for None), or nullopt when
// nothing took the call. Throws what the handler raised.
using Hook = std::optional<std::vector<Tensor>> (*)(const char* op, std::vector<Value>& args);
extern Hook g_hook;

inline Value value(const Tensor& t) { return t.defined() ? Value(t) : Value(); }
inline Value value(const std::vector<Tensor>& v) { return v; }
inline Value value(const Scalar& s) { return s; }
inline Value value(bool b) { return b; }
inline Value value(double d) { return d; }
inline Value value(ScalarType t) { return t; }
inline Value value(IntArrayRef v) { return std::vector<int64_t>(v.begin(), v.end()); }
inline Value value(const std::vector<int64_t>& v) { return v; }
inline Value value(const std::string& s) { return s; }
template <size_t N>
Value value(const std::array<bool, N>& m) {  // a bool[N] output_mask
  return std::vector<bool>(m.begin(), m.end());
}
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
Value value(T i) {
  return static_cast<int64_t>(i);
}
template <class T>
Value value(const std::optional<T>& o) {
  return o ? value(*o) : Value();
}

template <class... A>
std::vector<Value> values(const A&... a) {
  return {value(a)...};
}

std::optional<std::vector<Tensor>> call(const char* op, std::vector<Value> args);

// Note [Wrapper subclass safety]
// A wrapper subclass instance (Tensor._make_wrapper_subclass) is a meta tensor whose storage has a token for a data
// pointer (Note [Wrapper subclass identity] in python/src/python_dispatch.cpp); an ordinary meta tensor's has none. An
// op that offers no call to __torch_dispatch__ would run on the wrapper's meta geometry and hand back a meta tensor in
// place of the values the wrapper stands for, so the meta device's kernels refuse such arguments with a
// NotImplementedError naming the kernel. The test costs nothing on the real devices (their kernels are other
// functions) and one load on meta while dispatch is off. Recording a wrapper op's autograd node runs the op itself on
// the wrappers on purpose (Note [Wrapper subclass autograd]); that is the one time the kernels let them through.
extern thread_local bool t_wrapper_recording;
bool has_wrapper_data(const Tensor* t);
[[noreturn]] void refuse_wrapper(const char* kernel);
template <class... T>
inline void check_no_wrapper(const char* kernel, const T*... t) {
  if (enabled() && !t_wrapper_recording) [[unlikely]] {
    if ((has_wrapper_data(t) || ...)) refuse_wrapper(kernel);
  }
}

// The call with its arguments packed, out of line and cold: the op's own code keeps only the test and a call (no
// argument vector in its frame), so the hot path costs what the one relaxed load costs.
template <class... A>
[[gnu::cold, gnu::noinline]] std::optional<std::vector<Tensor>> offer(const char* op, const A&... a) {
  return call(op, values(a...));
}

template <class R>
R result(std::vector<Tensor>&& r);
template <>
inline Tensor result<Tensor>(std::vector<Tensor>&& r) {
  return r.empty() ? Tensor() : std::move(r[0]);
}
template <>
inline std::vector<Tensor> result<std::vector<Tensor>>(std::vector<Tensor>&& r) {
  return std::move(r);
}
using Pair = std::pair<Tensor, Tensor>;  // (values, indices) of max.dim, sort, topk
template <>
inline Pair result<Pair>(std::vector<Tensor>&& r) {
  r.resize(2);
  return {std::move(r[0]), std::move(r[1])};
}
// A reduction's dims as PyTorch's int[1]? (None for all of them).
inline std::optional<std::vector<int64_t>> dims_or_none(IntArrayRef d) {
  if (d.empty()) return std::nullopt;
  return std::vector<int64_t>(d.begin(), d.end());
}

}  // namespace ember::dispatch

#define EMBER_PY_DISPATCH(R, op, ...)                                                                               \
  do {                                                                                                              \
    if (::ember::dispatch::enabled()) [[unlikely]] {                                                                \
      if (auto r_ = ::ember::dispatch::offer(op, __VA_ARGS__)) return ::ember::dispatch::result<R>(std::move(*r_)); \
    }                                                                                                               \
  } while (0)
