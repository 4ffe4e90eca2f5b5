"""PyTorch's top-level utilities that are not tensor ops: finfo / iinfo, the math constants, the
deterministic-algorithms switch, float32 matmul precision, inter-op threads, and the type helpers (is_complex,
is_storage, typename, set_default_tensor_type). ember.__init__ exports them."""

import math
import sys
import warnings

from . import _C

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan


# ---- finfo / iinfo -------------------------------------------------------------------------------------------------

# bits, eps, max, tiny (smallest normal), resolution (10 ** -(decimal digits of precision)), as torch.finfo reports.
_FINFO = {
    "float16": (16, 2.0**-10, 65504.0, 2.0**-14, 0.001),
    "bfloat16": (16, 2.0**-7, 3.3895313892515355e38, 2.0**-126, 0.01),
    "float32": (32, 2.0**-23, 3.4028234663852886e38, 2.0**-126, 1e-06),
    "float64": (64, 2.0**-52, sys.float_info.max, 2.0**-1022, 1e-15),
}
_IINFO = {
    "uint8": (8, 0, 255),
    "int8": (8, -128, 127),
    "int16": (16, -32768, 32767),
    "int32": (32, -(2**31), 2**31 - 1),
    "int64": (64, -(2**63), 2**63 - 1),
}


def _dtype_arg(fn, type):
    if type is None and fn == "finfo":
        return _C.get_default_dtype()
    if not isinstance(type, _C.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be ember.dtype, not {builtin_type(type).__name__}")
    return type


builtin_type = type
builtin_int = int


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


class finfo:
    """The numerical properties of a floating-point dtype (the default dtype when none is given).

    Attributes: ``bits`` (its width), ``eps`` (the gap between 1 and the next larger number), ``max`` and ``min``
    (the largest and lowest finite numbers), ``tiny`` and ``smallest_normal`` (the smallest positive normal number),
    ``resolution`` (10 to the minus its decimal digits of precision) and ``dtype`` (its name).

    Args:
        type (dtype, optional): a floating-point dtype (or a complex one: its parts' dtype); by default
            :func:`ember.get_default_dtype`.

    Example::

        >>> ember.finfo(ember.float16).max
        65504.0
    """

    __hash__ = None

    def __init__(self, type=None):
        dtype = _dtype_arg("finfo", type)
        if dtype.is_complex:  # a complex dtype's parts, as PyTorch's finfo(complex64) is float32's
            dtype = dtype.to_real()
        name = _dtype_name(dtype)
        if name not in _FINFO:
            raise TypeError(
                "ember.finfo() requires a floating point input type. Use ember.iinfo to handle 'ember.finfo'"
            )
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FINFO[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __repr__(self):
        return "finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, dtype=%s)" % (
            self.resolution,
            self.min,
            self.max,
            self.eps,
            self.smallest_normal,
            self.tiny,
            self.dtype,
        )


class iinfo:
    """The numerical properties of an integer dtype: ``bits`` (its width), ``min`` and ``max`` (its lowest and largest
    values) and ``dtype`` (its name).

    Args:
        type (dtype): an integer dtype (not bool).

    Example::

        >>> ember.iinfo(ember.int8).min
        -128
    """

    __hash__ = None

    def __init__(self, type):
        dtype = _dtype_arg("iinfo", type)
        name = _dtype_name(dtype)
        if name == "bool":
            raise TypeError("ember.bool is not supported by ember.iinfo")
        if name not in _IINFO:
            raise TypeError("ember.iinfo() requires an integer input type. Use ember.finfo to handle 'ember.iinfo'")
        self.bits, self.min, self.max = _IINFO[name]
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __repr__(self):
        return "iinfo(min=%g, max=%g, dtype=%s)" % (self.min, self.max, self.dtype)


# ---- deterministic algorithms (Note [Deterministic algorithms] in ember/determinism.cpp) ---------------------------


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Sets whether operations must use deterministic algorithms.

    With `mode` True, ops whose only implementation is nondeterministic (on CUDA: floating-point atomics in
    index_add_, scatter_add_, scatter_reduce_, index_put_(accumulate=True), bincount with weights) raise a
    RuntimeError, or warn when `warn_only` is True; cuDNN convolutions use deterministic algorithms only.

    Args:
        mode (bool): whether deterministic algorithms are required.

    Keyword args:
        warn_only (bool): warn instead of raising where an op has no deterministic implementation.
    """
    if not isinstance(mode, bool):
        raise TypeError(
            f"use_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
            f"{builtin_type(mode).__name__}"
        )
    if not isinstance(warn_only, bool):
        raise TypeError(
            f"use_deterministic_algorithms(): argument 'warn_only' must be bool, not {builtin_type(warn_only).__name__}"
        )
    _C._set_deterministic_algorithms(mode, warn_only)


def are_deterministic_algorithms_enabled():
    """Returns True if :func:`ember.use_deterministic_algorithms` turned deterministic algorithms on."""
    return _C._get_deterministic_algorithms()


def is_deterministic_algorithms_warn_only_enabled():
    """Returns True if deterministic algorithms are on with ``warn_only=True`` (ops without one warn, not raise)."""
    return _C._get_deterministic_algorithms_warn_only()


def set_deterministic_debug_mode(debug_mode):
    """Sets the deterministic-algorithms mode from a level: 0 or ``"default"`` (off), 1 or ``"warn"`` (on, warning
    only) and 2 or ``"error"`` (on). The same switches as :func:`ember.use_deterministic_algorithms`.

    Args:
        debug_mode (str or int): the level.
    """
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = modes[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {builtin_type(debug_mode)}")
    if debug_mode == 0:
        _C._set_deterministic_algorithms(False, False)
    elif debug_mode == 1:
        _C._set_deterministic_algorithms(True, True)
    elif debug_mode == 2:
        _C._set_deterministic_algorithms(True, False)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode():
    """Returns the deterministic-algorithms level: 0 (off), 1 (on, warning only) or 2 (on). See
    :func:`ember.set_deterministic_debug_mode`."""
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if is_deterministic_algorithms_warn_only_enabled() else 2


# ---- float32 matmul precision ----------------------------------------------------------------------------------------

_matmul_precision = ["highest"]  # what the last set_float32_matmul_precision asked for ("high" or "medium")


def set_float32_matmul_precision(precision):
    """Sets the internal precision of float32 matrix multiplications.

    ``"highest"``: full float32; ``"high"`` and ``"medium"``: TF32 allowed on CUDA (ember has no bfloat16
    decomposition, so ``"medium"`` is ``"high"``). The same switch as ``ember.backends.cuda.matmul.allow_tf32``, as
    in PyTorch 2. Any other value warns and changes nothing.

    Args:
        precision (str): ``"highest"``, ``"high"`` or ``"medium"``.
    """
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "set_float32_matmul_precision call has no effect.",
            stacklevel=2,
        )
        return
    _matmul_precision[0] = precision
    _C._cuda_set_flag("allow_tf32_matmul", precision != "highest")


def get_float32_matmul_precision():
    """Returns the float32 matmul precision: ``"highest"``, ``"high"`` or ``"medium"``. See
    :func:`ember.set_float32_matmul_precision`."""
    if not _C._cuda_get_flag("allow_tf32_matmul"):
        return "highest"
    return "high" if _matmul_precision[0] == "highest" else _matmul_precision[0]


# ---- inter-op threads ------------------------------------------------------------------------------------------------

_interop_threads = [None]  # set once, as PyTorch allows


def get_num_interop_threads():
    """Returns the number of threads for inter-op parallelism.

    ember runs ops one after another on the calling thread (each op splits its work over the intra-op pool of
    :func:`ember.get_num_threads`), so this is the value :func:`ember.set_num_interop_threads` stored, else the
    intra-op thread count."""
    return _interop_threads[0] if _interop_threads[0] is not None else _C.get_num_threads()


def set_num_interop_threads(int):  # noqa: A002  (PyTorch's name for it)
    """Sets the number of threads for inter-op parallelism, once per process.

    ember runs ops one after another (see :func:`ember.get_num_interop_threads`), so the value is stored and read
    back; a second call raises RuntimeError, as in PyTorch.

    Args:
        int (int): a positive number of threads.
    """
    num = int
    if builtin_type(num) is not builtin_int or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop_threads[0] is not None:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _interop_threads[0] = num


# ---- types -----------------------------------------------------------------------------------------------------------


def is_complex(input):
    """Returns True if `input` has a complex dtype (complex64 or complex128).

    Args:
        input (Tensor): the tensor to test.
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(
            f"is_complex(): argument 'input' (position 1) must be Tensor, not {builtin_type(input).__name__}"
        )
    return input.dtype.is_complex


def is_storage(obj, /):
    """Returns True if `obj` is a storage object: always False, as ember's tensors have no separate storage
    objects."""
    return False


def typename(obj, /):
    """Returns the type name of `obj`: a tensor's legacy type name (``'ember.FloatTensor'``), else the object's
    module-qualified class name (``'builtins'`` left out).

    Example::

        >>> ember.typename(ember.zeros(1, dtype=ember.int64))
        'ember.LongTensor'
    """
    if isinstance(obj, _C.Tensor):
        return obj.type()
    module = ""
    mod = getattr(obj, "__module__", None)
    if mod is not None and mod not in ("builtins", "__builtin__"):
        module = mod + "."
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        name = obj.__class__.__name__
    return module + name


def set_default_tensor_type(t, /):
    """Sets the default floating-point dtype from a legacy tensor type or its name (``'torch.DoubleTensor'``).
    Deprecated in PyTorch for :func:`ember.set_default_dtype`.

    Args:
        t (type or str): a floating-point CPU legacy type (``ember.DoubleTensor``) or its name.
    """
    from ._tensor_types import _resolve

    legacy = _resolve(t)
    if legacy is None:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not legacy.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if legacy.is_cuda:
        raise NotImplementedError(
            "set_default_tensor_type: ember has no default device, so CUDA tensor types "
            "cannot be the default; create tensors with device='cuda'"
        )
    _C.set_default_dtype(legacy.dtype)


# ---- warnings, denormals, anomaly mode, compile ----------------------------------------------------------------------

_warn_always = [False]


def set_warn_always(b, /):
    """Sets whether warnings that are issued once are issued every time. The value is stored and read back:
    ember's warnings are Python's, which the warnings module filters.

    Args:
        b (bool): the new value.
    """
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    """Returns the value :func:`ember.set_warn_always` stored (False by default)."""
    return _warn_always[0]


def set_flush_denormal(mode):
    """Sets whether the CPU flushes denormal floating-point numbers to zero, and returns whether it could: False,
    as ember does not switch the CPU's mode (PyTorch returns False where the CPU cannot).

    Args:
        mode (bool): whether to flush denormals.
    """
    return False


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns autograd's anomaly detection on or off, as :class:`ember.autograd.set_detect_anomaly` does.

    Args:
        enabled (bool): whether anomaly detection is on.
        check_nan (bool): whether a backward function that returns NaN raises.
    """
    _C._set_anomaly_enabled(bool(enabled), bool(check_nan))
