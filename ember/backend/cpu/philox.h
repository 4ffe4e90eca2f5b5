// Philox words in bulk for the CPU random kernels: the same numbers as Philox4x32 (ember/generator.h), eight
// blocks at a time with AVX2 where the build has it (a block-at-a-time generator cost more than the transforms).
#pragma once

#include <cstdint>

#include "ember/generator.h"

namespace ember::cpu {

// out[j] = word first + j of stream s (philox_word(s, first + j)), for j < n.
void philox_words(PhiloxState s, uint64_t first, int64_t n, uint32_t* out);

}  // namespace ember::cpu
