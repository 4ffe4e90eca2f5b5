"""Pooling modules."""

from .. import functional as F
from .module import Module


class _MaxPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (
            "kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
            "ceil_mode={ceil_mode}".format(**self.__dict__)
        )

    def forward(self, input):
        return getattr(F, self._fn)(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class MaxPool1d(_MaxPoolNd):
    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    _fn = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    _fn = "max_pool3d"


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class _AvgPoolNd(Module):
    _fn = None

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)

    def forward(self, input):
        return getattr(F, self._fn)(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AvgPool2d(_AvgPoolNd):
    _fn = "avg_pool2d"


class AvgPool3d(_AvgPoolNd):
    _fn = "avg_pool3d"


class _LPPoolNd(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__
        )

    def forward(self, input):
        return getattr(F, self._fn)(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    _fn = "lp_pool2d"


class LPPool3d(_LPPoolNd):
    _fn = "lp_pool3d"


class _AdaptivePoolNd(Module):
    _fn = None
    _max = False

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        if self._max:
            self.return_indices = return_indices

    def extra_repr(self):
        return "output_size={}".format(self.output_size)

    def forward(self, input):
        if self._max:
            return getattr(F, self._fn)(input, self.output_size, self.return_indices)
        return getattr(F, self._fn)(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    _fn = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    _fn = "adaptive_avg_pool2d"

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    _fn = "adaptive_avg_pool3d"

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveMaxPool1d(_AdaptivePoolNd):
    _fn = "adaptive_max_pool1d"
    _max = True


class AdaptiveMaxPool2d(_AdaptivePoolNd):
    _fn = "adaptive_max_pool2d"
    _max = True


class AdaptiveMaxPool3d(_AdaptivePoolNd):
    _fn = "adaptive_max_pool3d"
    _max = True


class _FractionalMaxPoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, self._n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, self._n) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError("{} requires specifying either an output size, or a pooling ratio".format(name))
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError("output_ratio must be between 0 and 1 (got {})".format(output_ratio))

    def forward(self, input):
        fn = getattr(F, "fractional_max_pool%dd" % self._n)
        return fn(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


def _per_dims(base, prefix, dims):
    """The classes <prefix>1d, 2d, ... of `base` for the given numbers of spatial dimensions."""
    return tuple(
        type("%s%dd" % (prefix, n), (base,), {"_n": n, "__module__": __name__, "__qualname__": "%s%dd" % (prefix, n)})
        for n in dims
    )


FractionalMaxPool2d, FractionalMaxPool3d = _per_dims(_FractionalMaxPoolNd, "FractionalMaxPool", (2, 3))


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _ntuple(padding, self._n)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)

    def forward(self, input, indices, output_size=None):
        fn = getattr(F, "max_unpool%dd" % self._n)
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = _per_dims(_MaxUnpoolNd, "MaxUnpool", (1, 2, 3))


def _ntuple(x, n):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


def _single(x):
    return _ntuple(x, 1)


def _pair(x):
    return _ntuple(x, 2)
