// Comparisons, min/max, logical and bitwise ops, shifts.
#include <cmath>

#include "ember/backend/cpu/binary.h"

namespace ember::cpu {

namespace {

template <class T>
void logic(BinaryOp op, const StridedIter& it) {
  using A = Acc<T>;
  auto cmp = [&](auto f) { cpu_kernel<bool, T, 2>(it, [f](T a, T b) -> bool { return f(A(a), A(b)); }); };
  auto same = [&](auto f) { cpu_kernel<T, T, 2>(it, [f](T a, T b) -> T { return static_cast<T>(f(A(a), A(b))); }); };
  switch (op) {
    case BinaryOp::Eq: return cmp([](A a, A b) { return a == b; });
    case BinaryOp::Ne: return cmp([](A a, A b) { return a != b; });
    case BinaryOp::Lt: return cmp([](A a, A b) { return a < b; });
    case BinaryOp::Le: return cmp([](A a, A b) { return a <= b; });
    case BinaryOp::Gt: return cmp([](A a, A b) { return a > b; });
    case BinaryOp::Ge: return cmp([](A a, A b) { return a >= b; });
    case BinaryOp::LogicalAnd: return cmp([](A a, A b) { return a != A(0) && b != A(0); });
    case BinaryOp::LogicalOr: return cmp([](A a, A b) { return a != A(0) || b != A(0); });
    case BinaryOp::LogicalXor: return cmp([](A a, A b) { return (a != A(0)) != (b != A(0)); });
    case BinaryOp::Maximum:  // NaN propagates
      if constexpr (is_fp<T>) return same([](A a, A b) { return a != a ? a : b != b ? b : (a > b ? a : b); });
      else return same([](A a, A b) { return a > b ? a : b; });
    case BinaryOp::Minimum:
      if constexpr (is_fp<T>) return same([](A a, A b) { return a != a ? a : b != b ? b : (a < b ? a : b); });
      else return same([](A a, A b) { return a < b ? a : b; });
    case BinaryOp::Fmax:  // NaN is ignored
      if constexpr (is_fp<T>) return same([](A a, A b) { return std::fmax(a, b); });
      else return same([](A a, A b) { return a > b ? a : b; });
    case BinaryOp::Fmin:
      if constexpr (is_fp<T>) return same([](A a, A b) { return std::fmin(a, b); });
      else return same([](A a, A b) { return a < b ? a : b; });
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case BinaryOp::BitAnd: return same([](A a, A b) { return a & b; });
      case BinaryOp::BitOr: return same([](A a, A b) { return a | b; });
      case BinaryOp::BitXor: return same([](A a, A b) { return a ^ b; });
      default: break;
    }
    if constexpr (!std::is_same_v<T, bool>) {
      constexpr A bits = static_cast<A>(sizeof(T) * 8);
      using U = std::make_unsigned_t<T>;
      // Shifts by a negative count or by the width or more are defined, as in PyTorch.
      if (op == BinaryOp::Shl)
        return same([](A a, A b) { return (b < 0 || b >= bits) ? A(0) : static_cast<A>(static_cast<U>(a) << b); });
      if (op == BinaryOp::Shr)
        return same([](A a, A b) { return (b < 0 || b >= bits) ? (a < 0 ? A(-1) : A(0)) : A(a >> b); });
    }
  }
}

}  // namespace

bool binary_logic(BinaryOp op, const StridedIter& it, ScalarType compute) {
  dispatch_all(compute, [&](auto v) { logic<decltype(v)>(op, it); });
  return true;
}

}  // namespace ember::cpu
