"""ember.save / ember.load in ember's format (docs/serialization.md): values against NumPy, the file's bytes
against ones written by hand from the documented layout, views sharing storage, containers, Parameters, a
ResNet-style model, mmap (not copied, copy-on-write), map_location, atomic replacement under SIGKILL, and
every error path (truncation at each cut point, corrupted manifests, bad geometry, unsupported objects)."""

import collections
import glob
import io
import json
import math
import os
import signal
import struct
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import ALL_DTYPES, assert_equal, random_array, to_np

import ember
import ember.nn as nn


def _load_ember(f, map_location=None, mmap=False, verify=True):
    """ember's own loader, without ember.load's dispatch (whose other branch is the PyTorch reader)."""
    return ember.serialization._load_ember(os.fspath(f) if not isinstance(f, bytes) else f, map_location, mmap, verify)


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(data):
    """CRC-32C (Castagnoli) written from its definition: the checksum of ember's format version 2."""
    c = 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ _CRC32C[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def _file(manifest, storages=(), version=2, flags=0, extra=b"", nstorages=None):
    """An ember checkpoint written by hand from docs/serialization.md (version 2: preamble checksums, then a
    CRC-32C per storage after the data; version 1: neither)."""
    text = manifest if isinstance(manifest, bytes) else json.dumps(manifest, separators=(",", ":")).encode()
    head = b"EMBERCKP" + struct.pack("<IIQ", version, flags, len(text))
    if version == 2:
        head += struct.pack("<I", crc32c(text))
        head += struct.pack("<I", crc32c(head))
    out = head + text
    out += b"\0" * (-len(out) % 64)
    data = len(out)
    for offset, raw in storages:
        out += b"\0" * (data + offset - len(out)) + raw
    if version == 2:
        out += b"".join(struct.pack("<I", crc32c(raw)) for _, raw in storages)
    return out + extra


def _one_tensor_manifest(**changes):
    tensor = {
        "storage": 0,
        "offset": 0,
        "size": [2],
        "stride": [1],
        "dtype": "float32",
        "requires_grad": False,
        "parameter": False,
    }
    tensor.update(changes)
    return {"storages": [{"offset": 0, "nbytes": 8, "device": "cpu"}], "tensors": [tensor], "root": {"tensor": 0}}


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ---- values


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_dtype(tmp_path, rng, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    t = ember.tensor(a.tolist(), dtype=dtype)
    for layout in (t, t.permute(2, 0, 1), t[1:, ::2, 1:4], t[:, 1]):
        path = tmp_path / "x.ckpt"
        ember.save(layout, path)
        back = ember.load(path)
        assert back.dtype is dtype
        assert back.stride() == layout.stride()
        assert_equal(back, to_np(layout))
        buf = io.BytesIO()
        ember.save(layout, buf)
        buf.seek(0)
        assert_equal(ember.load(buf), to_np(layout))


def test_zero_dim_zero_size_and_expanded(tmp_path):
    path = tmp_path / "x.ckpt"
    for t in (ember.tensor(3.5), ember.zeros(0), ember.zeros(2, 0, 3), ember.tensor([1, 2, 3]).expand(4, 3)):
        ember.save(t, path)
        back = ember.load(path)
        assert back.shape == t.shape and back.stride() == t.stride() and back.dtype is t.dtype
        assert_equal(back, to_np(t))


def test_views_share_storage(tmp_path):
    x = ember.arange(10.0)
    ember.save({"a": x, "b": x[2:5]}, tmp_path / "v.ckpt")
    d = ember.load(tmp_path / "v.ckpt")
    assert d["a"].tolist() == list(range(10)) and d["b"].tolist() == [2, 3, 4]
    d["b"][0] = 100.0
    assert d["a"][2].item() == 100.0
    # The same tensor object twice comes back as one object.
    ember.save([x, x], tmp_path / "same.ckpt")
    a, b = ember.load(tmp_path / "same.ckpt")
    assert a is b


def test_only_the_bytes_a_view_needs_are_written(tmp_path):
    big = ember.arange(1_000_000, dtype=ember.float64)
    path = tmp_path / "part.ckpt"
    ember.serialization.save_ember(big[500:503], path)
    raw = path.read_bytes()
    (mlen,) = struct.unpack_from("<Q", raw, 16)
    data = (32 + mlen + 63) // 64 * 64
    assert len(raw) == data + 24 + 4  # three float64 values and their checksum, nothing else
    assert np.frombuffer(raw[data:-4], dtype="<f8").tolist() == [500.0, 501.0, 502.0]
    assert struct.unpack("<I", raw[-4:])[0] == crc32c(raw[data:-4])
    assert ember.load(path).tolist() == [500.0, 501.0, 502.0]


def test_cpp_compatible_bytes(tmp_path):
    """The bytes tests/test_serialize.cpp expects ember::save to write for the same state dict: a file saved in
    C++ or in Python is the same file."""
    manifest = (
        b'{"storages":[{"offset":0,"nbytes":16,"device":"cpu"},{"offset":64,"nbytes":16,"device":"cpu"}],'
        b'"tensors":[{"storage":0,"offset":0,"size":[4],"stride":[1],"dtype":"float32","requires_grad":false,'
        b'"parameter":false},{"storage":1,"offset":0,"size":[2],"stride":[1],"dtype":"int64",'
        b'"requires_grad":false,"parameter":false}],"root":{"odict":[["w",{"tensor":0}],["b",{"tensor":1}]]}}'
    )
    expected = _file(manifest, [(0, struct.pack("<4f", 0, 1, 2, 3)), (64, struct.pack("<2q", 1, 2))])
    state = collections.OrderedDict(w=ember.arange(4, dtype=ember.float32), b=ember.arange(1, 3))
    ember.serialization.save_ember(state, tmp_path / "s.ckpt")
    assert (tmp_path / "s.ckpt").read_bytes() == expected
    back = ember.load(io.BytesIO(expected))
    assert type(back) is collections.OrderedDict and list(back) == ["w", "b"]
    assert back["w"].tolist() == [0, 1, 2, 3] and back["b"].dtype is ember.int64


def test_containers_and_scalars(tmp_path):
    Point = collections.namedtuple("Point", ["x", "y"])
    obj = {
        "list": [1, 2.5, "s", None, True, False],
        "tuple": (1, (2, (3,))),
        "nested": {"a": {"b": [ember.ones(2), {"c": ember.zeros(1, dtype=ember.int32)}]}},
        "odict": collections.OrderedDict([("z", 1), ("a", 2)]),
        "keys": {1: "int", (1, "t"): "tuple", 2.5: "float", None: "none", b"k": "bytes"},
        "point": Point(1, ember.arange(3)),
        "floats": [float("inf"), -float("inf"), -0.0, 1e-310, 1.7976931348623157e308, 0.1],
        "nan": float("nan"),
        "complex": [1 + 2j, complex(float("inf"), -1)],
        "bigint": [2**64, -(2**100), 2**63 - 1, -(2**63)],
        "bytes": [b"", b"\x00\xff" * 5, bytes(range(256))],
        "str": ["", "üñí©ødé ✓", "a\x00b"],
        "dtype": [ember.float16, ember.bfloat16, ember.bool],
        "device": [ember.device("cpu"), ember.device("cuda:1")],
        "size": ember.Size([2, 0, 3]),
        "slice": [slice(1, None, 2), slice(None), slice(-3, 4)],
        "empty": [[], (), {}],
    }
    ember.serialization.save_ember(obj, tmp_path / "c.ckpt")
    back = ember.load(tmp_path / "c.ckpt")
    assert back["list"] == obj["list"] and [type(v) for v in back["list"]] == [type(v) for v in obj["list"]]
    assert back["tuple"] == (1, (2, (3,))) and type(back["tuple"][1]) is tuple
    assert back["nested"]["a"]["b"][0].tolist() == [1.0, 1.0]
    assert back["nested"]["a"]["b"][1]["c"].dtype is ember.int32
    assert type(back["odict"]) is collections.OrderedDict and list(back["odict"].items()) == [("z", 1), ("a", 2)]
    assert back["keys"] == obj["keys"] and list(back["keys"]) == list(obj["keys"])
    p = back["point"]
    assert type(p).__name__ == "Point" and p._fields == ("x", "y") and p.x == 1 and p.y.tolist() == [0, 1, 2]
    assert isinstance(p, tuple) and type(p) is not Point  # rebuilt with collections.namedtuple, never imported
    for got, want in zip(back["floats"], obj["floats"]):
        assert got == want and math.copysign(1, got) == math.copysign(1, want)
    assert math.isnan(back["nan"])
    assert back["complex"][0] == 1 + 2j and back["complex"][1] == complex(float("inf"), -1)
    assert back["bigint"] == obj["bigint"]
    assert back["bytes"] == obj["bytes"] and back["str"] == obj["str"]
    assert back["dtype"][0] is ember.float16 and back["dtype"][1] is ember.bfloat16 and back["dtype"][2] is ember.bool
    assert back["device"] == obj["device"]
    assert type(back["size"]) is ember.Size and back["size"] == (2, 0, 3)
    assert back["slice"] == obj["slice"]
    assert back["empty"] == [[], (), {}]
    for name in ("int", "float", "str", "none", "bool"):
        value = {"int": 7, "float": 2.5, "str": "x", "none": None, "bool": True}[name]
        ember.serialization.save_ember(value, tmp_path / "s.ckpt")
        assert ember.load(tmp_path / "s.ckpt") == value


def test_parameters_and_requires_grad(tmp_path):
    w = nn.Parameter(ember.randn(3, 2))
    frozen = nn.Parameter(ember.ones(2), requires_grad=False)
    leaf = ember.zeros(2, requires_grad=True)
    ember.save({"w": w, "frozen": frozen, "leaf": leaf, "plain": ember.ones(1), "view": w[0]}, tmp_path / "p.ckpt")
    d = ember.load(tmp_path / "p.ckpt")
    assert isinstance(d["w"], nn.Parameter) and d["w"].requires_grad and d["w"].is_leaf
    assert_equal(d["w"], to_np(w.detach()))
    assert isinstance(d["frozen"], nn.Parameter) and not d["frozen"].requires_grad
    assert not isinstance(d["leaf"], nn.Parameter) and d["leaf"].requires_grad and d["leaf"].is_leaf
    assert not d["plain"].requires_grad
    with ember.no_grad():
        d["view"][0] = 42.0  # still a view of the parameter's storage
    assert d["w"][0, 0].item() == 42.0


class _Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.bn1(self.conv1(x)).relu()
        out = self.bn2(self.conv2(out))
        return (out + (x if self.down is None else self.down(x))).relu()


class ResNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = _Block(8, 8, 1)
        self.layer2 = _Block(8, 16, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(self.pool(self.layer2(self.layer1(self.stem(x)))).flatten(1))


def resnet_trained():
    ember.manual_seed(0)
    m = ResNetish()
    m.train()
    m(ember.randn(4, 3, 8, 8))  # running statistics move away from their initial values
    m.eval()
    return m


def test_resnet_state_dict_round_trip(tmp_path):
    m = resnet_trained()
    ember.save(m.state_dict(), tmp_path / "r.ckpt")
    sd = ember.load(tmp_path / "r.ckpt")
    assert list(sd) == list(m.state_dict())
    fresh = ResNetish()
    fresh.load_state_dict(sd)
    fresh.eval()
    x = ember.randn(2, 3, 8, 8)
    assert_equal(fresh(x).detach(), to_np(m(x).detach()))
    for k, v in m.state_dict().items():
        assert_equal(sd[k], to_np(v))
        assert sd[k].dtype is v.dtype


def test_optimizer_style_state(tmp_path):
    state = {
        "state": {0: {"step": ember.tensor(3.0), "exp_avg": ember.zeros(4)}},
        "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "params": [0], "amsgrad": False}],
    }
    ember.save(state, tmp_path / "o.ckpt")
    back = ember.load(tmp_path / "o.ckpt")
    assert back["param_groups"] == state["param_groups"]
    assert back["state"][0]["step"].item() == 3.0 and back["state"][0]["exp_avg"].tolist() == [0.0] * 4


# ---- file objects, map_location, mmap


def test_file_objects(tmp_path):
    t = ember.arange(6).reshape(2, 3)
    with open(tmp_path / "f.ckpt", "wb") as f:
        ember.save({"t": t}, f)
    with open(tmp_path / "f.ckpt", "rb") as f:
        assert ember.load(f)["t"].tolist() == t.tolist()
    buf = io.BytesIO(b"prefix")
    buf.seek(6)
    ember.save(t, buf)
    buf.seek(6)  # loading starts at the current position, as torch.load
    assert ember.load(buf).tolist() == t.tolist()

    class Stream:  # readable, not seekable
        def __init__(self, data):
            self.data = data

        def read(self, n=-1):
            out, self.data = self.data, b""
            return out

    assert ember.load(Stream((tmp_path / "f.ckpt").read_bytes()))["t"].tolist() == t.tolist()
    with pytest.raises(ValueError, match="mmap=True needs a file path"):
        ember.load(io.BytesIO((tmp_path / "f.ckpt").read_bytes()), mmap=True)
    with pytest.raises(TypeError, match="path or a writable binary file"):
        ember.save(t, 3)
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / "missing.ckpt")


def test_map_location(tmp_path):
    x = ember.arange(4.0)
    path = tmp_path / "m.ckpt"
    ember.serialization.save_ember({"x": x, "v": x[1:]}, path)
    seen = []

    def record(storage, location):
        seen.append((storage.dtype, storage.numel(), location))
        return storage

    for loc in (None, "cpu", ember.device("cpu"), {"cpu": "cpu"}, record, lambda s, loc: None):
        d = ember.load(path, map_location=loc)
        assert d["x"].tolist() == [0, 1, 2, 3]
        d["v"][0] = 9.0
        assert d["x"][1].item() == 9.0
    assert seen == [(ember.uint8, 16, "cpu")]  # one storage, its bytes, the saved location
    # A callable that returns a copy: views still share the new storage.
    d = ember.load(path, map_location=lambda s, loc: s.clone())
    d["v"][0] = 5.0
    assert d["x"].tolist() == [0, 5, 2, 3]
    # A file saved from CUDA names its location; on a machine without CUDA it needs map_location.
    cuda_file = _file(
        _one_tensor_manifest() | {"storages": [{"offset": 0, "nbytes": 8, "device": "cuda:0"}]},
        [(0, struct.pack("<2f", 1, 2))],
    )
    (tmp_path / "cuda.ckpt").write_bytes(cuda_file)
    assert ember.load(tmp_path / "cuda.ckpt", map_location="cpu").tolist() == [1.0, 2.0]
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            ember.load(tmp_path / "cuda.ckpt")
    else:
        assert ember.load(tmp_path / "cuda.ckpt").device == ember.device("cuda:0")


def test_mmap_is_not_a_copy_and_is_copy_on_write(tmp_path):
    n = 16 * 1024 * 1024  # 64 MiB of float32
    path = tmp_path / "big.ckpt"
    ember.save({"w": ember.arange(n, dtype=ember.float32)}, path)
    size = path.stat().st_size
    before = _rss()
    m = ember.load(path, mmap=True, verify=False)["w"]  # verify=True would read every byte to check it
    mapped_growth = _rss() - before
    assert mapped_growth < 8 * 1024 * 1024, mapped_growth  # nothing read yet
    assert m[n - 1].item() == n - 1 and m[12345].item() == 12345.0
    assert m.max().item() == n - 1 and m.min().item() == 0  # reads every element
    assert _rss() - before > 48 * 1024 * 1024  # reading every element brings the file's pages in
    tail = path.read_bytes()[-16:]
    m[n - 4 :] = -1.0  # copy-on-write: the tensor changes, the file does not
    assert m[n - 1].item() == -1.0
    assert path.read_bytes()[-16:] == tail and path.stat().st_size == size
    assert ember.load(path, mmap=True)["w"][n - 1].item() == n - 1
    # The mapping outlives the dict and the file name.
    view = ember.load(path, mmap=True)["w"][10:12]
    os.unlink(path)
    assert view.tolist() == [10.0, 11.0]


# ---- atomic save


_SAVER = r"""
import sys, ember
path, flag = sys.argv[1], sys.argv[2]
big = {"w%d" % i: ember.full((1 << 20,), float(i)) for i in range(48)}  # 192 MiB: a save takes a while
open(flag, "w").close()
while True:
    ember.save(big, path)
"""


def test_killed_save_leaves_the_previous_file(tmp_path):
    path = tmp_path / "model.ckpt"
    ember.save({"version": 1, "w": ember.arange(5.0)}, path)
    flag = tmp_path / "started"
    proc = subprocess.Popen([sys.executable, "-c", _SAVER, str(path), str(flag)])
    try:
        deadline = time.time() + 60
        while not flag.exists() and time.time() < deadline:
            time.sleep(0.01)
        # Wait until a temporary file is being written, then kill the process mid-save.
        while not glob.glob(str(tmp_path / ".model.ckpt.tmp-*")) and time.time() < deadline:
            time.sleep(0.001)
        assert glob.glob(str(tmp_path / ".model.ckpt.tmp-*")), "the saver never started writing"
        time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    d = ember.load(path)  # the old file, or a complete new one: never a torn one
    if "version" in d:
        assert d["version"] == 1 and d["w"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    else:
        assert sorted(d) == sorted("w%d" % i for i in range(48)) and d["w47"][-1].item() == 47.0
    stale = glob.glob(str(tmp_path / ".model.ckpt.tmp-*"))
    assert stale  # the killed process left its temporary file, under a name no reader opens
    for f in stale:
        os.unlink(f)
    assert sorted(os.listdir(tmp_path)) == ["model.ckpt", "started"]


def test_save_through_a_symlink_keeps_the_link_and_the_permissions(tmp_path):
    target = tmp_path / "real.ckpt"
    ember.save(ember.ones(1), target)
    os.chmod(target, 0o600)
    link = tmp_path / "link.ckpt"
    os.symlink(target, link)
    ember.save(ember.zeros(2), link)
    assert link.is_symlink() and ember.load(target).tolist() == [0.0, 0.0]
    assert target.stat().st_mode & 0o777 == 0o600


# ---- errors


def test_unsupported_objects_name_the_type_and_path(tmp_path):
    class Foo:
        pass

    path = tmp_path / "u.ckpt"
    with pytest.raises(TypeError, match=r"obj\['model'\]\['x'\] of type '[\w.]*Foo'"):
        ember.serialization.save_ember({"model": {"x": Foo()}}, path)
    with pytest.raises(TypeError, match=r"obj\[1\] of type 'function'"):
        ember.serialization.save_ember([1, lambda: 0], path)
    with pytest.raises(TypeError, match=r"obj\.y of type 'set'"):
        ember.serialization.save_ember(collections.namedtuple("P", "x y")(1, {2}), path)
    with pytest.raises(TypeError, match="ndarray"):
        ember.serialization.save_ember(np.zeros(2), path)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="nests deeper than"):
        ember.serialization.save_ember(loop, path)
    assert not path.exists() and os.listdir(tmp_path) == []  # nothing written, no temporary file left


def test_truncated_at_every_cut_point(tmp_path):
    ember.save({"a": ember.arange(5.0), "b": [1, "x"]}, tmp_path / "t.ckpt")
    raw = (tmp_path / "t.ckpt").read_bytes()
    bad = tmp_path / "cut.ckpt"
    for cut in range(len(raw)):
        bad.write_bytes(raw[:cut])
        with pytest.raises(RuntimeError, match="cut.ckpt"):
            _load_ember(bad)
        if cut >= 8:  # ember's magic is there, so ember.load uses ember's loader
            with pytest.raises(RuntimeError, match="cut.ckpt"):
                ember.load(bad)
        with pytest.raises(RuntimeError, match="<buffer>"):
            _load_ember(raw[:cut])


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"EMBERCKQ" + bytes(16), "wrong magic"),
        (_file(_one_tensor_manifest(), [(0, bytes(8))], version=3), "format version 3 is not supported"),
        (_file(_one_tensor_manifest(), [(0, bytes(8))], flags=1), "unknown flags"),
        (_file(b'{"storages":[', [(0, bytes(8))]), "not valid JSON"),
        (_file(b'{"storages":[],"storages":[],"tensors":[],"root":null}'), "repeats the key"),
        (_file(b"[" * 100000 + b"]" * 100000), "nests deeper than"),
        (_file(b'"hi"'), "must be a JSON object"),
        (_file(_one_tensor_manifest(dtype="float33"), [(0, bytes(8))]), "unknown dtype 'float33'"),
        (_file(_one_tensor_manifest(dtype="bcomplex32"), [(0, bytes(8))]), "unknown dtype 'bcomplex32'"),
        (_file(_one_tensor_manifest(size=[3]), [(0, bytes(8))]), "need 12 bytes, but the storage has 8"),
        (_file(_one_tensor_manifest(offset=1), [(0, bytes(8))]), "need 12 bytes"),
        (_file(_one_tensor_manifest(offset=-1), [(0, bytes(8))]), "negative storage offset"),
        (_file(_one_tensor_manifest(size=[2, 2], stride=[1]), [(0, bytes(8))]), "'size' has 2 entries"),
        (_file(_one_tensor_manifest(size=[2**62, 4], stride=[4, 1]), [(0, bytes(8))]), "overflow"),
        (_file(_one_tensor_manifest(stride=[-1]), [(0, bytes(8))]), "negative stride"),
        (_file(_one_tensor_manifest(size=[1.5]), [(0, bytes(8))]), "must be an integer"),
        (_file(_one_tensor_manifest(dtype="int32", requires_grad=True), [(0, bytes(8))]), "can't require gradients"),
        (_file(_one_tensor_manifest(storage=1), [(0, bytes(8))]), "storage 1 does not exist"),
        (
            _file(
                _one_tensor_manifest() | {"storages": [{"offset": 0, "nbytes": 2**62, "device": "cpu"}]},
                [(0, bytes(8))],
            ),
            "run past the end of the file",
        ),
        (
            _file(
                _one_tensor_manifest() | {"storages": [{"offset": 32, "nbytes": 8, "device": "cpu"}]}, [(32, bytes(8))]
            ),
            "not a multiple of 64",
        ),
        (
            _file(
                _one_tensor_manifest()
                | {
                    "storages": [
                        {"offset": 0, "nbytes": 8, "device": "cpu"},
                        {"offset": 0, "nbytes": 8, "device": "cpu"},
                    ]
                },
                [(0, bytes(8))],
            ),
            "overlaps the previous storage",
        ),
        (
            _file(
                _one_tensor_manifest() | {"storages": [{"offset": 0, "nbytes": 8, "device": "tpu"}]}, [(0, bytes(8))]
            ),
            "invalid device 'tpu'",
        ),
        (_file(_one_tensor_manifest(), [(0, bytes(8))], extra=b"junk"), "4 unexpected bytes"),
        (_file(_one_tensor_manifest() | {"root": {"tensor": 3}}, [(0, bytes(8))]), "tensor 3 does not exist"),
        (_file(_one_tensor_manifest() | {"root": {"pickle": "cos\nsystem"}}, [(0, bytes(8))]), "unknown tag 'pickle'"),
        (_file(_one_tensor_manifest() | {"root": {"bytes": "!!!"}}, [(0, bytes(8))]), "not valid base64"),
        (_file(_one_tensor_manifest() | {"root": {"dict": [[[1], 2]]}}, [(0, bytes(8))]), "is not hashable"),
        (
            _file(
                _one_tensor_manifest() | {"root": {"namedtuple": {"name": "import os", "fields": [], "values": []}}},
                [(0, bytes(8))],
            ),
            "can't make namedtuple",
        ),
        (_file({"storages": [], "tensors": []}), "has no 'root'"),
    ],
)
def test_corrupt_files(tmp_path, raw, message):
    path = tmp_path / "bad.ckpt"
    path.write_bytes(raw)
    with pytest.raises(RuntimeError, match=message) as info:
        _load_ember(path)
    assert "bad.ckpt" in str(info.value)
    with pytest.raises(RuntimeError, match=message):
        _load_ember(raw)


def test_a_huge_declared_storage_allocates_nothing(tmp_path):
    # 2**40 bytes declared in a 300-byte file: refused before any allocation (the error is immediate).
    raw = _file(
        _one_tensor_manifest() | {"storages": [{"offset": 0, "nbytes": 2**40, "device": "cpu"}]}, [(0, bytes(8))]
    )
    with pytest.raises(RuntimeError, match="run past the end"):
        _load_ember(raw)
    raw = _file(_one_tensor_manifest(), [(0, bytes(8))], version=1)
    raw = raw[:16] + struct.pack("<Q", 2**63) + raw[24:]
    with pytest.raises(RuntimeError, match="manifest length 9223372036854775808 runs past the end"):
        _load_ember(raw)


def test_hand_written_file_loads():
    # docs/serialization.md's example: a parameter and a transposed view of its storage.
    manifest = {
        "storages": [{"offset": 0, "nbytes": 48, "device": "cpu"}],
        "tensors": [
            {
                "storage": 0,
                "offset": 0,
                "size": [2, 3],
                "stride": [3, 1],
                "dtype": "float64",
                "requires_grad": True,
                "parameter": True,
            },
            {
                "storage": 0,
                "offset": 1,
                "size": [2, 2],
                "stride": [1, 3],
                "dtype": "float64",
                "requires_grad": False,
                "parameter": False,
            },
        ],
        "root": {"dict": [["w", {"tensor": 0}], ["t", {"tensor": 1}], ["n", {"float": "nan"}]]},
    }
    d = ember.load(io.BytesIO(_file(manifest, [(0, struct.pack("<6d", 1, 2, 3, 4, 5, 6))])))
    assert isinstance(d["w"], nn.Parameter) and d["w"].tolist() == [[1, 2, 3], [4, 5, 6]]
    assert d["t"].tolist() == [[2, 5], [3, 6]] and math.isnan(d["n"])


# ---- frombuffer


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_frombuffer(dtype):
    np_dtype = {ember.bfloat16: None}.get(dtype, to_np(ember.zeros(1, dtype=dtype)).dtype)
    buf = bytearray(range(64))
    t = ember.frombuffer(buf, dtype=dtype, offset=8, count=4 if dtype is not ember.bool else 4)
    assert t.dtype is dtype and t.shape == (4,)
    if np_dtype is not None and dtype is not ember.bool:
        assert_equal(t, np.frombuffer(bytes(buf), dtype=np_dtype, count=4, offset=8))
    es = t.element_size()
    buf[8 : 8 + es] = bytes(es)  # shares the buffer's memory
    assert t[0].item() == 0


def test_frombuffer_errors_and_lifetime():
    import array

    a = array.array("f", [1.0, 2.0, 3.0])
    t = ember.frombuffer(a, dtype=ember.float32)
    del a
    assert t.tolist() == [1.0, 2.0, 3.0]  # the tensor keeps the buffer alive
    with pytest.warns(UserWarning, match="not writable"):
        ro = ember.frombuffer(b"\x00\x00\x80\x3f", dtype=ember.float32)
    assert ro.tolist() == [1.0]
    with pytest.raises(ValueError, match="must be a multiple of element size"):
        ember.frombuffer(bytearray(6), dtype=ember.float32)
    with pytest.raises(ValueError, match="must be non-negative and no greater than buffer length"):
        ember.frombuffer(bytearray(8), dtype=ember.float32, offset=8)
    with pytest.raises(ValueError, match="must not be greater than actual buffer length"):
        ember.frombuffer(bytearray(8), dtype=ember.float32, count=3)
    with pytest.raises(ValueError, match="must not be 0"):
        ember.frombuffer(bytearray(0), dtype=ember.float32)
    with pytest.raises(TypeError):
        ember.frombuffer([1, 2], dtype=ember.float32)
    assert ember.frombuffer(bytearray(8), dtype=ember.float32, requires_grad=True).requires_grad


# ---- the zip CRC-32 (ISA-L's) that ember.save writes and ember.load checks


def test_crc32_agrees_with_zlib():
    import zlib

    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, 3 << 20, dtype=np.uint8)
    assert ember._C._crc32(b"123456789") == zlib.crc32(b"123456789") == 0xCBF43926
    assert ember._C._crc32(b"") == 0 and ember._C._crc32(b"", 1234) == 1234
    for n in list(range(200)) + [4095, 4096, 65537, data.size]:  # every short tail, then long runs
        assert ember._C._crc32(data[1 : 1 + n]) == zlib.crc32(data[1 : 1 + n]), n
    # continued across calls, from any bytes-like object
    head, tail = bytes(data[:1000]), memoryview(data)[1000:]
    assert ember._C._crc32(tail, ember._C._crc32(head)) == zlib.crc32(data)
    assert ember._C._crc32(bytearray(b"abc")) == zlib.crc32(b"abc")
    with pytest.raises(TypeError):
        ember._C._crc32("text")
    with pytest.raises(BufferError):  # a strided view is not one run of bytes
        ember._C._crc32(memoryview(data)[::2])
