// Where checkpoint bytes come from and go to: a Source reads (a file with pread, a file mapped with
// MAP_PRIVATE, or a caller's buffer), a Sink writes (an atomically replaced file, or a string).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ember/storage.h"

namespace ember::serialize {

class Source {
 public:
  explicit Source(std::string name) : name_(std::move(name)) {}
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  // Copies [offset, offset + n) into dst; the caller has checked the range against size().
  virtual void read(uint64_t offset, void* dst, size_t n) const = 0;
  // A storage over [offset, offset + n) without copying (a mapped file), or null when the source can't.
  virtual Storage view(uint64_t offset, size_t n) const { return {}; }
  // The bytes' storage: a view when the source has one and offset is a multiple of `align` (mappings start
  // on a page), else a fresh CPU allocation filled by read().
  Storage storage(uint64_t offset, size_t n, size_t align = 1) const;
  // What error messages call the source: the path, or "<buffer>".
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// A file read with pread; the descriptor stays open for the source's lifetime.
std::unique_ptr<Source> open_file(const std::string& path);
// A file mapped copy-on-write (MAP_PRIVATE): tensors made from view() point into the mapping, writes to them
// never reach the file, and the mapping goes when the source and the last storage viewing it have gone.
std::unique_ptr<Source> map_file(const std::string& path);
// A caller's buffer, neither copied nor owned: it must outlive the source (storages are copies).
std::unique_ptr<Source> buffer_source(const void* data, size_t n, std::string name = "<buffer>");

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const void* data, size_t n) = 0;
  virtual void reserve(uint64_t total) {}  // a hint: the whole output will be `total` bytes
  void zeros(size_t n);                    // padding
  uint64_t position() const { return position_; }

 protected:
  uint64_t position_ = 0;
};

class StringSink final : public Sink {
 public:
  void write(const void* data, size_t n) override;
  void reserve(uint64_t total) override { out_.reserve(total); }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

// Note [Atomic save]: bytes go to a temporary file in the target's directory (".NAME.tmp-HOST-PID-START-RANDOM",
// never a name a reader would open), which commit() flushes, fsyncs, renames over the target and follows with
// an fsync of the directory (writeback starts as the bytes are written, so the fsync waits for little). A crash at any
// point leaves either the old file or the complete new one; a temporary file that was never committed is removed by the
// destructor, and one a killed process left behind by the next save to the same target (Note [Stale temporary files] in
// file.cpp).
class AtomicFile final : public Sink {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile() override;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(const void* data, size_t n) override;
  void commit();
  const std::string& temp_path() const { return temp_; }

 private:
  std::string path_, temp_;
  int fd_ = -1;
  uint64_t written_back_ = 0;  // bytes whose writeback has been started (Note [Writeback while saving])
};

}  // namespace ember::serialize
