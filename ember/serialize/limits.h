// Note [Checkpoint limits]: what ember's checkpoint readers accept, in one table that the writers check too,
// so that nothing is saved that can't be loaded: a save that would pass a limit fails before it writes
// anything, with an error naming the limit. Python's PyTorch-file reader (ember/_torch_load.py) reads the
// same numbers (ember._C._checkpoint_limits).
#pragma once

#include <cstdint>

namespace ember::serialize {

struct CheckpointLimits {
  // Dimensions of a saved tensor: PyTorch's limit (and ember's), in every format.
  static constexpr int64_t kDims = 64;
  // JSON nesting of an ember manifest, counted as the reader does (each array or object is a level; the
  // manifest object is level 1). One Python level costs up to three: a dict is {"dict": [[key, value]]}.
  static constexpr int64_t kManifestDepth = 512;
  // JSON nesting of a safetensors header (the format needs 3: header, tensor entry, shape).
  static constexpr int64_t kSafetensorsDepth = 64;
  // A safetensors header's size in bytes (the reference implementation's limit).
  static constexpr int64_t kSafetensorsHeaderBytes = 100'000'000;
  // Decimal digits of an int outside int64 (CPython's default int <-> str limit, sys.get_int_max_str_digits).
  static constexpr int64_t kIntDigits = 4300;
};

}  // namespace ember::serialize
