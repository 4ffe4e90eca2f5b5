// Casting copies that the element loop (convert<Out>(v) per element) leaves scalar.
//
// Note [Casts through float32]
// Every conversion to a 16-bit float is "to float32, then round" and every one from it "widen to float32, then
// convert" (ember/half.h), so a cast with a 16-bit float on one side and anything but float32 on the other runs in
// blocks staged in float32: the 16-bit side through the vectorized conversions (Note [Vectorized 16-bit conversion]),
// the other through a plain loop. The bits are the element loop's; only the order of work changes. 64K elements at
// one thread: float16 -> float64 63 -> 10 us, int32 -> float16 114 -> 8.5 (PyTorch 2.15: 29 and 32).
//
// Note [Floating to integer]
// convert<int8/uint8/int16/int32>(float) goes through int64 so that values out of range wrap (detail/convert.h);
// AVX2 has no vector conversion to int64, so that loop runs one element at a time. Where a chunk's values all lie in
// int32's range the conversion to int32 gives the same bits: the chunk is converted by the vector instructions, whose
// result for NaN and out-of-range values (INT_MIN) sends the chunk to the element loop. float32 -> int32, 64K
// elements at one thread: 32 -> 5.3 us (PyTorch 7.9); float64 -> int32 17 -> 8.7 us (PyTorch 11.5): an in-range test
// before converting, which this replaced, did not vectorize well for float64.
//
// GCC does not vectorize a conversion from bool either; bools are read as bytes instead (min(byte, 1), which also
// keeps a stray byte of a reinterpreted tensor 0 or 1). bool -> int32: 18 -> 3.4 us (PyTorch 5.1).
#include "ember/backend/cpu/cast.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/backend/cpu/half_convert.h"
#include "ember/backend/cpu/loops.h"
#include "ember/detail/convert.h"

namespace ember::cpu {
namespace {

constexpr int64_t kBlock = 256;  // elements staged in float32 at a time (1 KiB, in L1)

bool is_half(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }
bool is_narrow_int(ScalarType t) {
  return t == ScalarType::Int8 || t == ScalarType::UInt8 || t == ScalarType::Int16 || t == ScalarType::Int32;
}

template <class Out, class In>
constexpr bool kThroughInt32 = std::is_floating_point_v<In>&& std::is_integral_v<Out> && !std::is_same_v<Out, bool> &&
                               sizeof(Out) <= 4;

constexpr int64_t kChunk = 32;

// o[i] = a[i] truncated to int32 for a chunk; false when some value is NaN or out of int32's range (the caller then
// converts the chunk one element at a time).
template <class In>
bool int32_chunk(const In* __restrict a, int32_t* __restrict o) {
#if defined(__AVX2__)
  // The conversion instructions answer NaN and out-of-range values with INT_MIN; a true INT_MIN is redone too, to the
  // same value.
  const __m256i indefinite = _mm256_set1_epi32(INT32_MIN);
  __m256i bad = _mm256_setzero_si256();
  for (int64_t i = 0; i < kChunk; i += 8) {
    __m256i v;
    if constexpr (std::is_same_v<In, float>)
      v = _mm256_cvttps_epi32(_mm256_loadu_ps(a + i));
    else
      v = _mm256_set_m128i(_mm256_cvttpd_epi32(_mm256_loadu_pd(a + i + 4)),
                           _mm256_cvttpd_epi32(_mm256_loadu_pd(a + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), v);
    bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(v, indefinite));
  }
  return _mm256_testz_si256(bad, bad);
#else
  int in_range = 1;  // (an int and &, not bool and &&, or the check itself stays scalar)
  for (int64_t i = 0; i < kChunk; ++i)
    in_range &= (a[i] > In(-2147483649.0)) & (a[i] < In(2147483648.0));  // NaN is out of range
  if (!in_range) return false;
  for (int64_t i = 0; i < kChunk; ++i) o[i] = static_cast<int32_t>(a[i]);
  return true;
#endif
}

// o[i] = convert<Out>(a[i]) for i < n (Note [Floating to integer]).
template <class Out, class In>
void convert_run(const In* __restrict a, Out* __restrict o, int64_t n) {
  if constexpr (kThroughInt32<Out, In>) {
    int64_t b = 0;
    alignas(32) int32_t buf[kChunk];
    for (; b + kChunk <= n; b += kChunk) {
      int32_t* t = std::is_same_v<Out, int32_t> ? reinterpret_cast<int32_t*>(o + b) : buf;
      if (int32_chunk(a + b, t)) {
        if constexpr (!std::is_same_v<Out, int32_t>)
          for (int64_t i = 0; i < kChunk; ++i) o[b + i] = static_cast<Out>(buf[i]);  // wraps as through int64
      } else {
        for (int64_t i = 0; i < kChunk; ++i) o[b + i] = convert<Out>(a[b + i]);
      }
    }
    for (; b < n; ++b) o[b] = convert<Out>(a[b]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = convert<Out>(a[i]);
  }
}

void via_float32(char* dst, const char* src, ScalarType to, ScalarType from, int64_t n) {
  const int64_t so = static_cast<int64_t>(element_size(to)), si = static_cast<int64_t>(element_size(from));
  alignas(64) float buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const char* s = src + b * si;
    char* d = dst + b * so;
    if (is_half(from))
      convert_contiguous(from, ScalarType::Float32, s, buf, m);
    else
      dispatch_any(from, [&](auto i) { convert_run(reinterpret_cast<const decltype(i)*>(s), buf, m); });
    if (is_half(to))
      convert_contiguous(ScalarType::Float32, to, buf, d, m);
    else
      dispatch_any(to, [&](auto o) { convert_run(buf, reinterpret_cast<decltype(o)*>(d), m); });
  }
}

template <class Out>
void from_bool_run(const uint8_t* __restrict a, Out* __restrict o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(std::min<uint8_t>(a[i], 1));
}

bool is_widened_bool(ScalarType t) {
  return t == ScalarType::Int16 || t == ScalarType::Int32 || t == ScalarType::Int64 || t == ScalarType::Float32 ||
         t == ScalarType::Float64;
}

}  // namespace

bool cast_runs(const StridedIter& it, ScalarType to, ScalarType from) {
  const bool through_float32 = (is_half(from) || is_half(to)) && from != to && from != ScalarType::Float32 &&
                               to != ScalarType::Float32;
  const bool through_int32 = (from == ScalarType::Float32 || from == ScalarType::Float64) && is_narrow_int(to);
  const bool from_bool = from == ScalarType::Bool && is_widened_bool(to);
  if (!through_float32 && !through_int32 && !from_bool) return false;
  const int64_t so = static_cast<int64_t>(element_size(to)), si = static_cast<int64_t>(element_size(from));
  if (it.ndim > 0 && (it.strides[0][0] != so || it.strides[1][0] != si)) return false;
  if (from_bool) {
    dispatch_any(to, [&](auto o) {
      using Out = decltype(o);
      auto run = [](char** p, const int64_t*, int64_t n) {
        from_bool_run(reinterpret_cast<const uint8_t*>(p[1]), reinterpret_cast<Out*>(p[0]), n);
      };
      for_each_run(it, run, grain_of<Out, uint8_t>());  // Note [Grain in bytes]
    });
    return true;
  }
  if (through_float32) {
    auto run = [&](char** p, const int64_t*, int64_t n) { via_float32(p[0], p[1], to, from, n); };
    for_each_run(it, run, grain_for_width(std::max(so, si)));  // Note [Grain in bytes]
    return true;
  }
  auto body = [&](auto o, auto i) {
    using Out = decltype(o);
    using In = decltype(i);
    auto run = [](char** p, const int64_t*, int64_t n) {
      convert_run(reinterpret_cast<const In*>(p[1]), reinterpret_cast<Out*>(p[0]), n);
    };
    for_each_run(it, run, grain_of<Out, In>());
  };
  auto with_out = [&](auto i) {
    switch (to) {
      case ScalarType::Int8: return body(int8_t{}, i);
      case ScalarType::UInt8: return body(uint8_t{}, i);
      case ScalarType::Int16: return body(int16_t{}, i);
      default: return body(int32_t{}, i);
    }
  };
  if (from == ScalarType::Float32)
    with_out(float{});
  else
    with_out(double{});
  return true;
}

}  // namespace ember::cpu
