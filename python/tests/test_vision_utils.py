"""ember.vision.utils (make_grid against a NumPy reference, save_image) and ember.vision.io's PNG codec, checked
with an independent PNG reader written here (zlib + the PNG filters) besides libpng's decoder."""

import io
import struct
import zlib

import numpy as np
import pytest

import ember
from ember.vision import _pil
from ember.vision import io as vio
from ember.vision.utils import make_grid, save_image


def grid_reference(batch, nrow=8, padding=2, pad_value=0.0):
    """make_grid's layout with explicit loops: tiles of (H + padding) x (W + padding), padding before each."""
    b, c, h, w = batch.shape
    if c == 1:
        batch = np.concatenate([batch] * 3, axis=1)
        c = 3
    if b == 1:
        return batch[0]
    xmaps = min(nrow, b)
    ymaps = -(-b // xmaps)
    out = np.full((c, ymaps * (h + padding) + padding, xmaps * (w + padding) + padding), pad_value, batch.dtype)
    for k in range(b):
        y, x = divmod(k, xmaps)
        top, left = y * (h + padding) + padding, x * (w + padding) + padding
        out[:, top : top + h, left : left + w] = batch[k]
    return out


RNG = np.random.default_rng(0)


@pytest.mark.parametrize(
    "b, c, nrow, padding, pad_value",
    [(5, 3, 2, 2, 0.0), (7, 3, 8, 0, 0.5), (6, 1, 3, 3, 1.0), (1, 3, 8, 2, 0.0), (9, 3, 4, 1, 0.25), (3, 4, 2, 2, 0.0)],
)
def test_make_grid_layout(b, c, nrow, padding, pad_value):
    batch = RNG.random((b, c, 4, 5)).astype(np.float32)
    got = make_grid(ember.from_numpy(batch), nrow=nrow, padding=padding, pad_value=pad_value)
    np.testing.assert_array_equal(got.numpy(), grid_reference(batch, nrow, padding, pad_value))


def test_make_grid_inputs_and_normalize():
    batch = (RNG.random((4, 3, 3, 2)) * 10 - 3).astype(np.float32)
    ref = grid_reference(batch, nrow=2)
    lst = make_grid([ember.from_numpy(x) for x in batch], nrow=2)
    np.testing.assert_array_equal(lst.numpy(), ref)
    # normalize: min/max of the whole batch, or value_range with clamping, or per image
    got = make_grid(ember.from_numpy(batch), nrow=2, normalize=True)
    lo, hi = batch.min(), batch.max()
    np.testing.assert_allclose(got.numpy(), grid_reference((batch - lo) / (hi - lo), nrow=2), atol=1e-6)
    got = make_grid(ember.from_numpy(batch), nrow=2, normalize=True, value_range=(0, 5))
    np.testing.assert_allclose(got.numpy(), grid_reference(np.clip(batch, 0, 5) / 5, nrow=2), atol=1e-6)
    got = make_grid(ember.from_numpy(batch), nrow=2, normalize=True, scale_each=True)
    lo = batch.reshape(4, -1).min(1)[:, None, None, None]
    hi = batch.reshape(4, -1).max(1)[:, None, None, None]
    np.testing.assert_allclose(got.numpy(), grid_reference((batch - lo) / (hi - lo), nrow=2), atol=1e-6)
    assert float(ember.from_numpy(batch).min()) == batch.min()  # the input is not modified
    single = make_grid(ember.from_numpy(batch[0, 0]))  # a [H, W] map becomes a 3-channel image
    np.testing.assert_array_equal(single.numpy(), np.stack([batch[0, 0]] * 3))
    u8 = RNG.integers(0, 256, size=(3, 3, 2, 2), dtype=np.uint8)
    g = make_grid(ember.from_numpy(u8), nrow=3, pad_value=255)
    assert g.dtype == ember.uint8
    np.testing.assert_array_equal(g.numpy(), grid_reference(u8, nrow=3, pad_value=255))
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        make_grid(np.zeros((2, 3, 4, 4)))
    with pytest.raises(ValueError, match="make_grid expects a"):
        make_grid(ember.zeros(1, 1, 1, 3, 3))
    with pytest.raises(ValueError, match="nrow must be a positive int"):
        make_grid(ember.zeros(2, 3, 3, 3), nrow=0)


def png_decode_reference(data):
    """A minimal PNG reader (8-bit, non-interlaced): chunk CRCs, zlib, and the five row filters."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
        if kind == b"IEND":
            break
    w, h, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    raw = zlib.decompress(idat)
    stride = w * channels
    out = np.zeros((h, stride), np.int64)
    prev = np.zeros(stride, np.int64)
    for y in range(h):
        f = raw[y * (stride + 1)]
        row = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        cur = np.zeros(stride, np.int64)
        for i in range(stride):
            a = cur[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 0:
                pred = 0
            elif f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[i] = (row[i] + pred) % 256
        out[y] = cur
        prev = cur
    return out.reshape(h, w, channels).astype(np.uint8)


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_encode_png_round_trip(tmp_path, channels):
    img = RNG.integers(0, 256, size=(channels, 7, 9), dtype=np.uint8)
    img[:, 2] = np.arange(9, dtype=np.uint8) * 3  # smooth rows make libpng choose other filters
    data = vio.encode_png(ember.from_numpy(img), compression_level=9)
    assert data.dtype == ember.uint8 and data.dim() == 1
    raw = bytes(data.numpy())
    np.testing.assert_array_equal(png_decode_reference(raw), img.transpose(1, 2, 0))
    np.testing.assert_array_equal(vio.decode_png(data).numpy(), img)
    path = tmp_path / "x.png"
    vio.write_png(ember.from_numpy(img), str(path), compression_level=0)
    np.testing.assert_array_equal(vio.read_image(str(path)).numpy(), img)
    np.testing.assert_array_equal(vio.read_file(str(path)).numpy(), np.frombuffer(path.read_bytes(), np.uint8))
    # a non-contiguous view is encoded by its values
    view = ember.from_numpy(img.transpose(0, 2, 1).copy()).transpose(1, 2)
    np.testing.assert_array_equal(vio.decode_png(vio.encode_png(view)).numpy(), img)


def test_encode_png_errors():
    with pytest.raises(TypeError, match="expected a uint8 image tensor"):
        vio.encode_png(ember.zeros(3, 4, 4))
    with pytest.raises(ValueError, match=r"expected an image of shape \[C, H, W\] with C = 1, 2, 3 or 4"):
        vio.encode_png(ember.zeros(5, 4, 4, dtype=ember.uint8))
    with pytest.raises(ValueError, match="expected an image of shape"):
        vio.encode_png(ember.zeros(4, 4, dtype=ember.uint8))
    with pytest.raises(ValueError, match="Compression level should be between 0 and 9"):
        vio.encode_png(ember.zeros(1, 4, 4, dtype=ember.uint8), compression_level=10)
    with pytest.raises(ValueError, match="cannot encode a 0 x 4 image"):
        vio.encode_png(ember.zeros(1, 0, 4, dtype=ember.uint8))
    with pytest.raises(FileNotFoundError):
        vio.write_png(ember.zeros(1, 4, 4, dtype=ember.uint8), "/nonexistent-dir/x.png")


def test_save_image(tmp_path):
    batch = RNG.random((5, 3, 6, 4)).astype(np.float32)
    path = tmp_path / "grid.png"
    save_image(ember.from_numpy(batch), str(path), nrow=3, padding=1, pad_value=1.0)
    grid = grid_reference(batch, nrow=3, padding=1, pad_value=1.0)
    expected = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    data = path.read_bytes()
    np.testing.assert_array_equal(png_decode_reference(data), expected)
    np.testing.assert_array_equal(vio.read_image(str(path)).numpy().transpose(1, 2, 0), expected)
    buf = io.BytesIO()
    save_image(ember.from_numpy(batch[0]), buf, format="png")
    np.testing.assert_array_equal(
        png_decode_reference(buf.getvalue()), np.clip(batch[0] * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    )
    gray = ember.from_numpy(batch[:1, :1])  # one gray image: written as RGB (make_grid repeats the channel)
    save_image(gray, str(tmp_path / "g.png"))
    assert vio.read_image(str(tmp_path / "g.png")).shape == (3, 6, 4)
    # JPEG (Pillow's with Pillow, as torchvision; else libjpeg's): lossy, so close to the grid, not equal.
    save_image(ember.from_numpy(batch), str(tmp_path / "x.jpg"), nrow=3, padding=1, pad_value=1.0)
    back = vio.read_image(str(tmp_path / "x.jpg")).numpy().transpose(1, 2, 0).astype(np.float64)
    assert back.shape == expected.shape and np.abs(back - expected).mean() < 40
    if not _pil.available():
        with pytest.raises(ValueError, match="PNG and JPEG without Pillow"):
            save_image(ember.from_numpy(batch), buf, format="bmp")
