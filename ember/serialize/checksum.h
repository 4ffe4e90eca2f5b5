// CRC-32C (Castagnoli), the checksum of ember's checkpoint format (Note [Checkpoint checksums] in format.cpp):
// the SSE4.2 crc32 instruction where the CPU has it (~8 GB/s on one core), else a slice-by-8 table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::serialize {

// Continues a CRC-32C over n more bytes: crc32c(crc32c(0, a, n), b, m) == crc32c of a's bytes then b's.
uint32_t crc32c(uint32_t crc, const void* data, size_t n);

}  // namespace ember::serialize
