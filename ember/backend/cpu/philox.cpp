#include "ember/backend/cpu/philox.h"

#include <algorithm>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace ember::cpu {
namespace {

#if defined(__AVX2__)
// The high and low 32 bits of the eight products m * x[l] (x as eight 32-bit lanes).
inline void mul_hi_lo(__m256i x, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(x, m);                        // lanes 0, 2, 4, 6 as 64-bit products
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);  // lanes 1, 3, 5, 7
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

// The counters of blocks b .. b+7: low and high 32 bits as eight lanes each.
inline void counters(uint64_t b, __m256i& lo, __m256i& hi) {
  const uint32_t lo0 = static_cast<uint32_t>(b);
  if (lo0 <= 0xFFFFFFFFu - 7) {  // no carry into the high word (always, but at a 2^32-block boundary)
    lo = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(lo0)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    hi = _mm256_set1_epi32(static_cast<int>(b >> 32));
    return;
  }
  alignas(32) uint32_t l[8], h[8];
  for (int i = 0; i < 8; ++i) {
    l[i] = static_cast<uint32_t>(b + i);
    h[i] = static_cast<uint32_t>((b + i) >> 32);
  }
  lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(l));
  hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(h));
}

// Eight blocks as four vectors of lanes (c0..c3); one round.
struct Lanes {
  __m256i c0, c1, c2, c3;

  void round(__m256i k0, __m256i k1) {
    const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
    const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
    __m256i hi0, lo0, hi1, lo1;
    mul_hi_lo(c0, m0, hi0, lo0);
    mul_hi_lo(c2, m1, hi1, lo1);
    c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0);
    c1 = lo1;
    c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
    c3 = lo0;
  }

  // Writes the eight blocks as 32 consecutive words: word 4l+i is lane l of c_i.
  void store(uint32_t* out) const {
    const __m256i t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
    const __m256i t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
    // u0: blocks 0 and 4, u1: 1 and 5, u2: 2 and 6, u3: 3 and 7 (128-bit halves).
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    auto* o = reinterpret_cast<__m256i*>(out);
    _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(u0, u1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(u2, u3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(u0, u1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(u2, u3, 0x31));
  }
};

// Blocks b .. b+15 as 64 consecutive words. Two independent sets of eight hide the multiplies' latency.
void philox16(uint64_t seed, uint64_t b, uint32_t* out) {
  Lanes x, y;
  counters(b, x.c0, x.c1);
  counters(b + 8, y.c0, y.c1);
  x.c2 = x.c3 = y.c2 = y.c3 = _mm256_setzero_si256();
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const __m256i v0 = _mm256_set1_epi32(static_cast<int>(k0)), v1 = _mm256_set1_epi32(static_cast<int>(k1));
    x.round(v0, v1);
    y.round(v0, v1);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  x.store(out);
  y.store(out + 32);
}
#endif

}  // namespace

void philox_words(PhiloxState s, uint64_t first, int64_t n, uint32_t* out) {
  uint64_t w = first;
  const uint64_t end = first + static_cast<uint64_t>(n);
  // A partial first block, then whole blocks (eight at a time where possible), then a partial last block.
  while (w < end && (w % 4 != 0 || end - w < 4)) {
    *out++ = philox_word(s, w);
    ++w;
  }
#if defined(__AVX2__)
  for (; end - w >= 64; w += 64, out += 64) philox16(s.seed, s.offset + w / 4, out);
#endif
  for (; end - w >= 4; w += 4, out += 4) {
    const Philox4x32 p(s.seed, s.offset + w / 4);
    std::copy(p.v, p.v + 4, out);
  }
  for (; w < end; ++w) *out++ = philox_word(s, w);
}

}  // namespace ember::cpu
