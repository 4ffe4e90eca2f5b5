"""Gradient cases of the spatial, distance and attention ops (ember/nn/spatial.cpp, distance.cpp, attention.cpp).
grid_sample's grid points stay away from pixel borders (the bilinear weights have kinks there; nearest is piecewise
constant in the grid); distances keep points apart (norms are not smooth at 0)."""

import math

import numpy as np

import ember
import ember.nn.functional as F

from . import Case, make

CASES = []


def add(op, fn, inputs, **kw):
    CASES.append(Case(op, fn, inputs, id=kw.pop("id", None) or op + "_%d" % sum(c.op == op for c in CASES), **kw))


def grid(n, *out, dims=2, size=5, align_corners=False, seed=0, spread=1.0):
    """A [n, *out, dims] grid of points at least 0.1 pixel away from pixel centres (kinks of the weights), with
    coordinates up to `spread` (beyond 1: outside the image)."""
    rng = np.random.default_rng(seed)
    g = rng.uniform(-spread, spread, size=(n,) + out + (dims,))
    px = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
    frac = px - np.floor(px)
    px = np.where(frac < 0.1, np.floor(px) + 0.15, np.where(frac > 0.9, np.floor(px) + 0.85, px))
    g = px / (size - 1) * 2 - 1 if align_corners else (px * 2 + 1) / size - 1
    return ember.tensor(g.tolist(), dtype=ember.float64).requires_grad_()


# ---- interpolate (the resample kernel pair: each is the other's formula)
for mode, shape, kw in [
    ("nearest", (1, 2, 3), dict(size=5)),
    ("nearest", (2, 1, 3, 2), dict(scale_factor=(1.5, 2))),
    ("nearest-exact", (1, 2, 4, 3), dict(size=(3, 5))),
    ("nearest", (1, 1, 2, 3, 2), dict(scale_factor=2)),
    ("linear", (2, 2, 4), dict(size=7, align_corners=True)),
    ("bilinear", (1, 2, 3, 4), dict(size=(5, 3))),
    ("bilinear", (1, 1, 4, 4), dict(scale_factor=0.6, recompute_scale_factor=True)),
    ("bilinear", (1, 1, 6, 5), dict(size=(3, 2), antialias=True)),
    ("bicubic", (1, 2, 4, 3), dict(size=(6, 5), align_corners=True)),
    ("bicubic", (1, 1, 5, 5), dict(size=(3, 2), antialias=True)),
    ("trilinear", (1, 1, 2, 3, 3), dict(size=(3, 4, 2))),
    ("area", (1, 2, 5, 7), dict(size=(3, 4))),
]:
    add(
        "interpolate",
        lambda x, mode=mode, kw=kw: F.interpolate(x, mode=mode, **kw),
        lambda shape=shape: (make(*shape),),
        id="interpolate_" + mode + "_%d" % len(CASES),
    )

# ---- grid_sample and affine_grid
for mode, pad, align in [
    ("bilinear", "zeros", False),
    ("bilinear", "border", True),
    ("bilinear", "reflection", False),
    ("bilinear", "reflection", True),
    ("nearest", "zeros", False),
    ("bicubic", "zeros", False),
    ("bicubic", "border", True),
    ("bicubic", "reflection", False),
]:
    add(
        "grid_sample",
        lambda x, g, mode=mode, pad=pad, align=align: F.grid_sample(x, g, mode, pad, align),
        lambda align=align: (make(2, 2, 5, 5), grid(2, 3, 4, align_corners=align, spread=1.3)),
        id="grid_sample_%s_%s_%d" % (mode, pad, align),
    )
add(
    "grid_sample",
    lambda x, g: F.grid_sample(x, g, align_corners=False),
    lambda: (make(1, 2, 5, 5, 5), grid(1, 2, 3, 2, dims=3, spread=1.2)),
    id="grid_sample_3d",
)
add("affine_grid", lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), lambda: (make(2, 2, 3),))
add("affine_grid", lambda t: F.affine_grid(t, [1, 1, 2, 3, 2], align_corners=True), lambda: (make(1, 3, 4),))

# ---- pixel shuffle, unfold, fold
add("pixel_shuffle", lambda x: ember.pixel_shuffle(x, 2), lambda: (make(2, 8, 2, 3, noncontig=True),))
add("pixel_unshuffle", lambda x: ember.pixel_unshuffle(x, 2), lambda: (make(3, 4, 6),))
add("unfold", lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), lambda: (make(2, 2, 4, 5),))
add("unfold", lambda x: F.unfold(x, 2), lambda: (make(1, 3, 3),), id="unfold_unbatched")
add("fold", lambda x: F.fold(x, (4, 5), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), lambda: (make(2, 12, 9),))
add("fold", lambda x: F.fold(x, 3, 2), lambda: (make(8, 4),), id="fold_unbatched")

# ---- distances
add("cosine_similarity", lambda a, b: ember.cosine_similarity(a, b), lambda: (make(3, 4), make(3, 4, seed=1)))
add("cosine_similarity", lambda a, b: F.cosine_similarity(a, b, dim=-1), lambda: (make(2, 3, 4), make(4, seed=2)))
add("pairwise_distance", lambda a, b: ember.pairwise_distance(a, b), lambda: (make(3, 4), make(3, 4, seed=3)))
add(
    "pairwise_distance",
    lambda a, b: F.pairwise_distance(a, b, p=1.5, keepdim=True),
    lambda: (make(3, 4), make(4, seed=4)),
)
add("cdist", lambda a, b: ember.cdist(a, b), lambda: (make(3, 4), make(2, 4, seed=5)))
add(
    "cdist",
    lambda a, b: ember.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
    lambda: (make(2, 3, 4), make(1, 5, 4, seed=6)),
    id="cdist_mm",
)
add("cdist", lambda a, b: ember.cdist(a, b, p=1), lambda: (make(3, 2), make(4, 2, seed=7)))
add("cdist", lambda a, b: ember.cdist(a, b, p=3.5), lambda: (make(2, 3), make(2, 3, seed=8)))
add("pdist", lambda a: ember.pdist(a), lambda: (make(4, 3),))
add("pdist", lambda a: F.pdist(a, p=1), lambda: (make(3, 5),))
# the pair kernels' composed gradients for the other kinds of p, and batch dims that broadcast
add("cdist", lambda a, b: ember.cdist(a, b, p=math.inf), lambda: (make(2, 3, 4), make(1, 2, 4, seed=9)), id="cdist_inf")
add("cdist", lambda a, b: ember.cdist(a, b, p=0.5), lambda: (make(3, 2), make(2, 2, seed=10)), id="cdist_half_p")
add("pdist", lambda a: F.pdist(a, p=3.0), lambda: (make(4, 6),), id="pdist_p3")

# ---- attention
add(
    "scaled_dot_product_attention",
    lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
    lambda: (make(2, 3, 4), make(2, 5, 4, seed=1), make(2, 5, 3, seed=2)),
)
add(
    "scaled_dot_product_attention",
    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
    lambda: (make(1, 2, 3, 4), make(1, 2, 3, 4, seed=3), make(1, 2, 3, 2, seed=4), make(3, 3, seed=5)),
)
add(
    "scaled_dot_product_attention",
    lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    lambda: (make(2, 4, 3), make(2, 4, 3, seed=6), make(2, 4, 2, seed=7)),
)
add(
    "scaled_dot_product_attention",
    lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=ember.tensor([[True, False, True], [False, False, False]])
    ),
    lambda: (make(2, 3), make(3, 3, seed=8), make(3, 2, seed=9)),
    id="sdpa_bool_mask_fully_masked_row",
)
