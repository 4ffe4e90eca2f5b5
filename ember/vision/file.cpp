// Whole-file reads and writes, and gzip decompression through zlib.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "ember/vision/vision.h"

namespace ember::vision {

namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

[[noreturn]] void file_fail(const char* verb, const std::string& path, int err) {
  const std::string reason = detail::cat("cannot ", verb, ": ", std::strerror(err));
  throw FileError(detail::cat("[vision] ", reason, " '", path, "'"), err, path, reason);
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) file_fail("open", path, errno);
  std::vector<uint8_t> out;
  // Read in chunks rather than trusting a size from fstat: the file may be a pipe or change while read.
  constexpr size_t kChunk = size_t(1) << 20;
  for (;;) {
    const size_t old = out.size();
    out.resize(old + kChunk);
    const size_t n = std::fread(out.data() + old, 1, kChunk, f.get());
    out.resize(old + n);
    if (n < kChunk) {
      if (std::ferror(f.get())) file_fail("read", path, errno ? errno : EIO);
      break;
    }
  }
  out.shrink_to_fit();
  return out;
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (!f) file_fail("open for writing", path, errno);
  if (size && std::fwrite(data, 1, size, f.get()) != size) file_fail("write", path, errno ? errno : EIO);
  FILE* raw = f.release();
  if (std::fclose(raw) != 0) file_fail("write", path, errno ? errno : EIO);
}

bool is_gzip(const uint8_t* data, size_t size) { return size >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, size_t max_size, const std::string& what) {
  z_stream zs{};
  // 16 + MAX_WBITS: gzip wrapper only (a raw zlib or deflate stream is not what the caller was promised).
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) fail<Error>("[vision] zlib could not start decompressing ", what);
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } end{&zs};
  if (size == 0) fail<Error>("[vision] ", what, " is empty (expected gzip data)");
  std::vector<uint8_t> out;
  constexpr size_t kChunk = 256 * 1024;
  const uint8_t* const stop = data + size;
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = 0;
  for (;;) {
    if (zs.avail_in == 0 && zs.next_in < stop)  // zlib counts input in 32 bits: feed at most 1 GiB at a time
      zs.avail_in = static_cast<uInt>(std::min<size_t>(stop - zs.next_in, size_t(1) << 30));
    const size_t old = out.size();
    // At the limit, a 1-byte window tells whether more output follows (an error) or the stream ends there.
    const size_t room = std::max<size_t>(std::min(kChunk, max_size - old), 1);
    out.resize(old + room);
    zs.next_out = out.data() + old;
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(old + (room - zs.avail_out));
    if (out.size() > max_size)
      fail<Error>("[vision] ", what, " decompresses to more than the ", max_size, " bytes expected");
    if (rc == Z_STREAM_END) {
      const uint8_t* next = zs.next_in;
      if (next == stop) break;
      // Another gzip member may follow (concatenated .gz files); anything else after the stream is an error.
      if (!is_gzip(next, stop - next))
        fail<Error>("[vision] ", what, " has ", stop - next, " bytes of trailing garbage after the gzip stream");
      inflateReset(&zs);
      zs.next_in = const_cast<Bytef*>(next);
      zs.avail_in = 0;
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && zs.next_in == stop)
      fail<Error>("[vision] ", what, " is truncated (the gzip stream ends early)");
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      fail<Error>("[vision] ", what, " is not valid gzip data (zlib: ", zs.msg ? zs.msg : "error", ")");
  }
  return out;
}

}  // namespace ember::vision
