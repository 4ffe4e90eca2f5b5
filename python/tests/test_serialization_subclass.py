"""ember.save / ember.load of tensor subclasses (tv_tensors) and tensors with attributes, as torch.save / torch.load:
_rebuild_from_type_v2, refused with weights_only=True unless the class is allow-listed; files cross with PyTorch 2.15
+ torchvision 0.29 in both directions when the reference is installed (/opt/torch2/py)."""

import io
import os
import pickle
import subprocess
import textwrap

import numpy as np
import pytest

import ember
from ember.serialization import safe_globals
from ember.vision import tv_tensors as tv

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
ALL = [tv.BoundingBoxes, tv.BoundingBoxFormat, tv.Image, tv.Mask, tv.Video, tv.KeyPoints]


def _sample():
    return {
        "b": tv.BoundingBoxes(
            [[1.0, 2, 3, 4], [5, 6, 7, 8]], format="CXCYWH", canvas_size=(10, 20), clamping_mode="hard"
        ),
        "i": tv.Image(ember.arange(12, dtype=ember.uint8).reshape(3, 2, 2)),
        "m": tv.Mask(ember.tensor([[True, False], [False, True]])),
        "v": tv.Video(ember.ones(2, 3, 2, 2)),
        "k": tv.KeyPoints([[1.0, 2.0]], canvas_size=(4, 5)),
    }


def _roundtrip(obj, **kw):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **kw)


def _check(out, ref):
    for k, v in ref.items():
        assert type(out[k]) is type(v)
        np.testing.assert_array_equal(out[k].as_subclass(ember.Tensor).numpy(), v.as_subclass(ember.Tensor).numpy())
        assert out[k].__dict__ == v.__dict__


def test_weights_only_false_restores_classes_and_metadata():
    ref = _sample()
    out = _roundtrip(ref, weights_only=False)
    _check(out, ref)
    assert out["b"].format is tv.BoundingBoxFormat.CXCYWH and out["b"].canvas_size == (10, 20)
    assert out["b"].clamping_mode == "hard" and out["k"].canvas_size == (4, 5)


def test_weights_only_refuses_unlisted_class_and_names_it():
    with pytest.raises(pickle.UnpicklingError, match="ember.vision.tv_tensors.BoundingBoxes"):
        _roundtrip({"b": _sample()["b"]})
    # the class alone is not enough: its format enum is a global too (as in PyTorch)
    with safe_globals([tv.BoundingBoxes]):
        with pytest.raises(pickle.UnpicklingError, match="BoundingBoxFormat"):
            _roundtrip({"b": _sample()["b"]})


def test_weights_only_with_safe_globals():
    ref = _sample()
    with safe_globals(ALL):
        _check(_roundtrip(ref), ref)


def test_plain_tensor_attributes_and_views():
    t = ember.arange(6.0)
    t.note = "hi"
    out = _roundtrip({"t": t, "view": t[2:]})
    assert type(out["t"]) is ember.Tensor and out["t"].note == "hi"
    np.testing.assert_array_equal(out["t"].numpy(), np.arange(6.0))
    np.testing.assert_array_equal(out["view"].numpy(), np.arange(2.0, 6.0))
    out["t"][3] = 100.0  # still one storage, as saved
    assert out["view"][1].item() == 100.0


def _forged(state):
    """A checkpoint whose tensor carries `state` as attributes (written by ember.save, then its pickle edited)."""
    t = ember.zeros(2)
    t.zzzz = 1
    buf = io.BytesIO()
    ember.save(t, buf)
    data = buf.getvalue()
    import zipfile

    zin = zipfile.ZipFile(io.BytesIO(data))
    pkl = zin.read("archive/data.pkl")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename.endswith("data.pkl"):
                body = pkl.replace(b"X\x04\x00\x00\x00zzzz", b"X" + len(state).to_bytes(4, "little") + state)
            z.writestr(info.filename, body)
    out.seek(0)
    return out


@pytest.mark.parametrize("name", [b"__class__", b"numpy", b"shape", b"add_"])
def test_hostile_attribute_names_are_refused(name):
    with pytest.raises(pickle.UnpicklingError, match="can't replace"):
        ember.load(_forged(name))


def test_forged_attribute_loads_when_harmless():
    assert ember.load(_forged(b"tag1")).tag1 == 1


def test_subclass_of_non_tensor_is_refused():
    # _rebuild_from_type_v2 with an allow-listed class that is not a tensor class
    class NotATensor:
        pass

    NotATensor.__module__, NotATensor.__qualname__ = "vm_test", "NotATensor"
    buf = io.BytesIO()
    ember.save(tv.Image(ember.zeros(1, 1, 1)), buf)
    import zipfile

    zin = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename.endswith("data.pkl"):
                assert b"torchvision.tv_tensors._image\nImage" in body
                body = body.replace(b"torchvision.tv_tensors._image\nImage", b"vm_test\nNotATensor")
            z.writestr(info.filename, body)
    out.seek(0)
    with safe_globals([NotATensor]):
        with pytest.raises(pickle.UnpicklingError, match="not a tensor class"):
            ember.load(out)


TORCH_SCRIPT = textwrap.dedent(
    """
    import sys, torch
    from torchvision import tv_tensors as tv
    x = torch.load(sys.argv[1], weights_only=False)
    b = x["b"]
    assert type(b) is tv.BoundingBoxes and b.format is tv.BoundingBoxFormat.CXCYWH, b
    assert tuple(b.canvas_size) == (10, 20) and b.clamping_mode == "hard"
    assert type(x["i"]) is tv.Image and type(x["m"]) is tv.Mask and type(x["v"]) is tv.Video
    assert type(x["k"]) is tv.KeyPoints and tuple(x["k"].canvas_size) == (4, 5)
    assert x["i"].flatten().tolist() == list(range(12))
    try:
        torch.load(sys.argv[1])
        raise SystemExit("torch loaded an unlisted class with weights_only=True")
    except Exception as e:
        assert "BoundingBoxes" in str(e) or "Image" in str(e), e
    torch.serialization.add_safe_globals([tv.BoundingBoxes, tv.BoundingBoxFormat, tv.Image, tv.Mask, tv.Video,
                                          tv.KeyPoints])
    torch.load(sys.argv[1])
    out = {"b": tv.BoundingBoxes(torch.tensor([[1.0, 2, 3, 4]]), format="XYWH", canvas_size=(7, 8)),
           "m": tv.Mask(torch.ones(2, 3, dtype=torch.uint8)), "i": tv.Image(torch.zeros(1, 2, 2))}
    torch.save(out, sys.argv[2])
    """
)


@needs_torch
def test_files_cross_with_pytorch(tmp_path):
    ref = _sample()
    ember.save(ref, tmp_path / "ember.pt")
    script = tmp_path / "s.py"
    script.write_text(TORCH_SCRIPT)
    subprocess.run(
        [TORCH_PY, str(script), str(tmp_path / "ember.pt"), str(tmp_path / "torch.pt")],
        check=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=""),
    )
    with pytest.raises(pickle.UnpicklingError, match="BoundingBoxes"):
        ember.load(tmp_path / "torch.pt")
    with safe_globals(ALL):
        x = ember.load(tmp_path / "torch.pt")
    assert type(x["b"]) is tv.BoundingBoxes and x["b"].format is tv.BoundingBoxFormat.XYWH
    assert x["b"].canvas_size == (7, 8) and type(x["m"]) is tv.Mask and type(x["i"]) is tv.Image
    np.testing.assert_array_equal(x["b"].as_subclass(ember.Tensor).numpy(), [[1.0, 2, 3, 4]])
    assert x["m"].dtype == ember.uint8 and tuple(x["m"].shape) == (2, 3)
