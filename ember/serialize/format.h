// ember's checkpoint format (docs/serialization.md, byte by byte): a 32-byte preamble (magic, version, flags,
// manifest length, checksums), a JSON manifest (storages, tensors, the object tree), then each storage's raw
// little-endian bytes at a 64-byte aligned offset, then each storage's CRC-32C. Nothing in a file is executed
// when it is loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ember/serialize/file.h"
#include "ember/serialize/limits.h"
#include "ember/serialize/value.h"

namespace ember::serialize {

inline constexpr char kMagic[8] = {'E', 'M', 'B', 'E', 'R', 'C', 'K', 'P'};
inline constexpr uint32_t kFormatVersion = 2;  // version 1 (without checksums) is still read
inline constexpr uint64_t kPreambleSize = 32;
inline constexpr uint64_t kAlignment = 64;
inline constexpr int kMaxDepth = static_cast<int>(CheckpointLimits::kManifestDepth);
inline constexpr int kMaxDims = static_cast<int>(CheckpointLimits::kDims);

// Whether `head` (the first n bytes of a file) starts with ember's magic.
bool is_ember_checkpoint(const void* head, size_t n);

// A document ready to be written: its manifest and the byte ranges of its storages, every limit of
// CheckpointLimits checked (Note [Checkpoint limits]), so that a save can fail before it creates any file.
struct PreparedDocument {
  struct Range {
    Storage storage;
    int64_t lo, hi;   // the bytes of the storage that some tensor reaches
    uint64_t offset;  // in the data section
  };
  std::string manifest;
  std::vector<Range> storages;
};
// doc: root + tensors; storages are derived from the tensors: views of one storage share one entry, which holds
// only the bytes some tensor reaches. `op` names the caller in errors.
PreparedDocument prepare_document(const Document& doc, const char* op = "ember.save");
void write_document(const PreparedDocument& doc, Sink& out);
void write_document(const Document& doc, Sink& out, const char* op = "ember.save");

// Validates the whole manifest against the file's size before allocating or reading any tensor bytes,
// then reads each storage (or views it, for a mapped source). Tensors come back on the CPU, requires_grad
// set as saved; StorageRecord::device says where each storage was saved from. With `verify` each storage's
// bytes are checked against their CRC-32C (the preamble's and the manifest's checksums are always checked);
// verify=false is for trusted files where load time matters (a mapped file then stays unread until used).
Document read_document(const Source& in, const char* op = "ember.load", bool verify = true);

// Moves each loaded storage where `place(bytes, device_tag)` says: bytes is a uint8 CPU tensor over the whole
// storage; the result (the same tensor, or its bytes elsewhere) becomes the storage of every tensor that
// viewed it, so views stay views. requires_grad and the Parameter flag are kept.
void relocate(Document& doc, const std::function<Tensor(const Tensor& bytes, const std::string& device)>& place,
              const char* op = "ember.load");

}  // namespace ember::serialize
