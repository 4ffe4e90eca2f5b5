"""PyTorch's fixed-point bilinear and bicubic resampling of uint8 images (Note [Fixed-point uint8 resampling] in
ember/nn/functional/spatial.cpp), written out in NumPy from its definition: per axis (the last first, the intermediate
rounded to uint8), double weights (antialias: the triangle or Keys cubic (a = -0.5) filter stretched by the downscale
factor and normalised; without: the triangle or cubic (a = -0.75) filter at the taps around the source index, taps
past an edge added to the edge), scaled to int16 with the axis's precision, and (2^(p - 1) + sum w * x) >> p clamped
to [0, 255]."""

import math

import numpy as np


def triangle(x):
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def keys_cubic(a):
    def f(x):
        x = abs(x)
        if x < 1.0:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2.0:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return 0.0

    return f


def axis_taps(n_in, n_out, antialias, align_corners=False, cubic=False):
    """[(input index, double weight), ...] per output, and the axis's largest weight."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = n_in / n_out
    half = 2 if cubic else 1  # half the filter's support, in input pixels at scale 1
    rows, wt_max = [], 0.0
    for o in range(n_out):
        if antialias:
            f = keys_cubic(-0.5) if cubic else triangle
            support = half * scale if scale >= 1.0 else float(half)
            width = math.ceil(support) * 2 + 1
            inv = 1.0 / scale if scale >= 1.0 else 1.0
            center = scale * (o + 0.5)
            xmin = max(int(center - support + 0.5), 0)
            xsize = min(max(min(int(center + support + 0.5), n_in) - xmin, 0), width)
            ws = [f((xmin + j - center + 0.5) * inv) for j in range(xsize)]
            total = 0.0
            for w in ws:
                total += w
            if total != 0.0:
                ws = [w / total for w in ws]
                wt_max = max([wt_max] + ws)
            rows.append([(xmin + j, w) for j, w in enumerate(ws)])
        else:
            f = keys_cubic(-0.75) if cubic else triangle
            real = scale * o if align_corners else scale * (o + 0.5) - 0.5
            if not cubic:
                real = max(real, 0.0)
            i0 = min(math.floor(np.float32(real)), n_in - 1)  # PyTorch's floorf of the double
            lam = min(max(real - i0, 0.0), 1.0)
            acc = {}
            for j in range(2 * half):  # taps i0 - half + 1 ... i0 + half
                at = min(max(i0 - half + 1 + j, 0), n_in - 1)
                acc[at] = acc.get(at, 0.0) + f((j + 1 - half) - lam)
                wt_max = max(wt_max, acc[at])
            rows.append(sorted(acc.items()))
    return rows, wt_max


def fixed_weights(rows, wt_max):
    """The rows' weights in int16 with the precision PyTorch picks for the axis, and that precision."""
    p = 0
    while p < 22 and int(0.5 + wt_max * (1 << (p + 1))) < (1 << 15):
        p += 1
    to_int = lambda v: int(0.5 + v) if v >= 0 else int(-0.5 + v)  # noqa: E731  (C's truncating cast)
    return [[(i, to_int(w * (1 << p))) for i, w in row] for row in rows], p


def resample_axis(x, axis, n_out, antialias, align_corners, cubic):
    """uint8 x resampled along axis in fixed point."""
    n_in = x.shape[axis]
    if n_in == n_out:
        return x
    rows, p = fixed_weights(*axis_taps(n_in, n_out, antialias, align_corners, cubic))
    src = np.moveaxis(x.astype(np.int64), axis, -1)
    out = np.empty(src.shape[:-1] + (n_out,), dtype=np.int64)
    for o, row in enumerate(rows):
        acc = np.full(src.shape[:-1], 1 << (p - 1), dtype=np.int64)
        for i, w in row:
            acc += w * src[..., i]
        out[..., o] = np.clip(acc >> p, 0, 255)
    return np.moveaxis(out.astype(np.uint8), -1, axis)


def resize_u8(x, size, antialias, align_corners=False, mode="bilinear"):
    """x [..., H, W] uint8 -> [..., size[0], size[1]]: the width first, then the height."""
    cubic = mode == "bicubic"
    y = resample_axis(x, x.ndim - 1, size[1], antialias, align_corners, cubic)
    return resample_axis(y, x.ndim - 2, size[0], antialias, align_corners, cubic)
