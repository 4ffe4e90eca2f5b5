"""torchvision.utils: make_grid, save_image, draw_bounding_boxes, draw_segmentation_masks, draw_keypoints and
flow_to_image. The grid, the masks' blending and the flow colors are ember ops; boxes, labels and keypoints are drawn
by Pillow's ImageDraw as torchvision does (so those two need Pillow); PNG is written by libpng, JPEG by libjpeg."""

import math
import numbers
import os
import warnings

import numpy as np

import ember

from . import _pil
from . import io as _io

__all__ = [
    "make_grid",
    "save_image",
    "draw_bounding_boxes",
    "draw_segmentation_masks",
    "draw_keypoints",
    "flow_to_image",
]


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
    """Saves a tensor (or list of tensors) as an image, tiled by make_grid(**kwargs). Values are read in [0, 1] and
    scaled to 0..255 with rounding. fp: a path or a binary file object; format: None (from the file name; PNG when
    there is none), or a format name. With Pillow every format Pillow writes works (as torchvision); without it,
    PNG (libpng) and JPEG (libjpeg)."""
    grid = make_grid(tensor, **kwargs)
    if grid.is_floating_point():
        grid = grid.mul(255).add_(0.5).clamp_(0, 255)
    grid = grid.to(ember.uint8).cpu()
    fmt = format
    if fmt is None and isinstance(fp, (str, os.PathLike)):
        ext = os.path.splitext(os.fspath(fp))[1].lower()
        fmt = "png" if ext == "" else None  # else Pillow (or the table below) goes by the extension
        if not _pil.available():
            fmt = {"": "png", ".jpg": "jpeg", ".jpeg": "jpeg"}.get(ext, ext[1:])
    if _pil.available():
        img = _pil.Image.fromarray(np.ascontiguousarray(grid.permute(1, 2, 0).numpy()))
        img.save(fp, format=fmt)
        return
    fmt = (fmt or "png").lower()
    if fmt == "png":
        data = _io.encode_png(grid)
    elif fmt in ("jpeg", "jpg"):
        data = _io.encode_jpeg(grid)
    else:
        raise ValueError(
            "save_image writes PNG and JPEG without Pillow (pip install pillow for other formats), got format %r"
            % (format,)
        )
    if isinstance(fp, (str, os.PathLike)):
        _io.write_file(fp, data)
    else:
        fp.write(bytes(data.numpy()))


# ---------------------------------------------------------------------------- colors


def _palette(n):
    """torchvision's automatic colors: (i * (2^25 - 1, 2^15 - 1, 2^21 - 1)) mod 255 for object i."""
    base = (2**25 - 1, 2**15 - 1, 2**21 - 1)
    return [tuple((i * b) % 255 for b in base) for i in range(n)]


def _rgb(color):
    if isinstance(color, str):
        if not _pil.available():
            raise ImportError(
                "named colors (%r) need Pillow's ImageColor (pip install pillow); pass an RGB tuple" % color
            )
        from PIL import ImageColor

        return ImageColor.getrgb(color)
    return tuple(color)


def _parse_colors(colors, num_objects, floating=False):
    if colors is None:
        colors = _palette(num_objects)
    elif isinstance(colors, list):
        if len(colors) < num_objects:
            raise ValueError(
                "Number of colors must be equal or larger than the number of objects, but got %d < %d."
                % (len(colors), num_objects)
            )
    elif not isinstance(colors, (tuple, str)):
        raise ValueError("colors must be a tuple or a string, or a list thereof, but got %r." % (colors,))
    elif isinstance(colors, tuple) and len(colors) != 3:
        raise ValueError("If passed as tuple, colors should be an RGB triplet, but got %r." % (colors,))
    else:
        colors = [colors] * num_objects
    colors = [_rgb(c) for c in colors]
    if floating:
        colors = [tuple(v / 255 for v in c) for c in colors]
    return colors


def _check_image(image, channels, what):
    if not isinstance(image, ember.Tensor):
        raise TypeError("%s: the image must be a tensor, got %s" % (what, type(image).__name__))
    if not (image.dtype == ember.uint8 or image.is_floating_point()):
        raise ValueError("The image dtype must be uint8 or float, got %s" % image.dtype)
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if image.shape[0] not in channels:
        if channels == (3,):
            raise ValueError("Pass an RGB image. Other Image formats are not supported")
        raise ValueError("Only grayscale and RGB images are supported")


def _to_uint8(image):
    """A float image in [0, 1] -> uint8 as torchvision's to_dtype(scale=True) (x * (256 - 1e-3), truncated)."""
    if image.is_floating_point():
        return image.mul(255 + 1.0 - 1e-3).to(ember.uint8)
    return image


def _from_uint8(out, dtype):
    return out.to(dtype).div(255) if dtype.is_floating_point else out


# ---------------------------------------------------------------------------- drawing


def draw_segmentation_masks(image, masks, alpha=0.8, colors=None):
    """image [3, H, W] (uint8 or float) blended with each bool mask [N, H, W] (or [H, W]) painted in its color:
    image * (1 - alpha) + painted * alpha; pixels under more than one mask are painted black."""
    _check_image(image, (3,), "draw_segmentation_masks")
    if not isinstance(masks, ember.Tensor):
        raise TypeError("masks must be a tensor, got %s" % type(masks).__name__)
    if masks.dim() == 2:
        masks = masks[None]
    if masks.dim() != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if masks.dtype != ember.bool:
        raise ValueError("The masks must be of dtype bool. Got %s" % masks.dtype)
    if tuple(masks.shape[-2:]) != tuple(image.shape[-2:]):
        raise ValueError("The image and the masks must have the same height and width")
    n = masks.shape[0]
    if n == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn")
        return image
    dtype = image.dtype
    cols = _parse_colors(colors, n, floating=dtype.is_floating_point)
    painted = image.detach().clone()
    for k in range(n):
        color = ember.tensor(cols[k], dtype=dtype).view(3, 1, 1)
        painted = ember.where(masks[k][None], color, painted)
    overlap = masks.sum(dim=0) > 1
    painted = ember.where(overlap[None], ember.zeros((), dtype=dtype), painted)
    out = image * (1 - alpha) + painted * alpha
    return out.to(dtype)


def _pil_canvas(image, what):
    Image = _pil.require(what)
    arr = np.ascontiguousarray(_to_uint8(image).permute(1, 2, 0).cpu().numpy())
    return Image.fromarray(arr)


def draw_bounding_boxes(
    image,
    boxes,
    labels=None,
    colors=None,
    fill=False,
    width=1,
    font=None,
    font_size=None,
    label_colors=None,
    label_background_colors=None,
    fill_labels=False,
):
    """Draws boxes [N, 4] (xmin, ymin, xmax, ymax) or rotated boxes [N, 8] (four corners) on image [C, H, W] (C = 1
    or 3, uint8 or float) with Pillow's ImageDraw, as torchvision does: outlines `width` pixels wide (a rotated box's
    first edge dashed), optional translucent fill (alpha 100) and labels.
    Returns a uint8 (or the input's float dtype) [3, H, W] tensor. Needs Pillow."""
    from PIL import ImageDraw, ImageFont

    _check_image(image, (1, 3), "draw_bounding_boxes")
    if not isinstance(boxes, ember.Tensor) or boxes.dim() != 2:
        raise ValueError("boxes must be a [N, 4] tensor, got %r" % (getattr(boxes, "shape", boxes),))
    if boxes.shape[-1] not in (4, 8):
        raise ValueError(
            "draw_bounding_boxes draws (xmin, ymin, xmax, ymax) boxes [N, 4] or rotated boxes [N, 8] (x1, y1, ..., "
            "x4, y4); got boxes of shape %s" % (list(boxes.shape),)
        )
    if boxes.shape[-1] == 4 and (bool((boxes[:, 0] > boxes[:, 2]).any()) or bool((boxes[:, 1] > boxes[:, 3]).any())):
        raise ValueError(
            "Boxes need to be in (xmin, ymin, xmax, ymax) format. Use torchvision.ops.box_convert to convert them"
        )
    n = boxes.shape[0]
    if n == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn")
        return image
    if labels is None:
        labels = [None] * n
    elif len(labels) != n:
        raise ValueError(
            "Number of boxes (%d) and labels (%d) mismatch. Please specify labels for each box." % (n, len(labels))
        )
    colors = _parse_colors(colors, n)
    if label_colors or fill_labels:
        label_colors = _parse_colors(label_colors if label_colors else "black", n)
    else:
        label_colors = list(colors)
    if fill_labels and label_background_colors:
        label_background_colors = _parse_colors(label_background_colors, n)
    else:
        label_background_colors = list(colors)
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.")
        txt_font = ImageFont.load_default()
    else:
        txt_font = ImageFont.truetype(font=font, size=font_size or 10)
    if image.shape[0] == 1:
        image = image.expand(3, *image.shape[1:])
    dtype = image.dtype
    canvas = _pil_canvas(image, "draw_bounding_boxes")
    draw = ImageDraw.Draw(canvas, "RGBA") if fill else ImageDraw.Draw(canvas)
    for box, color, label, lcolor, bg in zip(
        boxes.to(ember.int64).tolist(), colors, labels, label_colors, label_background_colors
    ):
        box_fill = (color + (100,)) if fill else None
        if len(box) > 4:
            _oriented_rectangle(draw, box, box_fill, color, width)
        else:
            draw.rectangle(box, width=width, outline=color, fill=box_fill)
        if label is not None:
            margin = width + 1
            if fill_labels:
                left, top, right, bottom = draw.textbbox((box[0] + margin, box[1] + margin), label, font=txt_font)
                draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=bg)
            draw.text((box[0] + margin, box[1] + margin), label, fill=lcolor, font=txt_font)
    out = ember.from_numpy(np.array(canvas)).permute(2, 0, 1).contiguous()
    return _from_uint8(out, dtype)


def _oriented_rectangle(draw, xy, fill, outline, width):
    """A rotated box's four corners: its first edge dashed (5 pixels on, 5 off: it marks the box's orientation), the
    other three solid, the inside filled (torchvision's look)."""
    x1, y1, x2, y2 = xy[0], xy[1], xy[2], xy[3]
    length = math.hypot(x2 - x1, y2 - y1)
    angle = math.atan2(y2 - y1, x2 - x1)
    on = True
    while length > 0:
        step = min(length, 5.0)
        ex, ey = x1 + math.cos(angle) * step, y1 + math.sin(angle) * step
        if on:
            draw.line([(x1, y1), (ex, ey)], outline, width, None)
        x1, y1, length, on = ex, ey, length - step, not on
    n = len(xy)
    for i in range(2, n, 2):
        draw.line(((xy[i], xy[i + 1]), (xy[(i + 2) % n], xy[(i + 3) % n])), width=width, fill=outline)
    draw.polygon(xy, fill=fill, outline=None, width=0)


def draw_keypoints(image, keypoints, connectivity=None, colors=None, radius=2, width=3, visibility=None):
    """Draws keypoints [num_instances, K, 2] on an RGB image [3, H, W] as discs of `radius` (color `colors`), and
    the `connectivity` pairs as white lines `width` wide, with Pillow's ImageDraw as torchvision does; invisible
    points (visibility [num_instances, K] False) and their lines are skipped. Needs Pillow."""
    from PIL import ImageDraw

    _check_image(image, (3,), "draw_keypoints")
    if not isinstance(keypoints, ember.Tensor) or keypoints.dim() != 3:
        raise ValueError("keypoints must be of shape (num_instances, K, 2)")
    if visibility is None:
        visibility = ember.ones(tuple(keypoints.shape[:-1]), dtype=ember.bool)
    if visibility.dim() == 3:
        visibility = visibility.squeeze(-1)
    if visibility.dim() != 2:
        raise ValueError("visibility must be of shape (num_instances, K). Got ndim=%d" % visibility.dim())
    if tuple(visibility.shape) != tuple(keypoints.shape[:-1]):
        raise ValueError(
            "keypoints and visibility must have the same dimensionality for num_instances and K. Got "
            "visibility.shape=%s and keypoints.shape=%s" % (list(visibility.shape), list(keypoints.shape))
        )
    if isinstance(colors, str) or (isinstance(colors, tuple) and len(colors) == 3):
        fill = _rgb(colors)
    elif colors is None:
        fill = None
    else:
        raise ValueError("colors must be a color name or an RGB tuple, got %r" % (colors,))
    if not isinstance(radius, numbers.Integral) or not isinstance(width, numbers.Integral):
        raise TypeError("radius and width must be ints")
    dtype = image.dtype
    canvas = _pil_canvas(image, "draw_keypoints")
    draw = ImageDraw.Draw(canvas)
    for kpts, vis in zip(keypoints.to(ember.int64).tolist(), visibility.bool().tolist()):
        for (x, y), v in zip(kpts, vis):
            if v:
                draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=fill, outline=None, width=0)
        for a, b in connectivity or ():
            if vis[a] and vis[b]:
                draw.line(((kpts[a][0], kpts[a][1]), (kpts[b][0], kpts[b][1])), width=width)
    out = ember.from_numpy(np.array(canvas)).permute(2, 0, 1).contiguous()
    return _from_uint8(out, dtype)


# ---------------------------------------------------------------------------- optical flow


def _colorwheel():
    """The Middlebury color wheel (Baker et al., ICCV 2007): 55 RGB colors, red -> yellow -> green -> cyan -> blue ->
    magenta -> red. Each segment holds one channel at 255 and ramps another up (or down) in floor(255 * i / n)."""
    # (colors in the segment, the channel held at 255, the channel that ramps, whether it ramps up)
    segments = (
        (15, 0, 1, True),
        (6, 1, 0, False),
        (4, 1, 2, True),
        (11, 2, 1, False),
        (13, 2, 0, True),
        (6, 0, 2, False),
    )
    rows = []
    for n, full, ramp, up in segments:
        for i in range(n):
            row = [0, 0, 0]
            row[full] = 255
            step = math.floor(255 * i / n)
            row[ramp] = step if up else 255 - step
            rows.append(row)
    return ember.tensor(rows, dtype=ember.float32)


def flow_to_image(flow):
    """An optical flow [2, H, W] or [N, 2, H, W] (float32) as a uint8 RGB image: the direction picks the color of
    the Middlebury color wheel, the magnitude (relative to the largest) its saturation."""
    if not isinstance(flow, ember.Tensor) or flow.dtype != ember.float32:
        raise ValueError("Flow should be of dtype torch.float, got %s." % getattr(flow, "dtype", type(flow).__name__))
    orig = tuple(flow.shape)
    if flow.dim() == 3:
        flow = flow[None]
    if flow.dim() != 4 or flow.shape[1] != 2:
        raise ValueError("Input flow should have shape (2, H, W) or (N, 2, H, W), got %s." % (orig,))
    max_norm = flow.pow(2).sum(dim=1).sqrt().max()
    flow = flow / (max_norm + float(np.finfo(np.float32).eps))
    wheel = _colorwheel()
    ncols = wheel.shape[0]
    norm = flow.pow(2).sum(dim=1).sqrt()
    a = ember.atan2(-flow[:, 1], -flow[:, 0]) / math.pi
    fk = (a + 1) / 2 * (ncols - 1)
    k0 = ember.floor(fk).to(ember.int64)
    k1 = k0 + 1
    k1 = ember.where(k1 == ncols, ember.zeros_like(k1), k1)
    f = fk - k0
    channels = []
    for c in range(3):
        col0 = wheel[:, c][k0] / 255.0
        col1 = wheel[:, c][k1] / 255.0
        col = (1 - f) * col0 + f * col1
        col = 1 - norm * (1 - col)
        channels.append(ember.floor(255 * col).to(ember.uint8))
    img = ember.stack(channels, dim=1)
    return img[0] if len(orig) == 3 else img
