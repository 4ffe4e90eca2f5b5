"""PIL images in ember.vision (issue 24): the v1 transforms and transforms.functional take PIL images and return PIL
images where torchvision's do, with torchvision's pixels (vision_pil_cases.py runs under both libraries); the
conversions (to_tensor, pil_to_tensor, to_pil_image); the loaders and ImageFolder with torchvision's extensions;
pytorch/examples' super_resolution input pipeline. Skipped where Pillow is not installed."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember.vision import datasets
from ember.vision import transforms as T
from ember.vision.transforms import functional as F

Image = pytest.importorskip("PIL.Image")

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PY = "/opt/torch2/py"

REF_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import torch
    from torchvision import transforms as T
    from torchvision.transforms import functional as F
    sys.path.insert(0, sys.argv[2])
    from vision_pil_cases import results
    np.savez(sys.argv[1], **results(torch, T, F))
    """
)


BILINEAR_UINT8_TENSOR = {"aa_%s_t" % op for op in ("ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate")}
BILINEAR_UINT8_TENSOR |= {"t_%s_%s" % (f, n) for f in ("perspective", "affine_bil") for n in ("u8", "low", "batch")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    d = tmp_path_factory.mktemp("tvpil")
    (d / "ref.py").write_text(REF_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    subprocess.run([TORCH_PY, str(d / "ref.py"), str(d / "ref.npz"), HERE], check=True, env=env, timeout=300)
    return dict(np.load(d / "ref.npz"))


def test_pil_cases_match_torchvision(reference):
    sys.path.insert(0, HERE)
    try:
        from vision_pil_cases import results
    finally:
        sys.path.remove(HERE)
    mine = results(ember, T, F)
    assert sorted(mine) == sorted(reference)
    for k in sorted(mine):
        if k.endswith("__mode"):
            assert str(mine[k]) == str(reference[k]), k
            continue
        assert mine[k].dtype == reference[k].dtype and mine[k].shape == reference[k].shape, (k, mine[k].shape)
        if mine[k].dtype.kind == "f":
            np.testing.assert_allclose(mine[k], reference[k], rtol=0, atol=1e-6, err_msg=k)
        elif k in BILINEAR_UINT8_TENSOR:
            # Bilinear grid sampling of uint8 tensors is computed in float32 and rounded back: a last-bit difference
            # in grid_sample's weights flips a value sitting on .5 (as in test_vision_transforms' uint8_slack).
            diff = np.abs(mine[k].astype(int) - reference[k].astype(int))
            assert diff.max() <= 1 and (diff > 0).mean() <= 0.02, (k, diff.max(), (diff > 0).mean())
        else:
            np.testing.assert_array_equal(mine[k], reference[k], err_msg=k)


def rgb_image(h=13, w=17, seed=0):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8))


def test_transforms_keep_pil_images():
    img = rgb_image()
    for t in (
        T.Resize(7),
        T.CenterCrop(5),
        T.Pad(2),
        T.RandomCrop(6),
        T.RandomResizedCrop(8),
        T.RandomHorizontalFlip(),
        T.RandomVerticalFlip(),
        T.ColorJitter(0.3, 0.3, 0.3, 0.1),
        T.RandomRotation(20),
        T.Grayscale(),
        T.RandomGrayscale(1.0),
        T.RandomApply([T.CenterCrop(4)], p=1.0),
    ):
        out = t(img)
        assert isinstance(out, Image.Image), t
    assert T.RandomResizedCrop(8)(img).size == (8, 8)
    assert T.Grayscale()(img).mode == "L"
    # Closed forms: a flip of a PIL image is the array flipped; a crop is the array slice.
    arr = np.asarray(img)
    np.testing.assert_array_equal(np.asarray(F.hflip(img)), arr[:, ::-1])
    np.testing.assert_array_equal(np.asarray(F.crop(img, 2, 3, 4, 5)), arr[2:6, 3:8])
    np.testing.assert_array_equal(np.asarray(F.center_crop(img, [5, 7])), arr[4:9, 5:12])


def test_tensor_only_functions_refuse_pil():
    img = rgb_image()
    with pytest.raises(TypeError, match="Tensor Image"):
        F.normalize(img, [0.5], [0.5])
    with pytest.raises(TypeError, match="Tensor Image"):
        F.erase(img, 0, 0, 1, 1, 0)
    with pytest.raises(TypeError):
        F.convert_image_dtype(img)
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(img, 0.7)
    with pytest.raises(ValueError, match="brightness_factor"):
        F.adjust_brightness(img, -1)
    with pytest.raises(ValueError, match="fill"):
        F.rotate(img, 10, fill=[1, 2])
    with pytest.raises(ValueError, match="Padding mode"):
        F.pad(img, 1, padding_mode="wrap")


def test_conversions_closed_form():
    img = rgb_image(4, 5)
    arr = np.asarray(img)
    x = F.to_tensor(img)
    assert x.dtype == ember.float32 and tuple(x.shape) == (3, 4, 5)
    np.testing.assert_allclose(x.numpy(), arr.transpose(2, 0, 1) / 255.0, atol=1e-7)
    y = F.pil_to_tensor(img)
    assert y.dtype == ember.uint8
    np.testing.assert_array_equal(y.numpy(), arr.transpose(2, 0, 1))
    back = F.to_pil_image(y)
    assert back.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(back), arr)
    one = Image.fromarray(np.array([[0, 1], [1, 0]], dtype=bool))
    np.testing.assert_array_equal(F.to_tensor(one).numpy()[0], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="> 4 channels"):
        F.to_pil_image(ember.zeros(5, 2, 2))
    with pytest.raises(ValueError, match="Incorrect mode"):
        F.to_pil_image(ember.zeros(1, 2, 2, dtype=ember.uint8), mode="F")
    with pytest.raises(ValueError, match="Only modes"):
        F.to_pil_image(ember.zeros(3, 2, 2, dtype=ember.uint8), mode="RGBA")
    with pytest.raises(TypeError, match="pic should be"):
        F.to_tensor([1, 2])


def test_super_resolution_pipeline():
    """pytorch/examples' super_resolution: CenterCrop, Resize and ToTensor on the Y channel of a YCbCr PIL image."""
    img = rgb_image(40, 50)
    y, _, _ = img.convert("YCbCr").split()
    crop = 32
    input_t = T.Compose([T.CenterCrop(crop), T.Resize(crop // 4), T.ToTensor()])
    target_t = T.Compose([T.CenterCrop(crop), T.ToTensor()])
    x, t = input_t(y), target_t(y)
    assert tuple(x.shape) == (1, 8, 8) and tuple(t.shape) == (1, 32, 32)
    expect = np.asarray(y)[4:36, 9:41] / 255.0
    np.testing.assert_allclose(t.numpy()[0], expect, atol=1e-7)
    small = np.asarray(y.crop((9, 4, 41, 36)).resize((8, 8), Image.BILINEAR)) / 255.0
    np.testing.assert_allclose(x.numpy()[0], small, atol=1e-7)


def write_images(root):
    """One file of each of torchvision's IMG_EXTENSIONS, written by Pillow; returns {path: RGB array}."""
    rng = np.random.default_rng(5)
    files = {}
    fmts = {
        ".jpg": "JPEG",
        ".jpeg": "JPEG",
        ".png": "PNG",
        ".ppm": "PPM",
        ".bmp": "BMP",
        ".pgm": "PPM",
        ".tif": "TIFF",
        ".tiff": "TIFF",
        ".webp": "WEBP",
    }
    for i, (ext, fmt) in enumerate(fmts.items()):
        cls = "a" if i % 2 else "b"
        os.makedirs(os.path.join(root, cls), exist_ok=True)
        arr = rng.integers(0, 256, (6, 7, 3), dtype=np.uint8)
        img = Image.fromarray(arr)
        if ext == ".pgm":
            img = img.convert("L")
        path = os.path.join(root, cls, "img%d%s" % (i, ext))
        img.save(path, format=fmt, **({"lossless": True} if fmt == "WEBP" else {}))
        with Image.open(path) as f:
            files[path] = np.asarray(f.convert("RGB"))
    with open(os.path.join(root, "a", "notes.txt"), "w") as f:
        f.write("not an image")
    return files


def test_image_folder_reads_every_extension(tmp_path):
    files = write_images(str(tmp_path))
    assert datasets.folder.IMG_EXTENSIONS == (
        ".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp",
    )  # fmt: skip
    ds = datasets.ImageFolder(str(tmp_path))
    assert len(ds) == len(files) and ds.classes == ["a", "b"]
    for i, (path, target) in enumerate(ds.samples):
        img, y = ds[i]
        assert isinstance(img, Image.Image) and img.mode == "RGB" and y == target
        np.testing.assert_array_equal(np.asarray(img), files[path])
    assert datasets.folder.pil_loader(ds.samples[0][0]).mode == "RGB"


def test_loader_without_pillow_decodes_jpeg_and_png(tmp_path, monkeypatch):
    """With Pillow hidden, default_loader decodes through ember.vision.io: the same pixels as Pillow for PNG and
    JPEG (both are libjpeg-turbo's default decoder)."""
    from ember.vision import _pil

    files = write_images(str(tmp_path))
    monkeypatch.setattr(_pil, "Image", None)
    for path, expect in files.items():
        if path.endswith((".jpg", ".jpeg", ".png", ".ppm", ".pgm")):
            arr = datasets.folder.default_loader(path)
            assert isinstance(arr, np.ndarray) and arr.dtype == np.uint8
            np.testing.assert_array_equal(arr, expect, err_msg=path)
    with pytest.raises(RuntimeError, match="not a supported image"):
        datasets.folder.default_loader([p for p in files if p.endswith(".bmp")][0])
    with pytest.raises(ImportError, match="Pillow"):
        datasets.folder.pil_loader(next(iter(files)))
    with pytest.raises(ImportError, match="Pillow"):
        F.to_pil_image(ember.zeros(3, 2, 2))


IMAGENET_VAL_PROGRAM = """
import os
import numpy as np
from PIL import Image
import torchvision.transforms as T
from torchvision import datasets

root = ROOT
rng = np.random.default_rng(0)
for cls in ("n01", "n02"):
    os.makedirs(os.path.join(root, cls), exist_ok=True)
    for i in range(3):
        arr = rng.integers(0, 256, (30 + 7 * i, 41 - 5 * i, 3), dtype=np.uint8)
        Image.fromarray(arr).save(os.path.join(root, cls, "img%d.JPEG" % i), quality=85)
normalize = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
val = datasets.ImageFolder(root, T.Compose([T.Resize(24), T.CenterCrop(20), T.ToTensor(), normalize]))
loader = torch.utils.data.DataLoader(val, batch_size=4, shuffle=False)
result = []
for x, y in loader:
    result.append([list(x.shape), y.tolist(), x.sum().item(), x[0, :, 3, 5].tolist()])
result.append(val.classes)
"""


def test_imagenet_val_pipeline_matches_torchvision(tmp_path):
    """pytorch/examples' imagenet validation input (ImageFolder of JPEGs, Resize, CenterCrop, ToTensor, Normalize)
    run by ember (torchvision bound to ember.vision) and by torchvision: the same batches."""
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    import json

    def run(python, head, root, env):
        code = head + IMAGENET_VAL_PROGRAM.replace("ROOT", repr(str(root))) + "\nprint(json.dumps(result))\n"
        proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    # ember as `torch` (install_as_torch aliases torchvision to ember.vision) in a fresh process
    mine = run(sys.executable, "import json, ember\nember.install_as_torch()\nimport torch\n", tmp_path / "e", None)
    ref = run(TORCH_PY, "import json, torch\n", tmp_path / "t", dict(os.environ, PYTHONPATH=""))
    assert len(mine) == len(ref) == 3
    assert mine[-1] == ref[-1] == ["n01", "n02"]
    for a, b in zip(mine[:-1], ref[:-1]):
        assert a[0] == b[0] and a[1] == b[1]
        assert abs(a[2] - b[2]) <= 1e-3 * max(1.0, abs(b[2]))
        np.testing.assert_allclose(a[3], b[3], rtol=0, atol=1e-5)


def test_tv_tensors_mask_from_pil_keeps_channel_dim():
    # as torchvision: Mask(pil) is pil_to_tensor's [C, H, W] (mode L: [1, H, W]; mode 1: bool)
    from ember.vision import tv_tensors

    gray = np.arange(6, dtype=np.uint8).reshape(2, 3)
    m = tv_tensors.Mask(Image.fromarray(gray))
    assert type(m) is tv_tensors.Mask and tuple(m.shape) == (1, 2, 3) and m.dtype == ember.uint8
    np.testing.assert_array_equal(m.as_subclass(ember.Tensor).numpy()[0], gray)
    rgb = np.arange(18, dtype=np.uint8).reshape(2, 3, 3)
    m = tv_tensors.Mask(Image.fromarray(rgb))
    np.testing.assert_array_equal(m.as_subclass(ember.Tensor).numpy(), rgb.transpose(2, 0, 1))
    b = tv_tensors.Mask(Image.fromarray(gray > 2))
    assert tuple(b.shape) == (1, 2, 3) and b.dtype == ember.bool
    np.testing.assert_array_equal(b.as_subclass(ember.Tensor).numpy()[0], gray > 2)
