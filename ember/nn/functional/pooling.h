// Pooling (torch.nn.functional.max_pool*d, avg_pool*d, adaptive_*_pool*d, max_unpool*d) with gradients of any
// order, and the device kernels behind them.
#pragma once

#include <optional>
#include <utility>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

namespace ember {

// Pooling windows over the last in.size() dims: regular (kernel, stride, padding, dilation, PyTorch's window and
// divisor rules) or, when kernel is empty, adaptive (output i of n pools [floor(i * in / n), ceil((i + 1) * in / n))).
struct PoolGeometry {
  DimVector in, out;
  DimVector kernel, stride, padding, dilation;
  bool count_include_pad = true;  // average pooling: padding counts in the divisor
  int64_t divisor_override = 0;   // average pooling: 0 = the window's size
  bool adaptive() const { return kernel.empty(); }
};

// Kernels see contiguous tensors [*planes, *in] / [*planes, *out] of one floating dtype.
// indices: int64, the flat position of each maximum within its plane's input (PyTorch's return_indices); undefined
// when only the values are wanted.
EMBER_DECLARE_KERNEL(max_pool, const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g)
EMBER_DECLARE_KERNEL(avg_pool, const Tensor& out, const Tensor& input, const PoolGeometry& g)
// grad_input = the adjoint of avg_pool applied to grad_out (grad_input is overwritten).
EMBER_DECLARE_KERNEL(avg_pool_backward, const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g)

// ---- the public ops; inputs [N, C, *in] or unbatched [C, *in]. Size arguments take one value per spatial dim or
// one for all; an empty stride means stride = kernel_size. float16 and bfloat16 compute in float32.
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  IntArrayRef dilation = {}, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  IntArrayRef dilation = {}, bool ceil_mode = false);
Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  IntArrayRef dilation = {}, bool ceil_mode = false);
// (values, indices): indices as max_unpool takes them.
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                  IntArrayRef stride = {}, IntArrayRef padding = {},
                                                  IntArrayRef dilation = {}, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                  IntArrayRef stride = {}, IntArrayRef padding = {},
                                                  IntArrayRef dilation = {}, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                  IntArrayRef stride = {}, IntArrayRef padding = {},
                                                  IntArrayRef dilation = {}, bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool3d(const Tensor& input, IntArrayRef output_size);
// output_size: the spatial sizes, or the full output shape (its last dims are used); empty: the default
// (in - 1) * stride - 2 * padding + kernel_size.
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {}, IntArrayRef output_size = {});
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {}, IntArrayRef output_size = {});
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {}, IntArrayRef output_size = {});

}  // namespace ember
