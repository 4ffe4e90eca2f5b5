#include "ember/serialize/checksum.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <climits>

namespace ember::serialize {

uint32_t crc32c(uint32_t crc, const void* data, size_t n) {
  // ISA-L's CRC-32C takes an int length and leaves the final inversion to the caller.
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));
  uint32_t c = ~crc;
  while (n > 0) {
    const size_t k = std::min<size_t>(n, size_t{1} << 30);
    c = crc32_iscsi(p, static_cast<int>(k), c);
    p += k, n -= k;
  }
  return ~c;
}

uint32_t crc32(uint32_t crc, const void* data, size_t n) {
  return crc32_gzip_refl(crc, static_cast<const unsigned char*>(data), n);
}

}  // namespace ember::serialize
