"""ember.vision.datasets and the file readers behind them, against small hand-made files (IDX raw and gzipped, CIFAR
pickle and binary batches in the published layouts, PNG/PGM/PPM written by independent encoders below)."""

import gzip
import os
import pickle
import struct
import zlib

import numpy as np
import pytest

import ember
from ember import _C
from ember.vision import _pil, datasets
from ember.vision import io as vio
from ember.vision import transforms as T

V = _C._vision
FASHION = "/usr/share/datasets/fashion-mnist"
HAVE_PIL = _pil.available()


def pixels(img):
    """A sample's pixels as an array: datasets give PIL images with Pillow (as torchvision), else arrays/tensors."""
    if HAVE_PIL:
        assert isinstance(img, _pil.Image.Image), type(img)
        return np.asarray(img)
    return img.numpy() if isinstance(img, ember.Tensor) else img


# ---------------------------------------------------------------------------- IDX


def idx_bytes(arr, code=None):
    """The IDX encoding of arr: magic 0 0 type ndim, big-endian sizes, big-endian data."""
    codes = {np.uint8: 0x08, np.int8: 0x09, np.int16: 0x0B, np.int32: 0x0C, np.float32: 0x0D, np.float64: 0x0E}
    code = codes[arr.dtype.type] if code is None else code
    header = bytes([0, 0, code, arr.ndim]) + struct.pack(">%dI" % arr.ndim, *arr.shape)
    return header + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def write_mnist(folder, n_train=7, n_test=3, gz=False, seed=0):
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    out = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, size=n, dtype=np.uint8)
        for name, arr in (("%s-images-idx3-ubyte" % prefix, images), ("%s-labels-idx1-ubyte" % prefix, labels)):
            data = idx_bytes(arr)
            if gz:
                with gzip.open(os.path.join(folder, name + ".gz"), "wb") as f:
                    f.write(data)
            else:
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
        out[prefix] = (images, labels)
    return out


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
def test_parse_idx_dtypes(dtype):
    rng = np.random.default_rng(1)
    arr = (rng.standard_normal((3, 4, 5)) * 100).astype(dtype)
    t = V.parse_idx(idx_bytes(arr))
    assert tuple(t.shape) == (3, 4, 5)
    np.testing.assert_array_equal(t.numpy(), arr)
    assert t.numpy().dtype == np.dtype(dtype)


def test_parse_idx_zero_size_dim():
    t = V.parse_idx(bytes([0, 0, 8, 2]) + struct.pack(">II", 0, 28))
    assert tuple(t.shape) == (0, 28)


@pytest.mark.parametrize(
    "data, match",
    [
        (b"\x00\x00", "fewer than the 4-byte magic"),
        (b"\x01\x00\x08\x01" + struct.pack(">I", 1) + b"\x00", "magic number starts with 1 0"),
        (b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x00", "unknown IDX data type code 0x7"),
        (b"\x00\x00\x08\x00", "declares 0 dimensions"),
        (b"\x00\x00\x08\x03" + struct.pack(">I", 5), "truncated: its header declares 3 dimensions"),
        (b"\x00\x00\x08\x01" + struct.pack(">I", 10) + b"\x00" * 9, "truncated: its header declares 10 items"),
        (b"\x00\x00\x0c\x01" + struct.pack(">I", 2) + b"\x00" * 7, "truncated"),
        (b"\x00\x00\x08\x01" + struct.pack(">I", 2) + b"\x00" * 3, "1 bytes after the 2 items"),
        # Sizes whose product overflows 64 bits must not be trusted (nor allocated).
        (
            b"\x00\x00\x0e\x04" + struct.pack(">IIII", 2**32 - 1, 2**32 - 1, 2**32 - 1, 2**32 - 1) + b"\x00" * 8,
            "truncated",
        ),
    ],
)
def test_parse_idx_rejects_malformed(data, match):
    with pytest.raises(RuntimeError, match=match):
        V.parse_idx(data)


def test_read_idx_gzip_raw_and_errors(tmp_path):
    arr = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4) * -7
    raw, gz = tmp_path / "a-idx", tmp_path / "a-idx.gz"
    raw.write_bytes(idx_bytes(arr))
    gz.write_bytes(gzip.compress(idx_bytes(arr)))
    np.testing.assert_array_equal(V.read_idx(str(raw)).numpy(), arr)
    np.testing.assert_array_equal(V.read_idx(str(gz)).numpy(), arr)
    # Concatenated gzip members decompress as one stream (as gunzip does).
    data = idx_bytes(arr)
    (tmp_path / "multi.gz").write_bytes(gzip.compress(data[:10]) + gzip.compress(data[10:]))
    np.testing.assert_array_equal(V.read_idx(str(tmp_path / "multi.gz")).numpy(), arr)
    full = gzip.compress(data)
    (tmp_path / "trunc.gz").write_bytes(full[: len(full) // 2])
    with pytest.raises(RuntimeError, match="truncated"):
        V.read_idx(str(tmp_path / "trunc.gz"))
    corrupt = bytearray(full)
    corrupt[12:20] = b"\xff" * 8
    (tmp_path / "corrupt.gz").write_bytes(bytes(corrupt))
    with pytest.raises(RuntimeError, match="gzip|truncated|IDX"):
        V.read_idx(str(tmp_path / "corrupt.gz"))
    (tmp_path / "trail.gz").write_bytes(full + b"junk")
    with pytest.raises(RuntimeError, match="trailing garbage"):
        V.read_idx(str(tmp_path / "trail.gz"))
    with pytest.raises(FileNotFoundError, match="no-such-file"):
        V.read_idx(str(tmp_path / "no-such-file"))


def test_gunzip_limit():
    data = gzip.compress(b"x" * 1000)
    assert V.gunzip(data, 1000).numel() == 1000
    with pytest.raises(RuntimeError, match="more than the 999 bytes"):
        V.gunzip(data, 999)


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_files(tmp_path, gz):
    ref = write_mnist(str(tmp_path), gz=gz)
    for train, key in ((True, "train"), (False, "t10k")):
        ds = datasets.MNIST(str(tmp_path), train=train)
        images, labels = ref[key]
        assert len(ds) == len(labels)
        assert ds.data.dtype == ember.uint8 and tuple(ds.data.shape) == images.shape
        assert ds.targets.dtype == ember.int64
        np.testing.assert_array_equal(ds.data.numpy(), images)
        np.testing.assert_array_equal(ds.targets.numpy(), labels.astype(np.int64))
        img, target = ds[1]
        assert isinstance(target, int) and target == int(labels[1])
        assert pixels(img).dtype == np.uint8 and pixels(img).shape == (28, 28)
        assert not HAVE_PIL or img.mode == "L"
        np.testing.assert_array_equal(pixels(img), images[1])
        img, target = ds[-1]
        np.testing.assert_array_equal(pixels(img), images[-1])


def test_mnist_torchvision_layout_and_transforms(tmp_path):
    ref = write_mnist(str(tmp_path / "FashionMNIST" / "raw"), gz=True)
    ds = datasets.FashionMNIST(str(tmp_path), train=False, transform=T.ToTensor(), target_transform=lambda y: y + 100)
    images, labels = ref["t10k"]
    x, y = ds[2]
    assert tuple(x.shape) == (1, 28, 28) and x.dtype == ember.float32
    np.testing.assert_allclose(x.numpy()[0], images[2] / 255.0, rtol=0, atol=1e-7)
    assert y == int(labels[2]) + 100
    assert ds.classes[0] == "T-shirt/top" and ds.class_to_idx["Ankle boot"] == 9
    # The dataset's tensor is not changed by what a caller does with a sample.
    raw = datasets.FashionMNIST(str(tmp_path), train=False)
    sample, _ = raw[0]
    if not HAVE_PIL:
        sample.fill_(7)
    np.testing.assert_array_equal(raw.data[0].numpy(), images[0])
    with pytest.raises(IndexError):
        raw[len(raw)]
    with pytest.raises(TypeError):
        raw["0"]


def test_mnist_errors(tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found.*train-images-idx3-ubyte"):
        datasets.MNIST(str(tmp_path))
    with pytest.raises(
        RuntimeError,
        match="train-images-idx3-ubyte.*download=True cannot fetch.*https://ossci-datasets.s3.amazonaws.com/mnist/"
        "train-images-idx3-ubyte.gz",
    ):
        datasets.MNIST(str(tmp_path), download=True)
    # download=True finds files that are there.
    write_mnist(str(tmp_path / "MNIST" / "raw"))
    assert len(datasets.MNIST(str(tmp_path), download=True)) == 7
    write_mnist(str(tmp_path))
    # Labels for a different number of images than the image file holds.
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(idx_bytes(np.zeros(5, np.uint8)))
    with pytest.raises(RuntimeError, match="7 images .* but 5 labels"):
        datasets.MNIST(str(tmp_path))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(idx_bytes(np.zeros((7, 2), np.uint8)))
    with pytest.raises(RuntimeError, match="expected uint8 labels"):
        datasets.MNIST(str(tmp_path))


@pytest.mark.skipif(not os.path.isdir(FASHION), reason="Debian's dataset-fashion-mnist is not installed")
def test_fashion_mnist_default_root():
    ds = datasets.FashionMNIST(train=False)
    with gzip.open(os.path.join(FASHION, "t10k-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(os.path.join(FASHION, "t10k-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    assert len(ds) == 10000
    np.testing.assert_array_equal(ds.data.numpy(), images)
    np.testing.assert_array_equal(ds.targets.numpy(), labels)
    assert len(datasets.FashionMNIST(train=True)) == 60000


# ---------------------------------------------------------------------------- CIFAR


def cifar_batch(n, num_classes, rng, fine=False):
    data = rng.integers(0, 256, size=(n, 3072), dtype=np.uint8)
    labels = [int(v) for v in rng.integers(0, num_classes, size=n)]
    d = {"batch_label": "testing batch", "data": data, "filenames": ["img_%d.png" % i for i in range(n)]}
    if fine:
        d["fine_labels"] = labels
        d["coarse_labels"] = [v // 5 for v in labels]
    else:
        d["labels"] = labels
    return d


def write_cifar10_py(root, protocol=2, sizes=(3, 2, 2, 1, 2), n_test=4):
    rng = np.random.default_rng(3)
    folder = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(folder, exist_ok=True)
    batches = {}
    for i, n in enumerate(sizes):
        batches["data_batch_%d" % (i + 1)] = cifar_batch(n, 10, rng)
    batches["test_batch"] = cifar_batch(n_test, 10, rng)
    for name, b in batches.items():
        with open(os.path.join(folder, name), "wb") as f:
            pickle.dump(b, f, protocol=protocol)
    meta = {
        "label_names": ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"],
        "num_cases_per_batch": 10000,
        "num_vis": 3072,
    }
    with open(os.path.join(folder, "batches.meta"), "wb") as f:
        pickle.dump(meta, f, protocol=protocol)
    return batches


def expected_hwc(data):
    return data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_cifar10_python_batches(tmp_path, protocol):
    batches = write_cifar10_py(str(tmp_path), protocol)
    train = datasets.CIFAR10(str(tmp_path), train=True)
    data = np.concatenate([batches["data_batch_%d" % i]["data"] for i in range(1, 6)])
    labels = sum((batches["data_batch_%d" % i]["labels"] for i in range(1, 6)), [])
    assert train.data.shape == (10, 32, 32, 3) and train.data.dtype == np.uint8
    np.testing.assert_array_equal(train.data, expected_hwc(data))
    assert train.targets == labels
    # Pixel (c, y, x) of image i is byte c * 1024 + y * 32 + x of its row.
    assert train.data[4, 5, 6, 2] == data[4, 2 * 1024 + 5 * 32 + 6]
    assert train.classes[3] == "cat" and train.class_to_idx["truck"] == 9
    test = datasets.CIFAR10(str(tmp_path), train=False, transform=T.ToTensor())
    x, y = test[1]
    assert tuple(x.shape) == (3, 32, 32)
    np.testing.assert_allclose(x.numpy(), batches["test_batch"]["data"][1].reshape(3, 32, 32) / 255.0, atol=1e-7)
    assert y == batches["test_batch"]["labels"][1]


def test_cifar100_python_batches(tmp_path):
    rng = np.random.default_rng(5)
    folder = tmp_path / "cifar-100-python"
    folder.mkdir()
    train, test = cifar_batch(6, 100, rng, fine=True), cifar_batch(3, 100, rng, fine=True)
    for name, b in (("train", train), ("test", test)):
        (folder / name).write_bytes(pickle.dumps(b, protocol=2))
    names = ["class_%02d" % i for i in range(100)]
    (folder / "meta").write_bytes(pickle.dumps({"fine_label_names": names, "coarse_label_names": names[:20]}))
    ds = datasets.CIFAR100(str(tmp_path))
    np.testing.assert_array_equal(ds.data, expected_hwc(train["data"]))
    assert ds.targets == train["fine_labels"]
    assert ds.classes == names
    img, target = ds[5]
    assert pixels(img).shape == (32, 32, 3)
    np.testing.assert_array_equal(pixels(img), expected_hwc(train["data"])[5])
    assert target == train["fine_labels"][5]


class _Exploit:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, ("touch %s" % self.marker,))


class _EvalExploit:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (eval, ("open(%r, 'w').close()" % self.marker,))


@pytest.mark.parametrize("payload", [_Exploit, _EvalExploit])
def test_cifar_malicious_pickle_is_refused_and_not_run(tmp_path, payload):
    write_cifar10_py(str(tmp_path))
    marker = tmp_path / "pwned"
    evil = {"data": np.zeros((1, 3072), np.uint8), "labels": [0], "x": payload(str(marker))}
    (tmp_path / "cifar-10-batches-py" / "data_batch_3").write_bytes(pickle.dumps(evil, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="refusing to load"):
        datasets.CIFAR10(str(tmp_path))
    assert not marker.exists()
    # The same file as the meta file.
    (tmp_path / "cifar-10-batches-py" / "data_batch_3").write_bytes(
        pickle.dumps(cifar_batch(1, 10, np.random.default_rng(0)), protocol=2)
    )
    (tmp_path / "cifar-10-batches-py" / "batches.meta").write_bytes(pickle.dumps(evil, protocol=4))
    with pytest.raises(pickle.UnpicklingError, match="refusing to load"):
        datasets.CIFAR10(str(tmp_path), train=False)
    assert not marker.exists()


def test_cifar_object_arrays_and_bad_batches_are_refused(tmp_path):
    write_cifar10_py(str(tmp_path))
    folder = tmp_path / "cifar-10-batches-py"
    (folder / "test_batch").write_bytes(pickle.dumps({"data": np.array([1, "a"], dtype=object), "labels": [0]}))
    with pytest.raises(pickle.UnpicklingError, match="object"):
        datasets.CIFAR10(str(tmp_path), train=False)
    (folder / "test_batch").write_bytes(pickle.dumps({"data": np.zeros((2, 100), np.uint8), "labels": [0, 1]}))
    with pytest.raises(RuntimeError, match=r"'data' should be a uint8 array \[N, 3072\]"):
        datasets.CIFAR10(str(tmp_path), train=False)
    (folder / "test_batch").write_bytes(pickle.dumps({"data": np.zeros((2, 3072), np.uint8), "labels": [0, 10]}))
    with pytest.raises(RuntimeError, match="'labels' should be a list of 2 ints in"):
        datasets.CIFAR10(str(tmp_path), train=False)
    (folder / "test_batch").write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(RuntimeError, match="not a batch dict"):
        datasets.CIFAR10(str(tmp_path), train=False)
    with pytest.raises(RuntimeError, match="Dataset not found.*cifar-10-batches-py"):
        datasets.CIFAR10(str(tmp_path / "missing"))
    with pytest.raises(RuntimeError, match="download=True is not supported"):
        datasets.CIFAR10(str(tmp_path / "missing"), download=True)


def test_cifar10_binary_batches(tmp_path):
    rng = np.random.default_rng(9)
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    records = {}
    for name, n in [("data_batch_%d.bin" % i, i) for i in range(1, 6)] + [("test_batch.bin", 3)]:
        labels = rng.integers(0, 10, size=n, dtype=np.uint8)
        pixels = rng.integers(0, 256, size=(n, 3072), dtype=np.uint8)
        (folder / name).write_bytes(np.concatenate([labels[:, None], pixels], axis=1).tobytes())
        records[name] = (labels, pixels)
    (folder / "batches.meta.txt").write_text("\n".join("c%d" % i for i in range(10)) + "\n\n")
    ds = datasets.CIFAR10(str(tmp_path))
    labels = np.concatenate([records["data_batch_%d.bin" % i][0] for i in range(1, 6)])
    pixels = np.concatenate([records["data_batch_%d.bin" % i][1] for i in range(1, 6)])
    assert len(ds) == 15 and ds.classes == ["c%d" % i for i in range(10)]
    np.testing.assert_array_equal(ds.data, expected_hwc(pixels))
    assert ds.targets == labels.tolist()
    test = datasets.CIFAR10(str(tmp_path), train=False)
    np.testing.assert_array_equal(test.data, expected_hwc(records["test_batch.bin"][1]))
    # A file that is not whole records, and a label outside the classes.
    (folder / "test_batch.bin").write_bytes(b"\x00" * 3074)
    with pytest.raises(RuntimeError, match="not a whole number of 3073-byte records"):
        datasets.CIFAR10(str(tmp_path), train=False)
    (folder / "test_batch.bin").write_bytes(bytes([10]) + b"\x00" * 3072)
    with pytest.raises(RuntimeError, match="is 10, outside"):
        datasets.CIFAR10(str(tmp_path), train=False)


def test_cifar100_binary_batches(tmp_path):
    rng = np.random.default_rng(10)
    folder = tmp_path / "cifar-100-binary"
    folder.mkdir()
    coarse = rng.integers(0, 20, size=4, dtype=np.uint8)
    fine = rng.integers(0, 100, size=4, dtype=np.uint8)
    pixels = rng.integers(0, 256, size=(4, 3072), dtype=np.uint8)
    (folder / "train.bin").write_bytes(np.concatenate([coarse[:, None], fine[:, None], pixels], axis=1).tobytes())
    (folder / "fine_label_names.txt").write_text("\n".join("f%d" % i for i in range(100)))
    ds = datasets.CIFAR100(str(tmp_path))
    assert ds.targets == fine.tolist()
    np.testing.assert_array_equal(ds.data, expected_hwc(pixels))


# ---------------------------------------------------------------------------- images: independent encoders


def png_bytes(pixels, color_type, bit_depth=8, palette=None, trns=None, filter_type=1, interlace=False):
    """A PNG written with zlib and struct alone (filter `filter_type` on every row, or Adam7 interlacing with
    unfiltered rows): a reference that is not libpng."""

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    h, w = pixels.shape[:2]
    rows = pixels.reshape(h, -1)
    if bit_depth == 16:
        rows = rows.astype(">u2").view(np.uint8).reshape(h, -1)
    bpp = max(1, (pixels.shape[2] if pixels.ndim == 3 else 1) * bit_depth // 8)
    raw = b""
    if interlace:
        assert bit_depth == 8
        for x0, y0, dx, dy in (
            (0, 0, 8, 8),
            (4, 0, 8, 8),
            (0, 4, 4, 8),
            (2, 0, 4, 4),
            (0, 2, 2, 4),
            (1, 0, 2, 2),
            (0, 1, 1, 2),
        ):
            sub = pixels[y0::dy, x0::dx]
            if sub.size:
                for row in sub.reshape(sub.shape[0], -1):
                    raw += b"\x00" + row.astype(np.uint8).tobytes()
    for y in range(0 if interlace else h):
        row = rows[y].astype(np.int32)
        if filter_type == 1:  # Sub: each byte minus the byte bpp to its left
            left = np.concatenate([np.zeros(bpp, np.int32), row[:-bpp]])
            raw += bytes([1]) + ((row - left) % 256).astype(np.uint8).tobytes()
        else:
            raw += bytes([0]) + row.astype(np.uint8).tobytes()
    out = b"\x89PNG\r\n\x1a\n" + chunk(
        b"IHDR", struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, int(interlace))
    )
    if palette is not None:
        out += chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    if trns is not None:
        out += chunk(b"tRNS", trns)
    return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def pnm_bytes(pixels, maxval=255, comment=True):
    magic = b"P5" if pixels.ndim == 2 else b"P6"
    h, w = pixels.shape[:2]
    header = magic + (b"\n# made by a test\n" if comment else b" ") + b"%d %d\n%d\n" % (w, h, maxval)
    body = pixels.astype(">u2").tobytes() if maxval > 255 else pixels.astype(np.uint8).tobytes()
    return header + body


def pil_gray(rgb):
    rgb = rgb.astype(np.uint32)
    return ((19595 * rgb[..., 0] + 38470 * rgb[..., 1] + 7471 * rgb[..., 2] + 0x8000) >> 16).astype(np.uint8)


def test_decode_png_color_types():
    rng = np.random.default_rng(11)
    rgb = rng.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
    rgba = rng.integers(0, 256, size=(5, 7, 4), dtype=np.uint8)
    gray = rng.integers(0, 256, size=(5, 7), dtype=np.uint8)
    ga = rng.integers(0, 256, size=(5, 7, 2), dtype=np.uint8)
    M = vio.ImageReadMode
    np.testing.assert_array_equal(vio.decode_png(png_bytes(rgb, 2)).numpy(), rgb.transpose(2, 0, 1))
    np.testing.assert_array_equal(vio.decode_png(png_bytes(rgba, 6)).numpy(), rgba.transpose(2, 0, 1))
    np.testing.assert_array_equal(vio.decode_png(png_bytes(gray, 0, filter_type=0)).numpy(), gray[None])
    np.testing.assert_array_equal(vio.decode_png(png_bytes(ga, 4)).numpy(), ga.transpose(2, 0, 1))
    big = rng.integers(0, 256, size=(13, 11, 3), dtype=np.uint8)
    np.testing.assert_array_equal(vio.decode_png(png_bytes(big, 2, interlace=True)).numpy(), big.transpose(2, 0, 1))
    # Mode conversions: PIL's rules (gray from RGB by ITU-R 601-2 luma, alpha added as 255 or dropped).
    np.testing.assert_array_equal(vio.decode_png(png_bytes(rgba, 6), M.RGB).numpy(), rgba[..., :3].transpose(2, 0, 1))
    np.testing.assert_array_equal(vio.decode_png(png_bytes(rgb, 2), M.GRAY).numpy(), pil_gray(rgb)[None])
    np.testing.assert_array_equal(vio.decode_png(png_bytes(gray, 0), M.RGB).numpy(), np.stack([gray] * 3))
    got = vio.decode_png(png_bytes(rgb, 2), M.RGB_ALPHA).numpy()
    np.testing.assert_array_equal(got[:3], rgb.transpose(2, 0, 1))
    assert (got[3] == 255).all()
    np.testing.assert_array_equal(vio.decode_png(png_bytes(ga, 4), "gray").numpy(), ga[..., 0][None])
    # 16-bit samples are scaled to 8 bits: v * 255 / 65535 rounded.
    g16 = rng.integers(0, 65536, size=(3, 4), dtype=np.uint16)
    got = vio.decode_png(png_bytes(g16, 0, bit_depth=16)).numpy()[0].astype(np.int64)
    assert np.abs(got - np.round(g16 * 255.0 / 65535.0)).max() <= 1
    # A palette image with transparency becomes RGBA.
    palette = rng.integers(0, 256, size=(4, 3), dtype=np.uint8)
    idx = rng.integers(0, 4, size=(3, 5), dtype=np.uint8)
    got = vio.decode_png(png_bytes(idx, 3, palette=palette, trns=bytes([0, 128]))).numpy()
    np.testing.assert_array_equal(got[:3], palette[idx].transpose(2, 0, 1))
    np.testing.assert_array_equal(got[3], np.array([0, 128, 255, 255], np.uint8)[idx])


def test_decode_png_rejects_corrupt_data():
    good = png_bytes(np.zeros((4, 4, 3), np.uint8), 2)
    with pytest.raises(RuntimeError, match="not a PNG file"):
        vio.decode_png(b"GIF89a" + good[6:])
    with pytest.raises(RuntimeError, match="cannot decode"):
        vio.decode_png(good[:40])
    bad_crc = bytearray(good)
    bad_crc[29] ^= 0xFF  # inside IHDR's CRC
    with pytest.raises(RuntimeError, match="cannot decode"):
        vio.decode_png(bytes(bad_crc))
    # A header that claims a huge image in a tiny file is refused before anything that size is allocated.
    huge = b"\x89PNG\r\n\x1a\n"
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", 900000, 900000, 8, 2, 0, 0, 0)
    huge += struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr) & 0xFFFFFFFF)
    idat = b"IDAT" + zlib.compress(b"\x00" * 100)
    huge += struct.pack(">I", len(idat) - 4) + idat + struct.pack(">I", zlib.crc32(idat) & 0xFFFFFFFF)
    with pytest.raises(RuntimeError, match="cannot decode"):
        vio.decode_png(huge)
    with pytest.raises(TypeError, match="uint8"):
        vio.decode_png(ember.zeros(10))
    with pytest.raises(ValueError, match="unknown image read mode"):
        vio.decode_png(good, 7)


def test_decode_pnm():
    rng = np.random.default_rng(12)
    rgb = rng.integers(0, 256, size=(3, 5, 3), dtype=np.uint8)
    gray = rng.integers(0, 256, size=(4, 2), dtype=np.uint8)
    np.testing.assert_array_equal(vio.decode_image(pnm_bytes(rgb)).numpy(), rgb.transpose(2, 0, 1))
    np.testing.assert_array_equal(vio.decode_image(pnm_bytes(gray, comment=False)).numpy(), gray[None])
    g16 = rng.integers(0, 1001, size=(2, 3)).astype(np.uint16)
    got = vio.decode_image(pnm_bytes(g16, maxval=1000)).numpy()[0]
    np.testing.assert_array_equal(got, np.floor(g16 * 255.0 / 1000.0 + 0.5).astype(np.uint8))
    g7 = rng.integers(0, 8, size=(2, 3)).astype(np.uint8)
    np.testing.assert_array_equal(
        vio.decode_image(pnm_bytes(g7, maxval=7)).numpy()[0], np.floor(g7 * 255.0 / 7.0 + 0.5).astype(np.uint8)
    )
    with pytest.raises(RuntimeError, match="truncated: a 5 x 3 image"):
        vio.decode_image(pnm_bytes(rgb)[:-1])
    with pytest.raises(RuntimeError, match="maxval 0"):
        vio.decode_image(b"P5 2 2 0\n\x00\x00\x00\x00")
    with pytest.raises(RuntimeError, match="malformed PNM header"):
        vio.decode_image(b"P5 2 x 255\n\x00\x00\x00\x00")
    with pytest.raises(RuntimeError, match="empty image"):
        vio.decode_image(b"P6 0 2 255\n")
    with pytest.raises(RuntimeError, match="not a supported image"):
        vio.decode_image(b"P3 1 1 255\n0 0 0")


def make_folder(root):
    rng = np.random.default_rng(13)
    files = {}
    for cls, names in (("dog", ["b.png", "a.ppm", "sub/c.pgm"]), ("cat", ["z.png", "y.PNG"]), ("emu", ["e.pgm"])):
        for name in names:
            path = os.path.join(root, cls, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if name.endswith(".pgm"):
                img = rng.integers(0, 256, size=(4, 6), dtype=np.uint8)
                data, rgb = pnm_bytes(img), np.stack([img] * 3, axis=-1)
            elif name.lower().endswith(".png"):
                img = rng.integers(0, 256, size=(5, 3, 4), dtype=np.uint8)
                data, rgb = png_bytes(img, 6), img[..., :3]
            else:
                img = rng.integers(0, 256, size=(2, 3, 3), dtype=np.uint8)
                data, rgb = pnm_bytes(img), img
            with open(path, "wb") as f:
                f.write(data)
            files[path] = rgb
    with open(os.path.join(root, "dog", "notes.txt"), "w") as f:
        f.write("not an image")
    with open(os.path.join(root, "cat", "photo.gif"), "wb") as f:
        f.write(b"GIF89a")
    with open(os.path.join(root, "README"), "w") as f:
        f.write("a file at the top is not a class")
    return files


def test_image_folder(tmp_path):
    files = make_folder(str(tmp_path))
    ds = datasets.ImageFolder(str(tmp_path))
    assert ds.classes == ["cat", "dog", "emu"]
    assert ds.class_to_idx == {"cat": 0, "dog": 1, "emu": 2}
    expected = (
        [(os.path.join(str(tmp_path), "cat", n), 0) for n in ("y.PNG", "z.png")]
        + [(os.path.join(str(tmp_path), "dog", n), 1) for n in ("a.ppm", "b.png")]
        + [(os.path.join(str(tmp_path), "dog", "sub", "c.pgm"), 1), (os.path.join(str(tmp_path), "emu", "e.pgm"), 2)]
    )
    assert ds.samples == expected and ds.imgs == expected
    assert ds.targets == [0, 0, 1, 1, 1, 2]
    assert ds.extensions == datasets.folder.IMG_EXTENSIONS
    for i, (path, target) in enumerate(expected):
        img, y = ds[i]
        assert not HAVE_PIL or img.mode == "RGB"
        img = pixels(img)
        assert y == target and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        np.testing.assert_array_equal(img, files[path])
    # transform, loader, is_valid_file
    tds = datasets.ImageFolder(
        str(tmp_path),
        transform=T.ToTensor(),
        is_valid_file=lambda p: p.endswith(".ppm") or p.endswith(".pgm") or p.endswith("z.png"),
    )
    assert [s[0].rsplit(os.sep, 1)[1] for s in tds.samples] == ["z.png", "a.ppm", "c.pgm", "e.pgm"]
    x, _ = tds[1]
    assert tuple(x.shape) == (3, 2, 3)
    np.testing.assert_allclose(x.numpy(), files[tds.samples[1][0]].transpose(2, 0, 1) / 255.0, atol=1e-7)
    lds = datasets.ImageFolder(str(tmp_path), loader=lambda p: os.path.basename(p))
    assert lds[0] == ("y.PNG", 0)
    gray = datasets.DatasetFolder(
        str(tmp_path), loader=lambda p: vio.read_image(p, vio.ImageReadMode.GRAY), extensions=(".pgm", ".pnm", ".png")
    )
    assert gray.classes == ["cat", "dog", "emu"] and len(gray) == 5
    img, _ = gray[2]  # dog/b.png, RGBA -> gray
    assert tuple(img.shape) == (1, 5, 3)
    np.testing.assert_array_equal(img.numpy()[0], pil_gray(files[gray.samples[2][0]]))


def test_image_folder_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        datasets.ImageFolder(str(tmp_path))
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.gif").write_bytes(b"GIF89a")
    with pytest.raises(
        FileNotFoundError,
        match="Found no valid file for the classes a. Supported extensions are: .jpg, .jpeg, .png, .ppm, .bmp, .pgm, "
        ".tif, .tiff, .webp",
    ):
        datasets.ImageFolder(str(tmp_path))
    with pytest.raises(ValueError, match="Both extensions and is_valid_file cannot be None or not None"):
        datasets.DatasetFolder(str(tmp_path), loader=print, extensions=(".png",), is_valid_file=bool)
    with pytest.raises(FileNotFoundError):
        datasets.ImageFolder(str(tmp_path / "missing"))
    (tmp_path / "a" / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    ds = datasets.ImageFolder(str(tmp_path))
    with pytest.raises(RuntimeError, match="cannot decode '.*bad.png'"):
        ds[0]
    with pytest.raises(FileNotFoundError):
        vio.read_image(str(tmp_path / "a" / "nothing.png"))


# ---------------------------------------------------------------------------- FakeData


def test_fake_data():
    ds = datasets.FakeData(size=5, image_size=(3, 6, 4), num_classes=3)
    assert len(ds) == 5
    ember.manual_seed(123)
    before = ember.rand(3)
    ember.manual_seed(123)
    a0, y0 = ds[0]
    a1, y1 = ds[1]
    after = ember.rand(3)
    assert ember.equal(before, after)  # the default generator is not touched
    assert not HAVE_PIL or a0.mode == "RGB"
    a0, a1 = pixels(a0), pixels(a1)
    assert a0.shape == (6, 4, 3) and a0.dtype == np.uint8 and 0 <= y0 < 3
    b0, z0 = ds[0]
    np.testing.assert_array_equal(a0, pixels(b0))
    assert y0 == z0
    assert not np.array_equal(a0, a1)
    shifted = datasets.FakeData(size=5, image_size=(3, 6, 4), num_classes=3, random_offset=1)
    np.testing.assert_array_equal(pixels(shifted[0][0]), a1)
    gray = datasets.FakeData(size=2, image_size=(1, 5, 5), transform=T.ToTensor(), target_transform=str)
    x, y = gray[1]
    assert tuple(x.shape) == (1, 5, 5) and isinstance(y, str)
    ys = [datasets.FakeData(size=200, image_size=(1, 1, 1), num_classes=4)[i][1] for i in range(200)]
    assert set(ys) == {0, 1, 2, 3}
    with pytest.raises(IndexError, match="FakeData index out of range"):
        ds[5]
    with pytest.raises(ValueError, match="image_size"):
        datasets.FakeData(image_size=(3, 4))


def test_mutated_files_raise_and_never_crash():
    """Random byte edits, truncations, insertions and implausible sizes in PNG, PGM/PPM, IDX and gzip inputs: each
    decodes or raises RuntimeError/ValueError (never a crash, hang or other exception)."""
    import random

    r = random.Random(1)
    rng = np.random.default_rng(2)
    images = [
        png_bytes(rng.integers(0, 256, (6, 5, 3), dtype=np.uint8), 2),
        png_bytes(rng.integers(0, 256, (4, 4), dtype=np.uint8), 0),
        png_bytes(
            rng.integers(0, 4, (3, 5), dtype=np.uint8), 3, palette=rng.integers(0, 256, (4, 3)), trns=b"\x00\x80"
        ),
        pnm_bytes(rng.integers(0, 256, (3, 4, 3), dtype=np.uint8)),
        pnm_bytes(rng.integers(0, 1000, (3, 4)).astype(np.uint16), maxval=1000),
    ]
    idxs = [idx_bytes(rng.integers(0, 256, (3, 4, 5), dtype=np.uint8)), idx_bytes(rng.random((2, 3)))]
    gzs = [gzip.compress(x) for x in idxs]

    def mutate(b):
        b = bytearray(b)
        for _ in range(r.randint(1, 4)):
            op = r.random()
            if op < 0.5 and b:
                b[r.randrange(len(b))] = r.randrange(256)
            elif op < 0.7:
                b = b[: r.randrange(len(b) + 1)]
            elif op < 0.85:
                i = r.randrange(len(b) + 1)
                b[i:i] = bytes(r.randrange(256) for _ in range(r.randint(1, 8)))
            else:
                i = r.randrange(max(1, len(b) - 4))
                b[i : i + 4] = struct.pack(">I", r.choice([0, 1, 2**31, 2**32 - 1, 10**6]))
        return bytes(b)

    outcomes = {"ok": 0, "error": 0}
    for _ in range(3000):
        kind = r.randrange(3)
        try:
            if kind == 0:
                out = V.decode_image(mutate(r.choice(images)), r.randrange(5))
                assert out.dtype == ember.uint8 and out.dim() == 3
            elif kind == 1:
                V.parse_idx(mutate(r.choice(idxs)))
            else:
                V.parse_idx(V.gunzip(mutate(r.choice(gzs)), 10**6))
            outcomes["ok"] += 1
        except (RuntimeError, ValueError):
            outcomes["error"] += 1
    assert outcomes["ok"] > 100 and outcomes["error"] > 1000


def test_samples_without_pillow(tmp_path, monkeypatch):
    """Without Pillow (CI installs it, so it is hidden here) MNIST gives uint8 tensors, CIFAR and FakeData uint8
    arrays, and the transforms take them."""
    monkeypatch.setattr(_pil, "Image", None)
    ref = write_mnist(str(tmp_path))
    img, _ = datasets.MNIST(str(tmp_path))[2]
    assert isinstance(img, ember.Tensor) and img.dtype == ember.uint8
    np.testing.assert_array_equal(img.numpy(), ref["train"][0][2])
    write_cifar10_py(str(tmp_path), 2)
    arr, _ = datasets.CIFAR10(str(tmp_path))[0]
    assert isinstance(arr, np.ndarray) and arr.shape == (32, 32, 3)
    fake, _ = datasets.FakeData(size=2, image_size=(3, 5, 4))[1]
    assert isinstance(fake, np.ndarray) and fake.shape == (5, 4, 3)
    x = T.Compose([T.CenterCrop(3), T.ToTensor()])(fake)
    np.testing.assert_allclose(x.numpy(), fake[1:4, :3].transpose(2, 0, 1) / 255.0, atol=1e-7)
