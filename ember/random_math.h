// Per-element formulas of the random ops (Note [Random numbers]), shared by the CPU and CUDA kernels so
// that both produce the same numbers. `w(k)` returns the element's k-th 32-bit word.
#pragma once

#include <cmath>

#include "ember/generator.h"
#include "ember/macros.h"

namespace ember::rnd {

// Words each element consumes.
EMBER_HOST_DEVICE int uniform_words(bool f64) { return f64 ? 2 : 1; }
EMBER_HOST_DEVICE int normal_words(bool f64) { return f64 ? 4 : 2; }
constexpr int kIntWords = 2;
constexpr int kBernoulliWords = 2;

template <class W>
EMBER_HOST_DEVICE double uniform(bool f64, W w) {
  return f64 ? uniform_f64(w(0), w(1)) : static_cast<double>(uniform_f32(w(0)));
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
