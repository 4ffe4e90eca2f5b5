"""PyTorch's legacy tensor types: ember.FloatTensor, ember.cuda.LongTensor, ... A type is a constructor of tensors of
its dtype and device (FloatTensor(2, 3): uninitialised 2x3; LongTensor([1, 2]): from data; FloatTensor(): empty)
and an isinstance() test (isinstance(x, ember.cuda.FloatTensor): x is a float32 CUDA tensor), as PyTorch's are
(a metaclass's __instancecheck__); x.type(ember.cuda.HalfTensor) and x.type("torch.cuda.HalfTensor") convert
(Tensor.type, in ember._tensor)."""

from . import _C

_NAMES = [
    ("FloatTensor", "float32"),
    ("DoubleTensor", "float64"),
    ("HalfTensor", "float16"),
    ("BFloat16Tensor", "bfloat16"),
    ("LongTensor", "int64"),
    ("IntTensor", "int32"),
    ("ShortTensor", "int16"),
    ("CharTensor", "int8"),
    ("ByteTensor", "uint8"),
    ("BoolTensor", "bool"),
]


class _LegacyTensorType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype and obj.is_cuda == cls.is_cuda

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _new(cls, *args, device=None):
    dev = ("cuda" if cls.is_cuda else "cpu") if device is None else device
    if len(args) == 1 and not isinstance(args[0], int):
        arg = args[0]
        if isinstance(arg, _C.Tensor):
            if not isinstance(arg, cls):
                raise TypeError(f"expected {cls.__module__}.{cls.__name__} (got {arg.type()})")
            return arg
        if isinstance(arg, tuple) and all(isinstance(a, int) for a in arg) and type(arg).__name__ == "Size":
            return _C.empty(*arg, dtype=cls.dtype, device=dev)
        return _C.tensor(arg, dtype=cls.dtype, device=dev)
    for a in args:
        if not isinstance(a, int):
            raise TypeError(f"{cls.__name__}(): expected sizes (ints) or data, got {type(a).__name__}")
    return _C.empty(*args, dtype=cls.dtype, device=dev) if args else _C.empty(0, dtype=cls.dtype, device=dev)


def _make(name, dtype_name, is_cuda):
    module = "ember.cuda" if is_cuda else "ember"
    where = "CUDA" if is_cuda else "CPU"
    doc = (
        "The legacy type of %s %s tensors: %s(*sizes) makes an uninitialised tensor of that shape, %s(data) one "
        "from data, and isinstance(x, %s) tells whether x is one." % (where, dtype_name, name, name, name)
    )
    return _LegacyTensorType(
        name,
        (),
        {"dtype": getattr(_C, dtype_name), "is_cuda": is_cuda, "__module__": module, "__new__": _new, "__doc__": doc},
    )


cpu_types = {name: _make(name, d, False) for name, d in _NAMES}
cuda_types = {name: _make(name, d, True) for name, d in _NAMES}  # ember.cuda's
_BY_DTYPE = {(cpu_types[n].dtype, False): n for n, _ in _NAMES}

# The CPU types are ember's (ember.FloatTensor, ...); the names are _NAMES's.
FloatTensor = cpu_types["FloatTensor"]
DoubleTensor = cpu_types["DoubleTensor"]
HalfTensor = cpu_types["HalfTensor"]
BFloat16Tensor = cpu_types["BFloat16Tensor"]
LongTensor = cpu_types["LongTensor"]
IntTensor = cpu_types["IntTensor"]
ShortTensor = cpu_types["ShortTensor"]
CharTensor = cpu_types["CharTensor"]
ByteTensor = cpu_types["ByteTensor"]
BoolTensor = cpu_types["BoolTensor"]

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
]


def _type_name(t):
    name = _BY_DTYPE.get((t.dtype, False))
    if name is None:
        return f"ember.{t.dtype}"  # a dtype without a legacy type (complex, unsigned wider than 8 bits)
    return f"ember.cuda.{name}" if t.is_cuda else f"ember.{name}"


def _resolve(spec):
    """The legacy type class for a class or its name ('torch.cuda.FloatTensor', 'ember.FloatTensor'); None if
    `spec` is neither."""
    if isinstance(spec, _LegacyTensorType):
        return spec
    if isinstance(spec, str) and spec.endswith("Tensor"):
        parts = spec.split(".")
        if parts[0] in ("torch", "ember") and len(parts) in (2, 3) and (len(parts) == 2 or parts[1] == "cuda"):
            table = cuda_types if len(parts) == 3 else cpu_types
            if parts[-1] in table:
                return table[parts[-1]]
        raise ValueError(f"invalid type: '{spec}'")
    return None
