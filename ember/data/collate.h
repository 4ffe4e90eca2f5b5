// The DataLoader's batching step in C++ (default_collate's tensor case).
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember::data {

// Stacks equally shaped samples along a new first dimension (dtypes promoted as torch.stack does). With
// `shared` (a DataLoader worker), the batch is written straight into a fresh shared-memory segment, so
// sending it to the main process moves only the segment's handle.
Tensor collate_stack(const std::vector<Tensor>& batch, bool shared);

}  // namespace ember::data
