// The spectral ops on complex tensors in view_as_real's layout (docs/fft.md): a real tensor with a trailing dim of
// size 2 holding (re, im). They follow aten's _fft_c2c, _fft_r2c and _fft_c2r: `dim` lists dims of the complex tensor
// (the trailing pair excluded), normalization 0 leaves the transform unscaled, 1 scales it by 1/sqrt(n) and 2 by 1/n,
// n being the product of the signal sizes. float32 and float64, any strides; the results are new contiguous tensors.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember {

// The complex transform of x over `dim`: forward multiplies by exp(-2 pi i jk/n), backward by exp(+2 pi i jk/n).
Tensor fft_c2c(const Tensor& x, IntArrayRef dim, int64_t normalization, bool forward);
// The forward transform of the real x over `dim`; onesided keeps the n/2 + 1 non-redundant values along dim.back().
Tensor fft_r2c(const Tensor& x, IntArrayRef dim, int64_t normalization, bool onesided);
// The real signal of length last_dim_size along dim.back() whose onesided spectrum is x (backward transform; the
// other dims of `dim` are complex backward transforms first). x.size(dim.back()) must be last_dim_size / 2 + 1.
Tensor fft_c2r(const Tensor& x, IntArrayRef dim, int64_t normalization, int64_t last_dim_size);

}  // namespace ember
