"""Deformable convolution v1/v2 (Dai et al., 2017; Zhu et al., 2019) with torchvision's arguments, composed of ember
ops: each kernel tap samples the input bilinearly at its offset position (zero outside the image, torchvision's
rule), the samples are weighted by the mask, and one batched matmul with the weight sums them. Gradients with
respect to the input, offsets, mask, weight and bias come from the ops."""

import math

import ember

from ... import nn
from ...nn import init

__all__ = ["deform_conv2d", "DeformConv2d"]


def _pair(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def _sample(x, py, px, height, width):
    """Bilinear samples of x [B, G, C, H*W] at positions [B, G, K, Ho, Wo] -> [B, G, C, K*Ho*Wo]."""
    b, g, c, _ = x.shape
    n = py[0, 0].numel()
    inside = ((py > -1) & (py < height) & (px > -1) & (px < width)).to(x.dtype)
    y0, x0 = ember.floor(py), ember.floor(px)
    ly, lx = py - y0, px - x0
    out = 0
    for dy, dx, weight in ((0, 0, (1 - ly) * (1 - lx)), (0, 1, (1 - ly) * lx), (1, 0, ly * (1 - lx)), (1, 1, ly * lx)):
        yy, xx = y0 + dy, x0 + dx
        valid = ((yy >= 0) & (yy <= height - 1) & (xx >= 0) & (xx <= width - 1)).to(x.dtype) * inside
        index = (yy.clamp(0, height - 1) * width + xx.clamp(0, width - 1)).long().view(b, g, 1, n).expand(b, g, c, n)
        out = out + ember.gather(x, 3, index) * (weight * valid).view(b, g, 1, n)
    return out


def deform_conv2d(input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), mask=None):
    """Performs Deformable Convolution v2 (or v1 when mask is None).

    Args:
        input (Tensor[batch_size, in_channels, in_height, in_width]): input tensor
        offset (Tensor[batch_size, 2 * offset_groups * kernel_height * kernel_width, out_height, out_width]): offsets
            to be applied for each position in the convolution kernel, (dy, dx) pairs.
        weight (Tensor[out_channels, in_channels // groups, kernel_height, kernel_width]): convolution weights
        bias (Tensor[out_channels]): optional bias of shape (out_channels,). Default: None
        stride (int or Tuple[int, int]): distance between convolution centers. Default: 1
        padding (int or Tuple[int, int]): height/width of padding of zeroes around each image. Default: 0
        dilation (int or Tuple[int, int]): the spacing between kernel elements. Default: 1
        mask (Tensor[batch_size, offset_groups * kernel_height * kernel_width, out_height, out_width]): masks to be
            applied for each position in the convolution kernel. Default: None

    Returns:
        Tensor[batch_sz, out_channels, out_h, out_w]: result of convolution
    """
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    out_channels, channels_per_group, kh, kw = weight.shape
    b, cin, height, width = input.shape
    k = kh * kw
    n_offset_groups = offset.shape[1] // (2 * k)
    if n_offset_groups == 0:
        raise RuntimeError(
            "the shape of the offset tensor at dimension 1 is not valid. It should be a multiple of 2 * "
            f"weight.size[2] * weight.size[3].\\nGot offset.shape[1]={offset.shape[1]}, while 2 * weight.size[2] * "
            f"weight.size[3]={2 * k}"
        )
    out_h = (height + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    out_w = (width + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if cin % channels_per_group or cin % n_offset_groups or out_channels % (cin // channels_per_group):
        raise RuntimeError(
            f"deform_conv2d: input channels {cin} must be divisible by the weight's {channels_per_group} channels per "
            f"group and by the {n_offset_groups} offset groups, and out channels {out_channels} by the groups"
        )
    if tuple(offset.shape) != (b, 2 * n_offset_groups * k, out_h, out_w):
        raise RuntimeError(
            f"deform_conv2d: offset of shape {list(offset.shape)} does not match the output size ({out_h}, {out_w}) "
            f"for input {list(input.shape)} and weight {list(weight.shape)}"
        )
    if mask is not None and tuple(mask.shape) != (b, n_offset_groups * k, out_h, out_w):
        raise RuntimeError(
            f"deform_conv2d: mask of shape {list(mask.shape)} should be {[b, n_offset_groups * k, out_h, out_w]}"
        )
    groups = cin // channels_per_group
    opts = {"dtype": input.dtype, "device": input.device}
    ky = (ember.arange(kh, **opts) * dh).repeat_interleave(kw).view(1, 1, k, 1, 1)
    kx = (ember.arange(kw, **opts) * dw).repeat(kh).view(1, 1, k, 1, 1)
    base_y = (ember.arange(out_h, **opts) * sh - ph).view(1, 1, 1, out_h, 1)
    base_x = (ember.arange(out_w, **opts) * sw - pw).view(1, 1, 1, 1, out_w)
    off = offset.view(b, n_offset_groups, k, 2, out_h, out_w)
    py = base_y + ky + off[:, :, :, 0]
    px = base_x + kx + off[:, :, :, 1]
    cols = _sample(input.reshape(b, n_offset_groups, cin // n_offset_groups, height * width), py, px, height, width)
    if mask is not None:
        cols = cols * mask.view(b, n_offset_groups, 1, k * out_h * out_w)
    cols = cols.reshape(b, groups, channels_per_group * k, out_h * out_w)
    out = ember.matmul(weight.reshape(1, groups, out_channels // groups, channels_per_group * k), cols)
    out = out.reshape(b, out_channels, out_h, out_w)
    return out if bias is None else out + bias.view(1, -1, 1, 1)


class DeformConv2d(nn.Module):
    """See :func:`deform_conv2d`."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.weight = nn.Parameter(ember.empty(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(ember.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight[0].numel()
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input, offset, mask=None):
        return deform_conv2d(input, offset, self.weight, self.bias, self.stride, self.padding, self.dilation, mask)

    def __repr__(self):
        s = (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        s += f", padding={self.padding}" if self.padding != (0, 0) else ""
        s += f", dilation={self.dilation}" if self.dilation != (1, 1) else ""
        s += f", groups={self.groups}" if self.groups != 1 else ""
        s += ", bias=False" if self.bias is None else ""
        return s + ")"
