// The cuFFT plan cache of a build without CUDA: every access raises, as PyTorch's CPU-only builds do.
#include "ember/backend/cufft_plan_cache.h"
#include "ember/error.h"

namespace ember::cuda {

namespace {
[[noreturn]] void not_built() {
  fail<Error>("cufft_plan_cache: ember was built without CUDA support, so it has no cuFFT plan cache");
}
}  // namespace

int64_t cufft_plan_cache_size(int) { not_built(); }
int64_t cufft_plan_cache_max_size(int) { not_built(); }
void set_cufft_plan_cache_max_size(int, int64_t) { not_built(); }
void clear_cufft_plan_cache(int) { not_built(); }

}  // namespace ember::cuda
