// The binary ops' formulas, for every backend (Note [Shared elementwise math] in common.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ember/backend/math/common.h"
#include "ember/ops/binary_op.h"
#include "ember/scalar.h"

namespace ember::math {

// c ? x : y for float or double, as bit arithmetic. GCC (under -ftrapping-math) sinks the arms of a ?: into
// branches, which mispredict on mixed data and keep the loop scalar: huber_loss's term ran 3.5 ns per element.
template <class A>
EMBER_HOST_DEVICE A select_bits(bool c, A x, A y) {
#ifdef __CUDA_ARCH__
  return c ? x : y;
#else
  using U = std::conditional_t<sizeof(A) == 4, uint32_t, uint64_t>;
  static_assert(sizeof(A) == sizeof(U));
  U ux, uy;
  std::memcpy(&ux, &x, sizeof x);
  std::memcpy(&uy, &y, sizeof y);
  const U m = U(0) - U(c), r = (ux & m) | (uy & ~m);
  A out;
  std::memcpy(&out, &r, sizeof r);
  return out;
#endif
}

// Integer division and remainder by zero go to the runner's error sink (the CPU raises at once; CUDA kernels
// report it and the host raises at its next wait) and then yield 0.
template <class T, class E>
EMBER_HOST_DEVICE T int_div_trunc(T a, T b, const E& err) {
  if (b == 0) {
    err.zero_division("div");
    return 0;
  }
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(a));  // no INT_MIN / -1 trap
  return a / b;
}

template <class T, class E>
EMBER_HOST_DEVICE T int_mod(T a, T b, bool python, const E& err) {  // python: the result takes the divisor's sign
  if (b == 0) {
    err.zero_division(python ? "remainder" : "fmod");
    return 0;
  }
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
    T r = a % b;
    if (python && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    return a % b;
  }
}

template <class T, class E>
EMBER_HOST_DEVICE T int_div_floor(T a, T b, const E& err) {
  T q = int_div_trunc(a, b, err);
  if constexpr (std::is_signed_v<T>)
    if (b != 0 && b != T(-1) && (a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

template <class T>
EMBER_HOST_DEVICE T int_pow(T base, T exp) {
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
EMBER_HOST_DEVICE A float_div_floor(A a, A b) {
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
EMBER_HOST_DEVICE bool is_negative(T x) {
  if constexpr (std::is_signed_v<T>)
    return x < 0;
  else
    return false;
}

// Integer + - * wrap around (two's complement), as PyTorch's do; computed in the unsigned type, since signed overflow
// is undefined behaviour in C++ (UBSan reports it, and the compiler may assume it never happens).
template <class A>
EMBER_HOST_DEVICE A wrap_add(A a, A b) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) + U(b));
  } else {
    return a + b;
  }
}
template <class A>
EMBER_HOST_DEVICE A wrap_sub(A a, A b) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) - U(b));
  } else {
    return a - b;
  }
}
template <class A>
EMBER_HOST_DEVICE A wrap_mul(A a, A b) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) * U(b));
  } else {
    return a * b;
  }
}

// + - * / (true, trunc, floor), remainder, fmod, pow, atan2, hypot, copysign, and the smooth L1 and Huber terms.
// Returns false for the other ops.
template <class T, class K>
bool arith_ops(BinaryOp op, const K& k, const Scalar& alpha) {
  using A = Acc<T>;
  auto run = [&](auto f) { k.template kernel<T, T, 2>(Same2<T, decltype(f)>{f}); };
  const auto err = k.errors();
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: {
      if constexpr (std::is_same_v<T, bool>) {  // a + alpha * b in bool: alpha False leaves a
        if (alpha.to_bool())
          run([] EMBER_LAMBDA(A a, A b) { return a || b; });
        else
          run([] EMBER_LAMBDA(A a, A) { return a; });
      } else {
        const A s = op == BinaryOp::Sub ? wrap_sub(A(0), alpha.to<A>()) : alpha.to<A>();
        if (s == A(1))
          run([] EMBER_LAMBDA(A a, A b) { return wrap_add(a, b); });
        else if (op == BinaryOp::Sub && alpha.to<A>() == A(1))
          run([] EMBER_LAMBDA(A a, A b) { return wrap_sub(a, b); });
        else
          run([s] EMBER_LAMBDA(A a, A b) { return wrap_add(a, wrap_mul(s, b)); });
      }
      return true;
    }
    case BinaryOp::Mul:
      if constexpr (std::is_same_v<T, bool>)
        run([] EMBER_LAMBDA(A a, A b) { return a && b; });
      else
        run([] EMBER_LAMBDA(A a, A b) { return wrap_mul(a, b); });
      return true;
    case BinaryOp::Div:
      if constexpr (is_fp<T>) run([] EMBER_LAMBDA(A a, A b) { return a / b; });
      return true;
    case BinaryOp::DivTrunc:
      if constexpr (is_fp<T>)
        run([] EMBER_LAMBDA(A a, A b) { return std::trunc(a / b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([err] EMBER_LAMBDA(A a, A b) { return int_div_trunc(a, b, err); });
      return true;
    case BinaryOp::DivFloor:
      if constexpr (is_fp<T>)
        run([] EMBER_LAMBDA(A a, A b) { return float_div_floor(a, b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([err] EMBER_LAMBDA(A a, A b) { return int_div_floor(a, b, err); });
      return true;
    case BinaryOp::Remainder:
      if constexpr (is_fp<T>)
        run([] EMBER_LAMBDA(A a, A b) {
          A m = std::fmod(a, b);
          return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
        });
      else if constexpr (!std::is_same_v<T, bool>)
        run([err] EMBER_LAMBDA(A a, A b) { return int_mod(a, b, true, err); });
      return true;
    case BinaryOp::Fmod:
      if constexpr (is_fp<T>)
        run([] EMBER_LAMBDA(A a, A b) { return std::fmod(a, b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([err] EMBER_LAMBDA(A a, A b) { return int_mod(a, b, false, err); });
      return true;
    case BinaryOp::Pow:
      if constexpr (is_fp<T>)
        run([] EMBER_LAMBDA(A a, A b) { return b == A(2) ? a * a : std::pow(a, b); });
      else if constexpr (!std::is_same_v<T, bool>)
        run([] EMBER_LAMBDA(A a, A b) { return int_pow(a, b); });
      return true;
    case BinaryOp::Atan2:
      if constexpr (is_fp<T>) run([] EMBER_LAMBDA(A a, A b) { return std::atan2(a, b); });
      return true;
    case BinaryOp::Hypot:
      if constexpr (is_fp<T>) run([] EMBER_LAMBDA(A a, A b) { return std::hypot(a, b); });
      return true;
    case BinaryOp::Copysign:
      if constexpr (is_fp<T>) run([] EMBER_LAMBDA(A a, A b) { return std::copysign(a, b); });
      return true;
    // PyTorch's formulas, in its order of operations, both arms computed and selected by bits (so that they vectorize).
    case BinaryOp::SmoothL1:
      if constexpr (is_fp<T>) {
        const A beta = alpha.to<A>();  // (nvcc takes no init-capture in a __host__ __device__ lambda)
        run([beta] EMBER_LAMBDA(A a, A b) {
          const A z = std::abs(a - b);
          return select_bits(z < beta, A(0.5) * z * z / beta, z - A(0.5) * beta);
        });
      }
      return true;
    case BinaryOp::Huber:
      if constexpr (is_fp<T>) {
        const A delta = alpha.to<A>();
        run([delta] EMBER_LAMBDA(A a, A b) {
          const A z = std::abs(a - b);
          return select_bits(z < delta, A(0.5) * z * z, delta * (z - A(0.5) * delta));
        });
      }
      return true;
    default: return false;
  }
}

// Comparisons, min/max, logical and bitwise ops, shifts. Returns false for the other ops.
template <class T, class K>
bool logic_ops(BinaryOp op, const K& k) {
  using A = Acc<T>;
  auto cmp = [&](auto f) { k.template kernel<bool, T, 2>(Pred2<T, decltype(f)>{f}); };
  auto same = [&](auto f) { k.template kernel<T, T, 2>(Same2<T, decltype(f)>{f}); };
  switch (op) {
    case BinaryOp::Eq: cmp([] EMBER_LAMBDA(A a, A b) { return a == b; }); return true;
    case BinaryOp::Ne: cmp([] EMBER_LAMBDA(A a, A b) { return a != b; }); return true;
    case BinaryOp::Lt: cmp([] EMBER_LAMBDA(A a, A b) { return a < b; }); return true;
    case BinaryOp::Le: cmp([] EMBER_LAMBDA(A a, A b) { return a <= b; }); return true;
    case BinaryOp::Gt: cmp([] EMBER_LAMBDA(A a, A b) { return a > b; }); return true;
    case BinaryOp::Ge: cmp([] EMBER_LAMBDA(A a, A b) { return a >= b; }); return true;
    case BinaryOp::LogicalAnd: cmp([] EMBER_LAMBDA(A a, A b) { return a != A(0) && b != A(0); }); return true;
    case BinaryOp::LogicalOr: cmp([] EMBER_LAMBDA(A a, A b) { return a != A(0) || b != A(0); }); return true;
    case BinaryOp::LogicalXor: cmp([] EMBER_LAMBDA(A a, A b) { return (a != A(0)) != (b != A(0)); }); return true;
    case BinaryOp::Maximum:  // NaN propagates
      if constexpr (is_fp<T>)
        same([] EMBER_LAMBDA(A a, A b) { return a != a ? a : b != b ? b : (a > b ? a : b); });
      else
        same([] EMBER_LAMBDA(A a, A b) { return a > b ? a : b; });
      return true;
    case BinaryOp::Minimum:
      if constexpr (is_fp<T>)
        same([] EMBER_LAMBDA(A a, A b) { return a != a ? a : b != b ? b : (a < b ? a : b); });
      else
        same([] EMBER_LAMBDA(A a, A b) { return a < b ? a : b; });
      return true;
    case BinaryOp::Fmax:  // NaN is ignored
      if constexpr (is_fp<T>)
        same([] EMBER_LAMBDA(A a, A b) { return std::fmax(a, b); });
      else
        same([] EMBER_LAMBDA(A a, A b) { return a > b ? a : b; });
      return true;
    case BinaryOp::Fmin:
      if constexpr (is_fp<T>)
        same([] EMBER_LAMBDA(A a, A b) { return std::fmin(a, b); });
      else
        same([] EMBER_LAMBDA(A a, A b) { return a < b ? a : b; });
      return true;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case BinaryOp::BitAnd: same([] EMBER_LAMBDA(A a, A b) { return a & b; }); return true;
      case BinaryOp::BitOr: same([] EMBER_LAMBDA(A a, A b) { return a | b; }); return true;
      case BinaryOp::BitXor: same([] EMBER_LAMBDA(A a, A b) { return a ^ b; }); return true;
      default: break;
    }
    if constexpr (!std::is_same_v<T, bool>) {
      constexpr A bits = static_cast<A>(sizeof(T) * 8);
      using U = std::make_unsigned_t<T>;
      // Shifts by a negative count or by the width or more are defined, as in PyTorch.
      if (op == BinaryOp::Shl) {
        same([] EMBER_LAMBDA(A a, A b) {
          return (is_negative(b) || b >= bits) ? A(0) : static_cast<A>(static_cast<U>(a) << b);
        });
        return true;
      }
      if (op == BinaryOp::Shr) {
        same([] EMBER_LAMBDA(A a, A b) {
          return (is_negative(b) || b >= bits) ? (is_negative(a) ? A(-1) : A(0)) : A(a >> b);
        });
        return true;
      }
    }
  }
  return false;
}

}  // namespace ember::math
