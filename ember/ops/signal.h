// torch.signal.windows (docs/signal.md): windows computed on a linspace grid, with PyTorch's formulas, arguments
// and ValueErrors. Hann, Hamming, Blackman and Nuttall are general cosine windows with fixed coefficients (as in
// PyTorch); `name` is the public function's, for the errors. dtype: float32 or float64 (default: the default dtype).
// With requires_grad the grid is a leaf that requires grad, so the window comes with the formula's graph, as in
// PyTorch.
#pragma once

#include <optional>
#include <vector>

#include "ember/ops/special.h"  // WindowOptions
#include "ember/tensor.h"

namespace ember::signal {

// exp(-|n - center| / tau); center defaults to (M - 1) / 2 (M / 2 for a periodic window), and must be left to the
// default for a symmetric one.
Tensor exponential(int64_t M, std::optional<double> center = {}, double tau = 1.0, bool sym = true,
                   const WindowOptions& opts = {});
// sin(pi (n + 1/2) / M) (M + 1 for a periodic window).
Tensor cosine(int64_t M, bool sym = true, const WindowOptions& opts = {});
// exp(-(n - (M - 1) / 2)^2 / (2 std_dev^2)); PyTorch names std_dev `std`.
Tensor gaussian(int64_t M, double std_dev = 1.0, bool sym = true, const WindowOptions& opts = {});
// I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta), N = M - 1 (M for a periodic window).
Tensor kaiser(int64_t M, double beta = 12.0, bool sym = true, const WindowOptions& opts = {});
// 1 - |2n / N - 1|.
Tensor bartlett(int64_t M, bool sym = true, const WindowOptions& opts = {});
// sum_i (-1)^i a_i cos(2 pi i n / N).
Tensor general_cosine(int64_t M, const std::vector<double>& a, bool sym = true, const WindowOptions& opts = {},
                      const char* name = "general_cosine");

}  // namespace ember::signal
