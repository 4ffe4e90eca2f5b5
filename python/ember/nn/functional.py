"""ember.nn.functional: the functional forms of the activations (the math runs in C++)."""
from .. import _C


def one_hot(tensor, num_classes=-1):
    return _C._one_hot(tensor, num_classes)


# The ops bound in C++ (ember._C._nn, python/src/nn*.cpp) with PyTorch's signatures; where one has the name of a
# Python form above, the C++ one is used.
globals().update({k: v for k, v in vars(_C._nn).items() if not k.startswith("_")})


def channel_shuffle(input, groups):
    """Splits the channels (dim 1) into `groups` groups and interleaves them: (N, g, C/g, *) -> (N, C/g, g, *). A
    reshape and a transpose; the result is a contiguous copy, as PyTorch's."""
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with sizes %s"
                           % list(input.shape))
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of groups:%d" % groups)
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError("Number of channels must be divisible by groups. Got %d channels and %d groups."
                           % (c, groups))
    rest = tuple(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).contiguous().reshape(input.shape)


native_channel_shuffle = channel_shuffle


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: (sum over each window of x^p)^(1/p), as PyTorch composes it from avg_pool1d."""
    out = _C._nn.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * _C._nn.relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool1d over 2-D windows (avg_pool2d of x^p, times the window's size, to the power 1/p)."""
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    out = _C._nn.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * _C._nn.relu(out.abs())).mul(kh * kw).pow(1.0 / norm_type)


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
    names = ("time", "height", "width")[3 - n:]
    for d in range(n):
        if out[d] + kernel[d] - 1 > spatial[d]:
            raise RuntimeError("%s(): pool %s %d too large relative to input %s %d"
                               % (name, names[d], kernel[d], names[d], spatial[d]))
    x = input if batched else input.unsqueeze(0)
    nb, c = x.shape[0], x.shape[1]
    if _random_samples is None:
        _random_samples = _C.rand(nb, c, n, dtype=x.dtype, device=x.device)
    if tuple(_random_samples.shape) != (nb, c, n):
        raise RuntimeError("%s(): Expected _random_samples to have shape (%d, %d, %d), got %s"
                           % (name, nb, c, n, list(_random_samples.shape)))
    samples = _random_samples.to(x.dtype)
    flat = None  # (N, C, out..., k...) flat input offsets
    for d in range(n):
        u = samples[:, :, _FRACTIONAL_SAMPLE_OF_DIM[n][d]].unsqueeze(-1)  # (N, C, 1)
        if out[d] > 1:
            alpha = _C.tensor(float(spatial[d] - kernel[d]), dtype=x.dtype, device=x.device) / (out[d] - 1)
            i = _C.arange(out[d] - 1, dtype=x.dtype, device=x.device)
            starts = ((i + u) * alpha).trunc().long() - (u * alpha).trunc().long()
            starts = _C.cat([starts, _C.full((nb, c, 1), spatial[d] - kernel[d], dtype=_C.int64, device=x.device)],
                            -1)
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


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)
