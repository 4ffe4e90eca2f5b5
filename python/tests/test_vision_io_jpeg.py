"""ember.vision.io's JPEG side (libjpeg-turbo through jpeglib.h) and the torchvision 0.29 I/O surface: decoded pixels
against Pillow's (the same libjpeg-turbo decoder) and torchvision.io's, the read modes, EXIF orientation against
Pillow's ImageOps.exif_transpose, batched decoding, encoding, and hostile files."""

import os
import subprocess
import textwrap

import numpy as np
import pytest

import ember
from ember.vision import io as vio

PIL = pytest.importorskip("PIL")
from PIL import Image, ImageOps  # noqa: E402

TORCH_PY = "/opt/torch2/py"
M = vio.ImageReadMode


def smooth_image(h, w, seed=0):
    """A smooth color image (JPEG keeps it close): gradients plus a little noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 / max(w - 1, 1), y * 255 / max(h - 1, 1), (x + y) * 127 / max(h + w - 2, 1)], axis=-1)
    return np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("jpeg")
    out = {}
    rgb = Image.fromarray(smooth_image(21, 34))
    rgb.save(d / "rgb.jpg", quality=90)
    rgb.save(d / "prog.jpg", quality=80, progressive=True)
    rgb.save(d / "444.jpg", quality=95, subsampling=0)
    rgb.convert("L").save(d / "gray.jpg", quality=85)
    for k in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = k
        rgb.save(d / ("exif%d.jpg" % k), quality=90, exif=exif)
        rgb.save(d / ("exif%d.png" % k), exif=exif)
    for name in ("rgb", "prog", "444", "gray") + tuple("exif%d" % k for k in range(1, 9)):
        out[name] = str(d / (name + ".jpg"))
    for k in range(1, 9):
        out["exif%d_png" % k] = str(d / ("exif%d.png" % k))
    return out


def pil_pixels(path, mode=None, exif=False):
    with Image.open(path) as img:
        if mode == "L" and img.mode != "L":
            img.draft("L", img.size)  # libjpeg's own gray output (the Y plane), as torchvision's GRAY
        img = ImageOps.exif_transpose(img) if exif else img
        if mode is not None and img.mode != mode:
            img = img.convert(mode)
        return np.asarray(img)


def chw(t):
    a = t.numpy()
    return a[0] if a.shape[0] == 1 else a.transpose(1, 2, 0)


def test_decode_matches_pillow(files):
    for name in ("rgb", "prog", "444", "gray"):
        data = vio.read_file(files[name])
        img = vio.decode_jpeg(data)
        assert img.dtype == ember.uint8 and img.shape[0] == (1 if name == "gray" else 3)
        np.testing.assert_array_equal(chw(img), pil_pixels(files[name]), err_msg=name)
        np.testing.assert_array_equal(chw(vio.decode_image(data)), pil_pixels(files[name]))
        np.testing.assert_array_equal(chw(vio.read_image(files[name])), pil_pixels(files[name]))
        np.testing.assert_array_equal(chw(vio.decode_image(files[name])), pil_pixels(files[name]))  # a path
        np.testing.assert_array_equal(chw(vio.decode_jpeg(data, M.RGB)), pil_pixels(files[name], "RGB"))
        np.testing.assert_array_equal(chw(vio.decode_jpeg(data, "gray")), pil_pixels(files[name], "L"))
        for mode in (M.RGB_ALPHA, M.GRAY_ALPHA):  # JPEG has no alpha: torchvision refuses these modes
            with pytest.raises(RuntimeError, match="mode is not supported for JPEG"):
                vio.decode_jpeg(data, mode)
    assert M.RGBA is M.RGB_ALPHA


def test_batched_decode(files):
    datas = [vio.read_file(files[n]) for n in ("rgb", "gray", "prog")]
    out = vio.decode_jpeg(datas, mode=M.RGB)
    assert isinstance(out, list) and len(out) == 3
    for n, img in zip(("rgb", "gray", "prog"), out):
        np.testing.assert_array_equal(chw(img), pil_pixels(files[n], "RGB"))
    with pytest.raises(ValueError, match="at least one element"):
        vio.decode_jpeg([])
    with pytest.raises(ValueError, match="must be tensors"):
        vio.decode_jpeg([b"\xff\xd8"])


def test_exif_orientation_matches_pillow(files):
    for k in range(1, 9):
        for key in ("exif%d" % k, "exif%d_png" % k):
            expect = pil_pixels(files[key], "RGB", exif=True)
            got = chw(vio.read_image(files[key], M.RGB, apply_exif_orientation=True))
            np.testing.assert_array_equal(got, expect, err_msg=key)
            plain = chw(vio.read_image(files[key], M.RGB))
            np.testing.assert_array_equal(plain, pil_pixels(files[key], "RGB"), err_msg=key)
        got = chw(vio.decode_jpeg(vio.read_file(files["exif%d" % k]), apply_exif_orientation=True))
        np.testing.assert_array_equal(got, pil_pixels(files["exif%d" % k], "RGB", exif=True))
    # garbage EXIF is ignored (orientation 1), never a crash
    assert vio._exif_orientation(b"\xff\xd8\xff\xe1\x00\x10Exif\x00\x00II*\x00\xff\xff\xff\x7f") == 1
    assert vio._exif_orientation(b"\xff\xd8\xff\xe1\xff\xffExif\x00\x00MM") == 1


def test_encode_jpeg(tmp_path):
    arr = smooth_image(16, 24, seed=3)
    t = ember.from_numpy(arr.transpose(2, 0, 1).copy())
    data = vio.encode_jpeg(t, quality=90)
    assert data.dtype == ember.uint8 and data.dim() == 1
    # Pillow decodes it; the same quality through Pillow's encoder (libjpeg-turbo, 4:2:0) decodes to the same pixels.
    path = tmp_path / "e.jpg"
    vio.write_file(str(path), data)
    mine = pil_pixels(str(path))
    Image.fromarray(arr).save(tmp_path / "p.jpg", quality=90)
    np.testing.assert_array_equal(mine, pil_pixels(str(tmp_path / "p.jpg")))
    assert np.abs(mine.astype(int) - arr).mean() < 8
    vio.write_jpeg(t, str(tmp_path / "w.jpg"), quality=90)
    assert (tmp_path / "w.jpg").read_bytes() == bytes(data.numpy())
    gray = vio.encode_jpeg(t[:1].contiguous())
    assert vio.decode_jpeg(gray).shape == (1, 16, 24)
    both = vio.encode_jpeg([t, t[:1].contiguous()])
    assert isinstance(both, list) and len(both) == 2
    with pytest.raises(ValueError, match="between 1 and 100"):
        vio.encode_jpeg(t, quality=0)
    with pytest.raises(ValueError, match="C = 1 or 3"):
        vio.encode_jpeg(ember.zeros(4, 2, 2, dtype=ember.uint8))
    with pytest.raises(TypeError, match="uint8"):
        vio.encode_jpeg(ember.zeros(3, 2, 2))
    with pytest.raises(ValueError, match="at least one input"):
        vio.encode_jpeg([])
    # write_png/encode_png and read_file/write_file round trips
    vio.write_png(t, str(tmp_path / "r.png"))
    np.testing.assert_array_equal(chw(vio.read_image(str(tmp_path / "r.png"))), arr)
    raw = vio.read_file(str(tmp_path / "r.png"))
    assert bytes(raw.numpy()) == (tmp_path / "r.png").read_bytes()


def test_hostile_jpeg_files(files, tmp_path):
    good = open(files["rgb"], "rb").read()
    for cut in (len(good) // 2, len(good) - 40, 300):
        with pytest.raises(RuntimeError, match="cannot decode"):
            vio.decode_jpeg(ember.frombuffer(bytearray(good[:cut]), dtype=ember.uint8))
    with pytest.raises(RuntimeError, match="not a JPEG"):
        vio.decode_jpeg(ember.frombuffer(bytearray(b"\x89PNG...."), dtype=ember.uint8))
    with pytest.raises(RuntimeError, match="cannot decode"):
        vio.decode_jpeg(ember.frombuffer(bytearray(b"\xff\xd8\xff" + b"\x00" * 64), dtype=ember.uint8))
    # A SOF header claiming 65000 x 65000 pixels in a file of a few hundred bytes is refused before allocating.
    sof = good.index(b"\xff\xc0")
    huge = bytearray(good)
    huge[sof + 5 : sof + 9] = (65000).to_bytes(2, "big") * 2
    with pytest.raises(RuntimeError, match="more than a .*-byte file can hold"):
        vio.decode_jpeg(ember.frombuffer(huge, dtype=ember.uint8))
    # Random byte flips: an error or an image, never a crash.
    rng = np.random.default_rng(0)
    for _ in range(40):
        bad = bytearray(good)
        for pos in rng.integers(2, len(bad), 8):
            bad[pos] = int(rng.integers(0, 256))
        try:
            vio.decode_jpeg(ember.frombuffer(bad, dtype=ember.uint8))
        except RuntimeError:
            pass
    cmyk = tmp_path / "cmyk.jpg"
    Image.fromarray(smooth_image(8, 8)).convert("CMYK").save(cmyk)
    with pytest.raises(RuntimeError, match="CMYK"):
        vio.read_image(str(cmyk))
    with pytest.raises(TypeError, match="uint8 1-d tensor"):
        vio.decode_jpeg([1, 2, 3][0])


REF_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torchvision.io as io
    paths = json.loads(sys.argv[2])
    out = {}
    for name, path in paths.items():
        modes = ("UNCHANGED", "GRAY", "RGB") + (("GRAY_ALPHA", "RGB_ALPHA") if path.endswith(".png") else ())
        for mode in modes:
            out[name + "_" + mode] = io.decode_image(io.read_file(path), getattr(io.ImageReadMode, mode)).numpy()
        out[name + "_exif"] = io.decode_image(io.read_file(path), apply_exif_orientation=True).numpy()
    np.savez(sys.argv[1], **out)
    """
)


@pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
def test_decode_matches_torchvision(files, tmp_path):
    import json

    names = ("rgb", "prog", "444", "gray", "exif6", "exif7", "exif3_png", "exif8_png")
    paths = {n: files[n] for n in names}
    (tmp_path / "ref.py").write_text(REF_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    subprocess.run(
        [TORCH_PY, str(tmp_path / "ref.py"), str(tmp_path / "ref.npz"), json.dumps(paths)],
        check=True,
        env=env,
        timeout=300,
    )
    ref = dict(np.load(tmp_path / "ref.npz"))
    for name, path in paths.items():
        # PNG's RGB -> GRAY: ember uses PIL's "L" weights, torchvision libpng's (docs/vision.md), so that mode is
        # compared for JPEG only.
        modes = ("UNCHANGED", "RGB", "RGB_ALPHA") if path.endswith(".png") else ("UNCHANGED", "GRAY", "RGB")
        for mode in modes:
            got = vio.decode_image(vio.read_file(path), getattr(M, mode)).numpy()
            np.testing.assert_array_equal(got, ref[name + "_" + mode], err_msg=name + mode)
        got = vio.decode_image(vio.read_file(path), apply_exif_orientation=True).numpy()
        np.testing.assert_array_equal(got, ref[name + "_exif"], err_msg=name)


GIF_WEBP_SCRIPT = textwrap.dedent(
    """
    import json, sys, warnings
    import numpy as np
    import torchvision.io as io
    warnings.simplefilter("ignore")
    paths = json.loads(sys.argv[2])
    out = {}
    out["gif1"] = io.decode_gif(io.read_file(paths["gif1"])).numpy()
    out["gif3"] = io.decode_gif(io.read_file(paths["gif3"])).numpy()
    out["gif3_image"] = io.decode_image(io.read_file(paths["gif3"])).numpy()
    for name in ("webp_rgb", "webp_rgba"):
        for mode in ("UNCHANGED", "RGB", "RGB_ALPHA", "GRAY"):
            out[name + mode] = io.decode_webp(io.read_file(paths[name]), getattr(io.ImageReadMode, mode)).numpy()
        out[name + "_image"] = io.decode_image(io.read_file(paths[name])).numpy()
    np.savez(sys.argv[1], **out)
    """
)


def test_gif_and_webp(tmp_path):
    import json
    import warnings

    rng = np.random.default_rng(4)
    paths = {"gif1": str(tmp_path / "a.gif"), "gif3": str(tmp_path / "b.gif")}
    Image.fromarray(rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)).save(paths["gif1"])
    frames = [Image.fromarray(rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)) for _ in range(3)]
    frames[0].save(paths["gif3"], save_all=True, append_images=frames[1:])
    for name, c in (("webp_rgb", 3), ("webp_rgba", 4)):
        paths[name] = str(tmp_path / (name + ".webp"))
        Image.fromarray(rng.integers(0, 256, (5, 6, c), dtype=np.uint8)).save(paths[name], lossless=True)
    g = vio.decode_gif(vio.read_file(paths["gif3"]))
    assert tuple(g.shape) == (3, 3, 5, 6)
    with Image.open(paths["gif3"]) as im:
        im.seek(1)
        np.testing.assert_array_equal(g[1].numpy().transpose(1, 2, 0), np.asarray(im.convert("RGB")))
    assert tuple(vio.decode_gif(vio.read_file(paths["gif1"])).shape) == (3, 5, 6)
    w = vio.decode_webp(vio.read_file(paths["webp_rgba"]))
    np.testing.assert_array_equal(w.numpy().transpose(1, 2, 0), np.asarray(Image.open(paths["webp_rgba"])))
    with pytest.raises(RuntimeError, match="decode_gif: cannot decode"):
        vio.decode_gif(ember.frombuffer(bytearray(b"GIF89a\x01\x00"), dtype=ember.uint8))
    if not os.path.exists(TORCH_PY):
        return
    (tmp_path / "ref.py").write_text(GIF_WEBP_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    subprocess.run(
        [TORCH_PY, str(tmp_path / "ref.py"), str(tmp_path / "ref.npz"), json.dumps(paths)],
        check=True,
        env=env,
        timeout=300,
    )
    ref = dict(np.load(tmp_path / "ref.npz"))
    mine = {
        "gif1": vio.decode_gif(vio.read_file(paths["gif1"])),
        "gif3": vio.decode_gif(vio.read_file(paths["gif3"])),
        "gif3_image": vio.decode_image(vio.read_file(paths["gif3"])),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("webp_rgb", "webp_rgba"):
            for mode in ("UNCHANGED", "RGB", "RGB_ALPHA", "GRAY"):
                mine[name + mode] = vio.decode_webp(vio.read_file(paths[name]), getattr(M, mode))
            mine[name + "_image"] = vio.decode_image(paths[name])
    assert sorted(mine) == sorted(ref)
    for k in ref:
        np.testing.assert_array_equal(mine[k].numpy(), ref[k], err_msg=k)
