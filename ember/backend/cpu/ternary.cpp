// CPU ternary kernels. where's condition is loaded as the compute type (Note [Casting on load]).
#include "ember/backend/cpu/binary.h"
#include "ember/ops/ternary.h"

namespace ember::cpu {

namespace {

template <class T>
void run(TernaryOp op, const StridedIter& it, const Scalar& value) {
  using A = Acc<T>;
  auto k = [&](auto f) {
    cpu_kernel<T, T, 3>(it, [f](T a, T b, T c) -> T { return static_cast<T>(f(A(a), A(b), A(c))); });
  };
  switch (op) {
    case TernaryOp::Where: return k([](A c, A x, A y) { return c != A(0) ? x : y; });
    case TernaryOp::Lerp:
      if constexpr (is_fp<T>)
        k([](A s, A e, A w) { return w < A(0.5) ? s + w * (e - s) : e - (e - s) * (A(1) - w); });
      return;
    case TernaryOp::AddCMul:
      if constexpr (std::is_same_v<T, bool>) k([v = value.to_bool()](A x, A a, A b) { return x || (v && a && b); });
      else k([v = value.to<A>()](A x, A a, A b) { return x + v * a * b; });
      return;
    case TernaryOp::AddCDiv:
      if constexpr (is_fp<T>) k([v = value.to<A>()](A x, A a, A b) { return x + v * a / b; });
      return;
  }
}

void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, ScalarType compute,
             const Scalar& value) {
  StridedIter it = StridedIter::make({&out, &a, &b, &c}, out.sizes());
  dispatch_all(compute, [&](auto v) { run<decltype(v)>(op, it, value); });
}

}  // namespace

EMBER_REGISTER_KERNEL(ternary, CPU, ternary)

}  // namespace ember::cpu
