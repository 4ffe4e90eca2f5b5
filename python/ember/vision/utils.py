"""make_grid and save_image (torchvision.utils). The grid is assembled by ember ops; PNG is written by libpng."""

import math
import os

import ember

from . import io as _io

__all__ = ["make_grid", "save_image"]


def _normalize_range(img, low, high):
    img = img.clamp(min=low, max=high)
    return img.sub(low).div(max(high - low, 1e-5))


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """Tiles a batch [B, C, H, W] (or a list of [C, H, W]) into one [3, rows, cols] image, nrow images per row,
    separated by `padding` pixels of pad_value. A one-channel batch is repeated to three channels.

    normalize rescales to [0, 1] using value_range (low, high) or the min and max (per image with scale_each).
    """
    if isinstance(tensor, (list, tuple)):
        if not tensor or not all(isinstance(t, ember.Tensor) for t in tensor):
            raise TypeError("tensor should be a tensor or a non-empty list of tensors, got %r" % (type(tensor),))
        tensor = ember.stack(list(tensor), dim=0)
    if not isinstance(tensor, ember.Tensor):
        raise TypeError("tensor or list of tensors expected, got %s" % type(tensor).__name__)
    if isinstance(nrow, bool) or not isinstance(nrow, int) or nrow < 1:
        raise ValueError("nrow must be a positive int, got %r" % (nrow,))
    if isinstance(padding, bool) or not isinstance(padding, int) or padding < 0:
        raise ValueError("padding must be a non-negative int, got %r" % (padding,))
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.shape[0] == 1:
            tensor = ember.cat([tensor, tensor, tensor], dim=0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() != 4:
        raise ValueError(
            "make_grid expects a [B, C, H, W] batch, a [C, H, W] image or a [H, W] map, got shape %s"
            % (list(tensor.shape),)
        )
    if tensor.shape[1] == 1:
        tensor = ember.cat([tensor, tensor, tensor], dim=1)
    if normalize:
        if not tensor.is_floating_point():
            tensor = tensor.to(ember.get_default_dtype())
        else:
            tensor = tensor.clone()
        if value_range is not None and (not isinstance(value_range, (tuple, list)) or len(value_range) != 2):
            raise ValueError("value_range has to be a tuple (min, max) if specified. min and max are numbers")
        if scale_each:
            if value_range is not None:
                tensor = _normalize_range(tensor, float(value_range[0]), float(value_range[1]))
            else:
                flat = tensor.reshape(tensor.shape[0], -1)
                low = flat.amin(dim=1).view(-1, 1, 1, 1)
                high = flat.amax(dim=1).view(-1, 1, 1, 1)
                tensor = tensor.sub(low).div((high - low).clamp(min=1e-5))
        else:
            if value_range is not None:
                low, high = float(value_range[0]), float(value_range[1])
            else:
                low, high = float(tensor.min().item()), float(tensor.max().item())
            tensor = _normalize_range(tensor, low, high)
    if tensor.shape[0] == 1:
        return tensor.squeeze(0)
    b, c, h, w = tensor.shape
    xmaps = min(nrow, b)
    ymaps = int(math.ceil(b / xmaps))
    # Pad each image on its left and top, add blank images to fill the last row, lay the tiles out with one
    # reshape/permute, then pad the right and bottom edge of the whole grid: all of it ember ops.
    cells = ember.full((ymaps * xmaps, c, h + padding, w + padding), pad_value, dtype=tensor.dtype)
    cells[:b, :, padding:, padding:] = tensor
    grid = cells.view(ymaps, xmaps, c, h + padding, w + padding).permute(2, 0, 3, 1, 4)
    grid = grid.reshape(c, ymaps * (h + padding), xmaps * (w + padding))
    out = ember.full(
        (c, ymaps * (h + padding) + padding, xmaps * (w + padding) + padding), pad_value, dtype=tensor.dtype
    )
    out[:, : grid.shape[1], : grid.shape[2]] = grid
    return out


def save_image(tensor, fp, format=None, **kwargs):
    """Saves a tensor (or list of tensors) as a PNG image, tiled by make_grid(**kwargs). Values are read in [0, 1]
    and scaled to 0..255 with rounding. fp: a path or a binary file object; format: None or "png"."""
    if format is not None and str(format).lower() != "png":
        raise ValueError("save_image writes PNG only (through libpng), got format=%r" % (format,))
    if format is None and isinstance(fp, (str, os.PathLike)):
        ext = os.path.splitext(os.fspath(fp))[1].lower()
        if ext not in ("", ".png"):
            raise ValueError(
                "save_image writes PNG only (through libpng); the file name %r has extension %r" % (os.fspath(fp), ext)
            )
    grid = make_grid(tensor, **kwargs)
    if grid.is_floating_point():
        grid = grid.mul(255).add_(0.5).clamp_(0, 255)
    data = _io.encode_png(grid.to(ember.uint8).cpu())
    if isinstance(fp, (str, os.PathLike)):
        _io.write_file(fp, data)
    else:
        fp.write(bytes(data.numpy()))
