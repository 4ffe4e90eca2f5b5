"""ember.save / ember.load: checkpoints that cannot run code when loaded (docs/serialization.md)."""

import io
import os
import pickle

import ember

from . import _C

_MAGIC = b"EMBERCKP"


def _restore_location(tensor, location, map_location):
    """Places a loaded CPU tensor where map_location says, given the location tag it was saved with
    ('cpu', 'cuda', 'cuda:1'), following torch.load's rules: None keeps the saved location; a string or
    device moves everything there; a dict renames tags; a callable gets (tensor, tag) and returns a tensor
    (PyTorch passes a storage: ember passes the CPU tensor that holds the storage's bytes)."""
    if callable(map_location) and not isinstance(map_location, (str, dict, ember.device)):
        result = map_location(tensor, location)
        return tensor if result is None else result
    if isinstance(map_location, dict):
        location = map_location.get(location, location)
    elif map_location is not None:
        location = str(map_location)
    if location == "cpu":
        return tensor
    if location.startswith("cuda"):
        if not ember.cuda.is_available():
            raise RuntimeError(
                f"ember.load: attempting to deserialize a tensor saved on device '{location}' but CUDA is not "
                "available; pass map_location='cpu' to load it on the CPU"
            )
        return tensor.to(location)
    raise RuntimeError(f"ember.load: don't know how to restore a tensor saved on location '{location}'")


def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=2,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
):
    """Saves an object to a file: tensors, and dicts, lists, tuples, numbers, strings and None that hold them (see
    docs/serialization.md).

    A path is replaced atomically: a reader sees the old file or the complete new one. Views of one storage are
    stored once and come back as views. The file is read back by :func:`ember.load`, and loading it never runs
    code: ember does not pickle.

    Args:
        obj (object): the object to save.
        f (str, os.PathLike or file): a path, or a writable binary file object.
        pickle_module (module): accepted for PyTorch's signature and not used.
        pickle_protocol (int): accepted for PyTorch's signature and not used.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> ember.save({"w": ember.ones(2)}, buf)
        >>> _ = buf.seek(0)
        >>> ember.load(buf)
        {'w': tensor([1., 1.])}
    """
    if _is_path(f):
        _C._save(obj, os.fsdecode(f))
        return
    if not hasattr(f, "write"):
        raise TypeError(f"ember.save: f must be a path or a writable binary file object, got {type(f).__name__}")
    f.write(_C._save(obj, None))


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, verify=True, **pickle_load_args):
    """Loads an object saved by :func:`ember.save`, or a checkpoint written by ``torch.save``, from a file.

    Nothing in the file is executed: a PyTorch checkpoint's pickle is read by a restricted reader
    (ember._torch_load) that only rebuilds tensors and plain containers.

    Args:
        f (str, os.PathLike or file): a path, or a readable binary file object.
        map_location (device, str, dict or Callable, optional): where to put the tensors, as ``torch.load`` takes
            it: None keeps the saved locations; a device or string moves everything there; a dict renames
            locations (``{"cuda:1": "cuda:0"}``); a callable gets ``(tensor, location)`` and returns the tensor to
            use.
        pickle_module (module, optional): accepted for PyTorch's signature and not used.

    Keyword args:
        weights_only (bool, optional): accepted for PyTorch's signature: loading is always safe.
        mmap (bool, optional): map the file copy-on-write instead of reading it (`f` must be a path).
        verify (bool): check the file's checksums (ember's CRC-32s, a zip member's CRC-32) and raise on a
            mismatch. ``verify=False`` skips the checks of the tensor data, for trusted files where load time
            matters (with ``mmap=True`` it keeps loading lazy: a verified load reads every byte once). An ember
            extension: PyTorch's ``torch.load`` has no such argument.
        **pickle_load_args: accepted for PyTorch's signature and not used.
    """
    if _is_path(f):
        path = os.fsdecode(f)
        with open(path, "rb") as fh:
            head = fh.read(len(_MAGIC))
        if head == _MAGIC:
            return _load_ember(path, map_location, bool(mmap), verify)
        from ._torch_load import load_torch_file

        return load_torch_file(f, map_location=map_location, mmap=mmap, verify=verify)
    if not hasattr(f, "read"):
        raise TypeError(f"ember.load: f must be a path or a readable binary file object, got {type(f).__name__}")
    if mmap:
        raise ValueError(
            f"ember.load: mmap=True needs a file path (a str or os.PathLike), not a file object; got {type(f).__name__}"
        )
    seekable = getattr(f, "seekable", lambda: False)()
    if seekable:
        start = f.tell()
        head = f.read(len(_MAGIC))
        f.seek(start)
        if head != _MAGIC:
            from ._torch_load import load_torch_file

            return load_torch_file(f, map_location=map_location, mmap=mmap, verify=verify)
        return _load_ember(f.read(), map_location, False, verify)
    data = f.read()
    if not data.startswith(_MAGIC):
        from ._torch_load import load_torch_file

        return load_torch_file(io.BytesIO(data), map_location=map_location, mmap=mmap, verify=verify)
    return _load_ember(data, map_location, False, verify)


def _load_ember(source, map_location, mmap, verify):
    return _C._load(source, mmap, verify, lambda tensor, location: _restore_location(tensor, location, map_location))
