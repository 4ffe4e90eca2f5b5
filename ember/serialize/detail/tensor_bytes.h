// Tensors as bytes: the range of its storage a tensor reaches, the validation of a geometry read from a
// file (overflow-safe), views made over a storage, and writing storage bytes from any device to a Sink.
#pragma once

#include <string>
#include <utility>

#include "ember/serialize/file.h"
#include "ember/tensor.h"

namespace ember::serialize {

// [lo, hi): the bytes of t's storage that t's elements occupy (t.numel() > 0).
std::pair<int64_t, int64_t> byte_extent(const Tensor& t);

// Why (size, stride, offset) of dtype can't view a storage of nbytes bytes, or "" when it can. Sizes,
// strides and the offset must be non-negative and every element inside the storage; no arithmetic overflows.
std::string check_geometry(IntArrayRef size, IntArrayRef stride, int64_t offset, ScalarType dtype, uint64_t nbytes);

// A tensor viewing `storage` (any device) with the given geometry, which the caller has checked.
Tensor view_storage(const Storage& storage, ScalarType dtype, IntArrayRef size, IntArrayRef stride, int64_t offset);

// Writes bytes [lo, lo + n) of storage to out (device storages are copied to the host first); returns their
// CRC-32C when `checksum` (else 0).
uint32_t write_bytes(const Storage& storage, int64_t lo, int64_t n, Sink& out, bool checksum = false);

}  // namespace ember::serialize
