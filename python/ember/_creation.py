"""Creation helpers written over the C++ factories: the default device (torch.set_default_device) and asarray."""

from . import _C


def set_default_device(device):
    """Sets the default device: that of the tensors made without ``device=`` from Python data or sizes (factory
    functions, :func:`ember.tensor`, module parameters).

    Tensors made from other tensors keep theirs (Note [Default device] in python/src/common.cpp). ``with
    ember.device("cuda"):`` does the same for a block.

    Args:
        device (device or str or None): the new default device; None goes back to the CPU.

    Example::

        >>> ember.set_default_device("cpu")
        >>> ember.zeros(1).device
        device(type='cpu')
    """
    _C._set_default_device(None if device is None else _C.device(device))


def get_default_device():
    """Returns the default device: the one :func:`ember.set_default_device` (or the innermost ``with
    ember.device(...)``) set, else the CPU."""
    d = _C._get_default_device()
    return _C.device("cpu") if d is None else d


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """Converts `obj` to a tensor, sharing its memory where it can.

    `obj` may be a tensor, a NumPy array or any object with the array interface, a buffer (bytes, bytearray,
    memoryview: read as uint8), a Python number or a (nested) sequence of them. The result aliases `obj`'s memory
    when it is a tensor, an array or a buffer already of the requested dtype and device.

    Args:
        obj (object): the data.

    Keyword args:
        dtype (dtype, optional): the result's dtype; by default `obj`'s (or inferred from Python data).
        device (device, optional): the result's device; by default `obj`'s (or the default device).
        copy (bool, optional): True always copies; False never does (ValueError where a copy is needed); None
            copies only when needed.
        requires_grad (bool, optional): whether autograd records operations on the result (a leaf); None is False.

    Example::

        >>> import numpy as np
        >>> a = np.array([1.0, 2.0], dtype=np.float32)
        >>> t = ember.asarray(a)
        >>> t[0] = 5.0
        >>> a
        array([5., 2.], dtype=float32)
    """
    if isinstance(obj, _C.Tensor):
        t = obj.to(device=obj.device if device is None else device, dtype=obj.dtype if dtype is None else dtype)
        shared = t is obj
    elif (
        hasattr(obj, "__array_interface__")
        or hasattr(obj, "__array__")
        or isinstance(obj, (bytes, bytearray, memoryview))
    ):
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
