"""ember: a define-by-run deep learning library with a C++ core and a PyTorch-style API.

Every operation on tensor data runs in C++ (ember._C); this package is the thin Pythonic surface.
"""

import os as _os

# Note [OpenMP wait policy]
# oneDNN runs on OpenMP, beside ember's own thread pool. ember runs every oneDNN call on one OpenMP thread (Note
# [Primitives on ember's threads]), but other OpenMP code in the process may start libgomp's workers, which spin for
# about a millisecond after each parallel region by default, competing for the cores with ember's pool (when 16-bit
# matmuls still ran on OpenMP's threads, a bfloat16 autocast MLP training step took 13 ms instead of 2.2 ms on 2
# cores). So unless the user chose a policy, OpenMP threads sleep when idle (read by libgomp when it loads, below).
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

from . import _C  # noqa: E402

# Note [Python surface] (docs/architecture.md): every public name of ember is listed in __all__ below. The functions,
# types and dtypes bound in C++ come from ember._C (its __all__, made at the end of python/src/main.cpp); the rest are
# defined in the Python modules imported here, each named in __all__.
from ._C import *  # noqa: E402,F403
from ._C import Generator, Tensor, device, dtype  # noqa: E402  (named for the code below)

# torch._C's context managers of __torch_function__, not torch's: ember._C only.
_NOT_TOP_LEVEL = ("DisableTorchFunction", "DisableTorchFunctionSubclass")
del DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: F821
from ._size import Size  # noqa: E402

_C._set_size_type(Size)
from . import (  # noqa: E402  # noqa: E402,F401  # noqa: E402,F401  # noqa: E402,F401
    _derived,
    _dynamo,  # noqa: E402,F401  (torch._dynamo's start-up functions, for unchanged programs)
    _norm_ops,
    _real_complex,
    _tensor,  # noqa: E402,F401  (attaches the Tensor methods written in Python)
    _tensor_types,
    accelerator,
    amp,
    autograd,
    backends,
    compiler,
    cpu,
    cuda,
    distributed,  # noqa: E402,F401  (ember.distributed without its own import, as torch.distributed)
    distributions,  # noqa: E402,F401
    fft,
    func,
    hub,
    jit,
    linalg,
    masked,
    mps,
    multiprocessing,  # noqa: E402,F401  (registers the shared-memory tensor reducers)
    nn,
    optim,
    profiler,
    return_types,  # noqa: E402,F401
    signal,
    special,
    testing,
    utils,
    version,
    xpu,
)
from ._C import (  # noqa: E402,F401  # noqa: E402,F401
    _amp_foreach_non_finite_check_and_unscale_,
    _amp_update_scale_,
    _sample_dirichlet,
    _sample_von_mises,
    _standard_gamma,
    _standard_gamma_grad,
)
from ._compile import compile  # noqa: E402,A004
from ._creation import asarray, get_default_device, set_default_device  # noqa: E402
from ._derived import *  # noqa: E402,F403  addmv_, detach_, view_copy, ...: Tensor methods as functions of `input`
from ._histogram import histogram, histogramdd  # noqa: E402
from ._norm_ops import *  # noqa: E402,F403  frobenius_norm, native_layer_norm, batch_norm_stats, ...
from ._real_complex import *  # noqa: E402,F403  resolve_neg, scalar_tensor, has_cuda, ...
from ._segment import nonzero_static, segment_reduce  # noqa: E402
from ._spectral import istft, stft  # noqa: E402
from ._tensor_types import *  # noqa: E402,F403  FloatTensor, LongTensor, ...: PyTorch's legacy tensor types (CPU)
from ._torch_alias import install_as_torch  # noqa: E402
from ._utils import (  # noqa: E402
    are_deterministic_algorithms_enabled,
    e,
    finfo,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    get_num_interop_threads,
    iinfo,
    inf,
    is_complex,
    is_deterministic_algorithms_warn_only_enabled,
    is_storage,
    is_warn_always_enabled,
    nan,
    pi,
    set_anomaly_enabled,
    set_default_tensor_type,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_num_interop_threads,
    set_warn_always,
    typename,
    use_deterministic_algorithms,
)
from .amp.autocast_mode import (  # noqa: E402
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_available,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from .autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: E402
from .func import vmap  # noqa: E402
from .nn.functional import bilinear, channel_shuffle, native_channel_shuffle  # noqa: E402
from .serialization import load, save  # noqa: E402
from .storage import TypedStorage, UntypedStorage  # noqa: E402
from .storage import _legacy_classes as _legacy_storages  # noqa: E402

globals().update(_legacy_storages)  # FloatStorage, LongStorage, ...: PyTorch's legacy typed storages

# PyTorch's aliases of the dtypes.
half = float16  # noqa: F405
float = float32  # noqa: A001,F405
double = float64  # noqa: F405
cfloat = complex64  # noqa: F405
cdouble = complex128  # noqa: F405
chalf = complex32  # noqa: F405
short = int16  # noqa: F405
int = int32  # noqa: A001,F405
long = int64  # noqa: F405


# The layout (ember tensors are always strided) and the memory formats (python/src: to_memory_format reads
# `_ember_memory_format`, the value of ember::MemoryFormat).
class layout:
    """The memory layout of a tensor. ember's tensors are all dense and strided: its one layout is
    ``ember.strided``, the value of every ``layout=`` argument and of ``Tensor.layout``."""

    _ember_strided = True

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "ember." + self._name


class memory_format:
    """The order in which a tensor's elements are laid out in memory: ``ember.contiguous_format`` (row-major),
    ``ember.channels_last`` (NHWC for a 4-D tensor), ``ember.channels_last_3d`` (NDHWC for a 5-D one), or
    ``ember.preserve_format`` (keep the input's), as ``memory_format=`` arguments take them."""

    _ember_strided = True

    def __init__(self, name, value):
        self._name = name
        self._ember_memory_format = value

    def __repr__(self):
        return "ember." + self._name

    def __reduce__(self):
        return self._name


strided = layout("strided")
contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)
channels_last_3d = memory_format("channels_last_3d", 3)
legacy_contiguous_format = contiguous_format

from . import futures, random  # noqa: E402,A004  (ember.futures and ember.random, as in torch)

default_generator = random.default_generator  # the CPU generator object, as torch.default_generator
Tensor.__module__ = "ember"
dtype.__module__ = "ember"
device.__module__ = "ember"
Generator.__module__ = "ember"

__version__ = version.__version__

__all__ = [
    # the functions, types and dtypes bound in C++; _C.default_generator() returns the generator that
    # ember.default_generator is (below), as in PyTorch
    *(name for name in _C.__all__ if name != "default_generator" and name not in _NOT_TOP_LEVEL),
    "Size",
    "TypedStorage",
    "UntypedStorage",
    *_legacy_storages,
    *_tensor_types.__all__,
    *_derived.__all__,
    *_real_complex.__all__,
    *_norm_ops.__all__,
    "histogram",
    "histogramdd",
    "nonzero_static",
    "segment_reduce",
    "stft",
    "istft",
    "install_as_torch",
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_available",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_gpu_dtype",
    "save",
    "load",
    "compile",
    "asarray",
    "get_default_device",
    "set_default_device",
    "pi",
    "e",
    "inf",
    "nan",
    "finfo",
    "iinfo",
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "get_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "set_num_interop_threads",
    "is_complex",
    "is_storage",
    "typename",
    "set_default_tensor_type",
    "set_warn_always",
    "is_warn_always_enabled",
    "set_flush_denormal",
    "set_anomaly_enabled",
    "vmap",
    "bilinear",
    "channel_shuffle",
    "native_channel_shuffle",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "half",
    "float",
    "double",
    "cfloat",
    "cdouble",
    "chalf",
    "short",
    "int",
    "long",
    "layout",
    "memory_format",
    "strided",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
    "legacy_contiguous_format",
    "default_generator",
]


# ember's functions are C++ (nanobind) function objects. Like Python functions, they copy by reference
# (a module that stores F.relu can be deep-copied) and pickle by name.
import copy as _copy  # noqa: E402
import copyreg as _copyreg  # noqa: E402

_copy._deepcopy_dispatch[type(_C.empty)] = _copy._deepcopy_atomic


def _function_by_name(module, name):
    import importlib

    obj = importlib.import_module(module)
    for part in name.split("."):  # "Tensor.backward"
        obj = getattr(obj, part)
    return obj


def _reduce_function(f):
    module, name = getattr(f, "__module__", None), getattr(f, "__name__", None)
    if not module or not name:
        raise TypeError("cannot pickle the ember function %r (it has no module and name)" % (f,))
    return _function_by_name, (module, name)


_copyreg.pickle(type(_C.empty), _reduce_function)


def _rebuild_tensor(data, dtype, shape, device, requires_grad):
    """Unpickles a tensor (Tensor.__reduce_ex__); a Python function so that pickle can name it."""
    return _C._rebuild_tensor(data, dtype, shape, device, requires_grad)


# Last: the __torch_function__ check in front of every function and Tensor method (ember.overrides, Note
# [Dispatching __torch_function__] in python/src/torch_function.cpp); ember's Python functions get a wrapper type,
# which copies and pickles as the function it wraps.
from . import overrides  # noqa: E402


def _reduce_wrapper(w):
    """Pickles a wrapped function by its public name (ember.nn.functional.one_hot), which is the wrapper."""
    module, _, name = overrides._PUBLIC_NAMES.get(overrides._key(w), "").rpartition(".")
    if module == "ember.Tensor":
        module, name = "ember", "Tensor." + name
    if module:
        return _function_by_name, (module, name)
    return _reduce_function(w)


_copy._deepcopy_dispatch[_C._TorchFunctionWrapper] = _copy._deepcopy_atomic
_copyreg.pickle(_C._TorchFunctionWrapper, _reduce_wrapper)

overrides._install()
from . import (
    fx,  # noqa: E402  (after _install: ember.fx as torch.fx, which torch imports with itself)
    library,  # noqa: E402,F401  ember.library: custom ops
)

from . import onnx  # noqa: E402  # isort: skip  (as torch.onnx; onnx itself is imported only when exporting)
from . import export  # noqa: E402  # isort: skip  (torch.export's Dim, for onnx.export's dynamic_shapes)
from ._ops import ops  # noqa: E402  ember.ops.aten.<op>.<overload>, what __torch_dispatch__ receives
from .utils import _python_dispatch as _python_dispatch  # noqa: E402,F401  installs the ops' dispatch hook
