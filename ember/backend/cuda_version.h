// The CUDA runtime's version as cudaRuntimeGetVersion reports it (12010 for 12.1), 0 in a build without CUDA; it
// needs no device (ember.version.cuda).
#pragma once

namespace ember::cuda {
int runtime_version();
}  // namespace ember::cuda
