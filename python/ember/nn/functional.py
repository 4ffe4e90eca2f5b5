"""ember.nn.functional: the functional forms of the activations (the math runs in C++)."""

import math

from .. import _C


def one_hot(tensor, num_classes=-1):
    """Returns the one-hot encoding of a tensor of class indices.

    The result has shape ``(*tensor.shape, num_classes)`` and dtype int64: 1 at the index of each value, 0 elsewhere.

    Args:
        tensor (Tensor): class indices (int64), not negative.
        num_classes (int, optional): the number of classes; -1 means one more than the largest value of ``tensor``.
            Default: -1

    Example::

        >>> F.one_hot(ember.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    return _C._one_hot(tensor, num_classes)


# The ops bound in C++ (ember._C._nn, python/src/nn*.cpp; their list is _nn.__all__) with PyTorch's signatures; where
# one has the name of a Python form above, the C++ one is used.
from .._C import _nn  # noqa: E402
from .._C._nn import *  # noqa: E402,F403


def channel_shuffle(input, groups):
    """Divides the channels of a tensor into groups and interleaves them.

    The channels (dimension 1) are viewed as ``(groups, C / groups)`` and transposed to ``(C / groups, groups)``, as
    ShuffleNet does (Zhang et al., 2017); the result is a contiguous copy.

    Args:
        input (Tensor): the input, of shape :math:`(N, C, *)` with at least 3 dimensions.
        groups (int): the number of groups; positive, and divides :math:`C`.

    Example::

        >>> F.channel_shuffle(ember.arange(4.).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    if input.dim() <= 2:
        raise RuntimeError(
            "channel_shuffle expects input with > 2 dims, but got input with sizes %s" % list(input.shape)
        )
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of groups:%d" % groups)
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError(
            "Number of channels must be divisible by groups. Got %d channels and %d groups." % (c, groups)
        )
    rest = tuple(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).contiguous().reshape(input.shape)


native_channel_shuffle = channel_shuffle


def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode):
    """Power-average pooling over n spatial dims, as PyTorch composes it: max pooling of abs for an infinite p (minus
    that of -abs for -inf), else avg_pool of x^p times the window's size, to the power 1/p."""
    if isinstance(norm_type, (int, float)):
        if norm_type == 0:
            raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
        if math.isinf(norm_type):
            pool = getattr(_nn, "max_pool%dd" % n)
            return (
                pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
                if norm_type > 0
                else -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
            )
    out = getattr(_nn, "avg_pool%dd" % n)(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    k = (kernel_size,) * n if isinstance(kernel_size, int) else tuple(kernel_size)
    return (out.sign() * _nn.relu(out.abs())).mul(math.prod(k)).pow(1.0 / norm_type)


_LP_POOL_DOC = r"""Applies a {n}-D power-average pooling over an input signal made of several input planes.

    Each output is :math:`(\sum_{{x \in \text{{window}}}} x^p)^{{1/p}}` with :math:`p` the ``norm_type``: the sum for
    :math:`p = 1`, approaching the maximum as :math:`p` grows (``inf`` is the maximum of :math:`|x|`). It is computed
    from :func:`avg_pool{n}d` of :math:`x^p`, as PyTorch does.

    Args:
        input (Tensor): the input, of shape :math:`(N, C, {dims})` or :math:`(C, {dims})`.
        norm_type (float): the power :math:`p`, not zero.
        kernel_size (int{tuple}): the size of the window.
        stride (int{tuple}, optional): the step of the window. Default: ``kernel_size``
        ceil_mode (bool, optional): round the output size up instead of down. Default: ``False``

    Example::

        >>> {example}
    """


def _lp_pool_function(n, dims, example):
    """F.lp_pool{n}d, with its docstring."""

    def lp_pool(input, norm_type, kernel_size, stride=None, ceil_mode=False):
        return _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode)

    lp_pool.__name__ = lp_pool.__qualname__ = "lp_pool%dd" % n
    lp_pool.__doc__ = _LP_POOL_DOC.format(n=n, dims=dims, tuple="" if n == 1 else " or tuple", example=example)
    return lp_pool


lp_pool1d = _lp_pool_function(
    1, "L", "F.lp_pool1d(ember.tensor([[[3.0, 4.0, 6.0, 8.0]]]), 2, 2)\n        tensor([[[ 5., 10.]]])"
)
lp_pool2d = _lp_pool_function(2, "H, W", "F.lp_pool2d(ember.full((1, 1, 2, 2), 2.0), 2, 2)\n        tensor([[[[4.]]]])")
lp_pool3d = _lp_pool_function(
    3, "D, H, W", "F.lp_pool3d(ember.full((1, 1, 2, 2, 2), 1.0), 1, 2)\n        tensor([[[[[8.]]]]])"
)


# Which of a plane's random samples places the windows along each spatial dimension (PyTorch's kernels: 2-d uses
# sample 1 for the height and sample 0 for the width; 3-d samples 0, 1, 2 for time, height, width).
_FRACTIONAL_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _fractional_max_pool(n, input, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    """Fractional max pooling (Graham): along each spatial dimension the windows of size k start at
    trunc((i + u) * alpha) - trunc(u * alpha), alpha = (in - k) / (out - 1) in the input's dtype, the last at in - k,
    with u one uniform sample per (batch, channel, dimension). Composed of gathers and a max (so autograd follows)."""
    name = "fractional_max_pool%dd" % n

    def tup(v):
        return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n

    if output_size is None and output_ratio is None:
        raise ValueError("%s requires specifying either an output_size or an output_ratio" % name)
    spatial = tuple(input.shape[-n:])
    batched = input.dim() == n + 2
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError("%s(): Expected %dD or %dD tensor, but got %s" % (name, n + 1, n + 2, list(input.shape)))
    kernel = tup(kernel_size)
    if output_size is None:
        ratio = tup(output_ratio)
        output_size = [int(spatial[d] * ratio[d]) for d in range(n)]
    out = tup(output_size)
    names = ("time", "height", "width")[3 - n :]
    for d in range(n):
        if out[d] + kernel[d] - 1 > spatial[d]:
            raise RuntimeError(
                "%s(): pool %s %d too large relative to input %s %d" % (name, names[d], kernel[d], names[d], spatial[d])
            )
    x = input if batched else input.unsqueeze(0)
    nb, c = x.shape[0], x.shape[1]
    if _random_samples is None:
        _random_samples = _C.rand(nb, c, n, dtype=x.dtype, device=x.device)
    if tuple(_random_samples.shape) != (nb, c, n):
        raise RuntimeError(
            "%s(): Expected _random_samples to have shape (%d, %d, %d), got %s"
            % (name, nb, c, n, list(_random_samples.shape))
        )
    samples = _random_samples.to(x.dtype)
    flat = None  # (N, C, out..., k...) flat input offsets
    for d in range(n):
        u = samples[:, :, _FRACTIONAL_SAMPLE_OF_DIM[n][d]].unsqueeze(-1)  # (N, C, 1)
        if out[d] > 1:
            alpha = _C.tensor(float(spatial[d] - kernel[d]), dtype=x.dtype, device=x.device) / (out[d] - 1)
            i = _C.arange(out[d] - 1, dtype=x.dtype, device=x.device)
            starts = ((i + u) * alpha).trunc().long() - (u * alpha).trunc().long()
            starts = _C.cat([starts, _C.full((nb, c, 1), spatial[d] - kernel[d], dtype=_C.int64, device=x.device)], -1)
        else:
            starts = _C.full((nb, c, out[d]), spatial[d] - kernel[d], dtype=_C.int64, device=x.device)
        pos = starts.unsqueeze(-1) + _C.arange(kernel[d], device=x.device)  # (N, C, out_d, k_d)
        stride = 1
        for e in range(d + 1, n):
            stride *= spatial[e]
        # Place this dimension's (out_d, k_d) axes: out axes first (in order), then kernel axes.
        shape = [nb, c] + [1] * (2 * n)
        shape[2 + d], shape[2 + n + d] = out[d], kernel[d]
        term = (pos * stride).reshape(shape)
        flat = term if flat is None else flat + term
    windows = 1
    for k in kernel:
        windows *= k
    offsets = flat.reshape(nb, c, -1, windows)  # (N, C, prod(out), prod(k))
    values = x.flatten(2).gather(2, offsets.flatten(2)).reshape(offsets.shape)
    best, arg = values.max(-1)
    result = best.reshape(nb, c, *out)
    indices = offsets.gather(3, arg.unsqueeze(-1)).reshape(nb, c, *out)
    if not batched:
        result, indices = result.squeeze(0), indices.squeeze(0)
    return (result, indices) if return_indices else result


def fractional_max_pool2d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    r"""Applies a 2-D fractional max pooling over an input signal made of several input planes.

    The windows of size ``kernel_size`` are placed pseudo-randomly so that the output has the requested size, which
    need not divide the input's (Graham, 2014, "Fractional Max-Pooling"): along each spatial dimension window
    :math:`i` starts at :math:`\lfloor (i + u) \alpha \rfloor - \lfloor u \alpha \rfloor`, with
    :math:`\alpha = (\text{in} - k) / (\text{out} - 1)` and one uniform sample :math:`u` per sample, channel and
    dimension (drawn from the default generator), and the last window ends at the input's end.

    Args:
        input (Tensor): the input, of shape :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        kernel_size (int or tuple): the size of the window.
        output_size (int or tuple, optional): the spatial size of the output. Give this or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in :math:`(0, 1)`.
        return_indices (bool, optional): also return the indices of the maxima (flat within each plane of the
            input, as :func:`max_unpool2d` takes them). Default: ``False``
        _random_samples (Tensor, optional): the samples :math:`u`, of shape :math:`(N, C, 2)`, instead of random
            ones.

    Example::

        >>> F.fractional_max_pool2d(ember.randn(1, 2, 8, 8), 2, output_size=4).shape
        ember.Size([1, 2, 4, 4])
    """
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    r"""Applies a 3-D fractional max pooling over an input signal made of several input planes.

    The windows of size ``kernel_size`` are placed pseudo-randomly so that the output has the requested size, which
    need not divide the input's (Graham, 2014, "Fractional Max-Pooling"): along each spatial dimension window
    :math:`i` starts at :math:`\lfloor (i + u) \alpha \rfloor - \lfloor u \alpha \rfloor`, with
    :math:`\alpha = (\text{in} - k) / (\text{out} - 1)` and one uniform sample :math:`u` per sample, channel and
    dimension (drawn from the default generator), and the last window ends at the input's end.

    Args:
        input (Tensor): the input, of shape :math:`(N, C, T, H, W)` or :math:`(C, T, H, W)`.
        kernel_size (int or tuple): the size of the window.
        output_size (int or tuple, optional): the spatial size of the output. Give this or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in :math:`(0, 1)`.
        return_indices (bool, optional): also return the indices of the maxima (flat within each plane of the
            input, as :func:`max_unpool3d` takes them). Default: ``False``
        _random_samples (Tensor, optional): the samples :math:`u`, of shape :math:`(N, C, 3)`, instead of random
            ones.

    Example::

        >>> F.fractional_max_pool3d(ember.randn(1, 2, 8, 8, 8), 2, output_size=4).shape
        ember.Size([1, 2, 4, 4, 4])
    """
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    r"""Applies a 2-D fractional max pooling and returns the values with the indices of the maxima.

    The windows of size ``kernel_size`` are placed pseudo-randomly so that the output has the requested size, which
    need not divide the input's (Graham, 2014, "Fractional Max-Pooling"): along each spatial dimension window
    :math:`i` starts at :math:`\lfloor (i + u) \alpha \rfloor - \lfloor u \alpha \rfloor`, with
    :math:`\alpha = (\text{in} - k) / (\text{out} - 1)` and one uniform sample :math:`u` per sample, channel and
    dimension (drawn from the default generator), and the last window ends at the input's end.

    Args:
        input (Tensor): the input, of shape :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        kernel_size (int or tuple): the size of the window.
        output_size (int or tuple, optional): the spatial size of the output. Give this or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in :math:`(0, 1)`.
        return_indices (bool, optional): also return the indices of the maxima (flat within each plane of the
            input, as :func:`max_unpool2d` takes them). Default: ``False`` (this form
            always returns them)
        _random_samples (Tensor, optional): the samples :math:`u`, of shape :math:`(N, C, 2)`, instead of random
            ones.

    Example::

        >>> F.fractional_max_pool2d(ember.randn(1, 2, 8, 8), 2, output_size=4).shape
        ember.Size([1, 2, 4, 4])
    """
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    r"""Applies a 3-D fractional max pooling and returns the values with the indices of the maxima.

    The windows of size ``kernel_size`` are placed pseudo-randomly so that the output has the requested size, which
    need not divide the input's (Graham, 2014, "Fractional Max-Pooling"): along each spatial dimension window
    :math:`i` starts at :math:`\lfloor (i + u) \alpha \rfloor - \lfloor u \alpha \rfloor`, with
    :math:`\alpha = (\text{in} - k) / (\text{out} - 1)` and one uniform sample :math:`u` per sample, channel and
    dimension (drawn from the default generator), and the last window ends at the input's end.

    Args:
        input (Tensor): the input, of shape :math:`(N, C, T, H, W)` or :math:`(C, T, H, W)`.
        kernel_size (int or tuple): the size of the window.
        output_size (int or tuple, optional): the spatial size of the output. Give this or ``output_ratio``.
        output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in :math:`(0, 1)`.
        return_indices (bool, optional): also return the indices of the maxima (flat within each plane of the
            input, as :func:`max_unpool3d` takes them). Default: ``False`` (this form
            always returns them)
        _random_samples (Tensor, optional): the samples :math:`u`, of shape :math:`(N, C, 3)`, instead of random
            ones.

    Example::

        >>> F.fractional_max_pool3d(ember.randn(1, 2, 8, 8, 8), 2, output_size=4).shape
        ember.Size([1, 2, 4, 4, 4])
    """
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


__all__ = [
    *_nn.__all__,
    "channel_shuffle",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "native_channel_shuffle",
    "one_hot",
]
