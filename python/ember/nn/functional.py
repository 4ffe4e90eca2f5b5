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
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride if stride is not None else kernel_size, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool1d over 2-D windows (avg_pool2d of x^p, times the window's size, to the power 1/p)."""
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride if stride is not None else kernel_size, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kh * kw).pow(1.0 / norm_type)
