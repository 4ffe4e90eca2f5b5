// Per-element formulas of the random ops (Note [Random numbers]), shared by the CPU and CUDA kernels so
// that both produce the same numbers. `w(k)` returns the element's k-th 32-bit word.
#pragma once

#include <cmath>

#include "ember/dtype.h"
#include "ember/generator.h"
#include "ember/macros.h"

namespace ember::rnd {

// gen, or the default generator of d's device type when null; RuntimeError naming `op` if gen is another device's.
Generator& pick_generator(Generator* gen, Device d, const char* op);

// The words of an op's Philox stream by index, computing each 4-word block once (nearby reads share it).
struct PhiloxWords {
  PhiloxState s;
  uint64_t block = ~0ull;
  uint32_t v[4] = {0, 0, 0, 0};

  EMBER_HOST_DEVICE explicit PhiloxWords(PhiloxState st) : s(st) {}
  EMBER_HOST_DEVICE uint32_t operator()(uint64_t word) {
    const uint64_t b = word / 4;
    if (b != block) {
      Philox4x32 p(s.seed, s.offset + b);
      for (int j = 0; j < 4; ++j) v[j] = p.v[j];
      block = b;
    }
    return v[word % 4];
  }
};

// Words each element consumes.
EMBER_HOST_DEVICE int uniform_words(bool f64) { return f64 ? 2 : 1; }
EMBER_HOST_DEVICE int normal_words(bool f64) { return f64 ? 4 : 2; }
constexpr int kIntWords = 2;
constexpr int kBernoulliWords = 2;

// Uniform in [0, 1) with `bits` random bits: the dtype's significand (53, 24, 11, 8), so that no
// value rounds up to 1 when stored in the output dtype.
inline int uniform_bits(ScalarType t) {
  return t == ScalarType::Float64 ? 53 : t == ScalarType::Float16 ? 11 : t == ScalarType::BFloat16 ? 8 : 24;
}
template <class W>
EMBER_HOST_DEVICE double uniform(int bits, W w) {
  if (bits == 53) return uniform_f64(w(0), w(1));
  return static_cast<double>(w(0) >> (32 - bits)) * (1.0 / static_cast<double>(1u << bits));
}

// Box-Muller; u1 is taken from (0, 1] so that log(u1) is finite.
template <class W>
EMBER_HOST_DEVICE double normal(bool f64, W w) {
  if (f64) {
    double u1 = 1.0 - uniform_f64(w(0), w(1)), u2 = uniform_f64(w(2), w(3));
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  float u1 = 1.0f - uniform_f32(w(0)), u2 = uniform_f32(w(1));
  return static_cast<double>(std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831855f * u2));
}

template <class W>
EMBER_HOST_DEVICE uint64_t bits64(W w) {
  return static_cast<uint64_t>(w(0)) << 32 | w(1);
}

}  // namespace ember::rnd
