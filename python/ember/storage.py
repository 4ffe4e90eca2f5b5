"""ember.UntypedStorage and ember.TypedStorage (and the legacy FloatStorage ...): PyTorch's storage API over the
memory of ember tensors. A storage made from a tensor (Tensor.untyped_storage(), Tensor.storage()) aliases that
tensor's memory: writes go through both ways. Storages have a fixed size (resize_ only to the same size)."""

import warnings

import ember

# dtype name -> the legacy storage class name PyTorch pickles (torch.FloatStorage ...)
_LEGACY_NAMES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _index(i, n, what):
    if not isinstance(i, int) or isinstance(i, bool):
        raise TypeError(f"{what}: an index must be an int or a slice, got {type(i).__name__}")
    if not -n <= i < n:
        raise IndexError(f"{what}: index {i} is out of range for a storage of {n} elements")
    return i + n if i < 0 else i


class UntypedStorage:
    """A block of bytes, as ``torch.UntypedStorage``: ``UntypedStorage(n)`` (n zero bytes), ``UntypedStorage(seq)``
    (bytes from a sequence of ints), or ``tensor.untyped_storage()`` (the tensor's memory, aliased)."""

    def __init__(self, *args, device=None):
        if len(args) > 1:
            raise TypeError(f"UntypedStorage(): expected at most 1 positional argument, got {len(args)}")
        arg = args[0] if args else 0
        if isinstance(arg, int) and not isinstance(arg, bool):
            if arg < 0:
                raise ValueError(f"UntypedStorage(): size must be non-negative, got {arg}")
            data = ember.zeros(arg, dtype=ember.uint8, device=device)
        else:
            data = ember.tensor(list(arg), dtype=ember.uint8, device=device)
        self._bytes = data._storage_bytes()

    @classmethod
    def _from_tensor(cls, t):
        s = cls.__new__(cls)
        s._bytes = t._storage_bytes()
        return s

    # -- what PyTorch's storages have --------------------------------------------------------------
    def nbytes(self):
        return self._bytes.numel()

    def size(self):
        return self._bytes.numel()

    def __len__(self):
        return self._bytes.numel()

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._bytes.data_ptr()

    @property
    def device(self):
        return self._bytes.device

    @property
    def is_cuda(self):
        return self._bytes.device.type == "cuda"

    @property
    def filename(self):
        return None

    def untyped(self):
        return self

    def tolist(self):
        return self._bytes.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, i):
        if isinstance(i, slice):
            raise TypeError("UntypedStorage: slicing is not supported; use tensor slicing on a tensor over it")
        return int(self._bytes[_index(i, len(self), "UntypedStorage.__getitem__")].item())

    def __setitem__(self, i, value):
        if isinstance(i, slice):
            self._bytes[i] = value
        else:
            self._bytes[_index(i, len(self), "UntypedStorage.__setitem__")] = value

    def copy_(self, src, non_blocking=None):
        src = src.untyped()
        if src.nbytes() != self.nbytes():
            raise RuntimeError(f"copy_: the source has {src.nbytes()} bytes, this storage {self.nbytes()}")
        self._bytes.copy_(src._bytes)
        return self

    def fill_(self, value):
        self._bytes.fill_(value)
        return self

    def clone(self):
        return UntypedStorage._from_tensor(self._bytes.clone())

    def to(self, device=None, non_blocking=False):
        device = ember.device(device) if device is not None else self.device
        if device == self.device:
            return self
        return UntypedStorage._from_tensor(self._bytes.to(device))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self.to("cuda" if device is None else device)

    def resize_(self, size):
        if size != self.nbytes():
            raise RuntimeError(
                f"UntypedStorage.resize_: ember storages have a fixed size ({self.nbytes()} bytes); resizing to "
                f"{size} would move the memory that tensors view"
            )
        return self

    def is_shared(self):
        return self._bytes.is_shared()

    def share_memory_(self):
        self._bytes.share_memory_()
        return self

    _share_memory_ = share_memory_

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return self._bytes._storage_key()

    def __repr__(self):
        body = " ".join(str(v) for v in self.tolist()[:20]) + (" ..." if len(self) > 20 else "")
        return f"{body}\n[ember.storage.UntypedStorage(device={self.device}) of size {len(self)}]"


class TypedStorage:
    """A storage seen as elements of one dtype, as PyTorch's (deprecated) ``torch.TypedStorage``:
    ``TypedStorage(n, dtype=...)``, ``TypedStorage(seq, dtype=...)``, ``TypedStorage(wrap_storage=untyped,
    dtype=...)`` or ``tensor.storage()``."""

    _fixed_dtype = None

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        dtype = self._fixed_dtype or dtype or ember.get_default_dtype()
        if wrap_storage is not None:
            if args:
                raise TypeError("TypedStorage(): wrap_storage can't be given with positional arguments")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"TypedStorage(): wrap_storage must be an UntypedStorage, got {type(wrap_storage)}")
            self._untyped_storage, self.dtype = wrap_storage, dtype
            self._check_size()
            return
        arg = args[0] if args else 0
        if isinstance(arg, int) and not isinstance(arg, bool):
            data = ember.zeros(arg, dtype=dtype, device=device)
        else:
            data = ember.tensor(list(arg), dtype=dtype, device=device)
        self._untyped_storage, self.dtype = UntypedStorage._from_tensor(data), dtype

    def _check_size(self):
        if self._untyped_storage.nbytes() % self.element_size():
            raise RuntimeError(
                f"TypedStorage: {self._untyped_storage.nbytes()} bytes are not a whole number of {self.dtype} "
                f"elements ({self.element_size()} bytes each)"
            )

    @classmethod
    def _from_tensor(cls, t):
        s = TypedStorage.__new__(TypedStorage)
        s._untyped_storage, s.dtype = UntypedStorage._from_tensor(t), t.dtype
        return s

    def _elements(self):  # a 1-D tensor of this dtype over the whole storage
        return self._untyped_storage._bytes.view(self.dtype)

    def element_size(self):
        return ember.empty(0, dtype=self.dtype).element_size()

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def size(self):
        return self.nbytes() // self.element_size()

    def __len__(self):
        return self.size()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self._untyped_storage.is_cuda

    def untyped(self):
        return self._untyped_storage

    def pickle_storage_type(self):
        return _LEGACY_NAMES[_dtype_name(self.dtype)]

    def tolist(self):
        return self._elements().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, i):
        if isinstance(i, slice):
            raise TypeError("TypedStorage: slicing is not supported; use tensor slicing on a tensor over it")
        return self._elements()[_index(i, len(self), "TypedStorage.__getitem__")].item()

    def __setitem__(self, i, value):
        if isinstance(i, slice):
            self._elements()[i] = value
        else:
            self._elements()[_index(i, len(self), "TypedStorage.__setitem__")] = value

    def copy_(self, src, non_blocking=None):
        if isinstance(src, TypedStorage) and src.dtype != self.dtype:
            if len(src) != len(self):
                raise RuntimeError(f"copy_: the source has {len(src)} elements, this storage {len(self)}")
            self._elements().copy_(src._elements())
        else:
            self._untyped_storage.copy_(src)
        return self

    def fill_(self, value):
        self._elements().fill_(value)
        return self

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype)

    def to(self, device=None, non_blocking=False):
        u = self._untyped_storage.to(device)
        return self if u is self._untyped_storage else TypedStorage(wrap_storage=u, dtype=self.dtype)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self.to("cuda" if device is None else device)

    def resize_(self, size):
        self._untyped_storage.resize_(size * self.element_size())
        return self

    def is_shared(self):
        return self._untyped_storage.is_shared()

    def share_memory_(self):
        self._untyped_storage.share_memory_()
        return self

    _share_memory_ = share_memory_

    def __eq__(self, other):
        return isinstance(other, TypedStorage) and self.dtype == other.dtype and self.untyped() == other.untyped()

    def __hash__(self):
        return hash((self.dtype, self.untyped()))

    def __repr__(self):
        vals = self.tolist()
        body = " ".join(str(v) for v in vals[:20]) + (" ..." if len(vals) > 20 else "")
        return f"{body}\n[ember.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"


def _warn_typed_storage_removal():
    if not getattr(_warn_typed_storage_removal, "has_warned", False):
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
            "storage class. This should only matter to you if you are using storages directly.  To access "
            "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
            UserWarning,
            stacklevel=3,
        )
        _warn_typed_storage_removal.has_warned = True


def _untyped_storage(self):
    """Returns the :class:`ember.UntypedStorage` of ``self``: its memory, aliased (writes go through both ways)."""
    return UntypedStorage._from_tensor(self)


def _storage(self):
    """Returns the storage of ``self`` as a :class:`ember.TypedStorage` of its dtype (deprecated in PyTorch, with
    its warning; use :meth:`untyped_storage`)."""
    _warn_typed_storage_removal()
    return TypedStorage._from_tensor(self)


def _make_legacy(dtype_name, class_name):
    cls = type(class_name, (TypedStorage,), {"_fixed_dtype": getattr(ember, dtype_name), "__module__": __name__})
    cls.__doc__ = f"A TypedStorage of dtype {dtype_name} (PyTorch's legacy ``torch.{class_name}``)."
    return cls


_legacy_classes = {cls_name: _make_legacy(dt, cls_name) for dt, cls_name in _LEGACY_NAMES.items() if hasattr(ember, dt)}
