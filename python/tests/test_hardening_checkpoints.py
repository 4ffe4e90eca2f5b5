"""Checkpoint hardening (issue 19): a file can't change process-wide state or load with wrong values (every
pickle opcode against every allow-listed name), nothing is saved that can't be loaded (one limits table),
every single-byte mutation of a checkpoint raises or loads identical values (checksums on every path), stale
temporary files of killed saves are removed, safetensors headers of a million tensors parse in linear time,
and a short deterministic run of the opcode-aware pickle fuzzer (fuzz/torch_pickle.py)."""

import collections
import copyreg
import io
import math
import os
import pickle
import pickletools
import signal
import struct
import subprocess
import sys
import time
import zipfile
import zlib

import numpy as np
import pytest

import ember
from ember import _torch_load, nn, safetensors

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
from torch_ckpt_util import checkpoint, p_global, p_int, p_str, p_tensor, p_tuple, p_wrap  # noqa: E402
from torch_pickle import run_fuzz  # noqa: E402

# ---- a genuine checkpoint, and its values computed from the raw bytes with NumPy (the reference)

_RNG = np.random.default_rng(19)
_F32 = _RNG.standard_normal(6).astype("<f4")
_F16 = _RNG.standard_normal(4).astype("<f2")
_BF16 = (_RNG.standard_normal(4).astype("<f4").view("<u4") >> 16).astype("<u2")
_I64 = np.arange(-2, 3, dtype="<i8")


def _genuine_body():
    """A state dict pickle as torch.save writes it: an OrderedDict with `_metadata`, set by BUILD."""
    od = p_global("collections", "OrderedDict") + b")R"
    items = b"(" + b"".join(
        p_str(name) + p_tensor([n], [1], 0, n, storage, key)
        for name, storage, key, n in [
            ("w", "FloatStorage", "0", 6),
            ("h", "HalfStorage", "1", 4),
            ("b", "BFloat16Storage", "2", 4),
            ("i", "LongStorage", "3", 5),
        ]
    )
    metadata = b"}" + p_str("_metadata") + p_global("collections", "OrderedDict") + b")R" + b"s"
    return od + items + b"u" + metadata + b"b"


def genuine():
    return checkpoint(
        _genuine_body(), {"0": _F32.tobytes(), "1": _F16.tobytes(), "2": _BF16.tobytes(), "3": _I64.tobytes()}
    )


def check_genuine(data=None, **kw):
    d = _torch_load.load_torch_file(io.BytesIO(data or genuine()), **kw)
    assert type(d) is collections.OrderedDict and list(d) == ["w", "h", "b", "i"]
    assert d._metadata == collections.OrderedDict()
    assert d["w"].dtype is ember.float32 and d["w"].tolist() == _F32.tolist()
    assert d["h"].dtype is ember.float16 and d["h"].tolist() == _F16.astype(np.float32).tolist()
    bf = (_BF16.astype("<u4") << 16).view("<f4")
    assert d["b"].dtype is ember.bfloat16 and d["b"].float().tolist() == bf.tolist()
    assert d["i"].dtype is ember.int64 and d["i"].tolist() == _I64.tolist()


def process_state():
    """Everything a hostile pickle could reach and change for later loads, as comparable values."""
    state = {}
    for name, v in vars(_torch_load).items():
        for attr in ("__defaults__", "__kwdefaults__", "__dict__"):
            if callable(v) and hasattr(v, attr):
                state[f"{name}.{attr}"] = repr(getattr(v, attr))
        if isinstance(v, (dict, list, tuple, set, frozenset, int, str)):
            state[name] = repr(v)
        if isinstance(v, type):
            state[f"{name}.__dict__"] = repr(sorted(v.__dict__))
    for name in _torch_load._DTYPE_NAMES:
        dt = getattr(ember, name, None)
        state[f"ember.{name}"] = (repr(dt), repr(getattr(dt, "__dict__", None)), getattr(dt, "is_floating_point", None))
    for mod in (copyreg,):
        for attr in ("_extension_registry", "_inverted_registry", "_extension_cache"):
            state[f"copyreg.{attr}"] = repr(getattr(mod, attr))
    state["copyreg.dispatch_table"] = repr(sorted(map(repr, copyreg.dispatch_table)))
    state["pickle._Unpickler.dispatch"] = repr(sorted(pickle._Unpickler.dispatch.items(), key=lambda kv: kv[0]))
    state["OrderedDict"] = repr(sorted(collections.OrderedDict.__dict__))
    return state


# ---- 1. a file can't poison the loader


def test_build_on_a_storage_tag_is_refused_and_changes_nothing():
    check_genuine()
    before = process_state()
    # The reported attack: BUILD on torch.FloatStorage's tag relabelled float32 data as int32 for every later load.
    poison = p_global("torch", "FloatStorage") + b"}(" + p_str("dtype_name") + p_str("int32")
    poison += p_str("np_dtype") + p_str("<i4") + b"u" + b"b" + b"0" + _genuine_body()
    data = genuine()
    z = [(i.filename, zipfile.ZipFile(io.BytesIO(data)).read(i)) for i in zipfile.ZipFile(io.BytesIO(data)).infolist()]
    z[0] = (z[0][0], p_wrap(poison))
    from torch_ckpt_util import make_zip

    with pytest.raises(pickle.UnpicklingError, match=r"sets attributes \(pickle BUILD\) on a _StorageType"):
        _torch_load.load_torch_file(io.BytesIO(make_zip(z)))
    check_genuine()
    assert process_state() == before


def _arg_bytes(op, target):
    """An encoding of `op`'s inline argument (the allow-listed `target` name where it takes a global)."""
    module, _, name = target.rpartition(".")
    kind = op.arg.name if op.arg else None
    return {
        None: b"",
        "uint1": b"\x00",
        "uint2": b"\x00\x00",
        "int4": b"\x00\x00\x00\x00",
        "uint4": b"\x00\x00\x00\x00",
        "uint8": b"\x00" * 8,
        "decimalnl_short": b"0\n",
        "decimalnl_long": b"0L\n",
        "floatnl": b"1.5\n",
        "float8": struct.pack(">d", 1.5),
        "stringnl": b"'x'\n",
        "stringnl_noescape": b"storage\n",
        "stringnl_noescape_pair": module.encode() + b"\n" + name.encode() + b"\n",
        "unicodestringnl": b"x\n",
        "string1": b"\x01x",
        "string4": b"\x01\x00\x00\x00x",
        "bytes1": b"\x01x",
        "bytes4": b"\x01\x00\x00\x00x",
        "bytes8": b"\x01" + b"\x00" * 7 + b"x",
        "bytearray8": b"\x01" + b"\x00" * 7 + b"x",
        "unicodestring1": b"\x01x",
        "unicodestring4": b"\x01\x00\x00\x00x",
        "unicodestring8": b"\x01" + b"\x00" * 7 + b"x",
        "long1": b"\x01\x05",
        "long4": b"\x01\x00\x00\x00\x05",
    }[kind]


# The values an opcode's other operands get: attribute dicts that would relabel a tag, replace a function's
# defaults or shadow a state dict's methods, an argument tuple, and (None, slotstate) for BUILD's setattr form.
_POISON_DICT = (
    b"}("
    + p_str("dtype_name")
    + p_str("int32")
    + p_str("np_dtype")
    + p_str("<i4")
    + p_str("itemsize")
    + p_int(4)
    + p_str("__defaults__")
    + b"("
    + p_int(7)
    + b"t"
    + p_str("keys")
    + b"N"
    + b"u"
)
_POISONS = [_POISON_DICT, b"N" + _POISON_DICT + b"\x86", b"(" + p_str("int32") + b"t", p_int(1)]


def _opcode_pickles(target):
    """For each pickle opcode: pickles that run it with the allow-listed global `target` as its deepest
    operand (its object, list, dict, callable...), the other operands poisoned, then load a genuine state dict
    and STOP (so that a pickle whose attack 'worked' still loads without error)."""
    module, _, name = target.rpartition(".")
    g = p_global(module, name)
    for op in pickletools.opcodes:
        if op.name in ("STOP", "PROTO", "FRAME"):
            continue
        before = [s.name for s in op.stack_before]
        for poison in _POISONS:
            code = op.code.encode("latin-1") + _arg_bytes(op, target)
            if not before:
                body = g + code
            elif before[0] == "mark":  # TUPLE, LIST, DICT, FROZENSET, POP_MARK, INST
                body = b"(" + g + poison + code
            elif before[1:2] == ["mark"]:  # APPENDS, SETITEMS, ADDITEMS
                body = g + b"(" + poison + poison + code
            elif op.name == "OBJ":
                body = b"(" + g + poison + code
            elif op.name == "STACK_GLOBAL":
                body = p_str(module) + p_str(name) + code
            else:
                body = g + poison * (len(before) - 1) + code
            yield op.name, p_wrap(b"(" + body + b"1" + _genuine_body())  # POP_MARK discards what is left


def _allowed_names():
    loader = _torch_load._Loader(_torch_load._Source(io.BytesIO(genuine())), None)
    return sorted(loader.allowed)


def test_every_opcode_against_every_allowed_name_changes_nothing():
    check_genuine()
    before = process_state()
    storages = {"0": _F32.tobytes(), "1": _F16.tobytes(), "2": _BF16.tobytes(), "3": _I64.tobytes()}
    tried = loaded = 0
    names = _allowed_names()
    assert "torch.FloatStorage" in names and "collections.OrderedDict" in names and "torch.float32" in names
    for target in names:
        for opname, pkl in _opcode_pickles(target):
            members = [("archive/data.pkl", pkl)] + [(f"archive/data/{k}", v) for k, v in storages.items()]
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                for n, b in members:
                    z.writestr(n, b)
            tried += 1
            try:
                out = _torch_load.load_torch_file(io.BytesIO(buf.getvalue()))
            except (RuntimeError, pickle.UnpicklingError):
                continue
            loaded += 1
            # A pickle that loads returns this load's objects only; the genuine dict, if it is the result,
            # has its true values.
            if type(out) is collections.OrderedDict:
                check_genuine(buf.getvalue())
        # after every name's opcodes, a genuine checkpoint still loads right and nothing process-wide moved
        check_genuine()
        assert process_state() == before, target
    assert tried > 30 * len(names) * len(_POISONS) and loaded > 0


def test_build_refusals_name_what_is_wrong():
    def load_body(body):
        return _torch_load.load_torch_file(io.BytesIO(checkpoint(body, {})))

    od = p_global("collections", "OrderedDict") + b")R"
    # a state dict may carry attributes, but none that shadows an OrderedDict method (load_state_dict calls them)
    with pytest.raises(pickle.UnpicklingError, match="sets the OrderedDict attribute 'keys'"):
        load_body(od + b"}" + p_str("keys") + p_global("builtins", "set") + b"sb")
    with pytest.raises(pickle.UnpicklingError, match="from a tuple"):
        load_body(od + b"N}" + p_str("x") + b"Ns\x86b")  # (state, slotstate): setattr
    with pytest.raises(pickle.UnpicklingError, match="on a list"):
        load_body(b"]}b")
    with pytest.raises(pickle.UnpicklingError, match=r"sets an item \(pickle SETITEM\) of a _Allowed"):
        load_body(p_global("torch", "Size") + p_str("a") + b"Ns")
    with pytest.raises(pickle.UnpicklingError, match="appends .* to a dict"):
        load_body(b"}Na")
    with pytest.raises(pickle.UnpicklingError, match="which is not an allow-listed callable"):
        load_body(p_global("torch", "float32") + b")R")
    with pytest.raises(pickle.UnpicklingError, match="EXT1"):
        load_body(b"\x82\x01")
    with pytest.raises(pickle.UnpicklingError, match="NEWOBJ"):
        load_body(p_global("collections", "OrderedDict") + b")\x81")
    assert load_body(od + b"}" + p_str("_metadata") + b"}sb")._metadata == {}


def test_each_load_gets_fresh_read_only_globals():
    a = _torch_load._Loader(_torch_load._Source(io.BytesIO(genuine())), None)
    b = _torch_load._Loader(_torch_load._Source(io.BytesIO(genuine())), None)
    for name in ("torch.FloatStorage", "collections.OrderedDict", "torch._utils._rebuild_tensor_v2"):
        assert a.allowed[name] is not b.allowed[name]
        with pytest.raises(AttributeError, match="read-only"):
            a.allowed[name].dtype_name = "int32"
        with pytest.raises(AttributeError):
            object.__getattribute__(a.allowed[name], "__dict__")
    # a storage tag of another load is not a storage type here
    loader = _torch_load._ZipLoader(_torch_load._Source(io.BytesIO(genuine())), None, False, True)
    with pytest.raises(pickle.UnpicklingError, match="is not a torch storage type"):
        loader._parse_pid(("storage", a.allowed["torch.FloatStorage"], "0", "cpu", 6), 5)


def test_rebuild_arguments_that_would_change_values_are_refused_or_applied():
    raw = np.arange(4, dtype="<f4")

    def tensor_with(hooks=b"N", metadata=b"N"):
        pid = p_tuple([p_str("storage"), p_global("torch", "FloatStorage"), p_str("0"), p_str("cpu"), p_int(4)])
        args = p_tuple([pid + b"Q", p_int(0), p_tuple([p_int(4)]), p_tuple([p_int(1)]), b"\x89", hooks, metadata])
        body = p_global("torch._utils", "_rebuild_tensor_v2") + args + b"R"
        return _torch_load.load_torch_file(io.BytesIO(checkpoint(body, {"0": raw.tobytes()})))

    # PyTorch's metadata carries the lazy negation bit: the values are the negated bytes
    assert tensor_with(metadata=b"}" + p_str("neg") + b"\x88s").tolist() == (-raw).tolist()
    assert tensor_with(metadata=b"}").tolist() == raw.tolist()
    with pytest.raises(RuntimeError, match="unknown tensor metadata"):
        tensor_with(metadata=b"}" + p_str("scale") + p_int(2) + b"s")
    with pytest.raises(RuntimeError, match="conjugate bit"):
        tensor_with(metadata=b"}" + p_str("conj") + b"\x88s")
    with pytest.raises(RuntimeError, match="backward hooks"):
        tensor_with(hooks=b"}" + p_int(1) + p_int(2) + b"s")
    # a Parameter's hooks too (PyTorch would install them; ember has nothing to run)
    t = p_tensor([4], [1], 0, 4)
    param = (
        p_global("torch._utils", "_rebuild_parameter") + p_tuple([t, b"\x88", b"}" + p_int(1) + p_int(2) + b"s"]) + b"R"
    )
    with pytest.raises(RuntimeError, match="a Parameter has backward hooks"):
        _torch_load.load_torch_file(io.BytesIO(checkpoint(param, {"0": raw.tobytes()})))
    param = (
        p_global("torch._utils", "_rebuild_parameter")
        + p_tuple([t, b"\x88", p_global("collections", "OrderedDict") + b")R"])
        + b"R"
    )
    p = _torch_load.load_torch_file(io.BytesIO(checkpoint(param, {"0": raw.tobytes()})))
    assert isinstance(p, nn.Parameter) and p.requires_grad and p.tolist() == raw.tolist()


def test_persistent_id_and_zip_tricks():
    # one storage key used with two sizes: the smaller view would silently serve the larger one
    two = b"(" + p_tensor([4], [1], 0, 4) + p_tensor([2], [1], 0, 2) + b"l"
    with pytest.raises(RuntimeError, match=r"used both as torch.FloatStorage and as torch.FloatStorage \(4 and 2"):
        _torch_load.load_torch_file(io.BytesIO(checkpoint(two, {"0": bytes(16)})))
    # two members of one name: which one a reader takes is ambiguous
    buf = io.BytesIO()
    with warnings_off(), zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", p_wrap(p_tensor([4], [1], 0, 4)))
        z.writestr("archive/data/0", np.ones(4, "<f4").tobytes())
        z.writestr("archive/data/0", np.zeros(4, "<f4").tobytes())
    with pytest.raises(RuntimeError, match="two members named 'archive/data/0'"):
        _torch_load.load_torch_file(io.BytesIO(buf.getvalue()))


class warnings_off:
    def __enter__(self):
        import warnings

        self.w = warnings.catch_warnings()
        self.w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self.w.__exit__(*exc)


# ---- 2. nothing is saved that can't be loaded


def _nested(levels):
    d = {}
    for _ in range(levels - 1):
        d = {"a": d}
    return d


def _round_trip(obj):
    buf = io.BytesIO()
    ember.serialization.save_ember(obj, buf)
    return io.BytesIO(buf.getvalue())


def test_the_writer_checks_the_readers_limits(tmp_path):
    limits = ember._C._checkpoint_limits
    assert limits["dims"] == 64 and limits["manifest_depth"] == 512 and _torch_load._MAX_DIMS == limits["dims"]
    path = tmp_path / "x.ckpt"
    with pytest.raises(ValueError, match=r"65 dimensions exceeds the limit of 64 .*CheckpointLimits::kDims"):
        ember.serialization.save_ember({"x": ember.ones([1] * 65)}, path)
    with pytest.raises(ValueError, match=r"nest 603 levels of JSON, more than the 512 .*kManifestDepth"):
        ember.serialization.save_ember(_nested(201), path)
    with pytest.raises(ValueError, match="513 levels"):
        ember.serialization.save_ember(_nested(171), io.BytesIO())
    assert os.listdir(tmp_path) == []  # refused before anything was created, not even a temporary file
    # what is at the limit saves and loads
    ember.serialization.save_ember({"x": ember.ones([1] * 64)}, path)
    assert ember.load(path)["x"].shape == (1,) * 64
    ember.serialization.save_ember(_nested(170), path)
    assert ember.load(path) == _nested(170)
    # ints: ember.load reads 4300 digits (CPython's default str limit), so that is what may be saved
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with pytest.raises(ValueError, match="4301 digits exceeds the limit of 4300"):
            ember.serialization.save_ember(10**4300, io.BytesIO())
        buf = io.BytesIO()
        ember.serialization.save_ember(-(10**4299), buf)
        assert ember.load(io.BytesIO(buf.getvalue())) == -(10**4299)
    finally:
        sys.set_int_max_str_digits(old)
    with pytest.raises(ValueError, match="more than the limit of 64"):
        safetensors.save_file({"x": ember.ones([1] * 65)}, tmp_path / "x.safetensors")
    # namedtuples: the loader's collections.namedtuple(name, fields, rename=True) must rebuild them exactly
    renamed = collections.namedtuple("P", ["a", "def"], rename=True)(1, 2)  # fields ('a', '_1')
    back = ember.load(_round_trip(renamed))
    assert type(back).__name__ == "P" and back._fields == ("a", "_1") and tuple(back) == (1, 2)
    odd = type("my-name", (tuple,), {"_fields": ("a",)})((1,))  # a tuple with _fields is saved as a namedtuple
    with pytest.raises(ValueError, match=r"obj\['t'\]: ember.load could not rebuild namedtuple 'my-name'"):
        ember.serialization.save_ember({"t": odd}, path)
    assert sorted(os.listdir(tmp_path)) == ["x.ckpt"]


# ---- 3. integrity: every single-byte mutation raises or loads identical values


def _same(a, b):
    if isinstance(a, ember.Tensor):
        return (
            isinstance(b, ember.Tensor)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and type(a) is type(b)
            and a.requires_grad == b.requires_grad
            and np.array_equal(a.detach().view(ember.uint8).numpy(), b.detach().view(ember.uint8).numpy())
            if a.dim() and a.dtype is not ember.bool and a.is_contiguous()
            else isinstance(b, ember.Tensor) and a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
        )
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def _mutations(data, both):
    for i in range(len(data)):
        for x in (0x01 << (i % 8), 0xFF) if both else (0x01 << (i % 8),):
            yield i, data[:i] + bytes([data[i] ^ x]) + data[i + 1 :]


def _count_silent(data, load, reference, both=True):
    silent = []
    for i, bad in _mutations(data, both):
        try:
            out = load(bad)
        except (RuntimeError, ValueError, pickle.UnpicklingError):
            continue
        if not _same(reference, out):
            silent.append(i)
    return silent


def test_every_byte_mutation_of_an_ember_checkpoint_raises_or_loads_the_same(tmp_path):
    obj = collections.OrderedDict(
        w=nn.Parameter(ember.arange(6.0).reshape(2, 3)),
        h=ember.tensor([1.5, -2.0], dtype=ember.float16),
        i=ember.arange(3),
        misc=[1, 2.5, "s", (True, None), {"k": ember.tensor([True, False])}],
    )
    buf = io.BytesIO()
    ember.serialization.save_ember(obj, buf)
    data = buf.getvalue()
    reference = ember.load(io.BytesIO(data))
    assert _same(reference, obj)
    assert _count_silent(data, lambda b: ember.load(io.BytesIO(b)), reference) == []
    path = tmp_path / "m.ckpt"

    def load_mapped(b):
        path.write_bytes(b)
        return ember.load(path, mmap=True)

    assert _count_silent(data, load_mapped, reference, both=False) == []
    # verify=False skips the data's checksums (only): a changed data byte then loads changed
    bad = bytearray(data)
    bad[-4 * 4 - 1] ^= 1  # the last storage's last byte (four storages, then their four checksums)
    path.write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="fails its CRC-32C check"):
        ember.load(path)
    ember.load(path, verify=False)


def test_every_byte_mutation_of_a_pytorch_zip_raises_or_loads_the_same(tmp_path):
    data = genuine()
    reference = _torch_load.load_torch_file(io.BytesIO(data))
    path = tmp_path / "m.pt"
    assert _count_silent(data, lambda b: ember.load(io.BytesIO(b)), reference) == []

    def load_mapped(b):
        path.write_bytes(b)
        return ember.load(path, mmap=True)

    assert _count_silent(data, load_mapped, reference, both=False) == []
    # the CRC is checked on the mapped path too, and verify=False skips it there
    bad = bytearray(data)
    i = bad.index(_F32.tobytes())
    bad[i] ^= 0x40
    path.write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="member 'archive/data/0' fails its CRC-32 check"):
        ember.load(path, mmap=True)
    assert ember.load(path, mmap=True, verify=False)["w"].tolist() != _F32.tolist()
    assert zlib.crc32(_F32.tobytes()) == zipfile.ZipFile(io.BytesIO(data)).getinfo("archive/data/0").CRC


@pytest.mark.parametrize("name", ["tensor", "views"])
def test_every_byte_mutation_of_a_torch_save_file_raises_or_loads_the_same(tmp_path, name):
    # files written by torch.save itself (python/tests/fixtures/torch, make_fixtures.py): 64-byte aligned members
    # with padding in their extra fields, which the mapped path reads directly
    from torch_ckpt_util import read_fixture

    data = read_fixture(name)
    reference = ember.load(io.BytesIO(data))
    path = tmp_path / "m.pt"

    def load_mapped(b):
        path.write_bytes(b)
        return ember.load(path, mmap=True)

    assert _count_silent(data, load_mapped, reference, both=False) == []
    assert _count_silent(data, lambda b: ember.load(io.BytesIO(b)), reference, both=False) == []


# ---- 4. stale temporary files

_SAVER = r"""
import sys, ember
path = sys.argv[1]
big = {"w%d" % i: ember.full((1 << 20,), float(i)) for i in range(32)}  # 128 MiB: a save takes a while
while True:
    ember.save(big, path)
"""


def _temps(d):
    return sorted(n for n in os.listdir(d) if ".tmp-" in n)


def test_a_save_removes_the_temporary_files_of_killed_saves(tmp_path):
    path = tmp_path / "model.ckpt"
    left = []
    for _ in range(3):  # kill -9 a saving process until it leaves a temporary file behind
        child = subprocess.Popen([sys.executable, "-c", _SAVER, str(path)])
        deadline = time.time() + 60
        while not _temps(tmp_path) and time.time() < deadline:
            time.sleep(0.005)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        left = _temps(tmp_path)
        if left:
            break
    assert left, "no save was caught in the act"
    host, pid = left[0].split(".tmp-")[1].rsplit("-", 3)[:2]
    assert pid == str(child.pid) and host
    # files the rule must keep: another host's (its writer may be alive), a live process's, and a recent
    # name in the old form; and one it must remove: an old-form name of a dead process, an hour old
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with open(f"/proc/{sleeper.pid}/stat") as f:
            start = f.read().rsplit(")", 1)[1].split()[19]
        keep = [
            f".model.ckpt.tmp-otherhost-{child.pid}-1-5",
            f".model.ckpt.tmp-{host}-{sleeper.pid}-{start}-6",
            f".model.ckpt.tmp-{child.pid}-7",
        ]
        old = f".model.ckpt.tmp-{child.pid}-8"
        for n in keep + [old]:
            (tmp_path / n).write_bytes(b"x")
        os.utime(tmp_path / old, (time.time() - 7200, time.time() - 7200))
        # the same process id but another start time: the id was reused, the writer is gone
        reused = f".model.ckpt.tmp-{host}-{sleeper.pid}-{int(start) + 1}-9"
        (tmp_path / reused).write_bytes(b"x")
        ember.save({"w": ember.ones(2)}, path)
        assert _temps(tmp_path) == sorted(keep)
        assert ember.load(path)["w"].tolist() == [1.0, 1.0]
    finally:
        sleeper.kill()
        sleeper.wait()


# ---- 5. safetensors headers of a million tensors


def test_a_safetensors_header_of_a_million_tensors_parses_in_linear_time():
    n = 1_000_000
    parts = ['"t%d":{"dtype":"U8","shape":[1],"data_offsets":[%d,%d]}' % (i, i, i + 1) for i in range(n)]
    header = ("{" + ",".join(parts) + "}").encode()
    header += b" " * (-len(header) % 8)
    body = np.arange(n, dtype=np.int64) % 251
    data = struct.pack("<Q", len(header)) + header + body.astype(np.uint8).tobytes()
    del parts, header
    out = safetensors.load(data)
    assert len(out) == n
    for i in (0, 1, 12345, n - 1):
        assert out[f"t{i}"].tolist() == [i % 251]


def test_safetensors_save_of_many_tensors_matches_the_reference_layout():
    tensors = {f"k{i:05d}": ember.full((2,), float(i)) for i in range(20000)}
    raw = safetensors.save(tensors, metadata={"a": "1", "b": "2"})
    (n,) = struct.unpack_from("<Q", raw)
    import json

    header = json.loads(raw[8 : 8 + n])
    assert list(header)[0] == "__metadata__" and header["__metadata__"] == {"a": "1", "b": "2"}
    assert header["k00007"] == {"dtype": "F32", "shape": [2], "data_offsets": [56, 64]}
    back = safetensors.load(raw)
    assert back["k19999"].tolist() == [19999.0, 19999.0]


# ---- 6. the opcode-aware pickle fuzzer, a short deterministic run


def test_opcode_aware_pickle_fuzz_short_run():
    counts = run_fuzz(iterations=1000, seed=19)
    assert counts["failures"] == 0, counts
    assert counts["loaded"] > 0 and counts["rejected"] > 0, counts
