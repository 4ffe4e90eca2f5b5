// ember.backends.cuda.cufft_plan_cache: each device's cache of cuFFT plans (Note [Plan caches] in plan_cache.h,
// Note [cuFFT plans] in backend/cuda/cufft.cpp). Implemented in backend/cuda/cufft.cpp; a build without CUDA links
// backend/no_cuda/cufft.cpp, where each raises "built without CUDA". `device` must be a valid CUDA device index.
#pragma once

#include <cstdint>

namespace ember::cuda {

int64_t cufft_plan_cache_size(int device);
int64_t cufft_plan_cache_max_size(int device);
void set_cufft_plan_cache_max_size(int device, int64_t max_size);
void clear_cufft_plan_cache(int device);

}  // namespace ember::cuda
