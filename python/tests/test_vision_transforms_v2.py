"""ember.vision.tv_tensors and transforms.v2: every deterministic case of vision_v2_cases.py against torchvision
0.29 (one subprocess of the reference PyTorch computes them all), and, without torch, closed forms (boxes against
the masks they outline, keypoints, colour formulas in NumPy), seeded statistics of the random transforms, the
tv_tensor rules and the error paths."""

import copy
import math
import os
import subprocess
import textwrap

import fixed_point_resize
import numpy as np
import pytest
from vision_v2_cases import results

import ember
from ember.vision import tv_tensors
from ember.vision.ops import masks_to_boxes
from ember.vision.transforms import v2
from ember.vision.transforms.v2 import functional as F

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
IM = v2.InterpolationMode

TORCH_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import torch
    from torchvision import tv_tensors
    from torchvision.transforms import v2 as T
    from torchvision.transforms.v2 import functional as F
    sys.path.insert(0, sys.argv[2])
    from vision_v2_cases import results
    torch.set_num_threads(1)
    out = results(torch, tv_tensors, F, T, T.InterpolationMode)
    np.savez(sys.argv[1], _cpu_capability=torch.backends.cpu.get_cpu_capability(), **out)
    """
)


def t(a):
    return ember.from_numpy(np.ascontiguousarray(a).copy())


def arr(x):
    return x.as_subclass(ember.Tensor).numpy()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    d = tmp_path_factory.mktemp("tv2")
    (d / "ref.py").write_text(TORCH_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    subprocess.run(
        [TORCH_PY, str(d / "ref.py"), str(d / "ref.npz"), os.path.dirname(__file__)], check=True, env=env, timeout=300
    )
    return dict(np.load(d / "ref.npz"))


# torchvision resizes uint8 images bilinearly with a fixed-point kernel on CPUs with AVX2 (and through float32
# elsewhere), as ember does everywhere (Note [Fixed-point uint8 resampling]): equal there, within one level elsewhere.
# (Bicubic uint8 images go through the fixed-point kernel on every CPU in both.)
UINT8_RESIZE = ("resize", "resized_crop", "T_resize", "P_rrc", "P_scale_jitter")


@needs_torch
def test_everything_matches_torchvision(reference):
    reference = dict(reference)
    fixed_point = str(reference.pop("_cpu_capability")) in ("AVX2", "AVX512")
    mine = results(ember, tv_tensors, F, v2, IM)
    if not any(k.startswith("pil/") for k in mine):  # no Pillow here (Pillow is optional for ember)
        reference = {k: v for k, v in reference.items() if not k.startswith("pil/")}
    assert sorted(mine) == sorted(reference)
    for k in sorted(reference):
        a, b = mine[k], reference[k]
        if b.dtype.kind == "U":  # the exception type of a bad call
            assert str(a) == str(b), (k, a, b)
            continue
        assert a.dtype == b.dtype and a.shape == b.shape, (k, a.dtype, b.dtype, a.shape, b.shape)
        if b.dtype.kind in "uib":
            diff = np.abs(a.astype(np.int64) - b.astype(np.int64))
            if k.startswith(UINT8_RESIZE) and "/u8" in k and not fixed_point and "bicubic" not in k:
                assert diff.max() <= 1, k
            else:
                np.testing.assert_array_equal(a, b, err_msg=k)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=k)


# ---------------------------------------------------------------------------------------------- tv_tensors


def test_ops_on_tv_tensors_return_plain_tensors_except_the_kept_ones():
    img = tv_tensors.Image(ember.rand(3, 4, 5))
    assert type(img) is tv_tensors.Image and img.shape == (3, 4, 5)
    assert type(img + 1) is ember.Tensor and type(img.sum()) is ember.Tensor
    assert type(ember.nn.functional.relu(img)) is ember.Tensor
    for kept in (img.clone(), img.to(ember.float64), img.detach(), img.clone().requires_grad_()):
        assert type(kept) is tv_tensors.Image
    boxes = tv_tensors.BoundingBoxes([[1, 2, 3, 4]], format="xywh", canvas_size=(4, 5))
    c = boxes.to(ember.float32)
    assert type(c) is tv_tensors.BoundingBoxes and c.format is tv_tensors.BoundingBoxFormat.XYWH
    assert c.canvas_size == (4, 5) and c.dtype == ember.float32 and c.clamping_mode == "soft"
    with tv_tensors.set_return_type("TVTensor"):
        s = boxes * 2
        assert type(s) is tv_tensors.BoundingBoxes and s.canvas_size == (4, 5) and s.tolist() == [[2, 4, 6, 8]]
        parts = ember.Tensor.unbind(boxes.expand(2, 4), 0)
        assert all(type(p) is tv_tensors.BoundingBoxes for p in parts)
    assert type(boxes * 2) is ember.Tensor
    tv_tensors.set_return_type("tvtensor")
    try:
        assert type(img * 1) is tv_tensors.Image
    finally:
        tv_tensors.set_return_type("Tensor")
    assert type(img * 1) is ember.Tensor
    with pytest.raises(ValueError, match="return_type must be"):
        tv_tensors.set_return_type("image")


def test_wrap_and_constructors():
    boxes = tv_tensors.BoundingBoxes(ember.tensor([1.0, 2.0, 3.0, 4.0]), format="CXCYWH", canvas_size=[8, 9])
    assert boxes.shape == (1, 4) and boxes.canvas_size == (8, 9)
    w = tv_tensors.wrap(ember.zeros(2, 4), like=boxes, canvas_size=(3, 3))
    assert type(w) is tv_tensors.BoundingBoxes and w.format.value == "CXCYWH" and w.canvas_size == (3, 3)
    m = tv_tensors.wrap(ember.zeros(2, 2), like=tv_tensors.Mask(ember.ones(1, 1)))
    assert type(m) is tv_tensors.Mask
    assert tv_tensors.Image(ember.zeros(4, 5)).shape == (1, 4, 5)
    assert tv_tensors.Image(np.zeros((2, 4, 5), np.uint8)).dtype == ember.uint8
    assert tv_tensors.Video(ember.zeros(2, 3, 4, 5), dtype=ember.float64).dtype == ember.float64
    kp = tv_tensors.KeyPoints([1.0, 2.0], canvas_size=(4, 4))
    assert kp.shape == (1, 2) and "canvas_size=(4, 4)" in repr(kp)
    assert "format=BoundingBoxFormat.CXCYWH" in repr(boxes)
    d = copy.deepcopy(boxes)
    assert type(d) is tv_tensors.BoundingBoxes and d.tolist() == boxes.tolist() and d.canvas_size == (8, 9)
    assert tv_tensors.is_rotated_bounding_format("XYWHR") and not tv_tensors.is_rotated_bounding_format("XYXY")
    with pytest.raises(ValueError, match="1D or 2D"):
        tv_tensors.BoundingBoxes(ember.zeros(1, 2, 4), format="XYXY", canvas_size=(2, 2))
    with pytest.raises(ValueError, match="clamping_mode"):
        tv_tensors.BoundingBoxes([[0, 0, 1, 1]], format="XYXY", canvas_size=(2, 2), clamping_mode="always")
    with pytest.raises(KeyError, match="unknown bounding box format"):
        tv_tensors.BoundingBoxes([[0, 0, 1, 1]], format="XYZ", canvas_size=(2, 2))
    with pytest.raises(ValueError, match="floating point"):
        tv_tensors.BoundingBoxes([[0, 0, 1, 1, 0]], format="XYWHR", canvas_size=(2, 2))
    with pytest.raises(ValueError, match="shape"):
        tv_tensors.KeyPoints([[1.0, 2.0, 3.0]], canvas_size=(2, 2))
    with pytest.raises(ValueError, match="2D or higher"):
        tv_tensors.Image(ember.zeros(3))
    with pytest.raises(ValueError, match="4D or higher"):
        tv_tensors.Video(ember.zeros(3, 4, 4))


# ---------------------------------------------------------------------------------------------- closed forms


@pytest.mark.parametrize("mode", [IM.BILINEAR, IM.BICUBIC])
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_of_uint8_images_is_fixed_point(antialias, mode):
    # Note [Fixed-point uint8 resampling]: v2 keeps uint8 images uint8 (PyTorch's integers, written out in NumPy);
    # v1's resize goes through float32 and rounds, as torchvision's v1 does
    x = np.random.default_rng(0).integers(0, 256, (2, 3, 19, 26), dtype=np.uint8)
    for img, src in ((tv_tensors.Image(t(x[0])), x[0]), (t(x), x)):
        y = F.resize(img, [11, 40], interpolation=mode, antialias=antialias)
        assert y.dtype == ember.uint8 and type(y) is type(img)
        np.testing.assert_array_equal(arr(y), fixed_point_resize.resize_u8(src, (11, 40), antialias, mode=mode.value))
    v1 = ember.vision.transforms.functional.resize(t(x[0]), [11, 40], interpolation=mode, antialias=antialias)
    f = ember.nn.functional.interpolate(t(x[:1]).float(), size=[11, 40], mode=mode.value, antialias=antialias)
    np.testing.assert_array_equal(v1.numpy(), f[0].clamp(0, 255).round().to(ember.uint8).numpy())


def _rect_sample(h=12, w=16, box=(3, 2, 9, 7)):
    x1, y1, x2, y2 = box
    m = np.zeros((h, w), np.uint8)
    m[y1:y2, x1:x2] = 1
    img = np.zeros((3, h, w), np.uint8)
    img[:, y1:y2, x1:x2] = 200
    return (
        tv_tensors.Image(t(img)),
        tv_tensors.BoundingBoxes([list(box)], format="XYXY", canvas_size=(h, w), dtype=ember.float32),
        tv_tensors.Mask(t(m)),
    )


def _mask_box(mask):
    b = masks_to_boxes(mask.as_subclass(ember.Tensor).unsqueeze(0).to(ember.float32))[0].tolist()
    return [b[0], b[1], b[2] + 1, b[3] + 1]  # inclusive pixel indices -> the box's edges


@pytest.mark.parametrize(
    "transform",
    [
        v2.RandomHorizontalFlip(p=1.0),
        v2.RandomVerticalFlip(p=1.0),
        v2.Pad([2, 3, 1, 4]),
        v2.CenterCrop([10, 11]),
        v2.Resize([24, 32], interpolation=IM.NEAREST),
        v2.RandomRotation((90.0, 90.0), expand=True),
        v2.RandomRotation((180.0, 180.0)),
        v2.RandomAffine(degrees=0, translate=None),
        v2.Compose([v2.RandomZoomOut(side_range=(2.0, 2.0), p=1.0), v2.RandomCrop(14)]),
        v2.RandomResizedCrop(16, scale=(1 / 3, 1 / 3), ratio=(1.0, 1.0), interpolation=IM.NEAREST_EXACT),
    ],
    ids=lambda tr: type(tr).__name__,
)
def test_boxes_follow_the_masks_they_outline(transform):
    ember.manual_seed(3)
    img, boxes, mask = _rect_sample()
    out_img, out_boxes, out_mask = transform(img, boxes, mask)
    assert type(out_img) is tv_tensors.Image and type(out_boxes) is tv_tensors.BoundingBoxes
    assert type(out_mask) is tv_tensors.Mask
    assert out_boxes.canvas_size == tuple(out_mask.shape[-2:]) == tuple(out_img.shape[-2:])
    np.testing.assert_allclose(out_boxes.tolist()[0], _mask_box(out_mask), atol=1e-4)
    # the image moved with the mask
    np.testing.assert_array_equal(arr(out_img)[0] == 200, arr(out_mask) == 1)


def test_keypoints_closed_forms():
    kp = tv_tensors.KeyPoints([[2.0, 3.0], [15.0, 0.0]], canvas_size=(12, 16))
    assert F.horizontal_flip(kp).tolist() == [[13.0, 3.0], [0.0, 0.0]]
    assert F.vertical_flip(kp).tolist() == [[2.0, 8.0], [15.0, 11.0]]
    r = F.resize(kp, [24, 8])
    assert r.tolist() == [[1.0, 6.0], [7.5, 0.0]] and r.canvas_size == (24, 8)
    p = F.pad(kp, [1, 2])
    assert p.tolist() == [[3.0, 5.0], [16.0, 2.0]] and p.canvas_size == (16, 18)
    # rotation by 90 degrees about the center (8, 6): (x, y) -> (8 + (y - 6), 6 - (x - 8)) (y points down)
    np.testing.assert_allclose(F.rotate(kp, 90.0).tolist(), [[5.0, 12.0], [2.0, -1.0]], atol=1e-5)
    a = F.affine(kp, 0.0, [3, -2], 2.0, 0.0, center=[0, 0])
    np.testing.assert_allclose(a.tolist(), [[7.0, 4.0], [33.0, -2.0]], atol=1e-5)


def test_colour_closed_forms():
    rng = np.random.default_rng(0)
    u8 = rng.integers(0, 256, (3, 5, 6)).astype(np.uint8)
    f = rng.random((3, 5, 6)).astype(np.float32)
    np.testing.assert_array_equal(arr(F.invert(t(u8))), 255 - u8)
    np.testing.assert_allclose(arr(F.invert(t(f))), 1 - f, atol=1e-7)
    np.testing.assert_array_equal(arr(F.posterize(t(u8), 2)), u8 & 0b11000000)
    np.testing.assert_allclose(arr(F.posterize(t(f), 2)), np.clip(np.floor(f * 4), 0, 3) / 4, atol=1e-7)
    np.testing.assert_array_equal(arr(F.solarize(t(u8), 100)), np.where(u8 >= 100, 255 - u8, u8))
    lo, hi = u8.min(axis=(1, 2), keepdims=True).astype(np.float32), u8.max(axis=(1, 2), keepdims=True)
    inv_scale = (hi - lo).astype(np.float32) * np.float32(1.0 / 255)  # float32 arithmetic, as torchvision's
    want = np.clip((u8.astype(np.float32) - lo) / inv_scale, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(arr(F.autocontrast(t(u8))), want)
    np.testing.assert_allclose(arr(F.adjust_brightness(t(f), 1.5)), np.clip(f * 1.5, 0, 1), atol=1e-6)
    gray = 0.2989 * f[0] + 0.587 * f[1] + 0.114 * f[2]
    np.testing.assert_allclose(arr(F.rgb_to_grayscale(t(f)))[0], gray, atol=1e-6)
    np.testing.assert_array_equal(arr(F.permute_channels(t(u8), [1, 2, 0])), u8[[1, 2, 0]])
    # equalize (PIL's): the step is (pixels outside the last bin) // 255 and a value maps to (the count below it +
    # step // 2) // step; a step of 0 leaves the image as it is.
    vals = rng.permutation(np.array([50] + [100] * 255 + [200] * 255, np.uint8)).reshape(1, 7, 73)
    eq = arr(F.equalize(t(vals)))
    np.testing.assert_array_equal(eq, np.select([vals == 50, vals == 100], [0, 1], 255))
    two = np.where(rng.random((1, 8, 8)) < 0.5, 10, 20).astype(np.uint8)
    np.testing.assert_array_equal(arr(F.equalize(t(two))), two)
    perm = rng.permutation(256).astype(np.uint8).reshape(1, 16, 16)
    np.testing.assert_array_equal(arr(F.equalize(t(perm))), perm)
    # the 3x3 Gaussian of a constant image is the constant (reflect padding)
    np.testing.assert_allclose(arr(F.gaussian_blur(ember.full((1, 6, 6), 0.3), 3, 1.0)), 0.3, atol=1e-6)
    # to_dtype scales value ranges
    assert F.to_dtype(t(np.array([[[255, 0]]], np.uint8)), ember.float32, scale=True).tolist() == [[[1.0, 0.0]]]
    assert F.to_dtype(ember.tensor([[[1.0, 0.5]]]), ember.uint8, scale=True).tolist() == [[[255, 127]]]


def test_rotated_boxes_closed_forms():
    # an unrotated XYWHR box turned by 90 degrees about the canvas center (8, 8) keeps its size and gets angle 90
    box = tv_tensors.BoundingBoxes([[4.0, 6.0, 6.0, 2.0, 0.0]], format="XYWHR", canvas_size=(16, 16))
    r = F.convert_bounding_box_format(F.rotate(box, 90.0), new_format="CXCYWHR").tolist()[0]
    np.testing.assert_allclose(r, [7.0, 9.0, 6.0, 2.0, 90.0], atol=1e-4)
    s = F.convert_bounding_box_format(F.resize(box, [32, 8]), new_format="CXCYWHR").tolist()[0]
    np.testing.assert_allclose(s, [3.5, 14.0, 3.0, 4.0, 0.0], atol=1e-4)
    c = F.crop(box, 1, 2, 10, 10)
    np.testing.assert_allclose(c.tolist(), [[2.0, 5.0, 6.0, 2.0, 0.0]], atol=1e-5)
    assert c.canvas_size == (10, 10)
    # clamping cuts a box that sticks out along its own edges: an axis-aligned one is clipped like an XYXY box
    out = tv_tensors.BoundingBoxes([[-2.0, 3.0, 6.0, 4.0, 0.0]], format="XYWHR", canvas_size=(8, 8))
    np.testing.assert_allclose(F.clamp_bounding_boxes(out).tolist(), [[0.0, 3.0, 4.0, 4.0, 0.0]], atol=1e-5)


def test_box_formats_and_sanitize_closed_forms():
    b = tv_tensors.BoundingBoxes([[2.0, 3.0, 10.0, 7.0]], format="XYXY", canvas_size=(8, 12))
    assert F.convert_bounding_box_format(b, new_format="XYWH").tolist() == [[2.0, 3.0, 8.0, 4.0]]
    c = F.convert_bounding_box_format(b, new_format="CXCYWH")
    assert c.tolist() == [[6.0, 5.0, 8.0, 4.0]] and c.format.value == "CXCYWH"
    assert F.convert_bounding_box_format(c, new_format="XYXY").tolist() == b.tolist()
    plain = F.convert_bounding_box_format(ember.tensor([[1.0, 1.0, 2.0, 2.0]]), "XYWH", "XYXY")
    assert type(plain) is ember.Tensor and plain.tolist() == [[1.0, 1.0, 3.0, 3.0]]
    r = tv_tensors.BoundingBoxes([[1.0, 2.0, 4.0, 2.0, 90.0]], format="XYWHR", canvas_size=(8, 8))
    corners = F.convert_bounding_box_format(r, new_format="XYXYXYXY").tolist()[0]
    np.testing.assert_allclose(corners, [1, 2, 1, -2, 3, -2, 3, 2], atol=1e-5)
    wild = tv_tensors.BoundingBoxes([[-2.0, 1.0, 5.0, 9.0]], format="XYXY", canvas_size=(8, 12))
    assert F.clamp_bounding_boxes(wild).tolist() == [[0.0, 1.0, 5.0, 8.0]]
    boxes = tv_tensors.BoundingBoxes(
        [[0.0, 0.0, 4.0, 4.0], [1.0, 1.0, 1.5, 6.0], [5.0, 5.0, 13.0, 7.0], [2.0, 2.0, 2.5, 2.5]],
        format="XYXY",
        canvas_size=(8, 12),
    )
    labels = ember.tensor([1, 2, 3, 4])
    out = v2.SanitizeBoundingBoxes()({"boxes": boxes, "labels": labels, "image": ember.zeros(3, 8, 12)})
    assert out["boxes"].tolist() == [[0.0, 0.0, 4.0, 4.0]] and out["labels"].tolist() == [1]
    assert type(out["boxes"]) is tv_tensors.BoundingBoxes
    kept, valid = F.sanitize_bounding_boxes(boxes, min_size=0.4, min_area=0.2)
    assert valid.tolist() == [True, True, False, True] and kept.shape == (3, 4)


# ---------------------------------------------------------------------------------------------- the sample rules


def test_plain_tensor_heuristic_and_passthrough():
    a, b = ember.arange(6.0).view(1, 2, 3), ember.arange(6.0).view(1, 2, 3)
    fa, fb = v2.RandomHorizontalFlip(p=1.0)(a, b)
    assert fa.tolist() == [[[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]] and fb is b  # only the first plain tensor
    img = tv_tensors.Image(ember.arange(6.0).view(1, 2, 3))
    fi, fa = v2.RandomHorizontalFlip(p=1.0)(img, a)
    assert fa is a and fi.tolist()[0][0] == [2.0, 1.0, 0.0]  # an Image present: plain tensors pass through
    sample = (
        img,
        {"label": 3, "name": "x", "boxes": tv_tensors.BoundingBoxes([[0, 0, 1, 1]], format="XYXY", canvas_size=(2, 3))},
    )
    out = v2.RandomHorizontalFlip(p=1.0)(sample)
    assert isinstance(out, tuple) and out[1]["label"] == 3 and out[1]["name"] == "x"
    assert out[1]["boxes"].tolist() == [[2, 0, 3, 1]]


def test_one_draw_per_sample():
    ember.manual_seed(0)
    img = tv_tensors.Image(ember.rand(3, 20, 20))
    other = tv_tensors.Image(img.clone())
    for _ in range(5):
        a, b = v2.RandomResizedCrop(7)(img, other)
        assert ember.equal(a, b)
        a, b = v2.RandomRotation(40, interpolation=IM.BILINEAR)(img, other)
        assert ember.equal(a, b)


def test_seeded_random_transforms_repeat():
    img = tv_tensors.Image(ember.randint(0, 256, (3, 16, 16), dtype=ember.uint8))
    for tr in [
        v2.AutoAugment(),
        v2.RandAugment(),
        v2.TrivialAugmentWide(),
        v2.AugMix(),
        v2.ElasticTransform(sigma=1.5),
        v2.RandomPerspective(p=1.0),
        v2.RandomErasing(p=1.0, value="random"),
        v2.RandomPhotometricDistort(),
    ]:
        ember.manual_seed(11)
        a = tr(img)
        ember.manual_seed(11)
        b = tr(img)
        assert type(a) is tv_tensors.Image and a.dtype == ember.uint8 and ember.equal(a, b), type(tr).__name__


def test_random_parameter_statistics():
    ember.manual_seed(5)
    img = ember.rand(1, 40, 50)
    flips = sum(int(v2.RandomHorizontalFlip(p=0.3)(img).data_ptr() != img.data_ptr()) for _ in range(600))
    assert abs(flips / 600 - 0.3) < 0.06
    rrc = v2.RandomResizedCrop(8, scale=(0.2, 0.6), ratio=(0.5, 2.0))
    areas, ratios = [], []
    for _ in range(300):
        p = rrc.make_params([img])
        assert 0 <= p["top"] <= 40 - p["height"] and 0 <= p["left"] <= 50 - p["width"]
        areas.append(p["height"] * p["width"] / 2000)
        ratios.append(math.log(p["width"] / p["height"]))
    assert 0.17 < min(areas) and max(areas) < 0.64 and abs(np.mean(areas) - 0.4) < 0.03
    assert abs(np.mean(ratios)) < 0.08 and max(ratios) < math.log(2.0) + 0.1  # log-uniform, symmetric
    cj = v2.ColorJitter(brightness=0.5, hue=0.2)
    for _ in range(50):
        p = cj.make_params([img])
        assert sorted(p["fn_idx"]) == [0, 1, 2, 3] and 0.5 <= p["brightness_factor"] <= 1.5
        assert -0.2 <= p["hue_factor"] <= 0.2 and p["contrast_factor"] is None
    angles = [v2.RandomRotation(30).make_params([img])["angle"] for _ in range(400)]
    assert -30 <= min(angles) and max(angles) <= 30 and abs(np.mean(angles)) < 3 and np.std(angles) > 15
    aff = v2.RandomAffine(0, translate=(0.1, 0.2), scale=(0.5, 1.5), shear=(-5, 5, 2, 3))
    for _ in range(50):
        p = aff.make_params([img])
        assert abs(p["translate"][0]) <= 5 and abs(p["translate"][1]) <= 8 and 0.5 <= p["scale"] <= 1.5
        assert -5 <= p["shear"][0] <= 5 and 2 <= p["shear"][1] <= 3


def test_mixup_and_cutmix_closed_forms():
    ember.manual_seed(2)
    x = ember.rand(4, 3, 10, 10)
    labels = ember.tensor([0, 1, 2, 0])
    y_img, y_lab = v2.MixUp(alpha=0.5, num_classes=3)(x, labels)
    lam = y_lab[1, 1].item()  # sample 1 is class 1, its predecessor class 0
    np.testing.assert_allclose(arr(y_img), lam * arr(x) + (1 - lam) * np.roll(arr(x), 1, 0), atol=1e-6)
    np.testing.assert_allclose(arr(y_lab.sum(1)), 1.0, atol=1e-6)
    c_img, c_lab = v2.CutMix(alpha=1.0, num_classes=3)(x, labels)
    pasted = (arr(c_img) != arr(x)).any(axis=1)  # pixels taken from the previous image
    frac = pasted[1].mean()
    np.testing.assert_allclose(c_lab[1, 0].item(), frac, atol=1e-6)
    np.testing.assert_allclose(c_lab[1, 1].item(), 1 - frac, atol=1e-6)
    img_dict = {"image": tv_tensors.Image(x), "labels": labels}
    out = v2.MixUp(num_classes=3)(img_dict)
    assert type(out["image"]) is tv_tensors.Image and out["labels"].shape == (4, 3)
    with pytest.raises(ValueError, match="num_classes must be passed"):
        v2.MixUp()(x, labels)
    with pytest.raises(ValueError, match="batched input"):
        v2.CutMix(num_classes=3)(x[0], labels)


def test_random_iou_crop_zeroes_boxes_outside():
    ember.manual_seed(4)
    img = tv_tensors.Image(ember.rand(3, 30, 30))
    boxes = tv_tensors.BoundingBoxes(
        [[2, 2, 10, 10], [15, 15, 28, 28], [0, 20, 8, 29]], format="XYXY", canvas_size=(30, 30), dtype=ember.float32
    )
    crop = v2.RandomIoUCrop()
    for _ in range(10):
        p = crop.make_params([img, boxes])
        if not p:
            continue
        o_img, o_boxes = crop.transform(img, p), crop.transform(boxes, p)
        assert tuple(o_img.shape[-2:]) == (p["height"], p["width"]) == o_boxes.canvas_size
        zeros = (arr(o_boxes) == 0).all(axis=1)
        np.testing.assert_array_equal(zeros[~arr(p["is_within_crop_area"])], True)
    with pytest.raises(TypeError, match="requires input sample"):
        crop(img)


def test_containers_and_misc_transforms():
    ember.manual_seed(8)
    img = ember.arange(12.0).view(1, 3, 4)
    assert ember.equal(v2.RandomApply([v2.RandomHorizontalFlip(p=1.0)], p=0.0)(img), img)
    assert ember.equal(v2.RandomChoice([v2.Identity(), v2.Identity()], p=[1, 3])(img), img)
    flipped = v2.RandomOrder([v2.RandomHorizontalFlip(1.0), v2.RandomVerticalFlip(1.0)])(img)
    assert flipped.tolist() == img.flip(-1).flip(-2).tolist()
    lam = v2.Lambda(lambda x: x + 1, ember.Tensor)
    assert lam(img)[0, 0, 0].item() == 1.0 and lam("s") == "s"
    video = tv_tensors.Video(ember.arange(10.0).view(10, 1, 1, 1))
    assert v2.UniformTemporalSubsample(4)(video).flatten().tolist() == [0.0, 3.0, 6.0, 9.0]
    assert type(v2.ToPureTensor()(tv_tensors.Image(img))) is ember.Tensor
    assert type(v2.ToImage()(np.zeros((4, 5, 3), np.uint8))) is tv_tensors.Image
    m = ember.eye(12)
    out = v2.LinearTransformation(m, ember.full((12,), 1.0))(img)
    assert out.tolist() == (img - 1).tolist()
    crops = v2.TenCrop(2)(img)
    assert len(crops) == 10 and crops[5].tolist() == img.flip(-1)[..., :2, :2].tolist()
    with pytest.raises(TypeError, match="not supported"):
        v2.FiveCrop(2)(tv_tensors.Mask(ember.zeros(3, 4)))
    custom_calls = []

    class Depth(tv_tensors.TVTensor):
        pass

    @F.register_kernel(F.horizontal_flip, Depth)
    def _flip_depth(x):
        custom_calls.append(1)
        return tv_tensors.wrap(x.as_subclass(ember.Tensor).flip(-1), like=x)

    d = ember.arange(3.0).as_subclass(Depth)
    assert F.horizontal_flip(d).tolist() == [2.0, 1.0, 0.0] and custom_calls == [1]


def test_pil_images_through_v2():
    PIL = pytest.importorskip("PIL.Image")
    a = np.arange(5 * 6 * 3, dtype=np.uint8).reshape(5, 6, 3)
    pil = PIL.fromarray(a)
    flipped = v2.RandomHorizontalFlip(p=1.0)(pil)
    assert isinstance(flipped, PIL.Image) and np.array_equal(np.asarray(flipped), a[:, ::-1])
    tensor = v2.PILToTensor()(pil)
    assert type(tensor) is ember.Tensor and np.array_equal(tensor.numpy(), a.transpose(2, 0, 1))
    image = v2.ToImage()(pil)
    assert type(image) is tv_tensors.Image and image.shape == (3, 5, 6)
    back = v2.ToPILImage()(image)
    assert np.array_equal(np.asarray(back), a)
    assert F.get_size(pil) == [5, 6] and F.get_dimensions(pil) == [3, 5, 6]


def test_errors():
    img = ember.zeros(3, 8, 8)
    rot = tv_tensors.BoundingBoxes([[1.0, 1.0, 2.0, 2.0, 10.0]], format="XYWHR", canvas_size=(8, 8))
    with pytest.raises(ValueError, match="clamping_mode must be"):
        F.clamp_bounding_boxes(rot, clamping_mode="always")
    boxes = tv_tensors.BoundingBoxes([[1, 1, 2, 2]], format="XYXY", canvas_size=(8, 8))
    with pytest.raises(ValueError, match="not supported with bounding boxes"):
        F.pad(boxes, 2, padding_mode="reflect")
    with pytest.raises(TypeError, match="supports inputs of type"):
        F.resize("image", [4, 4])
    with pytest.raises(ValueError, match="multiple HxW"):
        v2.RandomCrop(4)(tv_tensors.Image(img), tv_tensors.Mask(ember.zeros(7, 8)))
    with pytest.raises(TypeError, match="not supported by AutoAugment"):
        v2.AutoAugment()(tv_tensors.Image(img), boxes)
    with pytest.raises(ValueError, match="format`, `canvas_size` and `clamping_mode`"):
        F.clamp_bounding_boxes(ember.zeros(1, 4))
    with pytest.raises(ValueError, match="displacement shape"):
        F.elastic(img, ember.zeros(1, 4, 4, 2))
    with pytest.raises(TypeError, match="bits must be"):
        F.posterize(img, 9)
    with pytest.raises(TypeError, match="Threshold should be less"):
        F.solarize(img, 2.0)
    with pytest.raises(ValueError, match="kernel_size should have odd"):
        F.gaussian_blur(img, 4)
    with pytest.raises(ValueError, match="Required crop size"):
        v2.RandomCrop(10)(img)
    with pytest.raises(ValueError, match="between 0 and 1"):
        v2.RandomPerspective(distortion_scale=1.5)
    with pytest.raises(ValueError, match=r"`p` should be"):
        v2.RandomHorizontalFlip(p=2)
    with pytest.raises(TypeError, match="float tensor"):
        F.normalize(ember.zeros(3, 2, 2, dtype=ember.uint8), [0.0] * 3, [1.0] * 3)
    with pytest.raises(ValueError, match="Cannot convert between rotated"):
        F.convert_bounding_box_format(rot, new_format="XYXY")
    with pytest.raises(ValueError, match="No dtype was specified"):
        v2.ToDtype({tv_tensors.Image: ember.float32})(tv_tensors.Mask(ember.zeros(2, 2)))


def test_sanitize_keypoints_and_jpeg():
    kp = tv_tensors.KeyPoints([[1.0, 1.0], [-1.0, 2.0], [3.0, 7.5], [3.0, 8.0]], canvas_size=(8, 4))
    labels = ember.tensor([1, 2, 3, 4])
    out = v2.SanitizeKeyPoints(labels_getter=lambda s: s[1])((kp, labels))
    assert out[0].tolist() == [[1.0, 1.0], [3.0, 7.5]] and out[1].tolist() == [1, 3]
    groups = ember.tensor([[[1.0, 1.0], [2.0, 2.0]], [[1.0, 1.0], [9.0, 2.0]]])
    kept, valid = F.sanitize_keypoints(groups, canvas_size=(8, 8))
    assert valid.tolist() == [True, False] and kept.shape == (1, 2, 2)
    with pytest.warns(UserWarning, match="passing through inputs of type tv_tensors.Mask"):
        v2.RandomErasing(p=1.0)(tv_tensors.Image(ember.zeros(3, 8, 8)), tv_tensors.Mask(ember.zeros(8, 8)))
    flat = ember.full((2, 3, 8, 8), 77, dtype=ember.uint8)
    assert ember.equal(F.jpeg(flat, 90), flat)  # a constant image survives JPEG exactly
    rng = np.random.default_rng(1)
    smooth = np.kron(rng.integers(0, 256, (3, 4, 4)), np.ones((1, 8, 8))).astype(np.uint8)
    errs = [np.abs(arr(F.jpeg(t(smooth), q)).astype(float) - smooth).mean() for q in (10, 50, 95)]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 10.0  # (4:2:0 chroma subsampling: not lossless at 95)
    img = tv_tensors.Image(t(smooth))
    out = v2.JPEG((20, 30))(img)
    assert type(out) is tv_tensors.Image and out.shape == img.shape
    with pytest.raises(ValueError, match="quality must be an integer from 1 to 100"):
        v2.JPEG(0)
    with pytest.raises(TypeError, match="dtype should be uint8"):
        F.jpeg(ember.zeros(3, 8, 8), 50)


def test_v1_get_params():
    ember.manual_seed(6)
    img = ember.rand(3, 20, 30)
    top, left, h, w = v2.RandomCrop.get_params(img, (5, 6))
    assert (h, w) == (5, 6) and 0 <= top <= 15 and 0 <= left <= 24
    angle, (tx, ty), scale, (sx, sy) = v2.RandomAffine.get_params(
        [-10.0, 10.0], [0.1, 0.2], [0.9, 1.1], [-5.0, 5.0], [30, 20]
    )
    assert -10 <= angle <= 10 and abs(tx) <= 3 and abs(ty) <= 4 and 0.9 <= scale <= 1.1 and sy == 0.0
    start, end = v2.RandomPerspective.get_params(30, 20, 0.5)
    assert start == [[0, 0], [29, 0], [29, 19], [0, 19]]
    assert 0 <= end[0][0] <= 7 and 22 <= end[1][0] <= 29 and 14 <= end[2][1] <= 19
    assert 0.1 <= v2.GaussianBlur.get_params(0.1, 2.0) <= 2.0
    assert v2.ElasticTransform.get_params([50.0, 50.0], [1.0, 1.0], [20, 30]).shape == (1, 20, 30, 2)
    pid, probs, signs = v2.AutoAugment.get_params(25)
    assert 0 <= pid < 25 and probs.shape == (2,) and set(signs.tolist()) <= {0, 1}
    # the v1 draws are the v2 draws: the same seed gives the same window
    ember.manual_seed(9)
    p = v2.RandomAffine(10, translate=(0.1, 0.2), scale=(0.9, 1.1), shear=5).make_params([img])
    ember.manual_seed(9)
    q = v2.RandomAffine.get_params([-10.0, 10.0], [0.1, 0.2], [0.9, 1.1], [-5.0, 5.0], [30, 20])
    assert (p["angle"], p["translate"], p["scale"], p["shear"]) == q


@pytest.mark.parametrize("fmt", ["XYXY", "CXCYWH", "XYWHR", "XYXYXYXY"])
def test_empty_boxes_and_keypoints(fmt):
    k = {"XYWHR": 5, "XYXYXYXY": 8}.get(fmt, 4)
    boxes = tv_tensors.BoundingBoxes(ember.zeros(0, k), format=fmt, canvas_size=(10, 12))
    points = tv_tensors.KeyPoints(ember.zeros(0, 2), canvas_size=(10, 12))
    calls = [
        F.horizontal_flip,
        lambda x: F.resize(x, [5, 6]),
        lambda x: F.crop(x, 1, 1, 5, 5),
        lambda x: F.pad(x, 2),
        lambda x: F.rotate(x, 30.0, expand=True),
        lambda x: F.affine(x, 10.0, [1, 1], 1.0, 0.0),
        lambda x: F.perspective(x, [[0, 0], [11, 0], [11, 9], [0, 9]], [[1, 1], [10, 0], [11, 9], [0, 8]]),
        lambda x: F.elastic(x, ember.zeros(1, 10, 12, 2)),
    ]
    for call in calls:
        for x in (boxes, points):
            out = call(x)
            assert type(out) is type(x) and out.shape == (0, x.shape[1])
    assert F.clamp_bounding_boxes(boxes).shape == (0, k) and F.sanitize_bounding_boxes(boxes)[1].shape == (0,)
    # torchvision returns empty boxes of an affine map as they are, canvas included (even with expand)
    assert F.rotate(boxes, 90.0, expand=True).canvas_size == (10, 12)


def test_pickle_copy_and_custom_transforms():
    import pickle

    boxes = tv_tensors.BoundingBoxes([[1, 2, 3, 4]], format="XYWH", canvas_size=(5, 6), clamping_mode="hard")
    for b in (pickle.loads(pickle.dumps(boxes)), copy.copy(boxes), copy.deepcopy(boxes)):
        assert type(b) is tv_tensors.BoundingBoxes and b.tolist() == [[1, 2, 3, 4]]
        assert b.format is tv_tensors.BoundingBoxFormat.XYWH and b.canvas_size == (5, 6) and b.clamping_mode == "hard"
    img = tv_tensors.Image(ember.rand(3, 2, 2), requires_grad=True)
    back = pickle.loads(pickle.dumps(img))
    assert type(back) is tv_tensors.Image and back.requires_grad and ember.equal(back, img)

    class AddNoiseToImages(v2.Transform):
        def make_params(self, flat_inputs):
            return {"shift": float(len(flat_inputs))}

        def transform(self, inpt, params):
            if isinstance(inpt, tv_tensors.Image):
                return tv_tensors.wrap(inpt.as_subclass(ember.Tensor) + params["shift"], like=inpt)
            return inpt

    sample = {"image": tv_tensors.Image(ember.zeros(1, 2, 2)), "boxes": boxes, "label": 1}
    out = AddNoiseToImages()(sample)
    # make_params saw the image and the boxes (the int label is not a transformed type)
    assert out["image"].tolist() == [[[2.0, 2.0], [2.0, 2.0]]] and out["boxes"] is boxes and out["label"] == 1


def test_gaussian_noise_statistics():
    ember.manual_seed(12)
    x = ember.full((1, 120, 120), 0.5)
    y = F.gaussian_noise(x, mean=0.1, sigma=0.2, clip=False) - x
    assert abs(y.mean().item() - 0.1) < 0.01 and abs(y.std().item() - 0.2) < 0.01
    clipped = v2.GaussianNoise(sigma=1.0)(tv_tensors.Image(x))
    assert type(clipped) is tv_tensors.Image and clipped.min().item() == 0.0 and clipped.max().item() == 1.0
    u8 = F.gaussian_noise(ember.full((1, 120, 120), 100, dtype=ember.uint8), mean=0.1, sigma=0.05)
    assert u8.dtype == ember.uint8 and abs(u8.float().mean().item() - 125.0) < 1.0
    with pytest.raises(ValueError, match="uint8 or float"):
        F.gaussian_noise(ember.zeros(1, 2, 2, dtype=ember.int32))
