"""Creation helpers written over the C++ factories: the default device (torch.set_default_device) and asarray."""
from . import _C
from ._C import Tensor


def set_default_device(device):
    """Sets the device of tensors made without device= from Python data or sizes (factory functions, ember.tensor,
    module parameters); None goes back to the CPU. Tensors made from other tensors keep theirs (Note [Default device]
    in python/src/common.cpp). `with ember.device("cuda"):` does the same for a block."""
    _C._set_default_device(None if device is None else _C.device(device))


def get_default_device():
    """The device set by set_default_device (or the innermost `with ember.device(...)`), else cpu."""
    d = _C._get_default_device()
    return _C.device("cpu") if d is None else d


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """torch.asarray: a tensor of obj, sharing its memory where it can (a tensor, a NumPy array or a buffer of the
    requested dtype on the CPU). copy=True always copies; copy=False raises ValueError where a copy is needed."""
    if isinstance(obj, Tensor):
        t = obj.to(device=obj.device if device is None else device, dtype=obj.dtype if dtype is None else dtype)
        shared = t is obj
    elif hasattr(obj, "__array_interface__") or hasattr(obj, "__array__") or isinstance(obj, (bytes, bytearray,
                                                                                                memoryview)):
        if isinstance(obj, (bytes, bytearray, memoryview)):
            import numpy as np
            obj = np.frombuffer(obj, dtype=np.uint8)
        t = _C.as_tensor(obj, dtype=dtype, device=device)
        shared = t.device.type == "cpu" and _shares_memory(t, obj)
    else:
        if copy is False:
            raise ValueError("asarray(): can't alias Python scalars or sequences (copy=False)")
        t = _C.tensor(obj, dtype=dtype, device=device)
        shared = False
    if copy is False and not shared:
        raise ValueError("asarray(): copy=False, but converting to dtype %s on %s needs a copy" % (t.dtype, t.device))
    if copy and shared:
        t = t.clone()
    if requires_grad:
        t = (t.detach() if t is obj else t).requires_grad_(True)
    return t


def _shares_memory(t, arr):
    import numpy as np
    a = np.asarray(arr)
    return a.size > 0 and t.numel() > 0 and t.data_ptr() == a.__array_interface__["data"][0]
