"""Reading PyTorch checkpoints (ember._torch_load): fixtures written by real PyTorch 1.13 are compared with
the values, dtypes, shapes, strides and storage sharing torch itself reported for them
(fixtures/torch/*.expected.*), and every bad input gives a clear error without running pickle code."""

import io
import json
import os
import pickle
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import ember
from ember._torch_load import load_torch_file

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
from torch_ckpt_util import (  # noqa: E402
    FIXTURES,
    LOADABLE,
    checkpoint,
    fixture,
    make_zip,
    p_global,
    p_int,
    p_str,
    p_tensor,
    p_tuple,
    read_fixture,
    repack,
    zip_members,
)

LOAD_ERRORS = (RuntimeError, pickle.UnpicklingError)


def to_numpy(t):
    t = t.detach()
    return t.float().numpy() if t.dtype == ember.bfloat16 else t.numpy()


def base_address(t):
    return t.data_ptr() - t.storage_offset() * t.element_size()


def compare(obj, node, arrays, groups, path="root"):
    """Asserts that obj (loaded by ember) matches node (torch's description of the same object)."""
    kind = node["kind"]
    if kind == "tensor":
        assert isinstance(obj, ember.Tensor), path
        assert repr(obj.dtype) == "ember." + node["dtype"], path
        assert list(obj.shape) == node["shape"], path
        assert list(obj.stride()) == node["stride"], path
        assert obj.storage_offset() == node["offset"], path
        assert obj.requires_grad == node["requires_grad"], path
        assert isinstance(obj, ember.nn.Parameter) == node["parameter"], path
        expected = arrays[node["id"]]
        got = to_numpy(obj)
        assert got.dtype == expected.dtype and got.shape == expected.shape, path
        np.testing.assert_array_equal(got, expected, err_msg=path)
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_array_equal(np.signbit(got), np.signbit(expected), err_msg=path)
        if obj.numel():
            groups.setdefault(node["storage"], set()).add(base_address(obj))
        return
    if kind in ("dict", "OrderedDict"):
        assert type(obj) is (dict if kind == "dict" else __import__("collections").OrderedDict), path
        items = list(obj.items())
        assert len(items) == len(node["items"]), path
        for (k, v), (nk, nv) in zip(items, node["items"]):
            compare(k, nk, arrays, groups, f"{path}[{k!r}]")
            compare(v, nv, arrays, groups, f"{path}[{k!r}]")
        return
    if kind in ("list", "tuple"):
        assert type(obj) is (list if kind == "list" else tuple), path
        assert len(obj) == len(node["items"]), path
        for i, (v, nv) in enumerate(zip(obj, node["items"])):
            compare(v, nv, arrays, groups, f"{path}[{i}]")
        return
    if kind in ("set", "frozenset"):
        assert type(obj) is (set if kind == "set" else frozenset), path
        assert sorted(repr(v) for v in obj) == node["items"], path
        return
    if kind == "Size":
        assert isinstance(obj, ember.Size) and list(obj) == node["value"], path
        return
    expected = {
        "NoneType": lambda v: None,
        "bool": lambda v: v,
        "str": lambda v: v,
        "int": int,
        "float": float.fromhex,
        "complex": lambda v: complex(float.fromhex(v[0]), float.fromhex(v[1])),
        "bytes": bytes.fromhex,
    }[kind](node["value"])
    assert type(obj) is type(expected) and obj == expected, (path, obj, expected)


def load_expected(name):
    with open(os.path.join(FIXTURES, name + ".expected.json")) as f:
        tree = json.load(f)
    return tree, dict(np.load(os.path.join(FIXTURES, name + ".expected.npz")))


@pytest.mark.parametrize("name", LOADABLE)
@pytest.mark.parametrize("mmap", [False, True])
def test_fixture_matches_torch(name, mmap):
    tree, arrays = load_expected(name)
    groups = {}
    compare(load_torch_file(fixture(name), mmap=mmap), tree, arrays, groups)
    # tensors torch saw on one storage share one storage in ember, and different storages stay apart
    bases = [g for g in groups.values()]
    assert all(len(g) == 1 for g in bases), groups
    assert len({next(iter(g)) for g in bases}) == len(bases)


@pytest.mark.parametrize("name", ["views", "legacy"])
def test_views_share_storage(name):
    d = load_torch_file(fixture(name))
    base, sl, grid, tr = d["base"], d["slice"], d["grid"], d["transposed"]
    sl[0] = 100.0  # base[5]
    assert base[5].item() == 100.0 and grid[1, 0].item() == 100.0 and tr[0, 1].item() == 100.0
    tr[4, 3] = -1.0  # grid[3, 4] = base[19]
    assert base[19].item() == -1.0
    assert d["strided"][6].item() == -1.0 and d["column"].tolist() == [2.0, 7.0, 12.0, 17.0]
    d["element"].fill_(70.0)
    assert base[7].item() == 70.0
    assert d["other"].tolist() == [1.0, 1.0, 1.0]  # a storage of its own
    assert d["expanded"].stride() == (0, 0)


def test_state_dict_buffers():
    sd = load_torch_file(fixture("state_dict"))
    assert list(sd) == [
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
        "1.running_mean",
        "1.running_var",
        "1.num_batches_tracked",
        "4.weight",
        "4.bias",
        "5.weight",
        "5.bias",
        "5.running_mean",
        "5.running_var",
        "5.num_batches_tracked",
    ]
    assert sd["1.num_batches_tracked"].dtype == ember.int64 and sd["1.num_batches_tracked"].item() == 2
    assert sd["0.weight"].shape == (3, 2, 3, 3) and not sd["0.weight"].requires_grad
    assert not any(isinstance(v, ember.nn.Parameter) for v in sd.values())
    # the state dict loads into an ember model of the same shape
    m = ember.nn.Sequential(
        ember.nn.Conv2d(2, 3, 3),
        ember.nn.BatchNorm2d(3),
        ember.nn.ReLU(),
        ember.nn.Flatten(),
        ember.nn.Linear(12, 4),
        ember.nn.BatchNorm1d(4),
    )
    m.load_state_dict(sd)
    assert m[1].num_batches_tracked.item() == 2
    np.testing.assert_array_equal(m[4].weight.detach().numpy(), sd["4.weight"].numpy())


def test_parameters():
    d = load_torch_file(fixture("parameters"))
    assert isinstance(d["weight"], ember.nn.Parameter) and d["weight"].requires_grad and d["weight"].is_leaf
    assert isinstance(d["frozen"], ember.nn.Parameter) and not d["frozen"].requires_grad
    assert type(d["leaf"]) is ember.Tensor and d["leaf"].requires_grad and d["leaf"].is_leaf
    assert not d["plain"].requires_grad
    (d["weight"] * 2).sum().backward()
    assert d["weight"].grad.tolist() == [[2.0, 2.0]] * 3


def test_optimizer_state():
    d = load_torch_file(fixture("optimizer"))
    adam = d["adam"]
    assert adam["param_groups"][0]["betas"] == (0.8, 0.99) and adam["param_groups"][0]["amsgrad"] is True
    assert adam["param_groups"][0]["params"] == [0, 1]
    assert adam["state"][0]["step"].item() == 2.0
    assert d["sgd"]["param_groups"][0]["momentum"] == 0.9 and set(d["sgd"]["state"]) == {0, 1}


def test_dtypes_and_bfloat16_bits():
    d = load_torch_file(fixture("dtypes"))
    _, arrays = load_expected("dtypes")
    assert {k: repr(v.dtype) for k, v in d.items()}["bfloat16"] == "ember.bfloat16"
    # bfloat16 arrives bit for bit (float32 holds every bfloat16 exactly, so the float32 values decide)
    bits = arrays["t3_bits"].astype(np.uint16).astype(np.uint32) << 16
    np.testing.assert_array_equal(d["bfloat16"].float().numpy().view(np.uint32)[:-2], bits.view(np.uint32)[:-2])
    assert d["int64"].tolist() == [-(2**63), -1, 0, 2**63 - 1]
    assert d["bool"].tolist() == [True, False, True]
    assert d["empty"].shape == (0, 3) and d["scalar"].dim() == 0


def test_complex():
    if getattr(ember, "complex64", None) is not None:
        d = load_torch_file(fixture("complex"))
        assert d["complex64"].tolist() == [1 + 2j, -0.5j]
    else:
        with pytest.raises(RuntimeError, match="ember has no complex64 dtype"):
            load_torch_file(fixture("complex"))


def test_file_objects_and_mmap_copy_on_write(tmp_path):
    data = read_fixture("views")
    d = load_torch_file(io.BytesIO(data))
    assert d["base"].tolist() == list(map(float, range(20)))
    path = tmp_path / "v.pt"
    path.write_bytes(data)
    with open(path, "rb") as f:
        assert load_torch_file(f)["slice"].tolist() == list(map(float, range(5, 15)))
    m = load_torch_file(str(path), mmap=True)
    m["slice"][0] = 123.0
    assert m["base"][5].item() == 123.0
    assert path.read_bytes() == data  # writes to a mapped tensor never reach the file
    del m
    assert load_torch_file(path, mmap=True)["base"][5].item() == 5.0
    assert load_torch_file(io.BytesIO(data), mmap=True)["base"][5].item() == 5.0  # no file: read


def test_mmap_bounds_are_the_storage_not_the_file(tmp_path):
    # a tensor asking for one element more than its storage holds, with more file data right after it
    data = checkpoint(p_tensor((5,), (1,), 0, 4), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    data = repack(data, lambda n, b: b)  # the version member follows the storage in the file
    path = tmp_path / "x.pt"
    path.write_bytes(data)
    for mm in (False, True):
        with pytest.raises(RuntimeError, match="reaches element 4 of a storage of 4 elements"):
            load_torch_file(path, mmap=mm)


def test_big_endian_archive():
    """A checkpoint written on a big-endian machine: byteorder 'big' and every storage byte-swapped."""
    tree, arrays = load_expected("dtypes")
    members = zip_members(read_fixture("dtypes"))
    # storage keys are numbered in pickling order, and each entry of the dict has a storage of its own
    itemsizes = [t.element_size() for t in load_torch_file(fixture("dtypes")).values()]
    out = []
    for name, body in members:
        if name.startswith("dtypes/data/"):
            size = itemsizes[int(name.rsplit("/", 1)[1])]
            body = np.frombuffer(body, f"u{size}").byteswap().tobytes() if size > 1 else body
        out.append((name, body))
    out.append(("dtypes/byteorder", b"big"))
    compare(load_torch_file(io.BytesIO(make_zip(out))), tree, arrays, {})
    out[-1] = ("dtypes/byteorder", b"middle")
    with pytest.raises(RuntimeError, match="expected 'little' or 'big'"):
        load_torch_file(io.BytesIO(make_zip(out)))


def test_deflated_members_load():
    data = read_fixture("tensor")
    z = make_zip(zip_members(data), compression=zipfile.ZIP_DEFLATED)
    tree, arrays = load_expected("tensor")
    compare(load_torch_file(io.BytesIO(z)), tree, arrays, {})


# -- map_location ----------------------------------------------------------------------------------


def test_map_location_cpu_forms():
    for ml in ["cpu", ember.device("cpu"), {"cpu": "cpu"}, None]:
        assert load_torch_file(fixture("tensor"), map_location=ml).device == ember.device("cpu")


def test_map_location_callable():
    seen = []

    def move(tensor, location):
        seen.append((tensor.dtype, tensor.shape, location))
        return tensor * 2

    d = load_torch_file(fixture("views"), map_location=move)
    assert seen == [(ember.float32, (20,), "cpu"), (ember.float32, (3,), "cpu")]  # once per storage
    assert d["slice"].tolist() == [2.0 * i for i in range(5, 15)]
    d["slice"][0] = 0.0
    assert d["base"][5].item() == 0.0  # views of the returned tensor still share it
    assert load_torch_file(fixture("tensor"), map_location=lambda t, loc: None).shape == (3, 4)
    with pytest.raises(RuntimeError, match="map_location returned str"):
        load_torch_file(fixture("tensor"), map_location=lambda t, loc: "nope")


def cuda_checkpoint():
    data = read_fixture("tensor")
    return repack(data, lambda n, b: b.replace(p_str("cpu"), p_str("cuda:0")) if n.endswith("data.pkl") else b)


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the error raised where CUDA is missing")
def test_cuda_tag_without_cuda():
    data = cuda_checkpoint()
    with pytest.raises(RuntimeError, match="saved on device 'cuda:0' but CUDA is not available"):
        load_torch_file(io.BytesIO(data))
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        load_torch_file(fixture("tensor"), map_location="cuda")
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        load_torch_file(fixture("tensor"), map_location={"cpu": "cuda:1"})
    assert load_torch_file(io.BytesIO(data), map_location="cpu").shape == (3, 4)
    assert load_torch_file(io.BytesIO(data), map_location={"cuda:0": "cpu"}).shape == (3, 4)


@pytest.mark.skipif(not ember.cuda.is_available(), reason="needs CUDA")
def test_cuda_tag_with_cuda():
    t = load_torch_file(io.BytesIO(cuda_checkpoint()))
    assert t.device.type == "cuda"
    assert load_torch_file(fixture("tensor"), map_location="cuda").device.type == "cuda"


# -- refusing code ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, global_name", [("malicious_system", "posix.system"), ("malicious_eval", "builtins.eval")]
)
def test_malicious_pickle_is_refused(name, global_name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match=f"refers to the global '{global_name}'"):
        load_torch_file(fixture(name))
    assert not (tmp_path / "ember_pwned_marker").exists()
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["malicious_system", "malicious_eval"])
def test_malicious_fixture_is_live(name, tmp_path):
    """Control: plain pickle really runs the payload (in a throwaway process and folder), so the refusal
    above is what keeps the marker from being written."""
    body = dict(zip_members(read_fixture(name)))["archive/data.pkl"]
    subprocess.run(
        [sys.executable, "-c", "import pickle, sys; pickle.loads(sys.stdin.buffer.read())"],
        input=body,
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "ember_pwned_marker").exists()


def test_pickled_module_is_refused():
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential.*state_dict"):
        load_torch_file(fixture("full_module"))


@pytest.mark.parametrize(
    "body, global_name",
    [
        (b"\x8c\x02os\x94\x8c\x06system\x94\x93\x8c\x04true\x85R", "os.system"),  # protocol 4 STACK_GLOBAL
        (p_global("builtins", "getattr") + p_tuple([p_int(1), p_str("real")]) + b"R", "builtins.getattr"),
        (p_global("torch", "load") + b")R", "torch.load"),
        (b"(" + p_global("subprocess", "Popen") + p_str("ls") + b"o", "subprocess.Popen"),  # OBJ
        (b"(" + p_str("true") + b"ios\nsystem\n", "os.system"),  # INST
    ],
)
def test_forbidden_globals(body, global_name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match=f"the global '{global_name}'"):
        load_torch_file(io.BytesIO(checkpoint(body, {})))


def test_restricted_builtins_check_their_arguments():
    ok = p_global("builtins", "set") + p_tuple([b"]" + p_int(1) + b"a"]) + b"R"
    assert load_torch_file(io.BytesIO(checkpoint(ok, {}))) == {1}
    for body, msg in [
        (p_global("builtins", "bytes") + p_tuple([p_int(10**12)]) + b"R", "builtins.bytes is allowed only"),
        (p_global("builtins", "bytearray") + p_tuple([p_int(10**12)]) + b"R", "bytearray is allowed only"),
        (p_global("_codecs", "encode") + p_tuple([p_str("x"), p_str("rot13")]) + b"R", "_codecs.encode"),
        (p_global("torch", "Size") + p_tuple([p_tuple([p_str("a")])]) + b"R", "64-bit integer"),
    ]:
        with pytest.raises(RuntimeError, match=msg):
            load_torch_file(io.BytesIO(checkpoint(body, {})))


def test_scan_refuses_memo_and_nesting_bombs():
    memo = b"N" + b"r" + struct.pack("<I", 2**31)  # LONG_BINPUT far past the memo's size
    with pytest.raises(pickle.UnpicklingError, match="memo index 2147483648"):
        load_torch_file(io.BytesIO(checkpoint(memo, {})))
    deep = b"}" + b")" + b"\x85" * 200000 + p_int(1) + b"s"  # {((((...)))): 1}: hashing it recursed in C
    with pytest.raises(pickle.UnpicklingError, match="nest more than"):
        load_torch_file(io.BytesIO(checkpoint(deep, {})))
    with pytest.raises(pickle.UnpicklingError, match="never stored"):
        load_torch_file(io.BytesIO(checkpoint(b"h\x05", {})))
    with pytest.raises(pickle.UnpicklingError, match="not a valid pickle"):
        load_torch_file(io.BytesIO(checkpoint(b"\x8e" + struct.pack("<Q", 2**40) + b"xx", {})))


def test_only_storages_are_persistent():
    with pytest.raises(pickle.UnpicklingError, match="only storages"):
        load_torch_file(
            io.BytesIO(checkpoint(p_tuple([p_str("module"), p_int(1), p_int(2), p_int(3), p_int(4)]) + b"Q", {}))
        )
    with pytest.raises(pickle.UnpicklingError, match="unexpected persistent id"):
        load_torch_file(io.BytesIO(checkpoint(p_str("0") + b"Q", {})))
    with pytest.raises(pickle.UnpicklingError, match="not a torch storage type"):
        load_torch_file(
            io.BytesIO(
                checkpoint(p_tuple([p_str("storage"), p_int(1), p_str("0"), p_str("cpu"), p_int(0)]) + b"Q", {"0": b""})
            )
        )


# -- bad geometry and sizes ------------------------------------------------------------------------

FOUR = {"0": struct.pack("<4f", 1, 2, 3, 4)}


def test_hand_built_tensor_loads():
    t = load_torch_file(io.BytesIO(checkpoint(p_tensor((2,), (2,), 1, 4, requires_grad=True), FOUR)))
    assert t.tolist() == [2.0, 4.0] and t.requires_grad and t.stride() == (2,) and t.storage_offset() == 1


@pytest.mark.parametrize(
    "size, stride, offset, msg",
    [
        ((5,), (1,), 0, "reaches element 4 of a storage of 4 elements"),
        ((2,), (1,), 3, "reaches element 4"),
        ((2, 2), (2, 2), 0, "reaches element 4"),
        ((2,), (1,), -1, "negative size, stride or offset"),
        ((-2,), (1,), 0, "negative size, stride or offset"),
        ((2,), (-1,), 1, "negative size, stride or offset"),
        ((2, 2), (1,), 0, "different lengths"),
        ((2**62, 4), (1, 2**62), 0, "reaches element"),
        ((2**64,), (1,), 0, "64-bit integer"),
        ((1,) * 65, (1,) * 65, 0, "at most 64"),
    ],
)
def test_bad_geometry(size, stride, offset, msg):
    with pytest.raises(RuntimeError, match=msg):
        load_torch_file(io.BytesIO(checkpoint(p_tensor(size, stride, offset, 4), FOUR)))


def test_empty_tensor_geometry_needs_no_data():
    t = load_torch_file(io.BytesIO(checkpoint(p_tensor((0, 5), (5, 1), 0, 0), {"0": b""})))
    assert t.shape == (0, 5)


def test_storage_size_mismatch_and_huge_numel():
    with pytest.raises(RuntimeError, match=r"should hold 5 x 4 = 20 bytes .* has 16"):
        load_torch_file(io.BytesIO(checkpoint(p_tensor((4,), (1,), 0, 5), FOUR)))
    with pytest.raises(RuntimeError, match="should hold 1099511627776 x 8"):  # checked before allocating
        load_torch_file(io.BytesIO(checkpoint(p_tensor((4,), (1,), 0, 2**40, "DoubleStorage"), FOUR)))
    with pytest.raises(RuntimeError, match="has no member 'archive/data/7'"):
        load_torch_file(io.BytesIO(checkpoint(p_tensor((4,), (1,), 0, 4, key="7"), FOUR)))
    with pytest.raises(pickle.UnpicklingError, match="bad storage key"):
        load_torch_file(io.BytesIO(checkpoint(p_tensor((4,), (1,), 0, 4, key="../x"), FOUR)))
    two = p_tuple([p_tensor((4,), (1,), 0, 4), p_tensor((4,), (1,), 0, 4, "IntStorage")])
    with pytest.raises(RuntimeError, match="used both as torch.FloatStorage and as torch.IntStorage"):
        load_torch_file(io.BytesIO(checkpoint(two, FOUR)))


def test_zip_without_data_pkl():
    data = repack(read_fixture("tensor"), lambda n, b: None if n.endswith("data.pkl") else b)
    with pytest.raises(RuntimeError, match="without 'tensor/data.pkl'"):
        load_torch_file(io.BytesIO(data))
    scripted = make_zip([("m/constants.pkl", b"\x80\x02)."), ("m/code/m.py", b"")])
    with pytest.raises(RuntimeError, match="TorchScript archive"):
        load_torch_file(io.BytesIO(scripted))
    with pytest.raises(RuntimeError, match="empty zip archive"):
        load_torch_file(io.BytesIO(make_zip([])))


def test_storage_member_with_wrong_size():
    def grow(name, body):
        return body + b"\0\0\0\0" if name == "tensor/data/0" else body

    with pytest.raises(RuntimeError, match="should hold 12 x 4 = 48 bytes .* has 52"):
        load_torch_file(io.BytesIO(repack(read_fixture("tensor"), grow)))


def test_corrupted_storage_bytes_fail_the_crc():
    data = bytearray(read_fixture("tensor"))
    i = data.index(struct.pack("<f", -1.0))  # the first value of the storage member
    data[i] ^= 0x40
    with pytest.raises(RuntimeError, match="fails its CRC-32 check"):
        load_torch_file(io.BytesIO(bytes(data)))


@pytest.mark.parametrize("name", LOADABLE)
def test_truncated_files(name, tmp_path):
    data = read_fixture(name)
    cuts = sorted(
        set(
            list(range(0, 64))
            + list(range(64, len(data), max(1, len(data) // 97)))
            + list(range(len(data) - 64, len(data)))
        )
    )
    path = tmp_path / f"{name}.pt"
    for cut in cuts:
        path.write_bytes(data[:cut])
        with pytest.raises(LOAD_ERRORS) as info:
            load_torch_file(str(path))
        assert f"'{path}'" in str(info.value), (cut, str(info.value))


def test_legacy_format_errors():
    data = read_fixture("legacy")
    bad_magic = pickle.dumps(12345, protocol=2) + data[len(pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)) :]
    with pytest.raises(RuntimeError, match="no torch.save magic number"):
        load_torch_file(io.BytesIO(bad_magic))
    with pytest.raises(LOAD_ERRORS, match="truncated"):
        load_torch_file(io.BytesIO(data[:-3]))
    with pytest.raises(RuntimeError, match="neither an ember checkpoint nor"):
        load_torch_file(io.BytesIO(b"junk" + data))
    keys_at = data.index(b"\x80\x02]")  # the storage key list follows the object pickle
    with pytest.raises(RuntimeError, match="does not match the storages"):
        load_torch_file(io.BytesIO(data[:keys_at] + pickle.dumps(["1"], protocol=2) + data[keys_at:]))


def test_not_a_checkpoint(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_bytes(b"hello, this is text\n")
    with pytest.raises(RuntimeError) as info:
        load_torch_file(str(p))
    assert str(info.value) == (
        f"ember.load: '{p}' is neither an ember checkpoint nor a PyTorch checkpoint "
        "(it starts with b'hello, this is t')"
    )
    p.write_bytes(b"")
    with pytest.raises(RuntimeError, match="it is empty"):
        load_torch_file(p)
    p.write_bytes(pickle.dumps({"a": 1}, protocol=2))
    with pytest.raises(RuntimeError, match="pickle file but not a PyTorch checkpoint"):
        load_torch_file(p)
    tar = bytearray(1024)
    tar[257:262] = b"ustar"
    p.write_bytes(bytes(tar))
    with pytest.raises(RuntimeError, match="tar archive"):
        load_torch_file(p)
    with pytest.raises(FileNotFoundError):
        load_torch_file(tmp_path / "missing.pt")


@pytest.mark.skipif(not hasattr(ember, "load"), reason="ember.load (python/ember/serialization.py) not there yet")
def test_through_ember_load(tmp_path):
    tree, arrays = load_expected("state_dict")
    compare(ember.load(fixture("state_dict")), tree, arrays, {})
    compare(ember.load(fixture("state_dict"), map_location="cpu", mmap=True), tree, arrays, {})
    with pytest.raises(pickle.UnpicklingError, match="posix.system"):
        ember.load(fixture("malicious_system"))
