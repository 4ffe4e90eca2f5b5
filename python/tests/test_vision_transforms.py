"""ember.vision.transforms against torchvision 0.14's results (fixtures/vision/torchvision_transforms.npz, written by
fixtures/vision/make_torchvision_fixtures.py), NumPy references and closed forms; randomness and its seeding;
error messages."""

import colorsys
import math
import os

import numpy as np
import pytest

import ember
from ember.vision import transforms as T
from ember.vision.transforms import InterpolationMode as IM
from ember.vision.transforms import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REF = dict(np.load(os.path.join(HERE, "fixtures", "vision", "torchvision_transforms.npz")))


def t(a):
    return ember.from_numpy(np.ascontiguousarray(a).copy())


def close(got, ref, uint8_slack=0):
    """Floats to 2e-6; uint8 exactly, except `uint8_slack` pixels that may be 1 off (float rounding ties)."""
    got = got.numpy() if isinstance(got, ember.Tensor) else got
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, ref.shape, got.dtype, ref.dtype)
    diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    if ref.dtype == np.uint8:
        assert diff.max() <= 1 and (diff > 0).sum() <= uint8_slack, (diff.max(), (diff > 0).sum())
    else:
        assert diff.max() <= 2e-6, diff.max()


IMGS = {k: REF[k] for k in ("u8", "f32", "gray")}
MODES = {"nearest": IM.NEAREST, "bilinear": IM.BILINEAR, "bicubic": IM.BICUBIC}


# ---------------------------------------------------------------------------- against torchvision

RESIZE_CASES = [
    (src, mode, aa, size)
    for src in ("u8", "f32")
    for mode in MODES
    for aa in ((False,) if mode == "nearest" else (False, True))
    for size in ("7x20", "5")
]


@pytest.mark.parametrize("src, mode, aa, size", RESIZE_CASES)
def test_resize_matches_torchvision(src, mode, aa, size):
    out = F.resize(t(IMGS[src]), [7, 20] if size == "7x20" else 5, MODES[mode], antialias=aa)
    close(out, REF["resize_%s_%s_%d_%s" % (src, mode, aa, size)], uint8_slack=3)


@pytest.mark.parametrize("src", ["u8", "f32"])
def test_geometry_matches_torchvision(src):
    img = t(IMGS[src])
    close(F.resize(img, 6, max_size=7), REF["resize_%s_maxsize" % src])
    for mode in ("nearest", "bilinear"):
        m = MODES[mode]
        close(F.rotate(img, 30.0, m), REF["rotate_%s_%s_30" % (src, mode)])
        close(F.rotate(img, -75.0, m, expand=True), REF["rotate_%s_%s_-75_expand" % (src, mode)])
        fill = [0.5, 0.25, 1.0] if src == "f32" else [9, 200, 31]
        close(F.rotate(img, 40.0, m, center=[2, 3], fill=fill), REF["rotate_%s_%s_40_center_fill" % (src, mode)])
    close(F.rotate(img, 90.0), REF["rotate_%s_90" % src])
    close(F.rotate(img, 15.0, fill=3.0 if src == "u8" else 0.75), REF["rotate_%s_nearest_fill_scalar" % src])
    for mode in ("constant", "edge", "reflect", "symmetric"):
        close(
            F.pad(img, [2, 1, 3, 4], padding_mode=mode, fill=7 if mode == "constant" else 0),
            REF["pad_%s_%s" % (src, mode)],
        )
    close(F.resized_crop(img, 2, 3, 6, 9, [8, 5]), REF["resized_crop_%s" % src], uint8_slack=1)
    close(F.crop(img, -2, 10, 6, 7), REF["crop_%s_out" % src])
    close(F.center_crop(img, [5, 20]), REF["center_crop_%s" % src])
    gray = t(IMGS["gray"])
    close(F.rotate(gray, 33.0, IM.BILINEAR, expand=True), REF["rotate_gray_bilinear_33"])


@pytest.mark.parametrize("src", ["u8", "f32"])
def test_color_matches_torchvision(src):
    img = t(IMGS[src])
    for fac in (0.3, 1.7):
        close(F.adjust_brightness(img, fac), REF["brightness_%s_%s" % (src, fac)])
        close(F.adjust_contrast(img, fac), REF["contrast_%s_%s" % (src, fac)])
        close(F.adjust_saturation(img, fac), REF["saturation_%s_%s" % (src, fac)])
    for h in (-0.4, 0.13, 0.5):
        close(F.adjust_hue(img, h), REF["hue_%s_%s" % (src, h)])
    close(F.rgb_to_grayscale(img), REF["gray1_%s" % src])
    close(F.rgb_to_grayscale(img, 3), REF["gray3_%s" % src])
    close(F.adjust_contrast(t(IMGS["gray"]), 0.6), REF["contrast_gray"])
    f32 = t(IMGS["f32"])
    close(F.adjust_hue(ember.stack([f32, f32.flip(-1)]), 0.21), REF["hue_batch"])


# ---------------------------------------------------------------------------- NumPy references, closed forms

RNG = np.random.default_rng(0)
HWC = RNG.integers(0, 256, size=(6, 9, 3), dtype=np.uint8)


def test_to_tensor_and_pil_to_tensor():
    x = T.ToTensor()(HWC)
    assert tuple(x.shape) == (3, 6, 9) and x.dtype == ember.float32
    np.testing.assert_allclose(x.numpy(), HWC.transpose(2, 0, 1) / np.float32(255), rtol=0, atol=1e-7)
    np.testing.assert_allclose(F.to_tensor(t(HWC)).numpy(), x.numpy())  # a HWC tensor reads the same
    gray = HWC[..., 0]
    np.testing.assert_allclose(F.to_tensor(t(gray)).numpy(), gray[None] / np.float32(255), atol=1e-7)
    f = RNG.random((4, 5, 2)).astype(np.float64)
    out = F.to_tensor(f)  # other dtypes keep their values
    assert out.dtype == ember.float64
    np.testing.assert_array_equal(out.numpy(), f.transpose(2, 0, 1))
    p = T.PILToTensor()(HWC)
    assert p.dtype == ember.uint8 and p.is_contiguous()
    np.testing.assert_array_equal(p.numpy(), HWC.transpose(2, 0, 1))
    with pytest.raises(TypeError, match="NumPy array or an ember tensor"):
        F.to_tensor([[1, 2]])
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional. Got 4 dimensions."):
        F.to_tensor(np.zeros((1, 2, 3, 4), np.uint8))
    with pytest.raises(TypeError, match="NumPy array"):
        T.PILToTensor()(t(HWC))


def test_convert_image_dtype():
    u8 = t(HWC.transpose(2, 0, 1))
    f = F.convert_image_dtype(u8, ember.float32)
    np.testing.assert_allclose(f.numpy(), HWC.transpose(2, 0, 1) / np.float32(255), atol=1e-7)
    back = F.convert_image_dtype(f, ember.uint8)
    np.testing.assert_array_equal(back.numpy(), HWC.transpose(2, 0, 1))  # x/255 * 255.999 truncates back to x
    vals = ember.tensor([0.0, 0.5, 1.0])
    np.testing.assert_array_equal(F.convert_image_dtype(vals, ember.uint8).numpy(), [0, 127, 255])
    np.testing.assert_array_equal(
        F.convert_image_dtype(ember.tensor([0, 1, 255], dtype=ember.uint8), ember.int16).numpy(), [0, 128, 32640]
    )
    np.testing.assert_array_equal(
        F.convert_image_dtype(ember.tensor([0, 255, 32767], dtype=ember.int16), ember.uint8).numpy(), [0, 1, 255]
    )  # floor(x / 128)
    assert T.ConvertImageDtype(ember.float64)(u8).dtype == ember.float64
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        F.convert_image_dtype(vals, ember.int32)


def test_normalize():
    x = ember.from_numpy(RNG.random((2, 3, 4, 5)).astype(np.float32))
    mean, std = (0.1, 0.2, 0.3), (0.5, 0.25, 2.0)
    ref = (x.numpy() - np.array(mean, np.float32)[:, None, None]) / np.array(std, np.float32)[:, None, None]
    out = T.Normalize(mean, std)(x)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)
    assert out.data_ptr() != x.data_ptr()
    y = x.clone()
    assert F.normalize(y, mean, std, inplace=True) is y
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6)
    with pytest.raises(TypeError, match="Input tensor should be a float tensor. Got ember.uint8."):
        F.normalize(t(HWC.transpose(2, 0, 1)), mean, std)
    with pytest.raises(ValueError, match="std evaluated to zero after conversion to ember.float32"):
        F.normalize(x, mean, (1.0, 0.0, 1.0))
    with pytest.raises(ValueError, match=r"Expected tensor to be a tensor image of size \(..., C, H, W\)"):
        F.normalize(ember.zeros(3, 3), mean, std)
    with pytest.raises(TypeError, match="img should be Tensor Image"):
        F.normalize(HWC, mean, std)


def test_flips_crops_pads_against_numpy():
    chw = HWC.transpose(2, 0, 1)
    x = t(chw)
    np.testing.assert_array_equal(F.hflip(x).numpy(), chw[..., ::-1])
    np.testing.assert_array_equal(F.vflip(x).numpy(), chw[..., ::-1, :])
    np.testing.assert_array_equal(F.crop(x, 1, 2, 3, 4).numpy(), chw[:, 1:4, 2:6])
    np.testing.assert_array_equal(F.center_crop(x, 4).numpy(), chw[:, 1:5, 2:6])
    out = F.center_crop(x, [8, 11])  # larger than the image: zero padding around it
    ref = np.zeros((3, 8, 11), np.uint8)
    ref[:, 1:7, 1:10] = chw
    np.testing.assert_array_equal(out.numpy(), ref)
    for mode, np_mode in (("edge", "edge"), ("reflect", "reflect"), ("symmetric", "symmetric")):
        for padding in ([1, 2, 3, 4], 2, [3, 1]):
            ltrb = F._padding_ltrb(padding)
            ref = np.pad(chw, ((0, 0), (ltrb[1], ltrb[3]), (ltrb[0], ltrb[2])), mode=np_mode)
            np.testing.assert_array_equal(F.pad(x, padding, padding_mode=mode).numpy(), ref)
    ref = np.pad(chw, ((0, 0), (1, 2), (3, 0)), constant_values=0)
    ref[0, :1], ref[1, :1], ref[2, :1] = 5, 6, 7
    got = F.pad(x, [3, 1, 0, 2], fill=(5, 6, 7)).numpy()
    for c, v in enumerate((5, 6, 7)):
        assert (got[c, :1] == v).all() and (got[c, :, :3] == v).all() and (got[c, -2:] == v).all()
    np.testing.assert_array_equal(got[:, 1:7, 3:], chw)
    # negative padding crops
    np.testing.assert_array_equal(
        F.pad(x, [-1, 0, 2, -2], padding_mode="edge").numpy(),
        np.pad(chw[:, 0:4, 1:], ((0, 0), (0, 0), (0, 2)), mode="edge"),
    )
    # symmetric padding wider than the image repeats the mirror
    small = np.arange(3, dtype=np.uint8).reshape(1, 1, 3)
    np.testing.assert_array_equal(
        F.pad(t(small), [7, 0, 0, 0], padding_mode="symmetric").numpy(),
        np.pad(small, ((0, 0), (0, 0), (7, 0)), mode="symmetric"),
    )
    with pytest.raises(ValueError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(t(small), [3, 0, 0, 0], padding_mode="reflect")
    with pytest.raises(ValueError, match="Padding must be an int or a 1, 2, or 4 element tuple, not a 3 element"):
        F.pad(x, [1, 2, 3])
    with pytest.raises(ValueError, match="Padding mode should be either constant, edge, reflect or symmetric"):
        F.pad(x, 1, padding_mode="wrap")
    with pytest.raises(TypeError, match="inappropriate padding"):
        F.pad(x, 1.5)


def test_rotation_closed_forms():
    sq = t(RNG.integers(0, 256, size=(2, 7, 7), dtype=np.uint8))
    a = sq.numpy()
    np.testing.assert_array_equal(F.rotate(sq, 90.0).numpy(), np.rot90(a, 1, axes=(1, 2)))  # counter-clockwise
    np.testing.assert_array_equal(F.rotate(sq, -90.0).numpy(), np.rot90(a, -1, axes=(1, 2)))
    np.testing.assert_array_equal(F.rotate(sq, 180.0, IM.BILINEAR).numpy(), a[:, ::-1, ::-1])
    np.testing.assert_array_equal(F.rotate(sq, 360.0, IM.BILINEAR).numpy(), a)
    rect = t(RNG.random((3, 4, 6)).astype(np.float32))
    out = F.rotate(rect, 90.0, expand=True)
    assert tuple(out.shape) == (3, 6, 4)
    np.testing.assert_array_equal(out.numpy(), np.rot90(rect.numpy(), 1, axes=(1, 2)))
    # 45 degrees with expand: the bounding box of the rotated square
    out = F.rotate(t(np.ones((1, 10, 10), np.float32)), 45.0, IM.BILINEAR, expand=True)
    # the rotated corners span 5 -+ 5 sqrt(2) about the input's center: floor/ceil as torchvision and PIL do
    side = math.ceil(5 + 5 * math.sqrt(2)) - math.floor(5 - 5 * math.sqrt(2))
    assert tuple(out.shape) == (1, side, side)
    assert abs(float(out.sum()) - 100.0) < 1.0  # bilinear sampling keeps the area up to the edge pixels
    # an array image comes back as an array of the same layout
    arr = F.rotate(HWC, 180.0)
    assert isinstance(arr, np.ndarray) and arr.shape == HWC.shape
    np.testing.assert_array_equal(arr, HWC[::-1, ::-1])
    with pytest.raises(TypeError, match="Argument angle should be int or float"):
        F.rotate(sq, "90")
    with pytest.raises(ValueError, match="center should be a sequence of length 2"):
        F.rotate(sq, 10.0, center=[1])
    with pytest.raises(ValueError, match="does not match the number of channels"):
        F.rotate(sq, 10.0, fill=[1, 2, 3])


def test_resize_closed_forms():
    x = t(RNG.integers(0, 256, size=(3, 4, 5), dtype=np.uint8))
    up = F.resize(x, [8, 10], IM.NEAREST)
    np.testing.assert_array_equal(up.numpy(), x.numpy().repeat(2, axis=1).repeat(2, axis=2))
    const = ember.full((1, 5, 7), 0.25)
    for mode in (IM.BILINEAR, IM.BICUBIC):
        np.testing.assert_allclose(F.resize(const, [3, 11], mode).numpy(), 0.25, atol=1e-6)
    assert tuple(F.resize(x, 2).shape) == (3, 2, 2)  # smaller edge 4 -> 2, 5 -> int(2 * 5 / 4) = 2
    assert tuple(F.resize(t(np.zeros((1, 10, 30), np.float32)), 5).shape) == (1, 5, 15)
    assert tuple(F.resize(t(np.zeros((2, 3, 10, 30), np.float32)), 5).shape) == (2, 3, 5, 15)
    arr = T.Resize((3, 2))(HWC)
    assert isinstance(arr, np.ndarray) and arr.shape == (3, 2, 3) and arr.dtype == np.uint8
    assert T.Resize(4, interpolation="nearest").interpolation == IM.NEAREST
    with pytest.raises(TypeError, match="Size should be int or sequence. Got str"):
        F.resize(x, "big")
    with pytest.raises(ValueError, match="If size is a sequence, it should have 1 or 2 values"):
        T.Resize([1, 2, 3])
    with pytest.raises(ValueError, match="max_size = 3 must be strictly greater"):
        F.resize(x, 4, max_size=3)
    with pytest.raises(ValueError, match="cannot resize an empty image of size 0x5"):
        F.resize(ember.zeros(3, 0, 5), 4)
    with pytest.raises(ValueError, match="unknown interpolation mode 'cubic'"):
        F.resize(x, 4, "cubic")


def test_grayscale_and_hue_against_numpy():
    rgb = RNG.random((3, 5, 6))
    x = t(rgb)  # float64
    ref = 0.2989 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    np.testing.assert_allclose(F.rgb_to_grayscale(x).numpy()[0], ref, rtol=1e-12)
    np.testing.assert_allclose(T.Grayscale(3)(x).numpy(), np.stack([ref] * 3), rtol=1e-12)
    u8 = HWC.transpose(2, 0, 1)
    f = u8.astype(np.float32)
    ref8 = (np.float32(0.2989) * f[0] + np.float32(0.587) * f[1] + np.float32(0.114) * f[2]).astype(np.uint8)
    np.testing.assert_array_equal(F.rgb_to_grayscale(t(u8)).numpy()[0], ref8)
    # hue against colorsys (float64)
    for hue in (-0.5, -0.2, 0.0, 0.33):
        out = F.adjust_hue(x, hue).numpy()
        for y, xx in [(0, 0), (2, 3), (4, 5)]:
            h, s, v = colorsys.rgb_to_hsv(*rgb[:, y, xx])
            np.testing.assert_allclose(out[:, y, xx], colorsys.hsv_to_rgb((h + hue) % 1.0, s, v), atol=1e-12)
    np.testing.assert_allclose(F.adjust_hue(x, 0.0).numpy(), rgb, atol=1e-12)
    # float16 goes through float32
    half = F.adjust_hue(x.to(ember.float16), 0.25)
    assert half.dtype == ember.float16
    np.testing.assert_allclose(half.to(ember.float64).numpy(), F.adjust_hue(x, 0.25).numpy(), atol=2e-3)
    # gray images have no hue or saturation
    g = t(RNG.random((1, 3, 3)).astype(np.float32))
    assert ember.equal(F.adjust_hue(g, 0.3), g) and ember.equal(F.adjust_saturation(g, 0.0), g)
    np.testing.assert_allclose(F.adjust_brightness(x, 0.5).numpy(), np.clip(rgb * 0.5, 0, 1), rtol=1e-12)
    arr = F.adjust_hue(HWC, 0.1)
    assert isinstance(arr, np.ndarray) and arr.shape == HWC.shape
    with pytest.raises(ValueError, match=r"hue_factor \(0.7\) is not in \[-0.5, 0.5\]."):
        F.adjust_hue(x, 0.7)
    with pytest.raises(ValueError, match="brightness_factor \\(-1\\) is not non-negative."):
        F.adjust_brightness(x, -1)
    with pytest.raises(TypeError, match=r"permitted channel values are \[1, 3\], but found 4"):
        F.adjust_saturation(ember.zeros(4, 2, 2), 0.5)
    with pytest.raises(ValueError, match="num_output_channels should be either 1 or 3"):
        F.rgb_to_grayscale(x, 2)
    with pytest.raises(TypeError, match="at least 3 dimensions"):
        F.rgb_to_grayscale(ember.zeros(2, 2))


def test_erase():
    x = ember.zeros(3, 5, 5)
    out = F.erase(x, 1, 2, 2, 3, ember.tensor(7.0))
    ref = np.zeros((3, 5, 5), np.float32)
    ref[:, 1:3, 2:5] = 7
    np.testing.assert_array_equal(out.numpy(), ref)
    assert float(x.sum()) == 0.0
    assert F.erase(x, 0, 0, 1, 1, 1.0, inplace=True) is x and float(x.sum()) == 3.0
    with pytest.raises(TypeError, match="img should be Tensor Image"):
        F.erase(HWC, 0, 0, 1, 1, 0)


# ---------------------------------------------------------------------------- random transforms


def test_random_crop_draws_from_ember_generator():
    x = t(RNG.integers(0, 256, size=(3, 10, 12), dtype=np.uint8))
    ember.manual_seed(7)
    out = T.RandomCrop((4, 5))(x)
    ember.manual_seed(7)
    i = int(ember.randint(0, 10 - 4 + 1, (1,)).item())
    j = int(ember.randint(0, 12 - 5 + 1, (1,)).item())
    np.testing.assert_array_equal(out.numpy(), x.numpy()[:, i : i + 4, j : j + 5])
    # padding, then the crop of the padded image
    ember.manual_seed(8)
    out = T.RandomCrop(12, padding=1, fill=9)(x)
    ember.manual_seed(8)
    i, j, h, w = T.RandomCrop.get_params(F.pad(x, 1, fill=9), (12, 12))
    np.testing.assert_array_equal(out.numpy(), F.pad(x, 1, fill=9).numpy()[:, i : i + 12, j : j + 12])
    out = T.RandomCrop((14, 15), pad_if_needed=True, padding_mode="edge")(x)
    assert tuple(out.shape) == (3, 14, 15)
    assert tuple(T.RandomCrop(10)(HWC.repeat(2, 0).repeat(2, 1)).shape) == (10, 10, 3)  # arrays stay HWC
    with pytest.raises(ValueError, match=r"Required crop size \(11, 11\) is larger than input image size \(10, 12\)"):
        T.RandomCrop(11)(x)
    with pytest.raises(ValueError, match="Please provide only two dimensions"):
        T.RandomCrop((1, 2, 3))


def test_flips_are_random_and_seeded():
    x = ember.arange(12.0).view(1, 3, 4)
    assert ember.equal(T.RandomHorizontalFlip(p=1.0)(x), x.flip(-1))
    assert ember.equal(T.RandomHorizontalFlip(p=0.0)(x), x)
    assert ember.equal(T.RandomVerticalFlip(p=1.0)(x), x.flip(-2))
    flip = T.RandomHorizontalFlip()
    ember.manual_seed(3)
    first = [bool(ember.equal(flip(x), x)) for _ in range(40)]
    ember.manual_seed(3)
    second = [bool(ember.equal(flip(x), x)) for _ in range(40)]
    assert first == second and 5 < sum(first) < 35


def test_random_resized_crop():
    x = t(RNG.random((3, 20, 30)).astype(np.float32))
    rrc = T.RandomResizedCrop(8, scale=(0.2, 0.5), ratio=(0.5, 2.0))
    for seed in range(5):
        ember.manual_seed(seed)
        out = rrc(x)
        ember.manual_seed(seed)
        i, j, h, w = T.RandomResizedCrop.get_params(x, (0.2, 0.5), (0.5, 2.0))
        assert 0.2 * 600 * 0.8 <= h * w <= 0.5 * 600 * 1.2 and 0.4 <= w / h <= 2.5
        assert 0 <= i <= 20 - h and 0 <= j <= 30 - w
        np.testing.assert_allclose(out.numpy(), F.resized_crop(x, i, j, h, w, [8, 8]).numpy())
    # no crop fits: the central crop with the ratio clamped
    assert T.RandomResizedCrop.get_params(x, (2.0, 3.0), (1.0, 1.0)) == (0, 5, 20, 20)
    with pytest.raises(ValueError, match=r"Scale and ratio should be of kind \(min, max\)"):
        T.RandomResizedCrop(8, scale=(0.9, 0.1))


def test_color_jitter():
    x = t(RNG.random((3, 6, 7)).astype(np.float32))
    cj = T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
    assert cj.brightness == (0.6, 1.4) and cj.hue == (-0.1, 0.1)
    ember.manual_seed(11)
    out = cj(x)
    ember.manual_seed(11)
    order, b, c, s, h = T.ColorJitter.get_params(cj.brightness, cj.contrast, cj.saturation, cj.hue)
    assert sorted(order) == [0, 1, 2, 3] and 0.6 <= b <= 1.4 and -0.1 <= h <= 0.1
    ref = x
    for k in order:
        ref = [
            lambda y: F.adjust_brightness(y, b),
            lambda y: F.adjust_contrast(y, c),
            lambda y: F.adjust_saturation(y, s),
            lambda y: F.adjust_hue(y, h),
        ][k](ref)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), atol=1e-6)
    assert T.ColorJitter().brightness is None
    assert ember.equal(T.ColorJitter()(x), x)
    with pytest.raises(ValueError, match="If brightness is a single number, it must be non negative."):
        T.ColorJitter(brightness=-1)
    with pytest.raises(ValueError, match=r"hue values should be between \[-0.5, 0.5\]"):
        T.ColorJitter(hue=0.6)
    with pytest.raises(TypeError, match="contrast should be a single number or a list/tuple with length 2."):
        T.ColorJitter(contrast="x")


def test_random_rotation():
    x = t(RNG.random((3, 9, 9)).astype(np.float32))
    assert ember.equal(T.RandomRotation((0, 0))(x), x)
    rr = T.RandomRotation(30, interpolation=IM.BILINEAR, fill=0.5)
    ember.manual_seed(4)
    out = rr(x)
    ember.manual_seed(4)
    angle = T.RandomRotation.get_params(rr.degrees)
    assert -30 <= angle <= 30
    np.testing.assert_array_equal(out.numpy(), F.rotate(x, angle, IM.BILINEAR, fill=[0.5] * 3).numpy())
    # expand measures the rotated box on the input's pixel grid (torchvision's and PIL's rule): for a 2x5 image
    # turned by 90 degrees the corners' x span [1.5, 3.5] and y span [-1.5, 3.5], so the output is 6x3.
    assert T.RandomRotation((90, 90), expand=True)(t(np.zeros((1, 2, 5), np.float32))).shape == (1, 6, 3)
    with pytest.raises(ValueError, match="If degrees is a single number, it must be positive."):
        T.RandomRotation(-3)
    with pytest.raises(ValueError, match="If degrees is a sequence, it must be of len 2."):
        T.RandomRotation([1, 2, 3])


def test_random_erasing():
    x = ember.ones(3, 20, 20)
    er = T.RandomErasing(p=1.0, scale=(0.1, 0.2), ratio=(0.5, 2.0), value=(0.0, 2.0, 3.0))
    ember.manual_seed(5)
    out = er(x)
    ember.manual_seed(5)
    ember.rand(1)  # the p draw
    i, j, h, w, v = T.RandomErasing.get_params(x, (0.1, 0.2), (0.5, 2.0), [0.0, 2.0, 3.0])
    ref = np.ones((3, 20, 20), np.float32)
    ref[:, i : i + h, j : j + w] = np.array([0.0, 2.0, 3.0])[:, None, None]
    np.testing.assert_array_equal(out.numpy(), ref)
    assert 0.1 * 400 * 0.8 <= h * w <= 0.2 * 400 * 1.2
    assert float(x.sum()) == 1200.0  # not in place by default
    noisy = T.RandomErasing(p=1.0, value="random")(x)
    changed = (noisy != 1).sum().item()
    assert 0 < changed <= 0.33 * 400 * 3 * 1.2
    y = x.clone()
    assert T.RandomErasing(p=1.0, inplace=True)(y) is y and float(y.sum()) < 1200
    assert ember.equal(T.RandomErasing(p=0.0)(x), x)
    with pytest.raises(ValueError, match="If value is str, it should be 'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="either a single value or 3"):
        T.RandomErasing(p=1.0, value=(1.0, 2.0))(x)
    with pytest.raises(ValueError, match="Random erasing probability should be between 0 and 1"):
        T.RandomErasing(p=1.5)
    with pytest.raises(TypeError, match="img should be Tensor Image"):
        T.RandomErasing(p=1.0)(HWC)


def test_compose_lambda_and_a_cifar_style_pipeline():
    pipeline = T.Compose(
        [
            T.RandomCrop(32, padding=4),
            T.RandomHorizontalFlip(),
            T.ToTensor(),
            T.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25)),
            T.Lambda(lambda z: z * 2),
        ]
    )
    img = RNG.integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
    ember.manual_seed(1)
    a = pipeline(img)
    ember.manual_seed(1)
    b = pipeline(img)
    assert tuple(a.shape) == (3, 32, 32) and a.dtype == ember.float32 and ember.equal(a, b)
    assert "RandomCrop(size=(32, 32), padding=4)" in repr(pipeline)
    with pytest.raises(TypeError, match="Argument lambd should be callable"):
        T.Lambda(3)
    # transforms work on batches [..., C, H, W]
    batch = ember.rand(2, 4, 3, 8, 8)
    assert tuple(T.CenterCrop(4)(batch).shape) == (2, 4, 3, 4, 4)
    assert tuple(T.Resize((5, 6))(batch).shape) == (2, 4, 3, 5, 6)
    assert tuple(F.rotate(batch, 20.0).shape) == (2, 4, 3, 8, 8)


def test_more_v1_transforms_closed_forms():
    """invert, posterize, solarize, autocontrast, gamma, five/ten crop and the random wrappers against closed forms
    (test_vision_pil.py compares their pixels with torchvision's, tensors and PIL images)."""
    x = t(np.arange(3 * 4 * 5, dtype=np.uint8).reshape(3, 4, 5) * 4)
    a = x.numpy()
    np.testing.assert_array_equal(F.invert(x).numpy(), 255 - a)
    np.testing.assert_array_equal(F.posterize(x, 2).numpy(), a & 0xC0)
    np.testing.assert_array_equal(F.solarize(x, 100).numpy(), np.where(a >= 100, 255 - a, a))
    lo, hi = a.min(axis=(1, 2), keepdims=True), a.max(axis=(1, 2), keepdims=True)
    auto = F.autocontrast(x).numpy().astype(int)
    assert np.abs(auto - (a - lo) * 255.0 / (hi - lo)).max() <= 1
    f = t(np.linspace(0, 1, 12, dtype=np.float32).reshape(1, 3, 4))
    np.testing.assert_allclose(F.adjust_gamma(f, 2.0).numpy(), f.numpy() ** 2, atol=1e-6)
    crops = F.ten_crop(x, [2, 3])
    assert len(crops) == 10
    np.testing.assert_array_equal(crops[1].numpy(), a[:, :2, 2:])
    np.testing.assert_array_equal(crops[4].numpy(), a[:, 1:3, 1:4])
    np.testing.assert_array_equal(crops[5].numpy(), a[:, :2, ::-1][:, :, :3])
    # a constant image is its own blur; blur keeps the mean away from the border
    flat = ember.full((1, 6, 6), 0.25)
    np.testing.assert_allclose(F.gaussian_blur(flat, 5, 1.0).numpy(), 0.25, atol=1e-6)
    assert T.RandomInvert(p=1.0)(x).numpy().tolist() == (255 - a).tolist()
    assert T.RandomEqualize(p=0.0)(x) is x
    assert len(T.FiveCrop(2)(x)) == 5 and len(T.TenCrop((2, 3), vertical_flip=True)(x)) == 10
    out = T.GaussianBlur(3, sigma=0.5)(x)
    assert out.dtype == ember.uint8 and tuple(out.shape) == (3, 4, 5)
    import random

    random.seed(3)
    picks = {T.RandomChoice([T.Lambda(lambda v: 1), T.Lambda(lambda v: 2)], p=[0.0, 1.0])(x) for _ in range(5)}
    assert picks == {2}
    seen = set()
    for _ in range(20):
        seen.add(T.RandomOrder([T.Lambda(lambda v: v + "a"), T.Lambda(lambda v: v + "b")])(""))
    assert seen == {"ab", "ba"}
    with pytest.raises(ValueError, match="between 0 and 8"):
        F.posterize(x, 9)
    with pytest.raises(TypeError, match="uint8"):
        F.equalize(f)
    with pytest.raises(ValueError, match="odd and positive"):
        F.gaussian_blur(x, 4)
    with pytest.raises(ValueError, match="bigger than input size"):
        F.five_crop(x, 7)
    with pytest.raises(ValueError, match="Kernel size value should be an odd"):
        T.GaussianBlur(2)
    with pytest.raises(ValueError, match="Length of p"):
        T.RandomChoice([T.Lambda(abs)], p=[0.5, 0.5])


def test_affine_closed_forms_and_errors():
    x = t(np.arange(2 * 5 * 6, dtype=np.float32).reshape(2, 5, 6))
    # identity and a whole-pixel translation (nearest): exact shifts, zeros coming in
    np.testing.assert_array_equal(F.affine(x, 0.0, [0, 0], 1.0, 0.0).numpy(), x.numpy())
    shifted = F.affine(x, 0.0, [2, 1], 1.0, 0.0).numpy()
    np.testing.assert_array_equal(shifted[:, 1:, 2:], x.numpy()[:, :-1, :-2])
    assert not shifted[:, 0].any() and not shifted[:, :, :2].any()
    # 90 degrees about the center of a square image: a clockwise quarter turn (affine turns clockwise, rotate not)
    sq = t(np.arange(16, dtype=np.float32).reshape(1, 4, 4))
    np.testing.assert_array_equal(F.affine(sq, 90.0, [0, 0], 1.0, 0.0).numpy()[0], np.rot90(sq.numpy()[0], k=-1))
    ember.manual_seed(0)
    out = T.RandomAffine(10, translate=(0.1, 0.2), scale=(0.9, 1.1), shear=(-5, 5, -3, 3))(x)
    assert tuple(out.shape) == (2, 5, 6)
    with pytest.raises(TypeError, match="angle"):
        F.affine(x, "a", [0, 0], 1.0, 0.0)
    with pytest.raises(ValueError, match="scale should be positive"):
        F.affine(x, 0.0, [0, 0], 0.0, 0.0)
    with pytest.raises(ValueError, match="translate should be a sequence of length 2"):
        F.affine(x, 0.0, [0], 1.0, 0.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        T.RandomAffine(0, translate=(0.1, 2))
    with pytest.raises(ValueError, match="len 2 or 4"):
        T.RandomAffine(0, shear=(1, 2, 3))
    with pytest.raises(ValueError, match="must be positive"):
        T.RandomAffine(-3)


def test_automatic_augmentation_runs_and_is_seeded():
    """AutoAugment, RandAugment, TrivialAugmentWide: reproducible under ember.manual_seed, the input's type and shape
    kept; every op with a fixed magnitude matches torchvision in test_vision_pil.py."""
    x = t(np.random.default_rng(0).integers(0, 256, (3, 12, 14), dtype=np.uint8))
    for aug in (
        T.AutoAugment(),
        T.AutoAugment(T.AutoAugmentPolicy.CIFAR10, fill=4),
        T.AutoAugment(T.AutoAugmentPolicy.SVHN),
        T.RandAugment(num_ops=3, magnitude=12, fill=[1, 2, 3]),
        T.TrivialAugmentWide(interpolation=IM.BILINEAR),
        T.AugMix(),
        T.AugMix(severity=5, mixture_width=2, chain_depth=2, all_ops=False, fill=[0, 0, 0]),
    ):
        outs = []
        for _ in range(2):
            ember.manual_seed(11)
            outs.append([aug(x).numpy() for _ in range(6)])
        for a, b in zip(*outs):
            assert a.shape == (3, 12, 14) and a.dtype == np.uint8
            np.testing.assert_array_equal(a, b)
    assert len(T.AutoAugment().policies) == 25
    with pytest.raises(ValueError, match="policy"):
        T.AutoAugment("imagenet")
    with pytest.raises(ValueError, match="not recognized"):
        from ember.vision.transforms.autoaugment import _apply_op

        _apply_op(x, "Blur", 1.0, IM.NEAREST, None)


def test_perspective_closed_forms_and_errors():
    x = t(np.arange(2 * 6 * 7, dtype=np.float32).reshape(2, 6, 7))
    corners = [[0, 0], [6, 0], [6, 5], [0, 5]]
    # the identity warp, and a pure translation by one pixel (nearest: exact shift)
    np.testing.assert_allclose(F.perspective(x, corners, corners).numpy(), x.numpy(), atol=1e-4)
    moved = [[1, 0], [7, 0], [7, 5], [1, 5]]
    out = F.perspective(x, corners, moved, IM.NEAREST).numpy()
    np.testing.assert_array_equal(out[:, :, 1:], x.numpy()[:, :, :-1])
    coeffs = F._perspective_coeffs(corners, moved)
    np.testing.assert_allclose(coeffs, [1, 0, -1, 0, 1, 0, 0, 0], atol=1e-6)
    ember.manual_seed(1)
    y = T.RandomPerspective(0.6, p=1.0)(x)
    assert tuple(y.shape) == (2, 6, 7)
    assert T.RandomPerspective(p=0.0)(x) is x
    with pytest.raises(ValueError, match="exactly four corners"):
        F.perspective(x, corners[:3], corners)
    with pytest.raises(ValueError, match="nearest and bilinear"):
        F.perspective(x, corners, moved, IM.BICUBIC)


def test_augmix_weights_and_elastic_and_linear():
    ember.manual_seed(2)
    x = t(np.random.default_rng(1).integers(0, 256, (3, 8, 9), dtype=np.uint8))
    y = T.AugMix(severity=2)(x)
    assert y.dtype == ember.uint8 and tuple(y.shape) == (3, 8, 9)
    with pytest.raises(ValueError, match="severity"):
        T.AugMix(severity=11)
    # elastic: a zero displacement is the identity; a uniform displacement of 2/W in x shifts by one pixel
    f = t(np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5))
    zero = ember.zeros(1, 4, 5, 2)
    np.testing.assert_allclose(F.elastic_transform(f, zero).numpy(), f.numpy(), atol=1e-5)
    shift = ember.zeros(1, 4, 5, 2)
    shift[..., 0] = 2.0 / 5
    out = F.elastic_transform(f, shift, IM.NEAREST).numpy()
    np.testing.assert_array_equal(out[:, :, :-1], f.numpy()[:, :, 1:])
    with pytest.raises(ValueError, match="displacement shape"):
        F.elastic_transform(f, ember.zeros(1, 3, 5, 2))
    ember.manual_seed(0)
    big = ember.rand(3, 24, 24)
    assert tuple(T.ElasticTransform(alpha=20.0, sigma=2.0)(big).shape) == (3, 24, 24)
    with pytest.raises(TypeError, match="alpha"):
        T.ElasticTransform(alpha=5)
    m = t(np.eye(40, dtype=np.float32)[::-1].copy())
    v = ember.ones(40)
    z = T.LinearTransformation(m, v)(f)
    np.testing.assert_allclose(z.numpy().reshape(-1), (f.numpy().reshape(-1) - 1)[::-1], atol=1e-6)
    with pytest.raises(ValueError, match="square"):
        T.LinearTransformation(ember.zeros(2, 3), ember.zeros(2))
    with pytest.raises(ValueError, match="incompatible shape"):
        T.LinearTransformation(ember.eye(3), ember.zeros(3))(f)
