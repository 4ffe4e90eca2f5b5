"""default_collate and default_convert: turn a list of samples into a batch (stacking tensors in C++), or convert
one sample's NumPy arrays and numbers to tensors (the batch_size=None case)."""

import collections.abc
import re

from .... import _C
from ...._C import Tensor
from . import worker as _worker

_np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_numpy(elem_type):
    return elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_", "bytes_")


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def default_convert(data):
    """NumPy arrays and scalars become tensors (without a copy where possible), recursively through mappings,
    namedtuples, tuples (which become lists, as in PyTorch) and sequences; anything else is returned as is."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if _is_numpy(elem_type):
        if elem_type.__name__ in ("ndarray", "memmap") and _np_str_obj_array_pattern.search(data.dtype.str):
            return data  # arrays of strings or objects stay arrays
        return _C.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}  # the mapping type takes no dict
    if _is_namedtuple(data):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _stack(batch):
    try:
        # In a worker the batch is written straight into shared memory: sending it moves only a handle.
        return _C._collate_stack(batch, _worker._worker_info is not None)
    except TypeError:
        for i, b in enumerate(batch):
            if not isinstance(b, Tensor):
                raise TypeError(
                    "expected Tensor as element {} in argument 0, but got {}".format(i, type(b).__name__)
                ) from None
        raise


def default_collate(batch):
    """Merges a list of samples into a batch: tensors are stacked along a new first dimension (NumPy arrays and
    scalars first become tensors), Python floats / ints / bools become float64 / int64 / bool tensors, strings stay
    a list, and mappings, namedtuples, tuples and sequences are collated field by field (tuples give lists)."""
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, Tensor):
        return _stack(batch)
    if _is_numpy(elem_type):
        if elem_type.__name__ in ("ndarray", "memmap"):
            if _np_str_obj_array_pattern.search(elem.dtype.str):
                raise TypeError(default_collate_err_msg_format.format(elem.dtype))
            return default_collate([_C.as_tensor(b) for b in batch])
        if elem.shape == ():  # a NumPy scalar: its dtype is kept (np.float64 is a float subclass)
            import numpy

            return _C.as_tensor(numpy.asarray(batch))
    elif isinstance(elem, float):
        return _C.tensor(batch, dtype=_C.float64)
    elif isinstance(elem, int):
        return _C.tensor(batch)
    elif isinstance(elem, (str, bytes)):
        return batch
    elif isinstance(elem, collections.abc.Mapping):
        try:
            return elem_type({key: default_collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    elif _is_namedtuple(elem):
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    elif isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            return elem_type([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))
