#include "ember/serialize/detail/tensor_bytes.h"

#include <algorithm>

#include "ember/ops.h"
#include "ember/serialize/checksum.h"
#include "ember/serialize/detail/json.h"

namespace ember::serialize {

std::pair<int64_t, int64_t> byte_extent(const Tensor& t) {
  int64_t last = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  const int64_t es = static_cast<int64_t>(t.element_size());
  return {t.storage_offset() * es, (last + 1) * es};
}

std::string check_geometry(IntArrayRef size, IntArrayRef stride, int64_t offset, ScalarType dtype, uint64_t nbytes) {
  using detail::add_ok;
  using detail::mul_ok;
  if (offset < 0) return ::ember::detail::cat("negative storage offset ", offset);
  int64_t numel = 1, last = offset;
  bool empty = false;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0) return ::ember::detail::cat("negative size in ", shape_str(size));
    if (stride[d] < 0) return ::ember::detail::cat("negative stride in ", shape_str(stride));
    empty |= size[d] == 0;
  }
  for (size_t d = 0; d < size.size(); ++d)
    if (!mul_ok(numel, size[d], numel))
      return ::ember::detail::cat("the number of elements of ", shape_str(size), " overflows");
  if (empty) return "";  // no element to reach: any strides and offset are fine, as for as_strided
  for (size_t d = 0; d < size.size(); ++d) {
    int64_t step;
    if (!mul_ok(size[d] - 1, stride[d], step) || !add_ok(last, step, last))
      return ::ember::detail::cat("sizes ", shape_str(size), " and strides ", shape_str(stride), " overflow");
  }
  int64_t need;
  if (!add_ok(last, 1, need) || !mul_ok(need, static_cast<int64_t>(element_size(dtype)), need))
    return ::ember::detail::cat("sizes ", shape_str(size), " and strides ", shape_str(stride), " overflow");
  if (static_cast<uint64_t>(need) > nbytes)
    return ::ember::detail::cat("sizes ", shape_str(size), ", strides ", shape_str(stride), ", storage offset ", offset,
                                " and dtype ", dtype_name(dtype), " need ", need, " bytes, but the storage has ",
                                nbytes);
  return "";
}

Tensor view_storage(const Storage& storage, ScalarType dtype, IntArrayRef size, IntArrayRef stride, int64_t offset) {
  return Tensor(make_intrusive<TensorImpl>(storage, dtype, size, stride, offset));
}

uint32_t write_bytes(const Storage& storage, int64_t lo, int64_t n, Sink& out, bool checksum) {
  if (n <= 0) return 0;
  uint32_t crc = 0;
  // Pieces of 1 MiB: each is checksummed and then written while it is still in the cache.
  auto put = [&](const char* p, int64_t k) {
    constexpr int64_t kPiece = int64_t{1} << 20;
    for (int64_t at = 0; at < k; at += kPiece) {
      const auto len = static_cast<size_t>(std::min(kPiece, k - at));
      if (checksum) crc = crc32c(crc, p + at, len);
      out.write(p + at, len);
    }
  };
  if (storage->device().is_cpu()) {
    put(static_cast<const char*>(storage->data()) + lo, n);
    return crc;
  }
  // A device storage goes through the host in pieces of at most 64 MiB.
  constexpr int64_t kChunk = int64_t{64} << 20;
  for (int64_t at = lo; at < lo + n; at += kChunk) {
    const int64_t k = std::min(kChunk, lo + n - at);
    const int64_t size[1] = {k}, stride[1] = {1};
    Tensor host = to(view_storage(storage, ScalarType::UInt8, size, stride, at), kCPU);
    put(static_cast<const char*>(host.data_ptr()), k);
  }
  return crc;
}

}  // namespace ember::serialize
