// Philox words in bulk for the CPU random kernels: the same numbers as Philox4x32 (ember/generator.h), eight
// blocks at a time with AVX2 where the build has it (a block-at-a-time generator cost more than the transforms).
#pragma once

#include <algorithm>
#include <cstdint>

#include "ember/generator.h"

namespace ember::cpu {

// out[j] = word first + j of stream s (philox_word(s, first + j)), for j < n.
void philox_words(PhiloxState s, uint64_t first, int64_t n, uint32_t* out);

// Elements are drawn in blocks of kBlock, whose words (consecutive in the stream) are generated in one call.
constexpr int64_t kBlock = 256;

// Calls block(i0, n, w) for consecutive blocks of at most kBlock elements of [begin, end) taking `words` words each
// (at most 4): w holds their words, element i0 + j's k-th word being w[j * words + k].
template <class B>
void for_word_blocks(int64_t begin, int64_t end, int words, PhiloxState s, B block) {
  uint32_t buf[kBlock * 4];
  for (int64_t i0 = begin; i0 < end; i0 += kBlock) {
    const int64_t n = std::min(kBlock, end - i0);
    philox_words(s, static_cast<uint64_t>(i0) * words, n * words, buf);
    block(i0, n, static_cast<const uint32_t*>(buf));
  }
}

}  // namespace ember::cpu
