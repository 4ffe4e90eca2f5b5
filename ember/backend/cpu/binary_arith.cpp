// Arithmetic: + - * / (true, trunc, floor), remainder, fmod, pow, atan2, hypot, copysign.
#include <cmath>
#include <limits>

#include "ember/backend/cpu/binary.h"

namespace ember::cpu {

namespace {

template <class T>
T int_div_trunc(T a, T b) {
  if (b == 0) zero_division("div");
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(a));  // no INT_MIN / -1 trap
  return a / b;
}

template <class T>
T int_mod(T a, T b, bool python) {  // python: the result takes the divisor's sign
  if (b == 0) zero_division(python ? "remainder" : "fmod");
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
    T r = a % b;
    if (python && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    return a % b;
  }
}

template <class T>
T int_div_floor(T a, T b) {
  T q = int_div_trunc(a, b);
  if constexpr (std::is_signed_v<T>)
    if (b != T(-1) && (a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  }
  using U = std::make_unsigned_t<T>;
  U r = 1, x = static_cast<U>(base);
  for (U e = static_cast<U>(exp); e; e >>= 1, x *= x)
    if (e & 1) r *= x;
  return static_cast<T>(r);
}

// PyTorch's floor division for floating types: exact for representable quotients, and like Python.
template <class A>
A float_div_floor(A a, A b) {
  if (b == 0) return a / b;
  A mod = std::fmod(a, b);
  A div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  if (div == 0) return std::copysign(A(0), a / b);
  A fl = std::floor(div);
  if (div - fl > A(0.5)) fl += 1;
  return fl;
}

template <class T>
void arith(BinaryOp op, const StridedIter& it, const Scalar& alpha) {
  using A = Acc<T>;
  auto run = [&](auto f) { cpu_kernel<T, T, 2>(it, [f](T a, T b) -> T { return static_cast<T>(f(A(a), A(b))); }); };
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: {
      if constexpr (std::is_same_v<T, bool>) {  // a + alpha * b in bool: alpha False leaves a
        if (alpha.to_bool())
          run([](A a, A b) { return a || b; });
        else
          run([](A a, A) { return a; });
      } else {
        const A s = op == BinaryOp::Sub ? A(-alpha.to<A>()) : alpha.to<A>();
        if (s == A(1))
          run([](A a, A b) { return a + b; });
        else if (op == BinaryOp::Sub && alpha.to<A>() == A(1))
          run([](A a, A b) { return a - b; });
        else
          run([s](A a, A b) { return a + s * b; });
      }
      return;
    }
    case BinaryOp::Mul:
      if constexpr (std::is_same_v<T, bool>)
        run([](A a, A b) { return a && b; });
      else
        run([](A a, A b) { return a * b; });
      return;
    case BinaryOp::Div:
      if constexpr (is_fp<T>) run([](A a, A b) { return a / b; });
      return;
    case BinaryOp::DivTrunc:
      if constexpr (is_fp<T>)
        run([](A a, A b) { return std::trunc(a / b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([](A a, A b) { return int_div_trunc(a, b); });
      return;
    case BinaryOp::DivFloor:
      if constexpr (is_fp<T>)
        run([](A a, A b) { return float_div_floor(a, b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([](A a, A b) { return int_div_floor(a, b); });
      return;
    case BinaryOp::Remainder:
      if constexpr (is_fp<T>)
        run([](A a, A b) {
          A m = std::fmod(a, b);
          return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
        });
      else if constexpr (!std::is_same_v<T, bool>)
        run([](A a, A b) { return int_mod(a, b, true); });
      return;
    case BinaryOp::Fmod:
      if constexpr (is_fp<T>)
        run([](A a, A b) { return std::fmod(a, b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([](A a, A b) { return int_mod(a, b, false); });
      return;
    case BinaryOp::Pow:
      if constexpr (is_fp<T>)
        run([](A a, A b) { return b == A(2) ? a * a : std::pow(a, b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([](A a, A b) { return int_pow(a, b); });
      return;
    case BinaryOp::Atan2:
      if constexpr (is_fp<T>) run([](A a, A b) { return std::atan2(a, b); });
      return;
    case BinaryOp::Hypot:
      if constexpr (is_fp<T>) run([](A a, A b) { return std::hypot(a, b); });
      return;
    case BinaryOp::Copysign:
      if constexpr (is_fp<T>) run([](A a, A b) { return std::copysign(a, b); });
      return;
    default:
      return;
  }
}

}  // namespace

bool binary_arith(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha) {
  if (op > BinaryOp::Copysign || op == BinaryOp::Maximum || op == BinaryOp::Minimum || op == BinaryOp::Fmax ||
      op == BinaryOp::Fmin)
    return false;
  dispatch_all(compute, [&](auto v) { arith<decltype(v)>(op, it, alpha); });
  return true;
}

}  // namespace ember::cpu
