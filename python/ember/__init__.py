"""ember: a define-by-run deep learning library with a C++ core and a PyTorch-style API.

Every operation on tensor data runs in C++ (ember._C); this package is the thin Pythonic surface.
"""
import os as _os

# Note [OpenMP wait policy]
# oneDNN (convolutions, 16-bit matmul) runs on OpenMP, beside ember's own thread pool. libgomp's workers spin for
# about a millisecond after each oneDNN call by default, and the ember ops that follow (on the pool's threads) then
# compete with them for the cores: a bfloat16 autocast MLP training step took 13 ms instead of 2.2 ms on 2 cores.
# So unless the user chose a policy, OpenMP threads sleep when idle (read by libgomp when it loads, just below).
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

from . import _C  # noqa: E402
from ._C import OutOfMemoryError, Tensor, Generator, dtype, device  # noqa: F401

# Every public function and dtype of the extension module is part of the ember namespace, so that a
# new op needs only its binding (no list here to keep in sync).
globals().update({k: v for k, v in vars(_C).items() if not k.startswith("_")})
from ._size import Size
from ._tensor_types import cpu_types as _legacy_types

globals().update(_legacy_types)  # FloatTensor, LongTensor, ...: PyTorch's legacy tensor types (CPU)
from ._derived import install as _install_derived

_install_derived(globals())  # torch.abs_, torch.view_copy, torch.detach, ...: derived from the Tensor methods
from ._real_complex import install as _install_real_complex  # noqa: E402

_install_real_complex(globals())  # conj, angle, real, isreal, scalar_tensor, has_cuda, ... (real-tensor forms)
from . import return_types  # noqa: E402,F401
from ._histogram import histogram, histogramdd  # noqa: E402,F401

if not hasattr(Tensor, "histogram"):
    Tensor.histogram = histogram
from ._norm_ops import install as _install_norm_ops  # noqa: E402

_install_norm_ops(globals())  # frobenius_norm, native_layer_norm, batch_norm_stats, ...
from . import autograd, backends, cuda, linalg, nn, optim, special, utils  # noqa: F401
from . import multiprocessing  # noqa: F401  (registers the shared-memory tensor reducers)
from . import amp, cpu  # noqa: F401
from ._C import _sample_dirichlet, _sample_von_mises, _standard_gamma, _standard_gamma_grad  # noqa: F401
from . import distributions  # noqa: F401
from . import distributed  # noqa: F401,E402  (ember.distributed without its own import, as torch.distributed)
from ._C import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_  # noqa: F401
from .amp.autocast_mode import (autocast, autocast_decrement_nesting, autocast_increment_nesting,  # noqa: F401
                                clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype,
                                get_autocast_gpu_dtype, is_autocast_available, is_autocast_cache_enabled,
                                is_autocast_cpu_enabled, is_autocast_enabled, set_autocast_cache_enabled,
                                set_autocast_cpu_dtype, set_autocast_cpu_enabled, set_autocast_dtype,
                                set_autocast_enabled, set_autocast_gpu_dtype)
from .serialization import save, load  # noqa: F401
from ._compile import compile  # noqa: F401,A004
from ._creation import asarray, get_default_device, set_default_device  # noqa: F401
from ._utils import (pi, e, inf, nan, finfo, iinfo, use_deterministic_algorithms,  # noqa: F401
                     are_deterministic_algorithms_enabled, is_deterministic_algorithms_warn_only_enabled,
                     set_deterministic_debug_mode, get_deterministic_debug_mode, set_float32_matmul_precision,
                     get_float32_matmul_precision, get_num_interop_threads, set_num_interop_threads, is_complex,
                     is_storage, typename, set_default_tensor_type, set_warn_always, is_warn_always_enabled,
                     set_flush_denormal, set_anomaly_enabled)
from . import func, hub, jit, profiler, testing, version  # noqa: F401,E402
from .func import vmap  # noqa: F401,E402
from .nn.functional import bilinear, channel_shuffle  # noqa: F401
native_channel_shuffle = channel_shuffle
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                                 is_grad_enabled, is_inference_mode_enabled)

# PyTorch's aliases of the dtypes.
half = _C.float16
float = _C.float32  # noqa: A001
double = _C.float64
short = _C.int16
int = _C.int32  # noqa: A001
long = _C.int64

# The layout (ember tensors are always strided) and the memory formats (python/src: to_memory_format reads
# `_ember_memory_format`, the value of ember::MemoryFormat).
class layout:
    _ember_strided = True

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "ember." + self._name


class memory_format:
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

_C._set_size_type(Size)
from . import futures, random  # noqa: E402,A004  (ember.futures and ember.random, as in torch)
default_generator = random.default_generator  # the CPU generator object, as torch.default_generator
Tensor.__module__ = "ember"
dtype.__module__ = "ember"
device.__module__ = "ember"
Generator.__module__ = "ember"

__version__ = version.__version__


# ember's functions are C++ (nanobind) function objects. Like Python functions, they copy by reference
# (a module that stores F.relu can be deep-copied) and pickle by name.
import copy as _copy  # noqa: E402
import copyreg as _copyreg  # noqa: E402
_copy._deepcopy_dispatch[type(_C.empty)] = _copy._deepcopy_atomic


def _function_by_name(module, name):
    import importlib
    return getattr(importlib.import_module(module), name)


def _reduce_function(f):
    module, name = getattr(f, "__module__", None), getattr(f, "__name__", None)
    if not module or not name:
        raise TypeError("cannot pickle the ember function %r (it has no module and name)" % (f,))
    return _function_by_name, (module, name)


_copyreg.pickle(type(_C.empty), _reduce_function)


def _rebuild_tensor(data, dtype, shape, device, requires_grad):
    """Unpickles a tensor (Tensor.__reduce_ex__); a Python function so that pickle can name it."""
    return _C._rebuild_tensor(data, dtype, shape, device, requires_grad)
