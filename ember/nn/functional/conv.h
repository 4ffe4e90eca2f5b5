// Convolutions (torch.nn.functional.conv*d, conv_transpose*d) with gradients of any order. Note [Convolution as
// three maps] in conv.cpp says how every op and gradient reduces to the two kernels of backend/kernels/nn/conv.h.
#pragma once

#include <string_view>

#include "ember/tensor.h"

namespace ember {

// ---- the public ops. Size arguments take one value per spatial dim, or one value for all of them; empty means
// the default (stride 1, padding 0, dilation 1, output_padding 0). Unbatched input ([C, *in]) gives unbatched
// output, as in PyTorch. float16 and bfloat16 compute in float32.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
              IntArrayRef padding = {}, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
              IntArrayRef padding = {}, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
              IntArrayRef padding = {}, IntArrayRef dilation = {}, int64_t groups = 1);
// padding "same" (stride 1 only; even kernels pad one more at the end, as PyTorch) or "valid" (no padding).
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {}, int64_t groups = 1);
// weight [C_in, C_out / groups, *k].
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
                        IntArrayRef padding = {}, IntArrayRef output_padding = {}, int64_t groups = 1,
                        IntArrayRef dilation = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
                        IntArrayRef padding = {}, IntArrayRef output_padding = {}, int64_t groups = 1,
                        IntArrayRef dilation = {});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
                        IntArrayRef padding = {}, IntArrayRef output_padding = {}, int64_t groups = 1,
                        IntArrayRef dilation = {});

}  // namespace ember
