// Note [Random numbers]
// Every generator is Philox4x32-10 (Salmon et al., SC'11), a counter-based generator: block b of a
// stream is philox(key = seed, counter = b), four 32-bit words, computed independently of every other
// block. A generator's state is (seed, offset); an op that needs k words per element for n elements
// takes the blocks [offset, offset + ceil(n*k/4)) and advances offset past them. Element i uses words
// i*k .. i*k+k-1 of that range, so results do not depend on threads or devices: the CPU and CUDA
// kernels compute the same numbers for the same seed. docs/random.md gives each op's formula.
#pragma once

#include <cstdint>
#include <mutex>

#include "ember/device.h"
#include "ember/intrusive_ptr.h"
#include "ember/macros.h"

namespace ember {

struct PhiloxState {
  uint64_t seed;
  uint64_t offset;  // in 128-bit blocks
};

struct Philox4x32 {
  uint32_t v[4];
  EMBER_HOST_DEVICE Philox4x32(uint64_t seed, uint64_t block) {
    uint32_t c[4] = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0};
    uint32_t k[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    for (int r = 0; r < 10; ++r) {
      uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c[0];
      uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c[2];
      uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0];
      uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1];
      c[0] = n0;
      c[1] = static_cast<uint32_t>(p1);
      c[2] = n2;
      c[3] = static_cast<uint32_t>(p0);
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) v[i] = c[i];
  }
};

// Word w (0-based) of the stream that starts at block `offset`.
EMBER_HOST_DEVICE uint32_t philox_word(PhiloxState s, uint64_t w) {
  return Philox4x32(s.seed, s.offset + w / 4).v[w % 4];
}
// Uniform in [0, 1): 24 bits for float, 53 bits (two words) for double.
EMBER_HOST_DEVICE float uniform_f32(uint32_t a) { return static_cast<float>(a >> 8) * 5.9604644775390625e-8f; }
EMBER_HOST_DEVICE double uniform_f64(uint32_t a, uint32_t b) {
  uint64_t x = (static_cast<uint64_t>(a) << 32 | b) >> 11;
  return static_cast<double>(x) * 1.1102230246251565e-16;
}

class Generator final : public RefCounted {
 public:
  explicit Generator(Device device = kCPU, uint64_t seed = 67280421310721ull) : device_(device), seed_(seed) {}

  Device device() const { return device_; }
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  uint64_t seed();  // seeds from a non-deterministic source and returns the seed
  PhiloxState state() const;
  void set_state(PhiloxState s);
  // Reserves `words` 32-bit words (rounded up to blocks) and returns the state to draw them from.
  PhiloxState take(uint64_t words);

 private:
  Device device_;
  mutable std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

Generator& default_generator(Device device);
// Seeds the default generators of every device (ember.manual_seed).
void manual_seed(uint64_t seed);

}  // namespace ember
