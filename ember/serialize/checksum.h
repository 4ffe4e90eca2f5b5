// The checksums of checkpoints, from ISA-L (Intel's Storage Acceleration Library, BSD-3-Clause), which picks the
// widest carry-less-multiply kernel the CPU has at run time (VPCLMULQDQ on AVX-512: about 21 GB/s on one core of the
// development machine, where zlib's crc32 runs at 4.2 and the SSE4.2 crc32 instruction one word at a time at 8):
// CRC-32C (Castagnoli) for ember's own format (Note [Checkpoint checksums] in format.cpp) and zip's CRC-32 for
// PyTorch's format (Note [zip checksums] in python/ember/_torch_load.py), which ember.save computes as it writes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::serialize {

// Continue a checksum over n more bytes: crc32c(crc32c(0, a, n), b, m) == crc32c of a's bytes then b's (the same
// for crc32). Start from 0.
uint32_t crc32c(uint32_t crc, const void* data, size_t n);
uint32_t crc32(uint32_t crc, const void* data, size_t n);  // zip's (and zlib's, gzip's) CRC-32

}  // namespace ember::serialize
