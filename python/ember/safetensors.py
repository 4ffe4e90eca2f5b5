"""ember.safetensors: the safetensors format (huggingface/safetensors) with the API of its `safetensors.torch`
module and `safe_open`. Files are byte-identical to the reference implementation's; loading validates the
whole header first and never runs code (docs/serialization.md)."""

import os

import ember

from . import _C

__all__ = ["save", "save_file", "load", "load_file", "safe_open"]

_FRAMEWORKS = ("pt", "torch", "pytorch", "np", "numpy")
_CODES = {
    ember.bool: "BOOL",
    ember.uint8: "U8",
    ember.int8: "I8",
    ember.int16: "I16",
    ember.float16: "F16",
    ember.bfloat16: "BF16",
    ember.int32: "I32",
    ember.float32: "F32",
    ember.float64: "F64",
    ember.int64: "I64",
}


def _check_tensors(tensors):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, ember.Tensor] but received {type(tensors)}")


def save(tensors, metadata=None):
    """The safetensors bytes of tensors (a dict of str to contiguous tensors that don't share memory)."""
    _check_tensors(tensors)
    return _C._safetensors_save(tensors, metadata, None)


def save_file(tensors, filename, metadata=None):
    """Writes tensors to filename (replaced atomically). metadata: an optional dict of str to str."""
    _check_tensors(tensors)
    _C._safetensors_save(tensors, metadata, os.fsdecode(filename))


def _to_device(t, device):
    return t if device in ("cpu", None) or (isinstance(device, ember.device) and device.type == "cpu") else t.to(device)


def load(data):
    """The dict of tensors held by safetensors bytes (a bytes-like object)."""
    tensors, _ = _C._safetensors_load(data, False)
    return dict(tensors)


def load_file(filename, device="cpu"):
    """The dict of tensors in a safetensors file, in name order, on `device`."""
    tensors, _ = _C._safetensors_load(os.fsdecode(filename), False)
    return {name: _to_device(t, device) for name, t in tensors}


class safe_open:  # noqa: N801 (the reference's name)
    """Opens a safetensors file lazily: the file is mapped copy-on-write, so get_tensor and get_slice read only
    the pages they touch. Usable as a context manager; tensors it returns own their memory."""

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in _FRAMEWORKS:
            raise ValueError(f"safe_open: framework '{framework}' is not supported (ember supports 'pt' and 'numpy')")
        self._numpy = framework in ("np", "numpy")
        self._device = device
        tensors, self._metadata = _C._safetensors_load(os.fsdecode(filename), True)
        self._tensors = dict(tensors)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._tensors = None  # releases the mapping once returned tensors are gone (they are copies)
        return False

    def _open(self):
        if self._tensors is None:
            raise RuntimeError("safe_open: the file is closed (used after its `with` block)")
        return self._tensors

    def keys(self):
        return sorted(self._open())

    def offset_keys(self):
        return sorted(self._open(), key=lambda k: self._tensors[k].data_ptr())

    def metadata(self):
        return self._metadata

    def _view(self, name):
        try:
            return self._open()[name]
        except KeyError:
            raise KeyError(f"File does not contain tensor {name}") from None

    def _out(self, t):
        t = t.clone()  # off the mapping: a copy that owns its memory
        return t.numpy() if self._numpy else _to_device(t, self._device)

    def get_tensor(self, name):
        return self._out(self._view(name))

    def get_slice(self, name):
        return _Slice(self, self._view(name))


class _Slice:
    """One tensor of a safe_open file; indexing it ([:, 1:3]) copies only the selected part."""

    def __init__(self, owner, view):
        self._owner, self._view = owner, view

    def get_shape(self):
        return list(self._view.shape)

    def get_dtype(self):
        return _CODES[self._view.dtype]

    def __getitem__(self, index):
        return self._owner._out(self._view[index])
