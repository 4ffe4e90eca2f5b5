"""Activation modules: thin wrappers over ember.nn.functional (the math is C++)."""

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class _Simple(Module):
    """An activation without parameters: forward calls F.<_fn>(input, **kwargs of the constructor)."""

    _fn = None
    _args = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        names = list(self._args)
        for name, default in self._args.items() if isinstance(self._args, dict) else []:
            setattr(self, name, default)
        for name, value in zip(names, args):
            setattr(self, name, value)
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError("%s.__init__() got an unexpected keyword argument '%s'" % (type(self).__name__, name))
            setattr(self, name, value)

    def forward(self, input):
        return getattr(F, self._fn)(input, **{k: getattr(self, k) for k in self._args})

    def extra_repr(self):
        parts = []
        for k, default in self._args.items():
            v = getattr(self, k)
            if k == "inplace":
                if v:
                    parts.append("inplace=True")
            else:
                parts.append("%s=%s" % (k, v))
        return ", ".join(parts)


def _make(name, fn, args=None, repr_fn=None):
    cls = type(name, (_Simple,), {"_fn": fn, "_args": dict(args or {})})
    if repr_fn is not None:
        cls.extra_repr = repr_fn
    return cls


ReLU = _make("ReLU", "relu", {"inplace": False}, lambda self: _inplace_repr(self.inplace))
ReLU6 = _make("ReLU6", "relu6", {"inplace": False}, lambda self: _inplace_repr(self.inplace))
SELU = _make("SELU", "selu", {"inplace": False}, lambda self: _inplace_repr(self.inplace))
SiLU = _make("SiLU", "silu", {"inplace": False}, lambda self: _inplace_repr(self.inplace))
Mish = _make("Mish", "mish", {"inplace": False}, lambda self: _inplace_repr(self.inplace))
Hardswish = _make("Hardswish", "hardswish", {"inplace": False}, lambda self: _inplace_repr(self.inplace))
Hardsigmoid = _make("Hardsigmoid", "hardsigmoid", {"inplace": False}, lambda self: _inplace_repr(self.inplace))
Sigmoid = _make("Sigmoid", "sigmoid")
Tanh = _make("Tanh", "tanh")
Softsign = _make("Softsign", "softsign")
Tanhshrink = _make("Tanhshrink", "tanhshrink")
LogSigmoid = _make("LogSigmoid", "logsigmoid")
GELU = _make("GELU", "gelu", {"approximate": "none"}, lambda self: "approximate='%s'" % self.approximate)
LeakyReLU = _make(
    "LeakyReLU",
    "leaky_relu",
    {"negative_slope": 1e-2, "inplace": False},
    lambda self: "negative_slope={}{}".format(self.negative_slope, ", inplace=True" if self.inplace else ""),
)
ELU = _make(
    "ELU",
    "elu",
    {"alpha": 1.0, "inplace": False},
    lambda self: "alpha={}{}".format(self.alpha, ", inplace=True" if self.inplace else ""),
)
CELU = _make(
    "CELU",
    "celu",
    {"alpha": 1.0, "inplace": False},
    lambda self: "alpha={}{}".format(self.alpha, ", inplace=True" if self.inplace else ""),
)
Softplus = _make(
    "Softplus",
    "softplus",
    {"beta": 1, "threshold": 20},
    lambda self: "beta={}, threshold={}".format(self.beta, self.threshold),
)
Hardshrink = _make("Hardshrink", "hardshrink", {"lambd": 0.5}, lambda self: "{}".format(self.lambd))
Softshrink = _make("Softshrink", "softshrink", {"lambd": 0.5}, lambda self: str(self.lambd))
GLU = _make("GLU", "glu", {"dim": -1}, lambda self: "dim={}".format(self.dim))


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return "threshold={}, value={}{}".format(self.threshold, self.value, ", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError("Hardtanh: max_val ({}) must be greater than min_val ({})".format(max_val, min_val))
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return "min_val={}, max_val={}{}".format(self.min_val, self.max_val, ", inplace=True" if self.inplace else "")


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_C.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return "num_parameters={}".format(self.num_parameters)


class RReLU(Module):
    """Randomized leaky ReLU: in training each negative element's slope is drawn from U(lower, upper); in eval the
    slope is (lower + upper) / 2 (F.rrelu, C++)."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return "lower={}, upper={}{}".format(self.lower, self.upper, ", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError("Softmax2d: expected input to be 3D or 4D, got {}D instead".format(input.dim()))
        return F.softmax(input, -3, _stacklevel=5)


class _SoftmaxBase(Module):
    _fn = "softmax"

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return getattr(F, self._fn)(input, self.dim)

    def extra_repr(self):
        return "dim={}".format(self.dim)


class Softmax(_SoftmaxBase):
    _fn = "softmax"


class LogSoftmax(_SoftmaxBase):
    _fn = "log_softmax"


class Softmin(_SoftmaxBase):
    _fn = "softmin"


for _cls in (
    ReLU,
    ReLU6,
    SELU,
    SiLU,
    Mish,
    Hardswish,
    Hardsigmoid,
    Sigmoid,
    Tanh,
    Softsign,
    Tanhshrink,
    LogSigmoid,
    GELU,
    LeakyReLU,
    ELU,
    CELU,
    Softplus,
    Hardshrink,
    Softshrink,
    GLU,
):
    _cls.__module__ = __name__
