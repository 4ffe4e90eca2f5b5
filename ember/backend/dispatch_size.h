// Pure data movement (gather, scatter by copy) works on unsigned integers of the element's size, so one instantiation
// per size serves every dtype, on every backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace ember {

template <class F>
decltype(auto) dispatch_size(size_t size, F&& f) {
  switch (size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

}  // namespace ember
