// The ternary ops' formulas, for every backend (Note [Shared elementwise math] in common.h). where's condition is
// loaded as the compute type (Note [Casting on load]).
#pragma once

#include "ember/backend/math/common.h"
#include "ember/ops/ternary_op.h"
#include "ember/scalar.h"

namespace ember::math {

template <class T, class K>
void ternary_ops(TernaryOp op, const K& k, const Scalar& value) {
  using A = Acc<T>;
  auto run = [&](auto f) { k.template kernel<T, T, 3>(Same3<T, decltype(f)>{f}); };
  switch (op) {
    case TernaryOp::Where: return run([] EMBER_LAMBDA(A c, A x, A y) { return c != A(0) ? x : y; });
    case TernaryOp::Lerp:
      if constexpr (is_fp<T>)
        run([] EMBER_LAMBDA(A s, A e, A w) {  // PyTorch 2's: the formula whose error is small for this weight
          return (w < A(0) ? -w : w) < A(0.5) ? s + w * (e - s) : e - (e - s) * (A(1) - w);
        });
      return;
    case TernaryOp::AddCMul:
      if constexpr (std::is_same_v<T, bool>) {
        const bool v = value.to_bool();
        run([v] EMBER_LAMBDA(A x, A a, A b) { return x || (v && a && b); });
      } else {
        const A v = value.to<A>();
        run([v] EMBER_LAMBDA(A x, A a, A b) { return x + v * a * b; });
      }
      return;
    case TernaryOp::AddCDiv:
      if constexpr (is_fp<T>) {
        const A v = value.to<A>();
        run([v] EMBER_LAMBDA(A x, A a, A b) { return x + v * a / b; });
      }
      return;
  }
}

}  // namespace ember::math
