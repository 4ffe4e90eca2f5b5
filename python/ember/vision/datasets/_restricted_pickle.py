"""Reading the CIFAR python batches without running pickle code.

The batches are pickled dicts of str/bytes keys, lists of ints and NumPy arrays. A pickle names the callables it
wants called (GLOBAL / STACK_GLOBAL opcodes); this unpickler resolves only the few that rebuild NumPy arrays and
dtypes, and refuses every other name before anything is called, so a crafted file cannot run code.
"""

import io
import pickle

import numpy as np


def _latin1_encode(obj, encoding="latin1"):
    # Protocol-2 pickles from Python 3 store bytes as _codecs.encode(str, 'latin1').
    if encoding not in ("latin1", "latin-1", "iso-8859-1") or not isinstance(obj, str):
        raise pickle.UnpicklingError(
            "refusing _codecs.encode(%r, %r) in a dataset pickle" % (type(obj).__name__, encoding)
        )
    return obj.encode("latin1")


def _reconstruct(cls, shape, dtype_code):
    if cls is not np.ndarray:
        raise pickle.UnpicklingError("refusing to rebuild a %r in a dataset pickle" % (cls,))
    return np.ndarray.__new__(np.ndarray, shape, dtype_code)


def _frombuffer(buf, dtype, shape, order):
    # Protocol 5 pickles of arrays (numpy.core.numeric._frombuffer).
    if not isinstance(dtype, np.dtype) or dtype.hasobject:
        raise pickle.UnpicklingError("refusing an array of dtype %r in a dataset pickle" % (dtype,))
    return np.frombuffer(buf, dtype=dtype).reshape(shape, order=order).copy()


def _dtype(spec, align=False, copy=False):
    d = np.dtype(spec, align, copy)
    if d.hasobject:
        raise pickle.UnpicklingError("refusing an object dtype in a dataset pickle")
    return d


_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy.core.numeric", "_frombuffer"): _frombuffer,
    ("numpy._core.numeric", "_frombuffer"): _frombuffer,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): _dtype,
    ("_codecs", "encode"): _latin1_encode,
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                "refusing to load %s.%s: a dataset pickle may only hold containers, "
                "strings, numbers and NumPy arrays" % (module, name)
            ) from None

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refusing a persistent id in a dataset pickle")


def _check_arrays(obj, depth=0):
    """The rebuilt objects are plain containers and numeric arrays (an ndarray's __setstate__ could carry an
    object dtype only through an allowed name, which _dtype refuses; this checks the result as well)."""
    if depth > 8:
        raise pickle.UnpicklingError("a dataset pickle nests too deeply")
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject:
            raise pickle.UnpicklingError("refusing an object array in a dataset pickle")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _check_arrays(k, depth + 1)
            _check_arrays(v, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _check_arrays(v, depth + 1)
    elif not isinstance(obj, (str, bytes, int, float, bool, type(None))):
        raise pickle.UnpicklingError("unexpected %s in a dataset pickle" % type(obj).__name__)


def load(path):
    """Unpickles a dataset batch file with only the NumPy rebuilders allowed (latin1 for Python 2 strings)."""
    with open(path, "rb") as f:
        data = f.read()
    obj = _Unpickler(io.BytesIO(data), encoding="latin1").load()
    _check_arrays(obj)
    return obj
