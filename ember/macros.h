#pragma once

// Functions that the CPU and CUDA kernels share (element conversions, random formulas).
#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define EMBER_HOST_DEVICE inline
#endif
