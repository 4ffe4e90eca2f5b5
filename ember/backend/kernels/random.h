// The random kernels (ops/random.cpp). Each writes a contiguous dst from the Philox stream `s` (Note [Random
// numbers]).
#pragma once

#include "ember/backend/kernels.h"
#include "ember/generator.h"

namespace ember {

EMBER_DECLARE_KERNEL(uniform, const Tensor& dst, double from, double to, PhiloxState s)
// mean and std come from the scalars, or from float64 tensors of dst's shape where those are defined.
EMBER_DECLARE_KERNEL(normal, const Tensor& dst, double mean, double std, const Tensor& mean_t, const Tensor& std_t,
                     PhiloxState s)
// Integers uniform in [low, low + range); range 0 means the full 64-bit range.
EMBER_DECLARE_KERNEL(random_int, const Tensor& dst, int64_t low, uint64_t range, PhiloxState s)
// dst[i] = u_i < p[i] with p a float tensor of dst's shape.
EMBER_DECLARE_KERNEL(bernoulli, const Tensor& dst, const Tensor& p, PhiloxState s)
// Host-side samplers: dst is an int64 CPU tensor. randperm: a permutation of 0..n-1 (Fisher-Yates).
EMBER_DECLARE_KERNEL(randperm, const Tensor& dst, PhiloxState s)
// probs: float64 [rows, categories], rows validated; dst: int64 [rows, num_samples].
EMBER_DECLARE_KERNEL(multinomial, const Tensor& dst, const Tensor& probs, bool replacement, PhiloxState s)

}  // namespace ember
