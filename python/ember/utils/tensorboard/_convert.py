"""Tensors to NumPy arrays and images to PNG, for the summary builders (all vectorized: no per-pixel loops)."""

import io
import struct
import zlib

import numpy as np

import ember

try:  # pillow is a dependency of tensorboard; the zlib encoder below covers installs without it
    from PIL import Image as _PILImage
except ImportError:  # pragma: no cover - exercised by forcing _PILImage = None in the tests
    _PILImage = None


def make_np(x):
    """An ember Tensor (any device, any dtype but complex), NumPy array or Python / NumPy scalar as a NumPy array.
    CPU tensors are viewed without a copy (ember's numpy interop); bfloat16, which NumPy lacks, becomes float32."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, ember.Tensor):
        x = x.detach()
        if x.dtype == ember.bfloat16:
            x = x.float()
        return x.numpy(force=True)
    if np.isscalar(x) and not isinstance(x, (str, bytes)):
        return np.array([x])
    raise NotImplementedError("Got {}, but a numpy array or an ember Tensor was expected.".format(type(x)))


def make_grid(images, ncols=8):
    """(N, C, H, W) with C in {1, 3, 4} -> one (C', H*rows, W*cols) canvas (grayscale becomes RGB), rows filled
    left to right, the last row padded with zeros."""
    if images.ndim != 4:
        raise AssertionError("make_grid expects a 4-D (N, C, H, W) array, got shape {}".format(images.shape))
    if images.shape[1] == 1:
        images = np.repeat(images, 3, axis=1)
    if images.shape[1] not in (3, 4):
        raise AssertionError("images must have 1, 3 or 4 channels, got shape {}".format(images.shape))
    n, c, h, w = images.shape
    ncols = max(1, min(n, ncols))
    nrows = -(-n // ncols)
    pad = nrows * ncols - n
    if pad:
        images = np.concatenate([images, np.zeros((pad, c, h, w), dtype=images.dtype)], axis=0)
    grid = images.reshape(nrows, ncols, c, h, w).transpose(2, 0, 3, 1, 4)
    return grid.reshape(c, nrows * h, ncols * w)


def convert_to_HWC(array, input_format):
    """Reorder an image array described by `input_format` (e.g. "CHW", "HWC", "HW", "NCHW", "NHWC") to HWC;
    batches are tiled into a grid, grayscale is repeated to RGB."""
    fmt = input_format.upper()
    if len(set(fmt)) != len(fmt):
        raise AssertionError(
            "You can not use the same dimension shorthand twice. input_format: {}".format(input_format)
        )
    if array.ndim != len(fmt):
        raise AssertionError(
            "size of input tensor and input format are different. tensor shape: {}, input_format: {}".format(
                array.shape, input_format
            )
        )
    if len(fmt) == 4:
        grid = make_grid(array.transpose([fmt.index(c) for c in "NCHW"]))
        return grid.transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = array.transpose([fmt.index(c) for c in "HWC"])
        return np.repeat(hwc, 3, axis=2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        hw = array.transpose([fmt.index(c) for c in "HW"])
        return np.repeat(hw[:, :, None], 3, axis=2)
    raise AssertionError("input_format must have 2, 3 or 4 letters out of N, C, H, W, got {!r}".format(input_format))


def to_uint8(array):
    """uint8 images are kept; anything else is taken as [0, 1] and scaled to [0, 255] (clipped)."""
    if array.dtype == np.uint8:
        return array
    return np.clip(array.astype(np.float32) * 255.0, 0, 255).astype(np.uint8)


_PNG_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # gray, gray+alpha, RGB, RGBA


def _png_zlib(hwc):
    """Minimal PNG writer (8-bit, no filtering) for installs without pillow; tensorboard's own encoder
    (tensorboard.util.encoder) needs TensorFlow."""
    h, w, c = hwc.shape

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = np.concatenate([np.zeros((h, 1), np.uint8), np.ascontiguousarray(hwc).reshape(h, w * c)], axis=1)
    header = struct.pack(">IIBBBBB", w, h, 8, _PNG_COLOR_TYPE[c], 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
        + chunk(b"IEND", b"")
    )


def encode_png(hwc):
    """PNG bytes of a (H, W, C) uint8 array, C in {1, 2, 3, 4}."""
    if hwc.dtype != np.uint8 or hwc.ndim != 3 or hwc.shape[2] not in _PNG_COLOR_TYPE:
        raise ValueError("encode_png: expected a (H, W, 1|2|3|4) uint8 array, got {} {}".format(hwc.dtype, hwc.shape))
    if _PILImage is None:
        return _png_zlib(hwc)
    mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[hwc.shape[2]]
    img = _PILImage.fromarray(np.ascontiguousarray(hwc if hwc.shape[2] != 1 else hwc[:, :, 0]))
    if img.mode != mode:
        img = img.convert(mode)
    with io.BytesIO() as buf:
        img.save(buf, format="PNG")
        return buf.getvalue()


def figure_to_image(figures, close=True):
    """Render a matplotlib figure (or list of figures) to a CHW (or NCHW) uint8 array."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba(), dtype=np.uint8)
        chw = np.ascontiguousarray(rgba[:, :, :3].transpose(2, 0, 1))
        if close:
            plt.close(figure)
        return chw

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)
