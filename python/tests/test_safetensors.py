"""ember.safetensors: bytes against the reference implementation's own test vectors and headers written by hand
from the published format, round trips of every dtype, safe_open (keys, slices that read only what they touch,
metadata), a ResNet-style state dict, and the malformed headers the loader must refuse."""

import json
import struct

import numpy as np
import pytest
from conftest import ALL_DTYPES, assert_equal, random_array, to_np
from test_serialization import ResNetish, _rss, resnet_trained

import ember
from ember import safetensors
from ember.safetensors import safe_open


def _st(header, data=b"", pad=True):
    """A safetensors file by hand: 8-byte little-endian length, the JSON header (space-padded to 8), data."""
    text = header if isinstance(header, bytes) else json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def _f32(*xs):
    return struct.pack("<%df" % len(xs), *xs)


# The reference's tests in huggingface/safetensors (safetensors/src/tensor.rs), byte for byte.
def test_bytes_match_the_reference_vectors():
    attn = ember.arange(6, dtype=ember.float32).reshape(1, 2, 3)
    assert safetensors.save({"attn.0": attn}) == bytes(
        [
            64,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            123,
            34,
            97,
            116,
            116,
            110,
            46,
            48,
            34,
            58,
            123,
            34,
            100,
            116,
            121,
            112,
            101,
            34,
            58,
            34,
            70,
            51,
            50,
            34,
            44,
            34,
            115,
            104,
            97,
            112,
            101,
            34,
            58,
            91,
            49,
            44,
            50,
            44,
            51,
            93,
            44,
            34,
            100,
            97,
            116,
            97,
            95,
            111,
            102,
            102,
            115,
            101,
            116,
            115,
            34,
            58,
            91,
            48,
            44,
            50,
            52,
            93,
            125,
            125,
            0,
            0,
            0,
            0,
            0,
            0,
            128,
            63,
            0,
            0,
            0,
            64,
            0,
            0,
            64,
            64,
            0,
            0,
            128,
            64,
            0,
            0,
            160,
            64,
        ]
    )
    assert safetensors.save({"attn0": attn.reshape(1, 1, 2, 3)}) == bytes(
        [
            72,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            123,
            34,
            97,
            116,
            116,
            110,
            48,
            34,
            58,
            123,
            34,
            100,
            116,
            121,
            112,
            101,
            34,
            58,
            34,
            70,
            51,
            50,
            34,
            44,
            34,
            115,
            104,
            97,
            112,
            101,
            34,
            58,
            91,
            49,
            44,
            49,
            44,
            50,
            44,
            51,
            93,
            44,
            34,
            100,
            97,
            116,
            97,
            95,
            111,
            102,
            102,
            115,
            101,
            116,
            115,
            34,
            58,
            91,
            48,
            44,
            50,
            52,
            93,
            125,
            125,
            32,
            32,
            32,
            32,
            32,
            32,
            32,
            0,
            0,
            0,
            0,
            0,
            0,
            128,
            63,
            0,
            0,
            0,
            64,
            0,
            0,
            64,
            64,
            0,
            0,
            128,
            64,
            0,
            0,
            160,
            64,
        ]
    )
    assert safetensors.save({}) == bytes([8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32])
    assert safetensors.save({}, metadata={"framework": "pt"}) == bytes(
        [
            40,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            123,
            34,
            95,
            95,
            109,
            101,
            116,
            97,
            100,
            97,
            116,
            97,
            95,
            95,
            34,
            58,
            123,
            34,
            102,
            114,
            97,
            109,
            101,
            119,
            111,
            114,
            107,
            34,
            58,
            34,
            112,
            116,
            34,
            125,
            125,
            32,
            32,
            32,
            32,
            32,
        ]
    )
    back = safetensors.load(safetensors.save({"attn.0": attn}))
    assert back["attn.0"].tolist() == attn.tolist()


def test_order_is_dtype_alignment_then_name():
    tensors = {
        "c": ember.zeros(3, dtype=ember.uint8),
        "a": ember.ones(2),
        "d": ember.ones(1, dtype=ember.float64),
        "b": ember.ones(1, dtype=ember.int64),
        "e": ember.ones(1),
        "f": ember.ones(1, dtype=ember.bfloat16),
        "g": ember.ones(1, dtype=ember.float16),
        "h": ember.ones(1, dtype=ember.bool),
    }
    header = {
        "__metadata__": {"k": "v"},
        "b": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]},
        "d": {"dtype": "F64", "shape": [1], "data_offsets": [8, 16]},
        "a": {"dtype": "F32", "shape": [2], "data_offsets": [16, 24]},
        "e": {"dtype": "F32", "shape": [1], "data_offsets": [24, 28]},
        "f": {"dtype": "BF16", "shape": [1], "data_offsets": [28, 30]},
        "g": {"dtype": "F16", "shape": [1], "data_offsets": [30, 32]},
        "c": {"dtype": "U8", "shape": [3], "data_offsets": [32, 35]},
        "h": {"dtype": "BOOL", "shape": [1], "data_offsets": [35, 36]},
    }
    data = (
        struct.pack("<q", 1)
        + struct.pack("<d", 1)
        + _f32(1, 1, 1)
        + bytes([0x80, 0x3F])
        + bytes([0, 0x3C])
        + bytes(3)
        + b"\x01"
    )
    assert safetensors.save(tensors, metadata={"k": "v"}) == _st(header, data)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_dtype(tmp_path, rng, dtype):
    a = random_array(rng, (3, 5), dtype)
    t = ember.tensor(a.tolist(), dtype=dtype)
    tensors = {"t": t, "scalar": t[0, 0].clone(), "empty": ember.zeros(0, 3, dtype=dtype)}
    safetensors.save_file(tensors, tmp_path / "x.safetensors")
    for back in (safetensors.load_file(tmp_path / "x.safetensors"), safetensors.load(safetensors.save(tensors))):
        assert sorted(back) == ["empty", "scalar", "t"]
        for k, v in tensors.items():
            assert back[k].dtype is dtype and back[k].shape == v.shape
            assert_equal(back[k], to_np(v))


def test_load_file_device_and_key_order(tmp_path):
    safetensors.save_file({"z": ember.ones(1), "a": ember.zeros(1)}, str(tmp_path / "k.safetensors"))
    d = safetensors.load_file(tmp_path / "k.safetensors", device="cpu")
    assert list(d) == ["a", "z"]
    assert d["z"].device == ember.device("cpu")


def test_safe_open(tmp_path):
    x = np.arange(4 * 6, dtype=np.float32).reshape(4, 6)
    path = tmp_path / "s.safetensors"
    safetensors.save_file({"x": ember.tensor(x.tolist()), "b": ember.arange(3)}, path, metadata={"a": "1"})
    with safe_open(path, framework="pt", device="cpu") as f:
        assert f.keys() == ["b", "x"]
        assert f.metadata() == {"a": "1"}
        assert_equal(f.get_tensor("x"), x)
        s = f.get_slice("x")
        assert s.get_shape() == [4, 6] and s.get_dtype() == "F32"
        assert_equal(s[:, 1:3], x[:, 1:3])
        assert_equal(s[1:3], x[1:3])
        assert_equal(s[2, ::2], x[2, ::2])
        t = f.get_tensor("x")
        t[0, 0] = -1.0  # a copy: neither the file nor later reads change
        assert f.get_tensor("x")[0, 0].item() == 0.0
        with pytest.raises(KeyError, match="does not contain tensor nope"):
            f.get_tensor("nope")
    with pytest.raises(RuntimeError, match="closed"):
        f.get_tensor("x")
    with safe_open(path, framework="numpy") as f:
        arr = f.get_tensor("x")
        assert isinstance(arr, np.ndarray) and (arr == x).all()
    with pytest.raises(ValueError, match="framework 'jax'"):
        safe_open(path, framework="jax")
    safetensors.save_file({"x": ember.ones(1)}, tmp_path / "nometa.safetensors")
    with safe_open(tmp_path / "nometa.safetensors", "pt") as f:
        assert f.metadata() is None


def test_get_slice_reads_only_what_it_touches(tmp_path):
    rows, cols = 4096, 4096  # 64 MiB
    path = tmp_path / "big.safetensors"
    safetensors.save_file({"w": ember.arange(rows * cols, dtype=ember.float32).reshape(rows, cols)}, path)
    before = _rss()
    with safe_open(path, "pt") as f:
        part = f.get_slice("w")[:16, 1:3]
        growth = _rss() - before
    assert part.tolist() == [[r * cols + 1.0, r * cols + 2.0] for r in range(16)]
    assert growth < 8 * 1024 * 1024, growth


def test_resnet_state_dict_round_trip(tmp_path):
    m = resnet_trained()
    sd = m.state_dict()
    safetensors.save_file(sd, tmp_path / "r.safetensors", metadata={"format": "pt"})
    back = safetensors.load_file(tmp_path / "r.safetensors")
    assert sorted(back) == sorted(sd)
    fresh = ResNetish()
    fresh.load_state_dict(back)
    fresh.eval()
    x = ember.randn(2, 3, 8, 8)
    assert_equal(fresh(x).detach(), to_np(m(x).detach()))


def test_save_refuses_what_the_reference_refuses(tmp_path):
    x = ember.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="non contiguous tensor: `t`"):
        safetensors.save({"t": x.t()})
    with pytest.raises(RuntimeError, match="share memory"):
        safetensors.save({"a": x, "b": x[1]})
    assert safetensors.load(safetensors.save({"a": x[0], "b": x[1]}))["b"].tolist() == [3.0, 4.0, 5.0]  # disjoint: fine
    with pytest.raises(ValueError, match="Expected a dict"):
        safetensors.save([x])
    with pytest.raises(ValueError, match="Key `a` is invalid"):
        safetensors.save({"a": [1.0]})
    with pytest.raises(ValueError, match="expected str"):
        safetensors.save({1: x})
    with pytest.raises(ValueError, match="metadata must be a dict of str to str"):
        safetensors.save({"a": x}, metadata={"a": 1})
    with pytest.raises(ValueError, match="reserved"):
        safetensors.save({"__metadata__": x})
    with pytest.raises(RuntimeError, match="cannot create a temporary file"):
        safetensors.save_file({"a": x}, tmp_path / "no" / "dir.safetensors")


_OK = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"", "too small"),
        (struct.pack("<Q", 10**9) + b"{}", "larger than the limit"),
        (struct.pack("<Q", 1000) + b"{}      ", "runs past the end of the file"),
        (_st(b"not json"), "does not start with '{'"),
        (_st(b"[1, 2, 3]"), "does not start with '{'"),
        (_st(b'{"a": '), "not valid JSON"),
        (
            _st(
                b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],'
                b'"data_offsets":[0,8]}}',
                _f32(1, 2),
            ),
            'repeats the key "a"',
        ),
        (_st({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, _f32(1, 2)), "needs 12"),
        (_st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 12]}}, _f32(1, 2)), "needs 8"),
        (_st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}, _f32(1, 2)), "end before they begin"),
        (_st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}}, _f32(1, 2)), "needs 8"),
        (_st({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, _f32(1, 2)), "truncated"),
        (_st({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, _f32(1, 2)), "leave a hole"),
        (
            _st(
                {
                    "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                    "b": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]},
                },
                _f32(1, 2),
            ),
            "overlap",
        ),
        (_st(_OK, _f32(1, 2) + b"x"), "1 bytes after the last tensor"),
        (_st({"a": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}}, _f32(1, 2)), "unknown dtype 'F33'"),
        (
            _st({"a": {"dtype": "U32", "shape": [2], "data_offsets": [0, 8]}}, _f32(1, 2)),
            "no dtype for the safetensors",
        ),
        (_st({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, _f32(1, 2)), "negative size"),
        (_st({"a": {"dtype": "F32", "shape": [2**40, 2**40], "data_offsets": [0, 8]}}, _f32(1, 2)), "overflow"),
        (_st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, -8]}}, _f32(1, 2)), "non-negative integer"),
        (_st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0]}}, _f32(1, 2)), r"must be \[begin, end\]"),
        (_st({"a": {"dtype": "F32", "shape": [2]}}, _f32(1, 2)), "has no 'data_offsets'"),
        (_st({"a": 3}), "must be a JSON object"),
        (_st({"__metadata__": {"k": 1}}), "must be a string"),
        (_st({"__metadata__": []}), "'__metadata__' must be an object"),
    ],
)
def test_malformed_files(tmp_path, raw, message):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(raw)
    with pytest.raises(RuntimeError, match=message) as info:
        safetensors.load_file(path)
    assert "bad.safetensors" in str(info.value)
    with pytest.raises(RuntimeError, match=message):
        safetensors.load(raw)
    with pytest.raises(RuntimeError, match=message):
        safe_open(path, "pt")


def test_truncated_at_every_cut_point(tmp_path):
    raw = safetensors.save({"a": ember.arange(5.0), "b": ember.ones(2, 2, dtype=ember.int16)}, metadata={"m": "x"})
    for cut in range(len(raw)):
        with pytest.raises(RuntimeError, match="<buffer>"):
            safetensors.load(raw[:cut])


def test_unaligned_and_unpadded_headers_load(tmp_path):
    # Other writers may skip the padding: the data is then unaligned, and mmap falls back to a copy.
    raw = _st(_OK, _f32(1.5, 2.5), pad=False)
    assert (len(raw) - 8) % 4 != 0
    path = tmp_path / "u.safetensors"
    path.write_bytes(raw)
    assert safetensors.load_file(path)["a"].tolist() == [1.5, 2.5]
    with safe_open(path, "pt") as f:
        assert f.get_tensor("a").tolist() == [1.5, 2.5]
    assert safetensors.load(_st({"__metadata__": None, **_OK}, _f32(1, 2)))["a"].tolist() == [1.0, 2.0]
