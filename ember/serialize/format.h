// ember's checkpoint format (docs/serialization.md, byte by byte): a 24-byte preamble (magic, version, flags,
// manifest length), a JSON manifest (storages, tensors, the object tree), then each storage's raw
// little-endian bytes at a 64-byte aligned offset. Nothing in a file is executed when it is loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "ember/serialize/file.h"
#include "ember/serialize/value.h"

namespace ember::serialize {

inline constexpr char kMagic[8] = {'E', 'M', 'B', 'E', 'R', 'C', 'K', 'P'};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint64_t kPreambleSize = 24;
inline constexpr uint64_t kAlignment = 64;
inline constexpr int kMaxDepth = 512;  // nesting of the object tree (containers in containers)
inline constexpr int kMaxDims = 64;

// Whether `head` (the first n bytes of a file) starts with ember's magic.
bool is_ember_checkpoint(const void* head, size_t n);

// Writes doc (root + tensors; storages are derived from the tensors: views of one storage share one entry,
// which holds only the bytes some tensor reaches). `op` names the caller in errors.
void write_document(const Document& doc, Sink& out, const char* op = "ember.save");

// Validates the whole manifest against the file's size before allocating or reading any tensor bytes,
// then reads each storage (or views it, for a mapped source). Tensors come back on the CPU, requires_grad
// set as saved; StorageRecord::device says where each storage was saved from.
Document read_document(const Source& in, const char* op = "ember.load");

// Moves each loaded storage where `place(bytes, device_tag)` says: bytes is a uint8 CPU tensor over the whole
// storage; the result (the same tensor, or its bytes elsewhere) becomes the storage of every tensor that
// viewed it, so views stay views. requires_grad and the Parameter flag are kept.
void relocate(Document& doc, const std::function<Tensor(const Tensor& bytes, const std::string& device)>& place,
              const char* op = "ember.load");

}  // namespace ember::serialize
