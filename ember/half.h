// 16-bit floating types stored as raw bits; arithmetic goes through float.
// Conversions round to nearest even, as IEEE 754 and PyTorch do.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ember/macros.h"

namespace ember {

namespace detail {
EMBER_HOST_DEVICE uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
EMBER_HOST_DEVICE float bits_f32(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// On the device, float16 conversions are one hardware instruction each (cvt; NaN becomes the canonical 0x7fff, the
// only difference from the host's bit-level rounding below, which keeps the sign).
EMBER_HOST_DEVICE uint16_t f32_to_f16(float f) {
#if defined(__CUDA_ARCH__)
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#endif
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (ax < 0x38800000u) {           // subnormal or zero in half: let the FPU round via a magic add
    float r = bits_f32(ax) + 0.5f;  // 0.5 = 2^-1: aligns the half subnormal ulp (2^-24) to float's ulp
    return static_cast<uint16_t>(sign | (f32_bits(r) - 0x3f000000u));
  }
  uint32_t mant_odd = (ax >> 13) & 1u;
  ax += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (ax >> 13));
}

EMBER_HOST_DEVICE float f16_to_f32(uint16_t h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#endif
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  if (em >= 0x7c00u) return bits_f32(sign | 0x7f800000u | (static_cast<uint32_t>(em & 0x3ffu) << 13));
  if (em < 0x0400u) return bits_f32(sign | f32_bits(static_cast<float>(em) * 5.9604644775390625e-8f));
  return bits_f32(sign | ((em << 13) + 0x38000000u));
}

EMBER_HOST_DEVICE uint16_t f32_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}
EMBER_HOST_DEVICE float bf16_to_f32(uint16_t b) { return bits_f32(static_cast<uint32_t>(b) << 16); }
}  // namespace detail

namespace detail {
struct HalfFormat {
  EMBER_HOST_DEVICE static uint16_t encode(float f) { return f32_to_f16(f); }
  EMBER_HOST_DEVICE static float decode(uint16_t b) { return f16_to_f32(b); }
};
struct BFloat16Format {
  EMBER_HOST_DEVICE static uint16_t encode(float f) { return f32_to_bf16(f); }
  EMBER_HOST_DEVICE static float decode(uint16_t b) { return bf16_to_f32(b); }
};
}  // namespace detail

// A 16-bit float stored as bits; Format says how it encodes a float.
template <class Format>
struct Float16Of {
  uint16_t x = 0;
  Float16Of() = default;
  EMBER_HOST_DEVICE Float16Of(float f) : x(Format::encode(f)) {}
  EMBER_HOST_DEVICE Float16Of(double d) : Float16Of(static_cast<float>(d)) {}
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  EMBER_HOST_DEVICE Float16Of(I i) : Float16Of(static_cast<float>(i)) {}
  EMBER_HOST_DEVICE operator float() const { return Format::decode(x); }
  EMBER_HOST_DEVICE static Float16Of from_bits(uint16_t b) {
    Float16Of h;
    h.x = b;
    return h;
  }
};

using Half = Float16Of<detail::HalfFormat>;
using BFloat16 = Float16Of<detail::BFloat16Format>;

}  // namespace ember
