"""Reading PyTorch checkpoints (torch.save files) into ember tensors without running any pickle code.

`load_torch_file` is what `ember.load` calls for a file that is not in ember's own format. It reads
PyTorch's zip format (torch >= 1.6) and the legacy stream format (`_use_new_zipfile_serialization=False`).
What is read, the allow-list and what is refused: docs/torch_checkpoints.md.

Safety rests on three layers (Note [restricted unpickling]):
1. every pickle is first scanned opcode by opcode (`_check_pickle`) without building anything: the scan
   rejects malformed pickles, memo indices that would make CPython's unpickler allocate a huge memo
   table, and nesting deep enough to overflow the C stack (hashing a deeply nested tuple recurses in C);
2. the pickle is then loaded by a restricted unpickler whose `find_class` hands out only the objects of an
   allow-list (ember's own rebuild functions, storage-type tags, plain containers), made fresh and read-only
   for each load, so nothing from a file can name os.system, eval or any class, and the opcodes that change
   objects (BUILD, SETITEM, APPEND, REDUCE...) act only on what this load built (Note [fresh immutable
   globals]), so a file can't change what a later load returns;
3. every size that leads to an allocation (a storage's element count, a member's size) is checked
   against the bytes the file really holds before anything is allocated.
"""

import collections
import ctypes
import io
import mmap as _mmap_module
import os
import pickle
import pickletools
import re
import struct
import zipfile

import numpy as np

import ember

# The number that starts the legacy format (torch.serialization.MAGIC_NUMBER) and its protocol version.
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001

# Note [nesting limit]: CPython hashes a tuple by recursing into its items in C, without a recursion
# check, so a pickle of a tuple nested ~100,000 deep used as a dict key crashes the process. Python's own
# pickler recurses once per level and stops near sys.getrecursionlimit() (1000), so a real checkpoint
# nests far less than this (the scan counts a REDUCE's argument tuple as a level of its own).
_MAX_NESTING = 10000
_MAX_DIMS = ember._C._checkpoint_limits["dims"]  # Note [Checkpoint limits] (ember/serialize/limits.h)
# Largest ratio between a compressed zip member and the data it inflates to (deflate's limit is ~1032:1).
# torch.save never compresses; a member claiming more than this is refused before anything is allocated.
_MAX_INFLATE_RATIO = 1100
_CHUNK = 1 << 24

# storage type name -> (ember dtype name, NumPy dtype for the little-endian bytes, itemsize)
_STORAGE_TYPES = {
    "FloatStorage": ("float32", "<f4", 4),
    "DoubleStorage": ("float64", "<f8", 8),
    "HalfStorage": ("float16", "<f2", 2),
    "BFloat16Storage": ("bfloat16", "<u2", 2),
    "LongStorage": ("int64", "<i8", 8),
    "IntStorage": ("int32", "<i4", 4),
    "ShortStorage": ("int16", "<i2", 2),
    "CharStorage": ("int8", "i1", 1),
    "ByteStorage": ("uint8", "u1", 1),
    "BoolStorage": ("bool", "u1", 1),
    "ComplexFloatStorage": ("complex64", "<c8", 8),
    "ComplexDoubleStorage": ("complex128", "<c16", 16),
    "UntypedStorage": ("uint8", "u1", 1),
}
# dtype globals (a pickled torch.dtype is a reference to the module attribute, e.g. torch.float32)
_DTYPE_NAMES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "complex64",
    "complex128",
    "complex32",
]
_SAFE_KEY = re.compile(r"^[A-Za-z0-9_.\-]{1,200}$")


class _Frozen:
    """Note [fresh immutable globals]: every object a pickle can name with GLOBAL is made anew for each load
    and refuses attribute assignment, so that nothing a file does to one can outlive its load or reach
    another (a BUILD on a process-wide tag once relabelled every later float32 checkpoint as int32)."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"{self!r} is read-only")

    def __delattr__(self, name):
        raise AttributeError(f"{self!r} is read-only")


class _StorageType(_Frozen):
    """What `torch.FloatStorage` and friends unpickle to: a tag naming a dtype, never a callable."""

    __slots__ = ("name", "dtype_name", "np_dtype", "itemsize")

    def __init__(self, name):
        dtype_name, np_dtype, itemsize = _STORAGE_TYPES[name]
        for k, v in (("name", name), ("dtype_name", dtype_name), ("np_dtype", np_dtype), ("itemsize", itemsize)):
            object.__setattr__(self, k, v)

    def __repr__(self):
        return f"torch.{self.name}"


class _TensorType(_Frozen):
    """What `torch.Tensor` unpickles to: a tag that _rebuild_from_type_v2 reads as ember.Tensor."""

    __slots__ = ()

    def __repr__(self):
        return "torch.Tensor"


class _Allowed(_Frozen):
    """An allow-listed callable as a pickle sees it (a per-load, read-only wrapper: see Note [fresh immutable
    globals]); REDUCE may call only these."""

    __slots__ = ("_name", "_fn")

    def __init__(self, name, fn):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_fn", fn)

    def __call__(self, *args):
        return self._fn(*args)

    def __repr__(self):
        return self._name


def _display_name(f):
    if isinstance(f, (str, bytes, os.PathLike)):
        return os.fsdecode(f)
    name = getattr(f, "name", None)
    return name if isinstance(name, str) else f"<{type(f).__name__}>"


class _Source:
    """The input as a seekable binary file with a known size (and a file descriptor when it has one)."""

    def __init__(self, f):
        self.name = _display_name(f)
        self._owned = None
        self._mmap = None
        if isinstance(f, (str, bytes, os.PathLike)):
            self.fp = self._owned = open(f, "rb")
            self.base = 0
        else:
            if not hasattr(f, "read"):
                raise TypeError(f"ember.load: expected a path or a binary file object, got {type(f).__name__}")
            seekable = getattr(f, "seekable", lambda: True)
            try:
                seekable = seekable()
            except (OSError, ValueError):
                seekable = False
            if seekable:
                self.fp = f
                self.base = f.tell()
            else:  # a pipe or a socket: the zip reader needs to seek, so read it all
                self.fp = self._owned = io.BytesIO(f.read())
                self.base = 0
        self.fp.seek(0, os.SEEK_END)
        self.size = self.fp.tell() - self.base
        self.fp.seek(self.base)

    def fileno(self):
        try:
            fd = self.fp.fileno()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None
        return fd if self.base == 0 else None

    def mapping(self):
        """One copy-on-write map of the whole file (writes to loaded tensors never reach the file)."""
        if self._mmap is None:
            self._mmap = _mmap_module.mmap(self.fileno(), 0, access=_mmap_module.ACCESS_COPY)
        return self._mmap

    def read_at(self, offset, n):
        self.fp.seek(self.base + offset)
        return self.fp.read(n)

    def close(self):
        if self._owned is not None:
            self._owned.close()


def load_torch_file(f, map_location=None, mmap=None, verify=True, weights_only=True):
    """Loads a file written by torch.save or ember.save (zip or legacy format) into ember objects; see the module
    doc. verify=False skips the CRC-32 check of stored zip members (Note [zip checksums]). weights_only=False
    unpickles with Python's full unpickler (Note [weights_only=False]): it runs whatever the file names."""
    src = _Source(f)
    try:
        return _load(src, map_location, mmap, verify, weights_only)
    except pickle.UnpicklingError as e:
        if str(e).startswith("ember.load"):
            raise
        raise pickle.UnpicklingError(f"ember.load: '{src.name}': not a valid checkpoint pickle: {e}") from e
    except RuntimeError as e:  # NotImplementedError and RecursionError are RuntimeErrors too
        if str(e).startswith("ember.load"):
            raise
        raise RuntimeError(f"ember.load: '{src.name}': cannot be read (corrupted?): {type(e).__name__}: {e}") from e
    finally:
        src.close()


def _load(src, map_location, mmap, verify, weights_only):
    head = src.read_at(0, 512)
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return _ZipLoader(src, map_location, bool(mmap), verify, weights_only).load()
    if len(head) >= 2 and head[0] == 0x80 and head[1] <= 5:
        return _LegacyLoader(src, map_location, weights_only).load()
    if len(head) >= 262 and head[257:262] == b"ustar":
        raise RuntimeError(
            f"ember.load: '{src.name}' is a tar archive: PyTorch's oldest checkpoint format (tar, before "
            "PyTorch 0.4) is not supported; load it with an old PyTorch and save it again"
        )
    what = "it is empty" if not head else f"it starts with {head[:16]!r}"
    raise RuntimeError(f"ember.load: '{src.name}' is neither an ember checkpoint nor a PyTorch checkpoint ({what})")


# ---------------------------------------------------------------------------------------------------
# Pickle scan. Note [restricted unpickling]: find_class alone keeps code out, but CPython's C unpickler
# still trusts sizes and nesting: a LONG_BINPUT index of 2**31 makes it allocate and clear a 16 GiB memo
# table, and a deeply nested tuple crashes it when hashed. The scan below walks the opcodes (pickletools
# checks every argument's length against the data) and tracks each stack item's nesting depth.

_MUTATORS = {"APPEND", "APPENDS", "SETITEM", "SETITEMS", "ADDITEMS", "BUILD"}
_MEMO_PUTS = {"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"}
_MEMO_GETS = {"GET", "BINGET", "LONG_BINGET"}


def _check_pickle(stream, where):
    """Walks one pickle from `stream` up to and including STOP; raises pickle.UnpicklingError if it is
    malformed, or nests or memoizes beyond what a real pickle of its size could."""
    stack, marks, memo = [], [], {}
    mark_obj, slice_obj = pickletools.markobject, pickletools.stackslice

    def fail(msg):
        raise pickle.UnpicklingError(f"{where}: {msg}")

    try:
        for op, arg, pos in pickletools.genops(stream):
            name = op.name
            if name == "MARK":
                marks.append(len(stack))
                continue
            if name == "POP" and marks and marks[-1] == len(stack):
                marks.pop()  # CPython's unpickler lets POP discard a mark
                continue
            if name in _MEMO_PUTS:  # stores the top of the stack, which stays
                idx = len(memo) if name == "MEMOIZE" else arg
                if not stack or (marks and marks[-1] == len(stack)):
                    fail(f"opcode {name} at byte {pos} with an empty stack")
                if idx > len(memo):  # Python's pickler numbers memo entries 0, 1, 2, ...
                    fail(f"memo index {idx} at byte {pos} skips ahead of the {len(memo)} entries stored so far")
                memo[idx] = stack[-1]
                continue
            before = op.stack_before
            popped = []
            if mark_obj in before:
                if not marks:
                    fail(f"opcode {name} at byte {pos} without a MARK")
                m = marks.pop()
                popped = stack[m:]
                del stack[m:]
                below = before.index(mark_obj)
            else:
                below = len(before)
            if below:
                if len(stack) < below:
                    fail(f"opcode {name} at byte {pos} pops more than the stack holds")
                popped = stack[-below:] + popped
                del stack[-below:]
            if name in _MEMO_GETS:
                if arg not in memo:
                    fail(f"memo index {arg} at byte {pos} was never stored")
                stack.append(memo[arg])
                continue
            if name == "DUP":
                stack.extend(popped * 2)
                continue
            if name in _MUTATORS:
                depth = max(popped[0], 1 + max(popped[1:], default=0))
            else:
                depth = 1 + max(popped) if popped else 0
            if depth > _MAX_NESTING:
                fail(f"objects nest more than {_MAX_NESTING} levels deep (at byte {pos})")
            stack.extend([depth] * sum(1 for s in op.stack_after if s is not slice_obj and s is not mark_obj))
    except pickle.UnpicklingError:
        raise
    except (ValueError, EOFError, struct.error, IndexError, KeyError, TypeError, OverflowError) as e:
        raise pickle.UnpicklingError(f"{where}: not a valid pickle ({e})") from None


# ---------------------------------------------------------------------------------------------------
# Allow-list helpers: what the allowed globals map to. Each checks its arguments, so a pickle can call
# them only with the plain values they are meant for.


def _int(v, what):
    if type(v) is not int or not -(1 << 63) <= v < (1 << 63):
        raise RuntimeError(f"{what} must be a 64-bit integer, got {type(v).__name__} {v!r:.60}")
    return v


def _int_tuple(v, what):
    if not isinstance(v, (tuple, list)) or len(v) > _MAX_DIMS:
        raise RuntimeError(f"{what} must be a tuple of at most {_MAX_DIMS} integers, got {type(v).__name__}")
    return tuple(_int(x, what) for x in v)


def _make_size(*args):
    if len(args) > 1:
        raise RuntimeError(f"torch.Size takes one sequence, got {len(args)} arguments")
    sizes = _int_tuple(args[0] if args else (), "torch.Size")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"torch.Size with a negative size {list(sizes)}")
    return ember.Size(sizes)


def _make_device(*args):
    if (
        not 1 <= len(args) <= 2
        or not isinstance(args[0], str)
        or (len(args) == 2 and args[1] is not None and type(args[1]) is not int)
    ):
        raise RuntimeError(f"torch.device expects (type, [index]), got {args!r:.100}")
    return ember.device(*args)


def _make_bytes(*args):
    if not args:
        return b""
    if len(args) == 1 and isinstance(args[0], (bytes, bytearray)):
        return bytes(args[0])
    raise RuntimeError(f"builtins.bytes is allowed only as bytes() or bytes(b'...'), got {args!r:.100}")


def _make_bytearray(*args):
    if not args:
        return bytearray()
    if len(args) == 1 and isinstance(args[0], (bytes, bytearray)):
        return bytearray(args[0])
    if len(args) == 2 and isinstance(args[0], str) and args[1] in ("latin-1", "latin1"):
        return bytearray(args[0], "latin-1")
    raise RuntimeError(f"builtins.bytearray is allowed only with bytes or a latin-1 string, got {args!r:.100}")


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    # Protocol 2 pickles write bytes as _codecs.encode(latin-1 text, 'latin1')
    if isinstance(obj, str) and encoding in ("latin1", "latin-1") and errors == "strict":
        return obj.encode("latin-1")
    raise RuntimeError(f"_codecs.encode is allowed only as encode(str, 'latin1'), got encoding {encoding!r:.40}")


def _make_set(items=()):
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise RuntimeError(f"builtins.set expects a list, got {type(items).__name__}")
    return set(items)


def _make_frozenset(items=()):
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise RuntimeError(f"builtins.frozenset expects a list, got {type(items).__name__}")
    return frozenset(items)


def _make_complex(real=0.0, imag=0.0):
    if not all(type(v) in (int, float) for v in (real, imag)):
        raise RuntimeError("builtins.complex expects two numbers")
    return complex(real, imag)


def _make_slice(*args):
    if not 1 <= len(args) <= 3 or not all(a is None or type(a) is int for a in args):
        raise RuntimeError("builtins.slice expects up to three integers or None")
    return slice(*args)


def _make_ordered_dict(*args):
    if args and not isinstance(args[0], (list, tuple, dict)) or len(args) > 1:
        raise RuntimeError("collections.OrderedDict expects nothing or a list of pairs")
    return collections.OrderedDict(*args)


# ---------------------------------------------------------------------------------------------------
# Storage bytes -> ember tensors

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
# DLTensor = {void* data; DLDevice device (2 x int32); int32 ndim; DLDataType dtype {uint8 code, bits; ...}}
_DL_DTYPE_OFFSET = ctypes.sizeof(ctypes.c_void_p) + 8 + 4
_DL_UINT, _DL_BFLOAT = 1, 4


def _bfloat16_from_uint16(arr):
    """A bfloat16 tensor over `arr`'s memory (no copy). NumPy has no bfloat16, so NumPy's DLPack export of
    the uint16 array is relabelled bfloat16 (same bits, same size) before ember imports it."""
    capsule = arr.__dlpack__()
    ptr = _capsule_pointer(capsule, b"dltensor")
    code = ctypes.c_uint8.from_address(ptr + _DL_DTYPE_OFFSET)
    bits = ctypes.c_uint8.from_address(ptr + _DL_DTYPE_OFFSET + 1)
    if code.value != _DL_UINT or bits.value != 16:  # the layout is not what the DLPack ABI says
        raise RuntimeError("ember.load: unexpected DLPack layout from NumPy while building a bfloat16 tensor")
    code.value = _DL_BFLOAT
    return ember.from_dlpack(capsule)


def _tensor_from_buffer(buf, stype, byteorder, where):
    """A 1-D ember CPU tensor of stype's dtype over the bytes of `buf` (a writable, aligned uint8 array)."""
    dtype = getattr(ember, stype.dtype_name, None)
    if dtype is None:
        raise RuntimeError(
            f"{where}: the storage holds {stype.dtype_name} data ({stype!r}), and ember has no {stype.dtype_name} dtype"
        )
    if stype.itemsize > 1 and byteorder == "big":
        buf.view(np.dtype(stype.np_dtype).newbyteorder(">")).byteswap(inplace=True)
    if stype.dtype_name == "bfloat16":
        return _bfloat16_from_uint16(buf.view(np.uint16))
    if stype.dtype_name == "bool":
        np.not_equal(buf, 0, out=buf)  # bytes other than 0/1 are not valid bools in C++
        return ember.from_numpy(buf.view(np.bool_))
    return ember.from_numpy(buf.view(np.dtype(stype.np_dtype).newbyteorder("=")))


# Note [restricted unpickling], continued: the opcodes that change an existing object (BUILD, SETITEM(S),
# APPEND(S), ADDITEMS) act only on the plain containers this load built, and REDUCE calls only this load's
# allow-listed callables. CPython's C unpickler can't be told so (it would run BUILD on any object, setting
# attributes of the allow-listed globals themselves), so pickles are run by the Python one with these opcodes
# replaced; the scan has already refused what could make it allocate or recurse without bound.
_OD = collections.OrderedDict


def _refuse(u, what):
    raise pickle.UnpicklingError(f"ember.load: refusing to load '{u.loader.name}': {u.what} {what}")


def _op_build(u):
    state = u.stack.pop()
    inst = u.stack[-1]
    # A state_dict is an OrderedDict with a `_metadata` attribute (pickled as BUILD); nothing else in a
    # checkpoint has attributes, and no attribute may shadow one of OrderedDict's (a `keys` or `copy` set on a
    # state dict would make load_state_dict see other entries than the file's).
    if id(type(inst)) in u.loader.user_ids:  # a class the user allow-listed: pickle's own BUILD, as PyTorch does
        setstate = getattr(inst, "__setstate__", None)
        if setstate is not None:
            setstate(state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        if state:
            inst.__dict__.update(state)
        if slotstate:
            for k, v in slotstate.items():
                setattr(inst, k, v)
        return
    if type(inst) is not _OD:
        _refuse(
            u,
            f"sets attributes (pickle BUILD) on a {type(inst).__name__}; only a state dict and instances of "
            "classes allow-listed with ember.serialization.add_safe_globals may have them",
        )
    if type(state) is not dict:
        _refuse(u, f"sets OrderedDict attributes from a {type(state).__name__}; expected a dict of attributes")
    for k in state:
        if type(k) is not str or not k.isidentifier() or k.startswith("__") or hasattr(_OD, k):
            _refuse(u, f"sets the OrderedDict attribute {k!r:.60}, which a checkpoint can't have")
    inst.__dict__.update(state)


def _op_setitem(u):
    value = u.stack.pop()
    key = u.stack.pop()
    d = u.stack[-1]
    if type(d) not in (dict, _OD):
        _refuse(u, f"sets an item (pickle SETITEM) of a {type(d).__name__}; only dicts take items")
    d[key] = value


def _op_setitems(u):
    items = u.pop_mark()
    d = u.stack[-1]
    if type(d) not in (dict, _OD):
        _refuse(u, f"sets items (pickle SETITEMS) of a {type(d).__name__}; only dicts take items")
    for i in range(0, len(items) - 1, 2):
        d[items[i]] = items[i + 1]


def _op_append(u):
    value = u.stack.pop()
    if type(u.stack[-1]) is not list:
        _refuse(u, f"appends (pickle APPEND) to a {type(u.stack[-1]).__name__}; only lists take appends")
    u.stack[-1].append(value)


def _op_appends(u):
    items = u.pop_mark()
    if type(u.stack[-1]) is not list:
        _refuse(u, f"appends (pickle APPENDS) to a {type(u.stack[-1]).__name__}; only lists take appends")
    u.stack[-1].extend(items)


def _op_additems(u):
    items = u.pop_mark()
    if type(u.stack[-1]) is not set:
        _refuse(u, f"adds items (pickle ADDITEMS) to a {type(u.stack[-1]).__name__}; only sets take them")
    u.stack[-1].update(items)


def _op_reduce(u):
    args = u.stack.pop()
    func = u.stack[-1]
    if (id(func) not in u.loader.callables and id(func) not in u.loader.user_ids) or type(args) is not tuple:
        _refuse(u, f"calls {func!r:.60} (pickle REDUCE), which is not an allow-listed callable of this load")
    u.stack[-1] = func(*args)


def _op_newobj(u):
    args = u.stack.pop()
    cls = u.stack.pop()
    if id(cls) not in u.loader.user_ids or not isinstance(cls, type) or type(args) is not tuple:
        _refuse(
            u,
            f"makes an instance of {cls!r:.60} (pickle NEWOBJ); only classes allow-listed with "
            "ember.serialization.add_safe_globals may be instantiated",
        )
    u.append(cls.__new__(cls, *args))


def _op_newobj_ex(u):
    kwargs = u.stack.pop()
    args = u.stack.pop()
    cls = u.stack.pop()
    if (
        id(cls) not in u.loader.user_ids
        or not isinstance(cls, type)
        or type(args) is not tuple
        or type(kwargs) is not dict
    ):
        _refuse(
            u,
            f"makes an instance of {cls!r:.60} (pickle NEWOBJ_EX); only classes allow-listed with "
            "ember.serialization.add_safe_globals may be instantiated",
        )
    u.append(cls.__new__(cls, *args, **kwargs))


def _op_refused(name, why):
    def op(u):
        _refuse(u, f"uses the pickle opcode {name}, {why}")

    return op


class _RestrictedUnpickler(pickle._Unpickler):
    dispatch = dict(pickle._Unpickler.dispatch)
    dispatch[pickle.BUILD[0]] = _op_build
    dispatch[pickle.SETITEM[0]] = _op_setitem
    dispatch[pickle.SETITEMS[0]] = _op_setitems
    dispatch[pickle.APPEND[0]] = _op_append
    dispatch[pickle.APPENDS[0]] = _op_appends
    dispatch[pickle.ADDITEMS[0]] = _op_additems
    dispatch[pickle.REDUCE[0]] = _op_reduce
    dispatch[pickle.NEWOBJ[0]] = _op_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = _op_newobj_ex
    for _op in ("EXT1", "EXT2", "EXT4"):  # copyreg's registry is process-wide state (and caches what it finds)
        dispatch[getattr(pickle, _op)[0]] = _op_refused(_op, "which reads Python's process-wide extension registry")
    dispatch[pickle.NEXT_BUFFER[0]] = _op_refused("NEXT_BUFFER", "but a checkpoint has no out-of-band buffers")
    del _op

    def __init__(self, loader, data, what, persistent_load):
        super().__init__(io.BytesIO(data), encoding="utf-8")
        self.loader, self.what, self._persistent = loader, what, persistent_load

    def find_class(self, module, name):
        return self.loader.find_class(module, name)

    def _instantiate(self, klass, args):  # INST and OBJ (after find_class has vetted the name)
        _refuse(
            self, "uses the pickle opcode INST or OBJ, which makes class instances (no allow-listed name is a class)"
        )

    def persistent_load(self, pid):
        if self._persistent is None:
            raise pickle.UnpicklingError(
                f"ember.load: '{self.loader.name}': {self.what} refers to a storage where none may appear"
            )
        return self._persistent(pid)


class _FullUnpickler(pickle.Unpickler):
    """Note [weights_only=False]: the explicit opt-in to Python's own unpickler, as torch.load(weights_only=False).
    It imports and calls whatever the file names (run only on trusted files), except PyTorch's names: those map
    to ember's allow-list (tensors, storages, Size, device, dtypes), and any other torch global is refused, since
    ember never imports torch. Other names (collections.OrderedDict, builtins.set) are Python's own objects here.
    The opcode scan (_check_pickle) still runs first."""

    def __init__(self, loader, data, what, persistent_load):
        super().__init__(io.BytesIO(data), encoding="utf-8")
        self.loader, self.what, self._persistent = loader, what, persistent_load

    def find_class(self, module, name):
        if module == "__builtin__":
            module = "builtins"
        full = f"{module}.{name}"
        from ember.serialization import _ember_name

        if _ember_name(full) != full:  # Note [foreign class names]: torchvision's tv_tensors are ember's here
            module, name = _ember_name(full).rsplit(".", 1)
        elif module == "torch" or module.startswith("torch."):
            obj = self.loader.allowed.get(full)
            if obj is not None:
                return obj
            raise pickle.UnpicklingError(
                f"ember.load: '{self.loader.name}': its pickle refers to the PyTorch global '{full}', which ember "
                "has no counterpart of (ember maps torch's tensor and storage rebuild functions, storage types, "
                "torch.Size, torch.device and dtypes; a pickled torch.nn.Module is PyTorch's class: save its "
                "state_dict() with PyTorch and load that)"
            )
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if self._persistent is None:
            raise pickle.UnpicklingError(
                f"ember.load: '{self.loader.name}': {self.what} refers to a storage where none may appear"
            )
        return self._persistent(pid)


UNSAFE_MESSAGE = (
    "`ember.load` defaults to `weights_only=True`, as `torch.load` does since PyTorch 2.6. Re-running `ember.load` "
    "with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it "
    "only if you got the file from a trusted source."
)


class _Loader:
    """What the zip and legacy loaders share: the allow-list, the tensor rebuild functions and the
    bookkeeping that keeps total allocation within what the file holds."""

    def __init__(self, src, map_location, weights_only=True):
        from ember.serialization import _user_allowed_globals

        self.weights_only = weights_only
        # the user's safe globals (ember.serialization.add_safe_globals) as this load began, and their ids: REDUCE,
        # NEWOBJ and BUILD act on these as PyTorch's weights-only unpickler does (Note [safe globals])
        self.user_globals = _user_allowed_globals() if weights_only else {}
        self.user_ids = {id(v) for v in self.user_globals.values()}
        self.src = src
        self.name = src.name
        self.map_location = map_location
        self.storages = {}  # key -> (storage type, restored 1-D tensor)
        self.storage_ids = set()  # ids of the tensors persistent_load returned
        self.budget = src.size  # bytes of storage data the file can still justify
        self.probe = False
        functions = {
            "collections.OrderedDict": _make_ordered_dict,
            "torch._utils._rebuild_tensor": self._rebuild_tensor,
            "torch._utils._rebuild_tensor_v2": self._rebuild_tensor_v2,
            "torch._utils._rebuild_tensor_v3": self._rebuild_tensor_v3,
            "torch._utils._rebuild_parameter": self._rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": self._rebuild_parameter_with_state,
            "torch._tensor._rebuild_from_type_v2": self._rebuild_from_type_v2,
            "torch.Size": _make_size,
            "torch.device": _make_device,
            "builtins.set": _make_set,
            "builtins.frozenset": _make_frozenset,
            "builtins.complex": _make_complex,
            "builtins.slice": _make_slice,
            "builtins.bytes": _make_bytes,
            "builtins.bytearray": _make_bytearray,
            "_codecs.encode": _codecs_encode,
        }
        # Note [fresh immutable globals]: new objects for every load.
        g = {name: _Allowed(name, fn) for name, fn in functions.items()}
        self.callables = {id(c) for c in g.values()}
        self.tensor_rebuilds = {
            id(g[f"torch._utils.{n}"])
            for n in ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_parameter")
        }
        g["torch.Tensor"] = g["torch._tensor.Tensor"] = self.tensor_tag = _TensorType()
        tags = {name: _StorageType(name) for name in _STORAGE_TYPES}
        for name, tag in tags.items():
            g[f"torch.{name}"] = tag
        g["torch.storage.UntypedStorage"] = tags["UntypedStorage"]
        self.storage_tags = {id(t) for t in tags.values()}
        for name in _DTYPE_NAMES:
            if hasattr(ember, name):  # ember's dtypes are immutable singletons (nanobind objects without a __dict__)
                g[f"torch.{name}"] = getattr(ember, name)
        self.allowed = g

    # -- unpickling ---------------------------------------------------------------------------------
    def unpickle(self, data, what, persistent_load=None):
        _check_pickle(io.BytesIO(data), f"ember.load: '{self.name}': {what}")
        if not self.weights_only:
            return _FullUnpickler(self, data, what, persistent_load).load()
        try:
            return _RestrictedUnpickler(self, data, what, persistent_load).load()
        except (pickle.UnpicklingError, MemoryError):
            raise
        except RuntimeError as e:
            if str(e).startswith("ember.load"):
                raise
            raise RuntimeError(f"ember.load: '{self.name}': {what}: {e}") from e
        except Exception as e:
            raise pickle.UnpicklingError(
                f"ember.load: '{self.name}': {what} is not a valid checkpoint pickle ({type(e).__name__}: {e})"
            ) from e

    def find_class(self, module, name):
        if module == "__builtin__":  # pickles written by Python 2
            module = "builtins"
        full = f"{module}.{name}"
        obj = self.allowed.get(full)
        if obj is not None:
            return obj
        if full in self.user_globals:
            return self.user_globals[full]
        from ember.serialization import _ember_name

        if _ember_name(full) in self.user_globals:  # Note [foreign class names]: torchvision's tv_tensors
            return self.user_globals[_ember_name(full)]
        full = _ember_name(full)
        hint = ""
        if module.startswith("torch.nn.modules") or module == "__main__":
            hint = (
                " The file holds pickled Python objects (torch.save(model) rather than "
                "torch.save(model.state_dict())); save the state_dict with PyTorch and load that."
            )
        elif module.startswith("__torch__"):
            hint = " This looks like a TorchScript archive (torch.jit.save), which ember does not read."
        elif module.startswith("numpy"):
            hint = (
                " NumPy arrays need their reconstruction globals allow-listed, as in PyTorch (docs/serialization.md, "
                '"weights_only and safe globals"), or weights_only=False.'
            )
        raise pickle.UnpicklingError(
            f"ember.load: refusing to load '{self.name}': Weights only load failed. This file can still be "
            "loaded, to do so you have two options, do those steps only if you trust the source of the "
            f"checkpoint. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please "
            "check the recommended steps in the following error message.\n\tWeightsUnpickler error: Unsupported "
            f"global: GLOBAL {full} was not an allowed global by default. Please use "
            f"`ember.serialization.add_safe_globals([{full}])` or the "
            f"`ember.serialization.safe_globals([{full}])` context manager to allowlist this global if you trust "
            f"this class/function.\n(its pickle refers to the global '{full}', which is not on the allow-list: "
            "tensor and storage rebuild functions, storage types, torch.Size, torch.device, dtypes, OrderedDict, "
            "set, frozenset, complex, slice, bytes, and the user's safe globals; with weights_only=True ember "
            f"never runs code from a checkpoint: see docs/torch_checkpoints.md){hint}"
        )

    def _parse_pid(self, pid, length):
        if not isinstance(pid, tuple) or len(pid) != length:
            raise pickle.UnpicklingError(
                f"ember.load: '{self.name}': unexpected persistent id {pid!r:.100} (expected a "
                f"{length}-tuple ('storage', type, key, location, numel{', view' if length == 6 else ''}))"
            )
        kind, stype, key, location, numel = pid[:5]
        if isinstance(kind, bytes):
            kind = kind.decode("ascii", "replace")
        if kind != "storage":
            raise pickle.UnpicklingError(
                f"ember.load: '{self.name}': only storages may be persistent objects, got {kind!r:.60}"
            )
        if id(stype) not in self.storage_tags:  # a tag of this load (Note [fresh immutable globals])
            raise pickle.UnpicklingError(
                f"ember.load: '{self.name}': storage type {stype!r:.60} is not a torch storage type"
            )
        if isinstance(location, bytes):
            location = location.decode("ascii", "replace")
        if not isinstance(key, str) or not _SAFE_KEY.match(key) or not isinstance(location, str):
            raise pickle.UnpicklingError(
                f"ember.load: '{self.name}': bad storage key {key!r:.60} or location {location!r:.60}"
            )
        if type(numel) is not int or numel < 0:
            raise pickle.UnpicklingError(f"ember.load: '{self.name}': bad storage size {numel!r:.60}")
        return stype, key, location, numel

    def restore(self, tensor, key, stype, location):
        from ember.serialization import _restore_location

        restored = _restore_location(tensor, location, self.map_location)
        if not isinstance(restored, ember.Tensor):
            raise RuntimeError(
                f"ember.load: '{self.name}': map_location returned {type(restored).__name__} "
                f"for storage '{key}', expected a Tensor"
            )
        if restored.dtype != tensor.dtype:
            raise RuntimeError(
                f"ember.load: '{self.name}': map_location returned a {restored.dtype} tensor "
                f"for storage '{key}' of dtype {tensor.dtype}"
            )
        if restored.dim() != 1 or not restored.is_contiguous():
            restored = restored.contiguous().view(-1)
        return restored

    def take_budget(self, nbytes, what):
        if nbytes > self.budget:
            raise RuntimeError(
                f"ember.load: '{self.name}': {what} needs {nbytes} bytes, more than the file holds "
                f"({self.src.size} bytes in all, {max(self.budget, 0)} not yet used by other storages); "
                "the file is truncated or corrupted"
            )
        self.budget -= nbytes

    # -- tensor rebuild functions (what torch._utils._rebuild_* map to) -----------------------------
    def _as_strided(self, storage, storage_offset, size, stride):
        if self.probe:
            return None
        if not isinstance(storage, ember.Tensor) or id(storage) not in self.storage_ids:
            raise RuntimeError(
                f"ember.load: '{self.name}': a tensor's storage is {type(storage).__name__}, "
                "not a storage of this checkpoint"
            )
        size = _int_tuple(size, "a tensor's size")
        stride = _int_tuple(stride, "a tensor's stride")
        offset = _int(storage_offset, "a tensor's storage offset")
        if len(size) != len(stride):
            raise RuntimeError(
                f"ember.load: '{self.name}': tensor size {list(size)} and stride {list(stride)} have different lengths"
            )
        if offset < 0 or any(s < 0 for s in size) or any(s < 0 for s in stride):
            raise RuntimeError(
                f"ember.load: '{self.name}': negative size, stride or offset (size {list(size)}, "
                f"stride {list(stride)}, offset {offset})"
            )
        # Python integers cannot overflow: check the extent here, then ember checks it again in C++.
        n = storage.numel()
        if all(size):
            end = offset + sum((sz - 1) * st for sz, st in zip(size, stride)) + 1
            if end > n:
                raise RuntimeError(
                    f"ember.load: '{self.name}': a tensor of size {list(size)}, stride {list(stride)} and "
                    f"storage offset {offset} reaches element {end - 1} of a storage of {n} elements"
                )
        try:
            return storage.as_strided(size, stride, storage.storage_offset() + offset)
        except (RuntimeError, ValueError, TypeError, IndexError) as e:
            raise RuntimeError(
                f"ember.load: '{self.name}': cannot rebuild a tensor of size {list(size)}, "
                f"stride {list(stride)}, offset {offset}: {e}"
            ) from e

    def _rebuild_tensor(self, storage, storage_offset, size, stride):
        return self._as_strided(storage, storage_offset, size, stride)

    def _rebuild_tensor_v2(
        self, storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None
    ):
        t = self._as_strided(storage, storage_offset, size, stride)
        # PyTorch restores hooks and metadata; ember must not drop what changes values. Hooks are never saved
        # (an empty OrderedDict); metadata holds the conj/neg bits (lazy conjugation/negation): ember keeps the
        # conjugate bit, as PyTorch, and resolves the negative bit, which it does not have.
        if backward_hooks is not None and not (type(backward_hooks) in (dict, _OD) and not backward_hooks):
            raise RuntimeError(f"ember.load: '{self.name}': a tensor has backward hooks {backward_hooks!r:.80}")
        if metadata is not None:
            t = self._apply_metadata(t, metadata)
        if t is not None and requires_grad is not False:
            if requires_grad is not True:
                raise RuntimeError(f"ember.load: '{self.name}': requires_grad must be a bool")
            t.requires_grad_(True)
        return t

    def _rebuild_tensor_v3(
        self, storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
    ):
        """torch._utils._rebuild_tensor_v3: how torch.save writes the dtypes that have no typed storage (complex32
        here): the tensor's bytes as an UntypedStorage, its dtype, then _rebuild_tensor_v2's geometry (in elements of
        that dtype) and metadata."""
        if self.probe:
            return None
        if not isinstance(dtype, type(ember.float32)):
            raise RuntimeError(
                f"ember.load: '{self.name}': _rebuild_tensor_v3 needs a dtype, got {type(dtype).__name__}"
            )
        if not isinstance(storage, ember.Tensor) or id(storage) not in self.storage_ids or storage.dtype != ember.uint8:
            raise RuntimeError(
                f"ember.load: '{self.name}': a {dtype} tensor's storage is not an UntypedStorage of this checkpoint"
            )
        if storage.numel() % dtype.itemsize:
            raise RuntimeError(
                f"ember.load: '{self.name}': an UntypedStorage of {storage.numel()} bytes can't hold {dtype} elements "
                f"of {dtype.itemsize} bytes"
            )
        typed = storage.view(dtype)
        self.storage_ids.add(id(typed))
        try:
            return self._rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad, backward_hooks, metadata)
        finally:
            self.storage_ids.discard(id(typed))

    def _apply_metadata(self, t, metadata):
        if type(metadata) not in (dict, _OD) or not all(
            k in ("conj", "neg") and type(v) is bool for k, v in metadata.items()
        ):
            raise RuntimeError(
                f"ember.load: '{self.name}': unknown tensor metadata {metadata!r:.80} (PyTorch writes only "
                "{'conj': bool, 'neg': bool})"
            )
        if t is None:
            return t
        if metadata.get("conj"):
            if not t.is_complex():
                raise RuntimeError(f"ember.load: '{self.name}': a {t.dtype} tensor has the conjugate bit set")
            ember._C._set_conj(t, True)
        if metadata.get("neg"):
            t = t.neg()
        return t

    def _rebuild_parameter(self, data, requires_grad=True, backward_hooks=None):
        if self.probe:
            return None
        if backward_hooks is not None and not (type(backward_hooks) in (dict, _OD) and not backward_hooks):
            raise RuntimeError(f"ember.load: '{self.name}': a Parameter has backward hooks {backward_hooks!r:.80}")
        if not isinstance(data, ember.Tensor) or type(requires_grad) is not bool:
            raise RuntimeError(
                f"ember.load: '{self.name}': a Parameter needs a tensor and a bool, got "
                f"{type(data).__name__} and {type(requires_grad).__name__}"
            )
        try:
            return ember.nn.Parameter(data, requires_grad)
        except (RuntimeError, ValueError, TypeError) as e:
            raise RuntimeError(f"ember.load: '{self.name}': cannot rebuild a Parameter: {e}") from e

    def _rebuild_from_type_v2(self, func, new_type, args, state):
        """torch._tensor._rebuild_from_type_v2: a tensor subclass or a tensor with attributes (Note [tensor
        subclasses]). With weights_only, the class must be allow-listed (as in PyTorch) and the attributes may not
        replace anything the class defines (methods, properties, dunders)."""
        if id(func) not in self.tensor_rebuilds or type(args) is not tuple:
            raise RuntimeError(
                f"ember.load: '{self.name}': _rebuild_from_type_v2 needs a tensor rebuild function and a tuple of "
                f"arguments, got {func!r:.60} and {type(args).__name__}"
            )
        if new_type is self.tensor_tag:
            new_type = ember.Tensor
        elif not (isinstance(new_type, type) and issubclass(new_type, ember.Tensor)) or (
            self.weights_only and id(new_type) not in self.user_ids
        ):
            raise pickle.UnpicklingError(
                f"ember.load: refusing to load '{self.name}': _rebuild_from_type_v2 of {new_type!r:.80}, which is "
                "not a tensor class allow-listed with ember.serialization.add_safe_globals"
            )
        ret = func(*args)
        if ret is None:  # the probe pass
            return None
        if type(ret) is not new_type:
            ret = ret.as_subclass(new_type)
        if getattr(new_type, "__setstate__", None) is not None:  # the class's own (trusted: allow-listed) one
            ret.__setstate__(state)
            return ret
        slots = None
        if type(state) is tuple:
            if len(state) != 2:
                raise RuntimeError(f"ember.load: '{self.name}': invalid serialized tensor state {state!r:.80}")
            state, slots = state
        for part in (state, slots):
            if part is None:
                continue
            if type(part) not in (dict, _OD):
                raise RuntimeError(
                    f"ember.load: '{self.name}': a tensor's state must be a dict of attributes, got "
                    f"{type(part).__name__}"
                )
            for k, v in part.items():
                if self.weights_only and (
                    type(k) is not str or not k.isidentifier() or k.startswith("__") or hasattr(new_type, k)
                ):
                    raise pickle.UnpicklingError(
                        f"ember.load: refusing to load '{self.name}': it sets the attribute {k!r:.60} of a "
                        f"{new_type.__name__}, which a checkpoint can't replace"
                    )
                setattr(ret, k, v)
        return ret

    def _rebuild_parameter_with_state(self, data, requires_grad, backward_hooks, state):
        # state holds Python attributes set on the Parameter; ember keeps none of them (documented)
        return self._rebuild_parameter(data, requires_grad, backward_hooks)


class _ZipLoader(_Loader):
    def __init__(self, src, map_location, use_mmap, verify, weights_only=True):
        super().__init__(src, map_location, weights_only)
        self.use_mmap = use_mmap and src.fileno() is not None
        self.verify = verify
        self.byteorder = "little"

    def fail(self, msg):
        raise RuntimeError(f"ember.load: '{self.name}': {msg}")

    def load(self):
        try:
            return self._load()
        except (RuntimeError, pickle.UnpicklingError, MemoryError, TypeError, AttributeError, NameError):
            raise  # the last three would be bugs here: let them show
        except Exception as e:  # zipfile.BadZipFile, zlib.error, OSError, EOFError, struct.error, ...
            raise RuntimeError(
                f"ember.load: '{self.name}' is a zip archive that cannot be read as a PyTorch "
                f"checkpoint (truncated or corrupted?): {type(e).__name__}: {e}"
            ) from e

    def _load(self):
        src = self.src
        src.fp.seek(src.base)
        try:
            zf = zipfile.ZipFile(src.fp if src.base == 0 else io.BytesIO(src.read_at(0, src.size)))
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error, UnicodeError) as e:
            self.fail(
                f"starts like a zip archive (a torch.save checkpoint) but is not a readable one "
                f"(truncated or corrupted?): {e}"
            )
        infos = zf.infolist()
        if not infos:
            self.fail("is an empty zip archive, not a torch.save checkpoint")
        top = infos[0].filename.split("/")[0]
        self.members = {i.filename: i for i in infos}
        if len(self.members) != len(infos):  # which of two same-named members is the real one? refuse to guess
            dup = next(i.filename for i in infos if sum(j.filename == i.filename for j in infos) > 1)
            self.fail(f"the archive has two members named '{dup}' (corrupted or tampered with?)")
        self.prefix = top + "/"
        pkl = self.members.get(self.prefix + "data.pkl")
        if pkl is None:
            if self.prefix + "constants.pkl" in self.members or any(
                n.startswith(self.prefix + "code/") for n in self.members
            ):
                self.fail("is a TorchScript archive (torch.jit.save); ember reads torch.save checkpoints only")
            self.fail(f"is a zip archive without '{top}/data.pkl', so not a torch.save checkpoint")
        for info in infos:
            self._check_member(info)
        bo = self.members.get(self.prefix + "byteorder")
        if bo is not None:
            order = self._read_small(zf, bo, 16).decode("ascii", "replace").strip()
            if order not in ("little", "big"):
                self.fail(f"'{bo.filename}' says the byte order is {order!r}, expected 'little' or 'big'")
            self.byteorder = order
        data = self._read_small(zf, pkl, pkl.file_size)
        self.zf = zf
        return self.unpickle(data, f"'{pkl.filename}'", self.persistent_load)

    def _check_member(self, info):
        if info.flag_bits & 0x1:
            self.fail(f"member '{info.filename}' is encrypted")
        if info.header_offset < 0 or info.header_offset + info.compress_size > self.src.size:
            self.fail(
                f"member '{info.filename}' claims {info.compress_size} bytes at offset "
                f"{info.header_offset}, past the end of the file ({self.src.size} bytes): truncated?"
            )
        if info.compress_type == zipfile.ZIP_STORED:
            if info.file_size != info.compress_size:
                self.fail(
                    f"stored member '{info.filename}' has size {info.file_size} but {info.compress_size} stored bytes"
                )
        elif info.file_size > _MAX_INFLATE_RATIO * info.compress_size + 1024:
            self.fail(
                f"compressed member '{info.filename}' claims to inflate {info.compress_size} bytes to "
                f"{info.file_size}, more than compression allows"
            )

    def _read_small(self, zf, info, limit):
        if info.file_size > limit:
            self.fail(f"member '{info.filename}' is {info.file_size} bytes, more than expected")
        self.take_budget(info.compress_size, f"member '{info.filename}'")
        with zf.open(info) as m:
            data = m.read(info.file_size + 1)
        if len(data) != info.file_size:
            self.fail(f"member '{info.filename}' has {len(data)} bytes, its directory entry says {info.file_size}")
        return data

    def persistent_load(self, pid):
        stype, key, location, numel = self._parse_pid(pid, 5)
        cached = self.storages.get(key)
        if cached is not None:
            if cached[0].dtype_name != stype.dtype_name or cached[1].numel() != numel:
                self.fail(
                    f"storage '{key}' is used both as {cached[0]!r} and as {stype!r} "
                    f"({cached[1].numel()} and {numel} elements)"
                )
            return cached[1]
        where = f"ember.load: '{self.name}': storage '{key}'"
        info = self.members.get(f"{self.prefix}data/{key}")
        if info is None:
            self.fail(
                f"the pickle refers to storage '{key}', but the archive has no member "
                f"'{self.prefix}data/{key}' (truncated or corrupted?)"
            )
        nbytes = numel * stype.itemsize
        if info.file_size != nbytes:
            self.fail(
                f"storage '{key}' should hold {numel} x {stype.itemsize} = {nbytes} bytes "
                f"({stype!r}), but member '{info.filename}' has {info.file_size}"
            )
        self.take_budget(info.compress_size, f"storage '{key}'")
        buf = self._storage_bytes(info, nbytes, stype.itemsize)
        tensor = _tensor_from_buffer(buf, stype, self.byteorder, where)
        tensor = self.restore(tensor, key, stype, location)
        self.storages[key] = (stype, tensor)
        self.storage_ids.add(id(tensor))
        return tensor

    def _storage_bytes(self, info, nbytes, itemsize):
        try:
            return self._read_storage_bytes(info, nbytes, itemsize)
        except (RuntimeError, MemoryError):
            raise
        except Exception as e:  # zipfile.BadZipFile (CRC), zlib.error, OSError, EOFError, ...
            self.fail(f"cannot read member '{info.filename}' (truncated or corrupted?): {type(e).__name__}: {e}")

    def _member_start(self, info):
        """Where a stored member's bytes begin: after its local header, which must agree with the directory."""
        header = self.src.read_at(info.header_offset, 30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            self.fail(f"member '{info.filename}' has no valid local header (corrupted?)")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        name = self.src.read_at(info.header_offset + 30, name_len)
        if name != info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437", "replace"):
            self.fail(f"member '{info.filename}': its local header names {name[:100]!r} (corrupted?)")
        start = info.header_offset + 30 + name_len + extra_len
        if start + info.file_size > self.src.size:
            self.fail(f"member '{info.filename}' runs past the end of the file (truncated?)")
        return start

    def _read_storage_bytes(self, info, nbytes, itemsize):
        if nbytes == 0:
            return np.empty(0, np.uint8)
        if info.compress_type != zipfile.ZIP_STORED:  # torch.save never compresses; zipfile checks the CRC
            return self._read_compressed(info, nbytes)
        # Note [zip checksums]: a stored member is read (or mapped) directly and its CRC-32 checked against
        # the central directory's here, whether mapped or not, unless the caller passed verify=False.
        start = self._member_start(info)
        if self.use_mmap:
            buf = np.frombuffer(self.src.mapping(), np.uint8, count=nbytes, offset=start)
            if start % max(itemsize, 8):
                buf = buf.copy()
        else:
            buf = np.empty(nbytes, np.uint8)
            self.src.fp.seek(self.src.base + start)
            got = self.src.fp.readinto(memoryview(buf))
            if got != nbytes:
                self.fail(f"member '{info.filename}' ended after {got} of {nbytes} bytes (truncated?)")
        if self.verify:
            crc = ember._C._crc32(buf)
            if crc != info.CRC:
                self.fail(
                    f"member '{info.filename}' fails its CRC-32 check (computed {crc:08x}, the archive says "
                    f"{info.CRC:08x}): the file is corrupted"
                )
        return buf

    def _read_compressed(self, info, nbytes):
        buf = np.empty(nbytes, np.uint8)
        view = memoryview(buf)
        pos = 0
        with self.zf.open(info) as m:
            while pos < nbytes:
                chunk = m.read(min(_CHUNK, nbytes - pos))
                if not chunk:
                    break
                view[pos : pos + len(chunk)] = chunk
                pos += len(chunk)
            m.read(1)  # reaching the end makes zipfile check the CRC
        if pos != nbytes:
            self.fail(f"member '{info.filename}' ended after {pos} of {nbytes} bytes (truncated?)")
        return buf


class _ClampedReader:
    """A file's read/readline/tell for pickletools.genops, with read(n) clamped to the bytes left: a file's
    read(n) allocates n bytes before it reads, and n comes from the file."""

    def __init__(self, fp, end):
        self.fp, self.end = fp, end

    def read(self, n=-1):
        left = max(self.end - self.fp.tell(), 0)
        return self.fp.read(left if n is None or n < 0 else min(n, left))

    def readline(self):
        return self.fp.readline()

    def tell(self):
        return self.fp.tell()


class _LegacyLoader(_Loader):
    """The format torch.save wrote before 1.6 (and with _use_new_zipfile_serialization=False): pickles of
    the magic number, the protocol version and sys_info, the object's pickle, a pickle of the storage keys,
    then each storage as an 8-byte little-endian element count followed by its little-endian bytes."""

    def fail(self, msg):
        raise RuntimeError(f"ember.load: '{self.name}': {msg}")

    def next_pickle(self, what):
        start = self.src.fp.tell()
        _check_pickle(_ClampedReader(self.src.fp, self.src.base + self.src.size), f"ember.load: '{self.name}': {what}")
        end = self.src.fp.tell()
        self.src.fp.seek(start)
        data = self.src.fp.read(end - start)
        if len(data) != end - start:
            self.fail(f"{what} is truncated")
        return data

    def load(self):
        fp = self.src.fp
        fp.seek(self.src.base)
        magic = self.unpickle(self.next_pickle("the first pickle"), "the first pickle")
        if magic != _LEGACY_MAGIC:
            self.fail(
                "is a pickle file but not a PyTorch checkpoint (no torch.save magic number); "
                "ember.load does not read arbitrary pickles"
            )
        version = self.unpickle(self.next_pickle("the protocol version"), "the protocol version")
        if version != _LEGACY_PROTOCOL:
            self.fail(f"legacy checkpoint with protocol version {version!r:.40}, expected {_LEGACY_PROTOCOL}")
        sys_info = self.unpickle(self.next_pickle("sys_info"), "sys_info")
        if not isinstance(sys_info, dict):
            self.fail("legacy checkpoint whose sys_info is not a dict (corrupted?)")
        obj_pickle = self.next_pickle("the object pickle")
        # Pass 1 learns each storage's type and size; the data follows the pickles, so pass 2 builds the
        # tensors once it has been read. The unpickler runs no code, so running it twice is harmless.
        self.specs = {}
        self.probe = True
        self.unpickle(obj_pickle, "the object pickle", self.probe_storage)
        self.probe = False
        keys = self.unpickle(self.next_pickle("the storage key list"), "the storage key list")
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            self.fail("the storage key list is not a list of strings (corrupted?)")
        if len(set(keys)) != len(keys) or set(keys) != {k for k, s in self.specs.items() if s[0] is not None}:
            self.fail("the storage key list does not match the storages the pickle refers to (corrupted?)")
        buffers = {}
        for key in keys:
            stype, numel, _ = self.specs[key]
            raw = fp.read(8)
            if len(raw) != 8:
                self.fail(f"the data of storage '{key}' is missing (truncated?)")
            (count,) = struct.unpack("<q", raw)
            if count != numel:
                self.fail(f"storage '{key}' holds {count} elements, the pickle says {numel} (corrupted?)")
            nbytes = numel * stype.itemsize
            self.take_budget(nbytes, f"storage '{key}'")
            buf = np.empty(nbytes, np.uint8)
            got = fp.readinto(memoryview(buf)) if nbytes else 0
            if got != nbytes:
                self.fail(f"the data of storage '{key}' is truncated ({got} of {nbytes} bytes)")
            buffers[key] = buf
        self.views = {}
        for key in keys:
            stype, numel, location = self.specs[key]
            where = f"ember.load: '{self.name}': storage '{key}'"
            tensor = self.restore(_tensor_from_buffer(buffers[key], stype, "little", where), key, stype, location)
            self.storages[key] = (stype, tensor)
            self.storage_ids.add(id(tensor))
        return self.unpickle(obj_pickle, "the object pickle", self.persistent_load)

    def probe_storage(self, pid):
        stype, key, location, numel = self._parse_pid(pid, 6)
        spec = self.specs.get(key)
        if spec is None or spec[0] is None:
            self.specs[key] = (stype, numel, location)
        elif spec[0].dtype_name != stype.dtype_name or spec[1] != numel:
            self.fail(f"storage '{key}' appears with two different types or sizes")
        view = pid[5]
        if view is not None:
            if (
                not isinstance(view, tuple)
                or len(view) != 3
                or not isinstance(view[0], str)
                or not _SAFE_KEY.match(view[0])
                or type(view[1]) is not int
                or type(view[2]) is not int
                or view[1] < 0
                or view[2] < 0
                or view[1] + view[2] > numel
            ):
                self.fail(f"bad storage view {view!r:.100} of storage '{key}' ({numel} elements)")
            if view[0] in self.specs and self.specs[view[0]][0] is not None and view[0] != key:
                self.fail(f"storage view '{view[0]}' reuses the key of a storage")
            self.specs.setdefault(view[0], (None, view, key))
        return None

    def persistent_load(self, pid):
        stype, key, location, numel = self._parse_pid(pid, 6)
        if key not in self.storages:  # cannot happen: pass 1 saw the same pickle
            self.fail(f"storage '{key}' appeared only in the second pass")
        tensor = self.storages[key][1]
        view = pid[5]
        if view is None:
            return tensor
        cached = self.views.get(view[0])
        if cached is None:
            cached = tensor.narrow(0, view[1], view[2])
            self.views[view[0]] = cached
            self.storage_ids.add(id(cached))
        return cached
