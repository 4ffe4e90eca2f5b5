// The safetensors format (huggingface/safetensors), byte for byte as its reference implementation writes it:
// an 8-byte little-endian header length N, N bytes of JSON (padded with spaces to a multiple of 8), then the
// tensors' bytes back to back, ordered by descending dtype alignment and then by name.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/serialize/file.h"
#include "ember/serialize/limits.h"
#include "ember/tensor.h"

namespace ember::safetensors {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using Metadata = std::vector<std::pair<std::string, std::string>>;

inline constexpr uint64_t kMaxHeaderSize = serialize::CheckpointLimits::kSafetensorsHeaderBytes;

struct File {
  NamedTensors tensors;  // sorted by name, as safe_open's keys()
  std::optional<Metadata> metadata;
};

// The format's dtype names ("F32") for ember's dtypes, and back (false for names ember has no dtype for).
const char* dtype_code(ScalarType t);
bool dtype_from_code(std::string_view code, ScalarType& out);

// Writes tensors (contiguous, no two sharing memory, names unique) and optional metadata. `op` names the caller.
void write(const NamedTensors& tensors, const std::optional<Metadata>& metadata, serialize::Sink& out,
           const char* op = "safetensors.save");
// Validates the header completely (see docs/serialization.md) before reading or mapping any tensor bytes.
File read(const serialize::Source& in, const char* op = "safetensors.load");

// Files: save_file replaces `path` atomically; load_file reads (or, with mmap, maps copy-on-write).
void save_file(const NamedTensors& tensors, const std::string& path, const std::optional<Metadata>& metadata = {});
File load_file(const std::string& path, bool mmap = false);

}  // namespace ember::safetensors
