"""ember.save / ember.load: checkpoints that cannot run code when loaded (docs/serialization.md)."""

import collections
import io
import os
import pickle
import secrets
import struct
import warnings

import ember

from . import _C

_MAGIC = b"EMBERCKP"
_MAX_DIMS = _C._checkpoint_limits["dims"]


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


class _TorchGlobal:
    """A reference to a PyTorch global (``torch._utils._rebuild_tensor_v2``, ``torch.float32``): pickled as the
    GLOBAL opcode naming it, so that PyTorch finds its own object where ember's would not exist."""

    __slots__ = ("module", "name")
    _cache = {}

    def __new__(cls, module, name):
        key = (module, name)
        g = cls._cache.get(key)
        if g is None:
            g = object.__new__(cls)
            object.__setattr__(g, "module", module)
            object.__setattr__(g, "name", name)
            cls._cache[key] = g
        return g

    def __call__(self, *args):  # pickle wants a reduce function to be callable; this one is only ever written
        raise TypeError(f"{self.module}.{self.name} is PyTorch's; ember only writes a reference to it")


_REBUILD_TENSOR = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = _TorchGlobal("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _TorchGlobal("torch._utils", "_rebuild_parameter")
_TORCH_SIZE = _TorchGlobal("torch", "Size")
_TORCH_DEVICE = _TorchGlobal("torch", "device")
_TORCH_TENSOR = _TorchGlobal("torch", "Tensor")
_REBUILD_FROM_TYPE = _TorchGlobal("torch._tensor", "_rebuild_from_type_v2")

# Note [foreign class names]: ember classes that stand for a PyTorch-ecosystem class are pickled under that class's
# name (so torch.load finds torchvision's BoundingBoxes in a file ember saved), and ember.load maps the name back.
_FOREIGN_NAMES = {
    "ember.vision.tv_tensors." + name: (module, name)
    for module, name in (
        ("torchvision.tv_tensors._tv_tensor", "TVTensor"),
        ("torchvision.tv_tensors._image", "Image"),
        ("torchvision.tv_tensors._video", "Video"),
        ("torchvision.tv_tensors._mask", "Mask"),
        ("torchvision.tv_tensors._bounding_boxes", "BoundingBoxes"),
        ("torchvision.tv_tensors._bounding_boxes", "BoundingBoxFormat"),
        ("torchvision.tv_tensors._keypoints", "KeyPoints"),
    )
}
_EMBER_NAMES = {f"{module}.{name}": ember_name for ember_name, (module, name) in _FOREIGN_NAMES.items()}


def _ember_name(full):
    """The ember global a pickled name stands for (Note [foreign class names]): itself unless it is a mapped one."""
    return _EMBER_NAMES.get(full, full)


class _TorchPickler(pickle._Pickler):
    """Pickles like torch.save: tensors as ``_rebuild_tensor_v2`` of a persistent storage id, parameters as
    ``_rebuild_parameter``, ember.Size / device / dtype as torch.Size / torch.device / torch.float32; the
    storages' bytes are collected in `records` (key -> (bytes tensor, location))."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.records = {}  # storage identity -> (key, uint8 CPU-or-device tensor over the storage)
        self.dtypes = {}  # storage identity -> the dtype it is saved as

    def persistent_id(self, obj):
        from .storage import TypedStorage, UntypedStorage

        if isinstance(obj, TypedStorage):
            typed, untyped = obj, obj.untyped()
        elif isinstance(obj, UntypedStorage):
            typed, untyped = None, obj
        else:
            return None
        ident = untyped._key()
        dtype = ember.uint8 if typed is None else typed.dtype
        rec = self.records.get(ident)
        if rec is None:
            rec = self.records[ident] = (str(len(self.records)), untyped._bytes)
            self.dtypes[ident] = dtype
        elif self.dtypes[ident] != dtype:  # PyTorch refuses this too: its loader keys a storage by one dtype
            raise RuntimeError(
                "ember.save: Cannot save multiple tensors or storages that view the same data as different types "
                f"({self.dtypes[ident]} and {dtype})"
            )
        if typed is None:
            # torch.storage.UntypedStorage, as torch.save names it (its weights-only loader allows only that name)
            stype = _TorchGlobal("torch.storage", "UntypedStorage")
            return ("storage", stype, rec[0], _location(untyped.device), len(untyped))
        stype = _TorchGlobal("torch", typed.pickle_storage_type())
        return ("storage", stype, rec[0], _location(typed.device), len(typed))

    def save(self, obj, save_persistent_id=True):
        if type(obj) is _TorchGlobal:
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(self.get(x[0]))
                return
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
            self.memoize(obj)
            return
        if type(obj) is ember.dtype:
            self.save(_TorchGlobal("torch", str(obj).rsplit(".", 1)[-1]))
            return
        if isinstance(obj, type):
            foreign = _FOREIGN_NAMES.get(f"{obj.__module__}.{obj.__qualname__}")
            if foreign is not None:
                self.save(_TorchGlobal(*foreign))
                return
        super().save(obj, save_persistent_id)

    def reducer_override(self, obj):
        t = type(obj)
        if isinstance(obj, ember.Tensor):
            if isinstance(obj, ember.nn.Parameter):
                return (_REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, collections.OrderedDict()))
            state = obj.__getstate__()
            if t is not ember.Tensor or state:
                # Note [tensor subclasses]: as torch.save, a subclass (tv_tensors.Image, BoundingBoxes) or a tensor
                # with attributes is _rebuild_from_type_v2(_rebuild_tensor_v2, its class, the plain tensor's
                # arguments, its __dict__); ember.load rebuilds the class only where PyTorch's loader would
                with _C.DisableTorchFunctionSubclass():
                    plain = obj.as_subclass(ember.Tensor)
                func, args = self.reducer_override(plain)
                cls = _TORCH_TENSOR if t is ember.Tensor else t
                return (_REBUILD_FROM_TYPE, (func, cls, args, state))
            if obj.dim() > _MAX_DIMS:  # Note [Checkpoint limits]: nothing is saved that ember.load refuses
                raise ValueError(
                    f"ember.save: a tensor of {obj.dim()} dimensions exceeds the limit of {_MAX_DIMS} dimensions "
                    "that ember.load reads (CheckpointLimits::kDims)"
                )
            from .storage import TypedStorage

            # The conjugate bit goes in the metadata, as torch.save writes it (Note [The conjugate bit]).
            meta = ({"conj": True},) if obj.is_conj() else ()
            geometry = (obj.storage_offset(), tuple(obj.shape), tuple(obj.stride()), obj.requires_grad)
            if obj.dtype == ember.complex32:  # no typed storage in PyTorch: its bytes, then the dtype
                args = (obj.untyped_storage(), *geometry, collections.OrderedDict(), obj.dtype)
                return (_REBUILD_TENSOR_V3, args + meta)
            storage = TypedStorage._from_tensor(obj)
            return (_REBUILD_TENSOR, (storage, *geometry, collections.OrderedDict()) + meta)
        if t is ember.Size:
            return (_TORCH_SIZE, (tuple(obj),))
        if t is ember.device:
            return (_TORCH_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented


def _location(device):
    return "cpu" if device.type == "cpu" else str(device)


def _serialization_id():
    return "".join(str(secrets.randbelow(10)) for _ in range(40))


# Note [Writing the zip]: ember.save writes its stored (uncompressed) members itself, as torch.save does: each
# member's size and CRC-32 (_C._crc32, ISA-L's: 5x zlib's, which zipfile computes as it writes) are known before its
# local header is written, so no data descriptor follows the data and nothing seeks back (the same code writes to an
# atomic file, a pipe or a buffer). Data starts on a multiple of 64 bytes, padded by an "FB" extra field, PyTorch's
# own. Sizes and offsets past _ZIP64_LIMIT (zipfile's limit, 2^31 - 1) take zip64 fields, as zipfile writes them.
_ZIP64_LIMIT = (1 << 31) - 1
_ZIP_DATE = (1 << 5) | 1  # 1980-01-01, the DOS date of every member (torch.save's too), at 00:00


class _ZipWriter:
    def __init__(self, out):
        self.out, self.entries = out, []

    def write(self, name, data):
        data = memoryview(data).cast("B")
        raw = name.encode("utf-8")
        flags = 0 if name.isascii() else 0x800  # bit 11: the name is UTF-8
        size, offset, crc = len(data), self.out.tell(), _C._crc32(data)
        zip64 = size > _ZIP64_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        pad = (-(offset + 30 + len(raw) + len(extra) + 4)) % 64
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        small = 0xFFFFFFFF if zip64 else size
        version = 45 if zip64 else 20
        self.out.write(
            struct.pack(
                "<IHHHHHIIIHH", 0x04034B50, version, flags, 0, 0, _ZIP_DATE, crc, small, small, len(raw), len(extra)
            )
            + raw
            + extra
        )
        self.out.write(data)
        self.entries.append((raw, flags, crc, size, offset))

    def close(self):
        start = self.out.tell()
        for raw, flags, crc, size, offset in self.entries:
            big = [v for v in (size, size, offset) if v > _ZIP64_LIMIT]
            extra = struct.pack(f"<HH{len(big)}Q", 1, 8 * len(big), *big) if big else b""
            version = 45 if big else 20
            small_size = 0xFFFFFFFF if size > _ZIP64_LIMIT else size
            small_offset = 0xFFFFFFFF if offset > _ZIP64_LIMIT else offset
            self.out.write(
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    version | 3 << 8,  # made by: Unix
                    version,
                    flags,
                    0,
                    0,
                    _ZIP_DATE,
                    crc,
                    small_size,
                    small_size,
                    len(raw),
                    len(extra),
                    0,
                    0,
                    0,
                    0,
                    small_offset,
                )
                + raw
                + extra
            )
        end = self.out.tell()
        count, cd_size = len(self.entries), end - start
        if count > 0xFFFF or cd_size > _ZIP64_LIMIT or start > _ZIP64_LIMIT:
            self.out.write(
                struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45 | 3 << 8, 45, 0, 0, count, count, cd_size, start)
            )
            self.out.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
        self.out.write(
            struct.pack(
                "<IHHHHIIH",
                0x06054B50,
                0,
                0,
                min(count, 0xFFFF),
                min(count, 0xFFFF),
                min(cd_size, 0xFFFFFFFF),
                min(start, 0xFFFFFFFF),
                0,
            )
        )


def _pickle(obj, protocol):
    """The pickle of `obj` and its storages, made before any file is created; checked with ember.load's own
    opcode scan, so that nothing is saved that ember.load would refuse (a pickle nesting too deep)."""
    buf = io.BytesIO()
    pickler = _TorchPickler(buf, protocol)
    pickler.dump(obj)
    from ._torch_load import _check_pickle

    buf.seek(0)
    try:
        _check_pickle(buf, "ember.save")
    except pickle.UnpicklingError as e:
        raise ValueError(f"{e}: ember.load would refuse this file") from None
    return buf.getvalue(), list(pickler.records.values())


def _write_zip(pickled, out, archive):
    data_pkl, records = pickled
    zf = _ZipWriter(out)
    zf.write(f"{archive}/data.pkl", data_pkl)
    zf.write(f"{archive}/.format_version", b"1")
    zf.write(f"{archive}/.storage_alignment", b"64")
    zf.write(f"{archive}/byteorder", b"little")
    for key, data in records:
        zf.write(f"{archive}/data/{key}", data.cpu().contiguous().numpy())
    zf.write(f"{archive}/version", b"3\n")
    zf.write(f"{archive}/.data/serialization_id", _serialization_id().encode("ascii"))
    zf.close()


class _NoSeek:
    """A write-only view of a file object that counts what was written (Note [Writing the zip])."""

    def __init__(self, f):
        self._f, self._pos = f, 0

    def write(self, b):
        n = self._f.write(b)
        n = len(memoryview(b).cast("B")) if n is None else n
        self._pos += n
        return n

    def tell(self):
        return self._pos

    def flush(self):
        flush = getattr(self._f, "flush", None)
        if flush is not None:
            flush()


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=2,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
):
    """Saves an object to a file in PyTorch's zip format (what ``torch.save`` writes; docs/serialization.md).

    Tensors are stored as storages (views of one storage store it once and come back as views); everything else
    is pickled, with ember's tensors, parameters, ``ember.Size``, ``ember.device`` and dtypes written under
    PyTorch's names, so ``torch.load`` reads the file (with ``weights_only=True`` for tensors and plain
    containers). A path is replaced atomically: a reader sees the old file or the complete new one.

    Args:
        obj (object): the object to save: any picklable object.
        f (str, os.PathLike or file): a path, or a writable binary file object.
        pickle_module (module): accepted for PyTorch's signature; ember always uses its own pickler.
        pickle_protocol (int): the pickle protocol, 2 (PyTorch's default) to 5.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> ember.save({"w": ember.ones(2)}, buf)
        >>> _ = buf.seek(0)
        >>> ember.load(buf)
        {'w': tensor([1., 1.])}
    """
    if not _use_new_zipfile_serialization:
        raise ValueError("ember.save: _use_new_zipfile_serialization=False (PyTorch's legacy format) is not written")
    if type(pickle_protocol) is not int or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"ember.save: pickle_protocol must be an int from 2 to {pickle.HIGHEST_PROTOCOL}")
    if _is_path(f):
        path = os.fsdecode(f)
        # torch.save names the archive folder after the file (model.pt -> model/...)
        archive = os.path.splitext(os.path.basename(path))[0] or "archive"
        if not all(c.isalnum() or c in "_-." for c in archive):
            archive = "archive"
        pickled = _pickle(obj, pickle_protocol)
        out = _C._AtomicFile(path)
        try:
            _write_zip(pickled, _NoSeek(out), archive)
            out.commit()
        finally:
            out.discard()
        return
    if not hasattr(f, "write"):
        raise TypeError(f"ember.save: f must be a path or a writable binary file object, got {type(f).__name__}")
    _write_zip(_pickle(obj, pickle_protocol), _NoSeek(f), "archive")


def save_ember(obj, f):
    """Saves tensors and plain containers in ember's own checkpoint format (docs/serialization.md, "The ember
    format"): no pickle at all, CRC-32C checksums, and the format that C++ ``ember::load`` /
    ``ember::load_state_dict`` read. :func:`ember.load` reads it too. Prefer :func:`ember.save` (PyTorch's
    format) for files that PyTorch should read."""
    if _is_path(f):
        _C._save(obj, os.fsdecode(f))
        return
    if not hasattr(f, "write"):
        raise TypeError(f"ember.save: f must be a path or a writable binary file object, got {type(f).__name__}")
    f.write(_C._save(obj, None))


# Note [safe globals]: the user's allow-list for weights_only loads, with PyTorch's semantics: functions and classes,
# or (object, "module.name") pairs for objects pickled under another name. A listed global is trusted: REDUCE may
# call it, NEWOBJ instantiate it and BUILD set its instances' state (python/ember/_torch_load.py).
_marked_safe_globals = set()


def add_safe_globals(safe_globals):
    """Marks the given globals as safe for ``weights_only`` loads: functions added may be called and classes
    instantiated (and their state set) while unpickling. Each entry is an object (named by its ``__module__``
    and ``__qualname__``) or an ``(object, "module.name")`` tuple for one pickled under another name.

    Example::

        >>> import dataclasses, io
        >>> @dataclasses.dataclass
        ... class Point:
        ...     x: int
        >>> Point.__module__, Point.__qualname__ = "docs_example", "Point"
        >>> ember.serialization.add_safe_globals([(Point, "docs_example.Point")])
        >>> ember.serialization.get_safe_globals()
        [(<class 'docs_example.Point'>, 'docs_example.Point')]
        >>> ember.serialization.clear_safe_globals()
    """
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals.union(set(safe_globals))


def get_safe_globals():
    """Returns the list of user-added globals that are safe for ``weights_only`` loads."""
    return list(_marked_safe_globals)


def clear_safe_globals():
    """Clears the list of globals that are safe for ``weights_only`` loads."""
    global _marked_safe_globals
    _marked_safe_globals = set()


class safe_globals:
    """A context manager that adds globals as safe for ``weights_only`` loads inside it (and removes them on
    exit), as ``torch.serialization.safe_globals``: ``with ember.serialization.safe_globals([Point]): ...``."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):  # noqa: A002  (PyTorch's signature)
        global _marked_safe_globals
        _marked_safe_globals = _marked_safe_globals - set(self.safe_globals)


def _user_allowed_globals():
    rc = {}
    for f in _marked_safe_globals:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: {len(f)}"
                )
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, verify=True, **pickle_load_args):
    """Loads an object saved by :func:`ember.save` or ``torch.save`` (PyTorch's zip or legacy format), or a file in
    ember's own format (:func:`ember.serialization.save_ember`), from a file.

    As ``torch.load`` since PyTorch 2.6, loading is ``weights_only=True`` by default: a restricted unpickler that
    never runs code rebuilds tensors, plain containers and primitive types, and the globals allow-listed with
    :func:`ember.serialization.add_safe_globals`; any other global raises ``pickle.UnpicklingError`` naming it.
    ``weights_only=False`` is the explicit opt-in to Python's full unpickler, for trusted files only: it can run
    arbitrary code.

    Args:
        f (str, os.PathLike or file): a path, or a readable binary file object.
        map_location (device, str, dict or Callable, optional): where to put the tensors, as ``torch.load`` takes
            it: None keeps the saved locations; a device or string moves everything there; a dict renames
            locations (``{"cuda:1": "cuda:0"}``); a callable gets ``(tensor, location)`` and returns the tensor to
            use.
        pickle_module (module, optional): only with ``weights_only=False``, as in PyTorch (ember always unpickles
            with Python's ``pickle``).

    Keyword args:
        weights_only (bool, optional): restrict unpickling to tensors, primitive types, dictionaries and the safe
            globals (the default, None, means True).
        mmap (bool, optional): map the file copy-on-write instead of reading it (`f` must be a path).
        verify (bool): check the file's checksums (ember's CRC-32s, a zip member's CRC-32) and raise on a
            mismatch. ``verify=False`` skips the checks of the tensor data, for trusted files where load time
            matters (with ``mmap=True`` it keeps loading lazy: a verified load reads every byte once). An ember
            extension: PyTorch's ``torch.load`` has no such argument.
        **pickle_load_args: accepted for PyTorch's signature and not used.
    """
    if weights_only is None:
        weights_only = True
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    weights_only = bool(weights_only)
    if _is_path(f):
        path = os.fsdecode(f)
        with open(path, "rb") as fh:
            head = fh.read(len(_MAGIC))
        if head == _MAGIC:
            return _load_ember(path, map_location, bool(mmap), verify)
        from ._torch_load import load_torch_file

        return load_torch_file(f, map_location=map_location, mmap=mmap, verify=verify, weights_only=weights_only)
    if not hasattr(f, "read"):
        raise TypeError(f"ember.load: f must be a path or a readable binary file object, got {type(f).__name__}")
    if mmap:
        raise ValueError(
            f"ember.load: mmap=True needs a file path (a str or os.PathLike), not a file object; got {type(f).__name__}"
        )
    from ._torch_load import load_torch_file

    seekable = getattr(f, "seekable", lambda: False)()
    if seekable:
        start = f.tell()
        head = f.read(len(_MAGIC))
        f.seek(start)
        if head != _MAGIC:
            return load_torch_file(f, map_location=map_location, mmap=mmap, verify=verify, weights_only=weights_only)
        return _load_ember(f.read(), map_location, False, verify)
    data = f.read()
    if not data.startswith(_MAGIC):
        return load_torch_file(
            io.BytesIO(data), map_location=map_location, mmap=mmap, verify=verify, weights_only=weights_only
        )
    return _load_ember(data, map_location, False, verify)


def _load_ember(source, map_location, mmap, verify):
    return _C._load(source, mmap, verify, lambda tensor, location: _restore_location(tensor, location, map_location))
