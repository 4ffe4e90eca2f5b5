// Pure data movement (gather, scatter by copy) works on unsigned integers of the element's size, so one instantiation
// per size serves every dtype, on every backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "ember/macros.h"

namespace ember {

// The 16-byte element (complex128).
struct alignas(16) Bytes16 {
  uint64_t lo = 0, hi = 0;
  Bytes16() = default;
  EMBER_HOST_DEVICE explicit Bytes16(int) {}  // T(0), the zero some kernels write for an index out of bounds
};

template <class F>
decltype(auto) dispatch_size(size_t size, F&& f) {
  switch (size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: return f(Bytes16{});
  }
}

}  // namespace ember
