// The FFT kernels of the spectral ops (ops/fft.cpp). A complex tensor is a real one in view_as_real's layout: a
// trailing dim of size 2 holding (re, im); `dim` is a dim of the complex tensor (never the trailing one). Each
// kernel transforms along one dim, over every other index, for any strides, multiplying the result by `scale`;
// float32 and float64. out may be in (c2c) but may not otherwise overlap it.
#pragma once

#include <cstdint>

#include "ember/backend/kernels.h"

namespace ember {

// out = scale * DFT(in) along dim; forward: exp(-2 pi i jk / n), else exp(+2 pi i jk / n). One shape and dtype.
EMBER_DECLARE_KERNEL(fft_c2c, const Tensor& out, const Tensor& in, int64_t dim, bool forward, double scale)
// in real with n = in.size(dim); out complex with out.size(dim) = n / 2 + 1 (onesided) or n (the whole spectrum).
EMBER_DECLARE_KERNEL(fft_r2c, const Tensor& out, const Tensor& in, int64_t dim, double scale)
// out real with n = out.size(dim); in complex with in.size(dim) >= n / 2 + 1 (the first n / 2 + 1 values are read).
EMBER_DECLARE_KERNEL(fft_c2r, const Tensor& out, const Tensor& in, int64_t dim, double scale)

}  // namespace ember
