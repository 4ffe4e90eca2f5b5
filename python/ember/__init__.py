"""ember: a define-by-run deep learning library with a C++ core and a PyTorch-style API.

Every operation on tensor data runs in C++ (ember._C); this package is the thin Pythonic surface.
"""
from . import _C
from ._C import (  # noqa: F401
    Tensor,
    Generator,
    dtype,
    device,
    OutOfMemoryError,
    # dtypes
    bool,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    # creation
    tensor,
    as_tensor,
    empty,
    empty_strided,
    zeros,
    ones,
    full,
    arange,
    linspace,
    logspace,
    eye,
    empty_like,
    zeros_like,
    ones_like,
    full_like,
    # random
    manual_seed,
    seed,
    initial_seed,
    get_rng_state,
    set_rng_state,
    rand,
    randn,
    randint,
    randperm,
    normal,
    bernoulli,
    multinomial,
    rand_like,
    randn_like,
    randint_like,
    # views and shape
    reshape,
    permute,
    transpose,
    swapaxes,
    t,
    squeeze,
    unsqueeze,
    flatten,
    unflatten,
    narrow,
    select,
    diagonal,
    as_strided,
    clone,
    broadcast_shapes,
    # dtypes and misc
    get_default_dtype,
    set_default_dtype,
    promote_types,
    can_cast,
    result_type,
    is_tensor,
    is_floating_point,
    numel,
    set_printoptions,
)
from ._size import Size
from . import cuda  # noqa: F401

# PyTorch's aliases of the dtypes.
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64

# The default layout and memory format; ember tensors are always strided.
class _Layout:
    _ember_strided = True

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "ember." + self._name


strided = _Layout("strided")
contiguous_format = _Layout("contiguous_format")
preserve_format = _Layout("preserve_format")

_C._set_size_type(Size)
default_generator = _C.default_generator()  # the CPU generator object, as torch.default_generator
Tensor.__module__ = "ember"
dtype.__module__ = "ember"
device.__module__ = "ember"
Generator.__module__ = "ember"

__version__ = "0.1.0"
