"""ember.save writes PyTorch's zip format, ember.load is weights_only=True by default with PyTorch's safe-globals
API, and ember's storages (issue 20). The PyTorch checks run the reference PyTorch (/opt/torch2/py) in a
subprocess and are skipped without it; the structural checks run everywhere."""

import collections
import dataclasses
import io
import json
import os
import pickle
import pickletools
import struct
import subprocess
import sys
import textwrap
import warnings
import zipfile

import numpy as np
import pytest

import ember
from ember import serialization

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")


@dataclasses.dataclass
class Point:
    x: int
    y: list


@pytest.fixture(autouse=True)
def _no_leftover_safe_globals():
    serialization.clear_safe_globals()
    yield
    serialization.clear_safe_globals()


def _bytes(obj, **kw):
    buf = io.BytesIO()
    ember.save(obj, buf, **kw)
    return buf.getvalue()


def _load(data, **kw):
    return ember.load(io.BytesIO(data), **kw)


def _rezip(data, old, new):
    """The file with `old` replaced by `new` in its data.pkl (the zip rebuilt around it)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            body = zin.read(info)
            if info.filename.endswith("/data.pkl"):
                assert old in body
                body = body.replace(old, new)
            zout.writestr(info.filename, body)
    return out.getvalue()


def _globals(data_pkl):
    return [arg for op, arg, _ in pickletools.genops(data_pkl) if op.name == "GLOBAL"]


def _state():
    base = ember.arange(12.0).reshape(3, 4)
    return collections.OrderedDict(
        w=base,
        col=base[:, 1],  # a strided view of w: one storage
        t=base.t(),
        p=ember.nn.Parameter(ember.tensor([1.5, -2.0])),
        i=ember.tensor([[1, -2], [3, 2**40]], dtype=ember.int64),
        b=ember.tensor([True, False, True]),
        h=ember.tensor([0.5, -1.25], dtype=ember.float16),
        bf=ember.tensor([3.0, -0.5], dtype=ember.bfloat16),
        u8=ember.tensor([0, 255, 7], dtype=ember.uint8),
        i8=ember.tensor([-128, 127], dtype=ember.int8),
        i16=ember.tensor([-300, 300], dtype=ember.int16),
        i32=ember.tensor([-(2**31), 2**31 - 1], dtype=ember.int32),
        f64=ember.tensor([1e-300, -0.0, 1 / 3], dtype=ember.float64),
        empty=ember.zeros(0, 3),
        scalar=ember.tensor(7.0),
        size=ember.Size([2, 3]),
        dev=ember.device("cpu"),
        dtype=ember.float16,
        meta={"epoch": 3, "lr": 0.1, "name": "run", "tags": ("a", "b"), "none": None, "set": {1, 2}},
    )


# ---- the file format


@pytest.fixture(params=["zip32", "zip64"])
def zip_kind(request, monkeypatch):
    """ember.save's own zip writer (Note [Writing the zip]) as it is, and with every size and offset past 40 bytes
    written with zip64 fields (as a checkpoint over 2 GiB has them)."""
    if request.param == "zip64":
        monkeypatch.setattr(serialization, "_ZIP64_LIMIT", 40)
    return request.param


def test_ember_save_writes_torch_zip_layout(tmp_path, zip_kind):
    path = tmp_path / "model.pt"
    ember.save(_state(), path)
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None  # every member's CRC-32 agrees with its bytes
        infos = z.infolist()
        if zip_kind == "zip64":  # the fields zipfile found in zip64 extra fields hold the true values
            raw = path.read_bytes()
            assert b"PK\x06\x06" in raw and b"PK\x06\x07" in raw  # zip64 end records
            big = [i for i in infos if i.file_size > 40]
            assert big
            for i in big:  # sizes in the local header's zip64 field (header id 1), 0xFFFFFFFF in its own
                h = i.header_offset
                assert struct.unpack("<II", raw[h + 18 : h + 26]) == (0xFFFFFFFF, 0xFFFFFFFF)
                name_len = struct.unpack("<H", raw[h + 26 : h + 28])[0]
                assert struct.unpack("<HHQQ", raw[h + 30 + name_len : h + 50 + name_len]) == (
                    1,
                    16,
                    i.file_size,
                    i.file_size,
                )
        names = [i.filename for i in infos]
        assert names[:4] == ["model/data.pkl", "model/.format_version", "model/.storage_alignment", "model/byteorder"]
        assert names[-2:] == ["model/version", "model/.data/serialization_id"]
        data_names = names[4:-2]
        assert data_names == [f"model/data/{k}" for k in range(len(data_names))]
        assert z.read("model/version") == b"3\n" and z.read("model/byteorder") == b"little"
        assert z.read("model/.format_version") == b"1" and z.read("model/.storage_alignment") == b"64"
        sid = z.read("model/.data/serialization_id")
        assert len(sid) == 40 and sid.isdigit()
        raw = path.read_bytes()
        for i in infos:  # stored, and every member's data starts on a multiple of 64 (as torch.save aligns)
            assert i.compress_type == zipfile.ZIP_STORED
            name_len, extra_len = struct.unpack("<HH", raw[i.header_offset + 26 : i.header_offset + 30])
            fb = i.header_offset + 30 + name_len + (20 if zip_kind == "zip64" and i.file_size > 40 else 0)
            assert raw[fb : fb + 2] == b"FB"
            assert (i.header_offset + 30 + name_len + extra_len) % 64 == 0
        pkl = z.read("model/data.pkl")
        # views share a storage: w, col and t are one member of 48 bytes
        assert z.getinfo("model/data/0").file_size == 48
    assert pkl[:2] == b"\x80\x02"  # protocol 2, as torch.save
    names = set(_globals(pkl))
    assert {
        "collections OrderedDict",
        "torch._utils _rebuild_tensor_v2",
        "torch._utils _rebuild_parameter",
        "torch FloatStorage",
        "torch LongStorage",
        "torch BFloat16Storage",
        "torch Size",
        "torch device",
        "torch float16",
        "__builtin__ set",  # protocol 2 names builtins as Python 2 did, as torch.save's pickles do
    } <= names
    assert not any(n.startswith("ember") for n in names)  # PyTorch can resolve every name
    # persistent ids are ('storage', torch.<Type>Storage, key, 'cpu', numel), as torch.save writes them
    pids = []

    class Name(str):  # a global as its name; calling it records the call
        def __call__(self, *args):
            return {} if self.endswith("OrderedDict") else (str(self), args)

    class Spy(pickle.Unpickler):
        def find_class(self, module, name):
            return Name(f"{module}.{name}")

        def persistent_load(self, pid):
            pids.append(pid)
            return pid

    Spy(io.BytesIO(pkl)).load()
    assert pids[0] == ("storage", "torch.FloatStorage", "0", "cpu", 12)
    assert all(p[0] == "storage" and p[3] == "cpu" and isinstance(p[4], int) for p in pids)


def test_round_trip_state_dict_with_shared_storage():
    sd = _state()
    back = _load(_bytes(sd))
    assert type(back) is collections.OrderedDict and list(back) == list(sd)
    for k, v in sd.items():
        if isinstance(v, ember.Tensor):
            assert back[k].dtype is v.dtype and back[k].shape == v.shape, k
            assert back[k].tolist() == v.tolist(), k
            assert back[k].stride() == v.stride() and back[k].storage_offset() == v.storage_offset(), k
        else:
            assert back[k] == v and type(back[k]) is type(v), k
    assert type(back["p"]) is ember.nn.Parameter and back["p"].requires_grad
    assert type(back["w"]) is ember.Tensor and not back["w"].requires_grad
    back["col"][0] = 100.0  # one storage: writes through the view reach w and t
    assert back["w"][0, 1].item() == 100.0 and back["t"][1, 0].item() == 100.0
    assert back["w"].untyped_storage() == back["t"].untyped_storage()


def test_same_tensor_twice_and_bare_storage():
    x = ember.arange(3.0)
    back = _load(_bytes([x, x, x[1:]]))
    assert back[0] is back[1]
    back[0][1] = 5.0
    assert back[2].tolist() == [5.0, 2.0]
    # a bare storage loads as the 1-D tensor of its elements (docs/torch_checkpoints.md)
    back = _load(_bytes([x.untyped_storage()]))
    assert back[0].dtype is ember.uint8 and back[0].view(ember.float32).tolist() == [0.0, 1.0, 2.0]
    # as torch.save: one memory saved as two dtypes is refused
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        _bytes([x, x.untyped_storage()])
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        _bytes([x, x.view(ember.int32)])


def test_whole_module_needs_weights_only_false():
    ember.manual_seed(0)
    m = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.ReLU())
    data = _bytes(m)
    with pytest.raises(pickle.UnpicklingError) as e:
        _load(data)
    msg = str(e.value)
    assert "Weights only load failed" in msg
    assert "Unsupported global: GLOBAL ember.nn.modules.container.Sequential was not an allowed global" in msg
    assert "`ember.serialization.add_safe_globals([ember.nn.modules.container.Sequential])`" in msg
    assert "weights_only` set to `False`" in msg
    m2 = _load(data, weights_only=False)
    assert type(m2) is ember.nn.Sequential and type(m2[0]) is ember.nn.Linear
    assert m2[0].weight.tolist() == m[0].weight.tolist() and type(m2[0].weight) is ember.nn.Parameter
    x = ember.randn(4, 3)
    assert m2(x).tolist() == m(x).tolist()


def test_numpy_arrays_and_dataclasses():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    obj = {"a": a, "pt": Point(3, [ember.ones(2), "s"])}
    data = _bytes(obj)
    back = _load(data, weights_only=False)
    assert back["a"].dtype == np.float32 and (back["a"] == a).all()
    assert back["pt"].x == 3 and back["pt"].y[0].tolist() == [1.0, 1.0] and back["pt"].y[1] == "s"
    # weights_only=True (the default) refuses them, as PyTorch 2.15 does, naming the first global it meets
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL numpy\._core\.multiarray\._reconstruct was not"):
        _load(data)
    np_globals = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.float32))]
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL test_checkpoints_both_ways\.Point was not"):
        with serialization.safe_globals(np_globals):
            _load(data)
    with serialization.safe_globals(np_globals + [Point]):
        back = _load(data)
    assert (back["a"] == a).all() and back["pt"] == Point(3, back["pt"].y) and back["pt"].y[0].tolist() == [1, 1]


def test_safe_globals_api():
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([Point])
    serialization.add_safe_globals([Point, (Point, "somewhere.Else")])
    assert sorted(map(repr, serialization.get_safe_globals())) == sorted(map(repr, [Point, (Point, "somewhere.Else")]))
    with serialization.safe_globals([np.ndarray]):
        assert np.ndarray in serialization.get_safe_globals()
    assert np.ndarray not in serialization.get_safe_globals() and Point in serialization.get_safe_globals()
    serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    # the (object, "module.name") form: a class pickled under another name
    data = _rezip(_bytes({"p": Point(1, [2])}), b"test_checkpoints_both_ways\nPoint\n", b"other_module\nPt\n")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL other_module\.Pt was not an allowed global"):
        _load(data)
    serialization.add_safe_globals([(Point, "other_module.Pt")])
    assert _load(data) == {"p": Point(1, [2])}
    serialization.clear_safe_globals()
    serialization.add_safe_globals([(Point, "a", "b")])
    with pytest.raises(ValueError, match="Expected tuple of length 2"):
        _load(data)
    serialization.clear_safe_globals()
    serialization.add_safe_globals([(Point, 3)])
    with pytest.raises(TypeError, match="Expected second item in tuple to be str"):
        _load(data)


def test_weights_only_refuses_code_and_unlisted_opcodes(tmp_path):
    class Exploit:
        def __reduce__(self):
            return (os.system, (f"touch {tmp_path}/pwned",))

    with zipfile.ZipFile(tmp_path / "evil.pt", "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"w": Exploit()}, protocol=2))
        z.writestr("archive/version", "3\n")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL posix\.system was not an allowed global by default"):
        ember.load(tmp_path / "evil.pt")
    assert not (tmp_path / "pwned").exists()
    # a class that is not allow-listed can't be instantiated (NEWOBJ) or built, even if its name resolves
    data = _bytes(Point(1, [2]))
    serialization.add_safe_globals([(print, "test_checkpoints_both_ways.Point")])  # the name, but not a class
    with pytest.raises(pickle.UnpicklingError, match="NEWOBJ"):
        _load(data)


def test_load_arguments_as_pytorch():
    data = _bytes({"w": ember.ones(1)})
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        _load(data, pickle_module=pickle)
    assert _load(data, weights_only=False, pickle_module=pickle)["w"].tolist() == [1.0]
    with pytest.warns(UserWarning, match=r"pickle_load_args only works if `weights_only=False`"):
        _load(data, encoding="latin1")
    with pytest.raises(ValueError, match="legacy format"):
        _bytes({}, _use_new_zipfile_serialization=False)
    with pytest.raises(ValueError, match="pickle_protocol"):
        _bytes({}, pickle_protocol=1)
    assert _load(_bytes({"w": ember.ones(1)}, pickle_protocol=4))["w"].tolist() == [1.0]
    # weights_only=False reads the same values (PyTorch's names still map to ember's objects)
    sd = _state()
    full = _load(_bytes(sd), weights_only=False)
    assert type(full) is collections.OrderedDict and full["meta"] == sd["meta"] and full["dtype"] is ember.float16
    assert type(full["size"]) is ember.Size and type(full["p"]) is ember.nn.Parameter
    assert full["t"].tolist() == sd["t"].tolist() and full["t"].stride() == sd["t"].stride()


def test_ember_format_still_loads_and_save_fails_cleanly(tmp_path):
    path = tmp_path / "old.ckpt"
    serialization.save_ember({"w": ember.arange(3.0)}, path)
    assert path.read_bytes()[:8] == b"EMBERCKP"
    assert ember.load(path)["w"].tolist() == [0.0, 1.0, 2.0]
    # a failing save (an unpicklable object) leaves the target as it was and no temporary file
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"f": lambda: 0}, path)
    assert ember.load(path)["w"].tolist() == [0.0, 1.0, 2.0] and os.listdir(tmp_path) == ["old.ckpt"]
    with pytest.raises(ValueError, match="65 dimensions exceeds the limit of 64"):
        ember.save({"x": ember.ones([1] * 65)}, path)
    assert os.listdir(tmp_path) == ["old.ckpt"]
    ember.save({"w": ember.ones(2)}, path)
    assert zipfile.is_zipfile(path) and ember.load(path, mmap=True)["w"].tolist() == [1.0, 1.0]


# ---- storages


def test_storage_api_values_and_aliasing():
    t = ember.arange(6.0)
    u = t[2:].untyped_storage()  # the whole storage, wherever the view starts
    assert isinstance(u, ember.UntypedStorage) and u.nbytes() == 24 and u.size() == 24 and len(u) == 24
    assert u.element_size() == 1 and u.data_ptr() == t.data_ptr() and u.device == ember.device("cpu")
    assert u.tolist()[4:8] == list(np.float32(1.0).tobytes())
    assert u[4] == np.frombuffer(np.float32(1.0).tobytes(), np.uint8)[0] and u[-1] == u.tolist()[-1]
    with pytest.warns(UserWarning, match=r"TypedStorage is deprecated.*use tensor.untyped_storage\(\) instead"):
        s = t.storage()
    assert isinstance(s, ember.TypedStorage) and s.dtype is ember.float32 and s.size() == 6 and len(s) == 6
    assert s.nbytes() == 24 and s.element_size() == 4 and s.tolist() == [0, 1, 2, 3, 4, 5]
    s[0] = 7.0  # storage -> tensor
    assert t[0].item() == 7.0
    t[1] = 9.0  # tensor -> storage
    assert s[1] == 9.0 and u.tolist()[4:8] == list(np.float32(9.0).tobytes())
    c = s.clone()
    c.fill_(0.0)
    assert t.tolist() == [7, 9, 2, 3, 4, 5] and c.tolist() == [0.0] * 6
    s.copy_(c)
    assert t.tolist() == [0.0] * 6
    u.fill_(0)
    u[0:4] = ember.tensor(list(np.float32(2.5).tobytes()), dtype=ember.uint8)
    assert t[0].item() == 2.5
    assert s.cpu() is s and s.untyped() == u and u == t.untyped_storage() and u != ember.ones(1).untyped_storage()
    with pytest.raises(IndexError, match="index 6 is out of range"):
        s[6]
    with pytest.raises(RuntimeError, match="fixed size"):
        u.resize_(10)
    assert s.resize_(6) is s
    assert not u.is_shared()
    u.share_memory_()
    assert u.is_shared() and t.is_shared() and t[0].item() == 2.5
    f = ember.FloatStorage([1, 2])
    assert isinstance(f, ember.TypedStorage) and f.dtype is ember.float32 and f.tolist() == [1.0, 2.0]
    assert ember.LongStorage(3).tolist() == [0, 0, 0] and ember.UntypedStorage([1, 2]).tolist() == [1, 2]
    assert ember.TypedStorage(wrap_storage=ember.UntypedStorage(8), dtype=ember.int32).tolist() == [0, 0]
    with pytest.raises(RuntimeError, match="not a whole number of"):
        ember.TypedStorage(wrap_storage=ember.UntypedStorage(6), dtype=ember.int32)


# ---- against PyTorch


def _torch(code, *args, env=None):
    proc = subprocess.run(
        [TORCH_PY, "-c", code if code.startswith("import") else textwrap.dedent(code), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _describe_ember(obj):
    out = {}
    for k, v in obj.items():
        if isinstance(v, ember.Tensor):
            out[k] = [
                str(v.dtype).split(".")[-1],
                list(v.shape),
                list(v.stride()),
                v.storage_offset(),
                v.contiguous().reshape(-1).view(ember.uint8).tolist(),
                type(v).__name__,
                v.requires_grad,
            ]
    return out


_DESCRIBE_TORCH = """
def describe(obj):
    out = {}
    for k, v in obj.items():
        if isinstance(v, torch.Tensor):
            b = v.detach().contiguous().reshape(-1).view(torch.uint8).tolist()
            out[k] = [str(v.dtype).split(".")[-1], list(v.shape), list(v.stride()), v.storage_offset(), b,
                      type(v).__name__, v.requires_grad]
    return out
"""


@needs_torch
def test_torch_loads_ember_files(tmp_path, zip_kind):
    sd = _state()
    path = tmp_path / "from_ember.pt"
    ember.save(sd, path)
    code = (
        "import json, sys, torch\n"
        + _DESCRIBE_TORCH
        + """
if True:
        for mmap in (False, True):
            d = torch.load(sys.argv[1], mmap=mmap)  # weights_only=True, PyTorch's default
            d["col"][0] = 100.0
            assert d["w"][0, 1].item() == 100.0 and d["t"][1, 0].item() == 100.0
            d["col"][0] = 1.0
            assert d["w"].untyped_storage().data_ptr() == d["t"].untyped_storage().data_ptr()
            assert type(d["size"]) is torch.Size and d["size"] == (2, 3) and d["dev"] == torch.device("cpu")
            assert d["dtype"] is torch.float16 and d["meta"]["set"] == {1, 2} and d["meta"]["tags"] == ("a", "b")
            assert type(d["p"]) is torch.nn.Parameter
        print(json.dumps(describe(d)))
        """
    )
    assert json.loads(_torch(code, path)) == json.loads(json.dumps(_describe_ember(sd)))


@needs_torch
def test_ember_loads_torch_files(tmp_path):
    path = tmp_path / "from_torch.pt"
    code = (
        "import collections, json, sys, torch\n"
        + _DESCRIBE_TORCH
        + """
if True:
        torch.manual_seed(0)
        base = torch.randn(3, 4)
        sd = collections.OrderedDict(w=base, col=base[:, 1], t=base.t(), p=torch.nn.Parameter(torch.randn(2)),
                                     i=torch.tensor([1, -2**40]), b=torch.tensor([True, False]),
                                     h=torch.randn(3).half(), bf=torch.randn(3).bfloat16(),
                                     f64=torch.randn(2, dtype=torch.float64), s=torch.Size([1, 2]))
        torch.save(sd, sys.argv[1])
        print(json.dumps(describe(sd)))
        """
    )
    expected = json.loads(_torch(code, path))
    for mmap in (False, True):
        d = ember.load(path, mmap=mmap)
        assert _describe_ember(d) == expected
        assert type(d["s"]) is ember.Size and d["s"] == (1, 2)
        d["col"][0] = 100.0
        assert d["w"][0, 1].item() == 100.0 and d["t"][1, 0].item() == 100.0


@needs_torch
def test_numpy_and_objects_between_torch_and_ember(tmp_path):
    (tmp_path / "shared_types.py").write_text(
        "import dataclasses\n\n@dataclasses.dataclass\nclass Box:\n    name: str\n    items: list\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import shared_types

        a = np.arange(5, dtype=np.float64)
        ember.save({"a": a, "box": shared_types.Box("b", [1, ember.ones(2)])}, tmp_path / "e.pt")
        code = """
            import sys, numpy as np, torch
            sys.path.insert(0, sys.argv[2])
            import shared_types
            d = torch.load(sys.argv[1], weights_only=False)
            assert (d["a"] == np.arange(5.0)).all() and d["box"].name == "b"
            assert d["box"].items[1].tolist() == [1.0, 1.0]
            try:
                torch.load(sys.argv[1])
            except Exception as e:
                print("refused:", "numpy._core.multiarray._reconstruct" in str(e))
            torch.save({"n": np.array([1, 2], dtype=np.int16), "box": shared_types.Box("t", [torch.zeros(1)])},
                       sys.argv[3])
            """
        assert _torch(code, tmp_path / "e.pt", tmp_path, tmp_path / "t.pt").strip() == "refused: True"
        d = ember.load(tmp_path / "t.pt", weights_only=False)
        assert d["n"].dtype == np.int16 and d["n"].tolist() == [1, 2] and d["box"].name == "t"
        assert d["box"].items[0].tolist() == [0.0]
        with pytest.raises(pickle.UnpicklingError, match="numpy"):
            ember.load(tmp_path / "t.pt")
        np_globals = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.int16))]
        with serialization.safe_globals(np_globals + [shared_types.Box]):
            d = ember.load(tmp_path / "t.pt")
        assert d["n"].tolist() == [1, 2] and d["box"].items[0].tolist() == [0.0]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("shared_types", None)


@needs_torch
def test_torch_refuses_ember_modules_under_weights_only(tmp_path):
    ember.save(ember.nn.Linear(2, 2), tmp_path / "m.pt")
    code = """
        import sys, torch
        try:
            torch.load(sys.argv[1])
        except Exception as e:
            print(type(e).__name__, "ember.nn.modules.linear.Linear" in str(e))
        """
    assert _torch(code, tmp_path / "m.pt").strip() == "UnpicklingError True"


def test_torch_pickled_module_is_refused_with_weights_only_false(tmp_path):
    # what torch.save(model) writes names torch's classes; ember maps none of them and never imports torch
    data = _rezip(_bytes({"w": ember.ones(1)}), b"collections\nOrderedDict\n", b"torch.nn.modules.linear\nLinear\n")
    with pytest.raises(pickle.UnpicklingError, match=r"PyTorch global 'torch.nn.modules.linear.Linear'"):
        _load(data, weights_only=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _load(_bytes([1, 2]), weights_only=False) == [1, 2]


@needs_torch
def test_legacy_torch_file_with_numpy_needs_weights_only_false(tmp_path):
    code = """
        import sys, numpy as np, torch
        base = torch.arange(6.0)
        torch.save({"n": np.arange(3), "w": base, "v": base[2:]}, sys.argv[1], _use_new_zipfile_serialization=False)
        """
    _torch(code, tmp_path / "legacy.pt")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL numpy\._core\.multiarray\._reconstruct"):
        ember.load(tmp_path / "legacy.pt")
    d = ember.load(tmp_path / "legacy.pt", weights_only=False)
    assert d["n"].tolist() == [0, 1, 2] and d["w"].tolist() == [0, 1, 2, 3, 4, 5]
    d["v"][0] = 9.0
    assert d["w"][2].item() == 9.0
