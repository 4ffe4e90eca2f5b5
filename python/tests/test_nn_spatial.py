"""Spatial, distance and attention ops of ember.nn.functional (ember/nn/spatial.cpp, distance.cpp, attention.cpp)
against hand-computed cases and NumPy implementations of PyTorch's formulas written out here: interpolate in every
mode, grid_sample and affine_grid, pixel_shuffle, unfold/fold, cosine_similarity, pairwise_distance, cdist, pdist and
scaled_dot_product_attention; with the error paths."""

import math

import fixed_point_resize
import numpy as np
import pytest
from both_libraries import needs_torch, run_torch

import ember
import ember.nn.functional as F


def t(a, dtype=ember.float64, requires_grad=False):
    a = np.asarray(a)
    r = ember.tensor(a.tolist(), dtype=dtype).reshape(a.shape)
    return r.requires_grad_() if requires_grad else r


def arr(x):
    return np.array(x.tolist(), dtype=np.float64).reshape(tuple(x.shape))


def check(r, expected, dtype=ember.float64, rtol=1e-12, atol=1e-12):
    expected = np.asarray(expected, dtype=np.float64)
    assert r.dtype == dtype, (r.dtype, dtype)
    assert tuple(r.shape) == expected.shape, (tuple(r.shape), expected.shape)
    np.testing.assert_allclose(arr(r), expected, rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------------------ interpolate


def test_interpolate_hand_computed():
    x = t([[[[0.0, 1.0], [2.0, 3.0]]]])
    check(F.interpolate(x, size=4), [[[[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]]])
    check(F.interpolate(x, size=3, mode="bilinear", align_corners=True), [[[[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]]]])
    check(
        F.interpolate(x, scale_factor=2, mode="bilinear"),
        [[[[0, 0.25, 0.75, 1], [0.5, 0.75, 1.25, 1.5], [1.5, 1.75, 2.25, 2.5], [2, 2.25, 2.75, 3]]]],
    )
    check(F.interpolate(x, size=1, mode="area"), [[[[1.5]]]])
    check(F.interpolate(t([[[1.0, 2.0, 4.0]]]), size=2, mode="linear", align_corners=True), [[[1.0, 4.0]]])
    check(F.interpolate(t([[[1.0, 2.0, 4.0, 8.0]]]), size=2, mode="area"), [[[1.5, 6.0]]])
    check(F.interpolate(t([[[1.0, 2.0, 4.0]]]), size=5, mode="nearest-exact"), [[[1, 1, 2, 4, 4]]])
    check(F.interpolate(t([[[1.0, 2.0, 4.0]]]), size=5, mode="nearest"), [[[1, 1, 2, 2, 4]]])


def test_interpolate_bicubic_reproduces_a_ramp_inside():
    ramp = np.add.outer(np.arange(6.0), 2 * np.arange(5.0))[None, None]
    r = arr(F.interpolate(t(ramp), size=(11, 9), mode="bicubic", align_corners=True))
    ys, xs = np.linspace(0, 5, 11), np.linspace(0, 4, 9)
    expected = np.add.outer(ys, 2 * xs)
    # cubic convolution reproduces linear functions wherever all 4 taps are inside the image
    np.testing.assert_allclose(r[0, 0, 2:-2, 2:-2], expected[2:-2, 2:-2], atol=1e-12)


def src_index(scale, o, align, cubic=False):
    if align:
        return scale * o
    s = scale * (o + 0.5) - 0.5
    return s if cubic else max(s, 0.0)


def np_taps(mode, n_in, n_out, align=False, scale=None, antialias=False):
    """PyTorch's sampling of one dim as a dense [n_out, n_in] matrix (UpSample.h / UpSampleKernel.cpp)."""
    m = np.zeros((n_out, n_in))
    inv = 1.0 / scale if scale else n_in / n_out
    area_scale = ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) if align else inv
    for o in range(n_out):
        if antialias:
            interp = 4 if mode == "bicubic" else 2
            support = interp / 2 * area_scale if area_scale >= 1 else interp / 2
            invs = 1 / area_scale if area_scale >= 1 else 1.0
            center = area_scale * (o + 0.5)
            lo, hi = max(int(center - support + 0.5), 0), min(int(center + support + 0.5), n_in)

            def filt(x):
                x = abs(x)
                if mode != "bicubic":
                    return max(0.0, 1 - x)
                a = -0.5
                if x < 1:
                    return ((a + 2) * x - (a + 3)) * x * x + 1
                return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a if x < 2 else 0.0

            w = np.array([filt((j - center + 0.5) * invs) for j in range(lo, hi)])
            m[o, lo:hi] = w / w.sum()
        elif mode == "nearest":
            i = o if n_out == n_in else o // 2 if n_out == 2 * n_in else math.floor(o * np.float32(inv))
            m[o, min(i, n_in - 1)] = 1
        elif mode == "nearest-exact":
            m[o, min(math.floor((o + 0.5) * np.float32(inv)), n_in - 1)] = 1
        elif mode == "area":
            b, e = (o * n_in) // n_out, -((-(o + 1) * n_in) // n_out)
            m[o, b:e] = 1 / (e - b)
        elif mode in ("linear", "bilinear", "trilinear"):
            if n_in == n_out:
                m[o, o] = 1
                continue
            s = src_index(area_scale, o, align)
            i0 = min(math.floor(s), n_in - 1)
            f = min(max(s - i0, 0.0), 1.0)
            m[o, i0] += 1 - f
            m[o, min(i0 + 1, n_in - 1)] += f
        else:  # bicubic, A = -0.75, taps clamped to the border
            s = src_index(area_scale, o, align, cubic=True)
            i0 = min(math.floor(s), n_in - 1)
            f = min(max(s - i0, 0.0), 1.0)
            a = -0.75
            c1 = lambda x: ((a + 2) * x - (a + 3)) * x * x + 1  # noqa: E731
            c2 = lambda x: ((a * x - 5 * a) * x + 8 * a) * x - 4 * a  # noqa: E731
            for k, w in enumerate([c2(f + 1), c1(f), c1(1 - f), c2(2 - f)]):
                m[o, min(max(i0 - 1 + k, 0), n_in - 1)] += w
    return m


def np_interpolate(x, out, mode, align=False, scales=None, antialias=False):
    for d in range(x.ndim - 2):
        m = np_taps(mode, x.shape[d + 2], out[d], align, scales[d] if scales else None, antialias)
        x = np.moveaxis(np.tensordot(m, np.moveaxis(x, d + 2, 0), axes=1), 0, d + 2)
    return x


INTERPOLATE_CASES = [
    ("nearest", (2, 3, 7), dict(size=12)),
    ("nearest", (2, 3, 5, 4), dict(scale_factor=(1.7, 0.6))),
    ("nearest", (1, 2, 3, 4, 2), dict(size=(6, 4, 5))),
    ("nearest-exact", (2, 2, 5, 6), dict(size=(8, 3))),
    ("linear", (2, 3, 7), dict(size=10)),
    ("linear", (2, 3, 7), dict(size=4, align_corners=True)),
    ("bilinear", (2, 3, 5, 6), dict(size=(9, 4))),
    ("bilinear", (2, 3, 5, 6), dict(scale_factor=1.7)),
    ("bilinear", (2, 3, 5, 6), dict(scale_factor=(0.45, 2.5), recompute_scale_factor=True)),
    ("bilinear", (1, 2, 8, 9), dict(size=(3, 4), antialias=True)),
    ("bilinear", (1, 2, 4, 3), dict(size=(7, 6), antialias=True, align_corners=True)),
    ("bicubic", (2, 2, 5, 6), dict(size=(9, 4))),
    ("bicubic", (2, 2, 5, 6), dict(size=(3, 11), align_corners=True)),
    ("bicubic", (2, 2, 5, 6), dict(scale_factor=1.3)),
    ("bicubic", (1, 2, 9, 8), dict(size=(4, 3), antialias=True)),
    ("trilinear", (1, 2, 3, 4, 5), dict(size=(4, 2, 7))),
    ("trilinear", (1, 2, 3, 4, 5), dict(scale_factor=1.5, align_corners=True)),
    ("area", (2, 3, 7, 9), dict(size=(3, 4))),
    ("area", (2, 3, 8), dict(scale_factor=0.5)),
]


@pytest.mark.parametrize(
    "mode,shape,kw", INTERPOLATE_CASES, ids=[f"{m}-{i}" for i, (m, _, _) in enumerate(INTERPOLATE_CASES)]
)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_interpolate_matches_numpy(rng, mode, shape, kw, dtype):
    x = rng.standard_normal(shape)
    if dtype is ember.float32:
        x = x.astype(np.float32).astype(np.float64)
    r = F.interpolate(t(x, dtype), mode=mode, **kw)
    dims = len(shape) - 2
    if "size" in kw:
        out, scales = (kw["size"],) * dims if isinstance(kw["size"], int) else kw["size"], None
    else:
        sf = kw["scale_factor"]
        sf = (sf,) * dims if isinstance(sf, (int, float)) else sf
        out = tuple(math.floor(n * s) for n, s in zip(shape[2:], sf))
        scales = None if kw.get("recompute_scale_factor") or mode == "area" else sf
    expected = np_interpolate(x, out, mode, kw.get("align_corners", False), scales, kw.get("antialias", False))
    tol = 1e-12 if dtype is ember.float64 else 1e-5
    check(r, expected, dtype, rtol=tol, atol=tol)


def test_interpolate_gradient_is_the_transposed_map(rng):
    x = t(rng.standard_normal((1, 1, 4, 5)), requires_grad=True)
    g = rng.standard_normal((1, 1, 7, 3))
    F.interpolate(x, size=(7, 3), mode="bicubic").backward(t(g))
    mh, mw = np_taps("bicubic", 4, 7), np_taps("bicubic", 5, 3)
    check(x.grad, (mh.T @ g[0, 0] @ mw)[None, None], rtol=1e-12)


def test_interpolate_half_and_identity():
    x = t(np.arange(6.0).reshape(1, 1, 2, 3), ember.float16)
    r = F.interpolate(x, scale_factor=2, mode="bilinear")
    assert r.dtype == ember.float16 and tuple(r.shape) == (1, 1, 4, 6)
    y = t(np.arange(6.0).reshape(1, 1, 2, 3), requires_grad=True)
    r = F.interpolate(y, size=(2, 3), mode="bilinear")
    check(r, arr(y))
    r.sum().backward()
    check(y.grad, np.ones((1, 1, 2, 3)))


def test_upsample_forms_warn_and_match_interpolate(rng):
    x = t(rng.standard_normal((1, 2, 3, 3)))
    with pytest.warns(UserWarning, match="upsample_bilinear is deprecated"):
        r = F.upsample_bilinear(x, scale_factor=2)
    check(r, arr(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)))
    with pytest.warns(UserWarning, match="upsample is deprecated"):
        r = F.upsample(x, size=5, mode="bicubic")
    check(r, arr(F.interpolate(x, size=5, mode="bicubic")))
    with pytest.warns(UserWarning, match="upsample_nearest is deprecated"):
        check(F.upsample_nearest(x, size=4), arr(F.interpolate(x, size=4)))


def test_interpolate_errors():
    x = t(np.zeros((1, 1, 4, 4)))
    with pytest.raises(ValueError, match="^only one of size or scale_factor should be defined$"):
        F.interpolate(x, size=2, scale_factor=2)
    with pytest.raises(ValueError, match="^either size or scale_factor should be defined$"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="^align_corners option can only be set with the interpolating modes"):
        F.interpolate(x, size=2, align_corners=True)
    with pytest.raises(
        ValueError,
        match=r"^Input and output must have the same number of spatial dimensions, but got "
        r"input with spatial dimensions of \[4, 4\] and output size of \(3,\)\. ",
    ):
        F.interpolate(x, size=(3,))
    with pytest.raises(NotImplementedError, match="^Got 4D input, but linear mode needs 3D input$"):
        F.interpolate(x, size=2, mode="linear")
    with pytest.raises(
        NotImplementedError,
        match=r"^Input Error: Only 3D, 4D and 5D input Tensors supported \(got 4D\) "
        r"for the modes: nearest \| linear \| bilinear \| bicubic \| trilinear \| area \| nearest-exact "
        r"\(got foo\)$",
    ):
        F.interpolate(x, size=2, mode="foo")
    with pytest.raises(NotImplementedError, match=r"\(got 3D\)"):
        F.interpolate(t(np.zeros((1, 1, 4))), size=2, mode="bicubic")
    with pytest.raises(ValueError, match="^Anti-alias option is restricted to bilinear and bicubic modes"):
        F.interpolate(x, size=2, antialias=True)
    with pytest.raises(
        RuntimeError,
        match=r"^Input and output sizes should be greater than 0, but got input \(H: 4, W: "
        r"4\) output \(H: 0, W: 8\)$",
    ):
        F.interpolate(x, size=(0, 8))
    with pytest.raises(ValueError, match="^recompute_scale_factor is not meaningful with an explicit size.$"):
        F.interpolate(x, size=2, recompute_scale_factor=True)


# (h, w) -> (oh, ow), antialias, align_corners: down- and upscaling, one axis unchanged, 1-pixel inputs and outputs
# (not 1x1 with antialias: PyTorch 2.15's AVX2 kernel fails an internal assert there), a large downscale (wide
# antialias filters)
U8_CASES = [
    ((17, 23), (9, 31), True, False),
    ((17, 23), (9, 31), False, False),
    ((17, 23), (40, 7), False, True),
    ((12, 12), (12, 5), True, False),
    ((12, 12), (30, 12), False, False),
    ((1, 1), (3, 4), False, False),
    ((5, 7), (1, 3), True, False),
    ((5, 7), (2, 1), True, False),
    ((4, 300), (4, 7), True, False),
    ((64, 48), (21, 16), False, False),
]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("src, size, antialias, align", U8_CASES)
def test_interpolate_uint8_is_pytorchs_fixed_point(src, size, antialias, align, mode):
    # Note [Fixed-point uint8 resampling]: exact integers, against the arithmetic written out in NumPy
    x = np.random.default_rng(0).integers(0, 256, (2, 3) + src, dtype=np.uint8)
    y = F.interpolate(ember.from_numpy(x), size=size, mode=mode, antialias=antialias, align_corners=align)
    assert y.dtype == ember.uint8
    np.testing.assert_array_equal(y.numpy(), fixed_point_resize.resize_u8(x, size, antialias, align, mode))


def test_interpolate_uint8_differs_from_float_rounding_and_keeps_layouts():
    x = np.random.default_rng(1).integers(0, 256, (1, 3, 33, 45), dtype=np.uint8)
    xe = ember.from_numpy(x)
    y = F.interpolate(xe, size=(20, 17), mode="bilinear", antialias=True)
    rounded = F.interpolate(xe.float(), size=(20, 17), mode="bilinear", antialias=True).round().to(ember.uint8)
    d = y.numpy().astype(int) - rounded.numpy().astype(int)
    assert np.abs(d).max() == 1 and (d != 0).any()  # the float path is off by one in places, never more
    # a channels-last or non-contiguous input gives the same values; scale_factor goes through the same taps
    cl = F.interpolate(xe.contiguous(memory_format=ember.channels_last), size=(20, 17), mode="bilinear", antialias=True)
    np.testing.assert_array_equal(cl.numpy(), y.numpy())
    s = F.interpolate(xe[..., ::2], scale_factor=2.0, mode="bilinear")
    np.testing.assert_array_equal(s.numpy(), fixed_point_resize.resize_u8(x[..., ::2], (66, 46), False))
    # bicubic's negative lobes overshoot: clamped to [0, 255] in the integers
    edge = np.zeros((1, 1, 8, 8), np.uint8)
    edge[..., 4:] = 255
    c = F.interpolate(ember.from_numpy(edge), size=(8, 21), mode="bicubic").numpy()
    assert c.min() == 0 and c.max() == 255
    np.testing.assert_array_equal(c, fixed_point_resize.resize_u8(edge, (8, 21), False, mode="bicubic"))


def test_interpolate_uint8_errors():
    x = ember.zeros(1, 1, 4, 4, dtype=ember.uint8)
    with pytest.raises(TypeError, match="^interpolate\\(\\): expected a floating point input, got uint8$"):
        F.interpolate(x[0], size=2, mode="linear")  # (fixed point: bilinear and bicubic)
    with pytest.raises(TypeError, match="expected a floating point input, got int32"):
        F.interpolate(x.int(), size=2, mode="bilinear")


@needs_torch
def test_interpolate_uint8_matches_torch():
    program = f"""
import numpy as np
import torch.nn.functional as F
result = []
for mode in ("bilinear", "bicubic"):
    for src, size, antialias, align in {U8_CASES!r}:
        x = torch.from_numpy(np.random.default_rng(0).integers(0, 256, (2, 3) + src, dtype=np.uint8))
        y = F.interpolate(x, size=size, mode=mode, antialias=antialias, align_corners=align)
        result.append(y.flatten().tolist())
"""
    expected = iter(run_torch(program))
    for mode in ("bilinear", "bicubic"):
        for src, size, antialias, align in U8_CASES:
            x = np.random.default_rng(0).integers(0, 256, (2, 3) + src, dtype=np.uint8)
            y = F.interpolate(ember.from_numpy(x), size=size, mode=mode, antialias=antialias, align_corners=align)
            assert y.flatten().tolist() == next(expected), (mode, src, size, antialias, align)


# ------------------------------------------------------------------------------------------ grid_sample, affine_grid


def np_reflect(c, lo2, hi2):
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    c = abs(c - lo)
    extra, flips = math.fmod(c, span), math.floor(c / span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def np_pad(c, size, padding, align):
    if padding == "reflection":
        c = np_reflect(c, 0, 2 * (size - 1)) if align else np_reflect(c, -1, 2 * size - 1)
    if padding in ("border", "reflection"):
        c = min(max(c, 0.0), size - 1.0)
    return c


def np_grid_sample(x, grid, mode, padding, align):
    """PyTorch's GridSampler formulas, one output point at a time (4-d input)."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])

    def value(b, yi, xi):
        if padding != "zeros":
            yi = int(np_pad(yi, h, padding, align)) if mode == "bicubic" else yi
            xi = int(np_pad(xi, w, padding, align)) if mode == "bicubic" else xi
        if 0 <= yi < h and 0 <= xi < w:
            return x[b, :, yi, xi]
        return np.zeros(c)

    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                gx, gy = grid[b, i, j]
                ix = (gx + 1) / 2 * (w - 1) if align else ((gx + 1) * w - 1) / 2
                iy = (gy + 1) / 2 * (h - 1) if align else ((gy + 1) * h - 1) / 2
                if mode != "bicubic":
                    ix, iy = np_pad(ix, w, padding, align), np_pad(iy, h, padding, align)
                if mode == "nearest":
                    out[b, :, i, j] = value(b, int(np.rint(iy)), int(np.rint(ix)))
                elif mode == "bilinear":
                    x0, y0 = math.floor(ix), math.floor(iy)
                    fx, fy = ix - x0, iy - y0
                    out[b, :, i, j] = (
                        value(b, y0, x0) * (1 - fx) * (1 - fy)
                        + value(b, y0, x0 + 1) * fx * (1 - fy)
                        + value(b, y0 + 1, x0) * (1 - fx) * fy
                        + value(b, y0 + 1, x0 + 1) * fx * fy
                    )
                else:
                    x0, y0 = math.floor(ix), math.floor(iy)
                    a = -0.75
                    c1 = lambda v: ((a + 2) * v - (a + 3)) * v * v + 1  # noqa: E731
                    c2 = lambda v: ((a * v - 5 * a) * v + 8 * a) * v - 4 * a  # noqa: E731
                    coef = lambda f: [c2(f + 1), c1(f), c1(1 - f), c2(2 - f)]  # noqa: E731
                    cx, cy = coef(ix - x0), coef(iy - y0)
                    out[b, :, i, j] = sum(
                        cy[p] * cx[q] * value(b, y0 - 1 + p, x0 - 1 + q) for p in range(4) for q in range(4)
                    )
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_matches_numpy(rng, mode, padding, align):
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.4, 1.4, (2, 3, 6, 2))
    grid[0, 0, 0] = [1.0, -1.0]  # exactly on the corners
    r = F.grid_sample(t(x), t(grid), mode=mode, padding_mode=padding, align_corners=align)
    check(r, np_grid_sample(x, grid, mode, padding, align), rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_grid_sample_kernel_agrees_with_the_recorded_composition(rng, mode, padding, align, dtype):
    # Calls that record nothing run the sampling kernel (Note [Sampling kernel without a gradient]); with a gradient
    # they run the composition. Both against NumPy, on strided input and grid, more points than a block, coordinates
    # far outside and on half-pixel ties (nearest rounds them to even, as PyTorch's nearbyint).
    x = rng.standard_normal((2, 5, 9, 7))
    grid = rng.uniform(-1.6, 1.6, (2, 11, 13, 2))
    grid[0, 0, :4] = [[1.0, -1.0], [25.0, -30.0], [-1e6, 1e6], [0.0, 0.0]]
    grid[1, 0, :3, 0] = (np.array([0.5, 1.5, 2.5]) * 2 + 1) / 7 - 1  # x on pixel-centre ties (align_corners=False)
    xt = ember.tensor(x.transpose(0, 1, 3, 2).copy(), dtype=dtype).transpose(2, 3)
    gt = ember.tensor(np.repeat(grid, 2, axis=2), dtype=dtype)[:, :, ::2]
    plain = F.grid_sample(xt, gt, mode=mode, padding_mode=padding, align_corners=align)
    recorded = F.grid_sample(xt.clone().requires_grad_(), gt, mode=mode, padding_mode=padding, align_corners=align)
    assert plain.grad_fn is None and recorded.grad_fn is not None
    want = np_grid_sample(x, grid.astype(np.float32) if dtype is ember.float32 else grid, mode, padding, align)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype is ember.float32 else {"rtol": 1e-11, "atol": 1e-12}
    np.testing.assert_allclose(plain.numpy(), want, **tol)
    np.testing.assert_allclose(recorded.detach().numpy(), want, **tol)


def test_grid_sample_kernel_non_finite_coordinates():
    # PyTorch's clip_coordinates: a NaN (or, reflected, an infinity) clips to size - 1, -inf to 0 under border; with
    # zeros padding a non-finite coordinate reads nothing (nearest: 0; bilinear: its weights are NaN).
    x = t(np.arange(12.0).reshape(1, 1, 3, 4))  # x[i, j] = 4 i + j
    grid = t(np.array([[[[np.nan, 0.0], [np.inf, 0.0], [-np.inf, 0.5], [0.0, np.nan]]]]))
    expected = {
        ("zeros", "bilinear"): [np.nan] * 4,
        ("zeros", "nearest"): [0.0] * 4,
        # (x, y) = (3, 1), (3, 1), (0, 1.75), (1.5, 2)
        ("border", "bilinear"): [7.0, 7.0, 0.25 * 4 + 0.75 * 8, 9.5],
        ("border", "nearest"): [7.0, 7.0, 8.0, 10.0],
        # reflected, -inf becomes NaN and clips to x = 3: (3, 1.75)
        ("reflection", "bilinear"): [7.0, 7.0, 0.25 * 7 + 0.75 * 11, 9.5],
        ("reflection", "nearest"): [7.0, 7.0, 11.0, 10.0],
    }
    for (padding, mode), want in expected.items():
        r = F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=False)
        np.testing.assert_array_equal(r.numpy().reshape(-1), want)


def test_grid_sample_identity_grid_reproduces_the_input(rng):
    x = rng.standard_normal((2, 3, 4, 5, 6))
    theta = np.tile(np.eye(3, 4), (2, 1, 1))
    for align in (False, True):
        grid = F.affine_grid(t(theta), (2, 3, 4, 5, 6), align_corners=align)
        check(F.grid_sample(t(x), grid, align_corners=align), x, rtol=1e-12, atol=1e-12)
        check(F.grid_sample(t(x), grid, mode="nearest", align_corners=align), x)


def test_grid_sample_gradient_with_respect_to_the_grid():
    # bilinear along x on a ramp image: d out / d gx = (w - 1) / 2 * slope with align_corners
    x = t(np.tile(3.0 * np.arange(5.0), (1, 1, 2, 1)))
    grid = t([[[[0.1, 0.0], [-0.3, 0.5]]]], requires_grad=True)
    F.grid_sample(x, grid, align_corners=True).sum().backward()
    check(grid.grad, [[[[6.0, 0.0], [6.0, 0.0]]]])


def test_affine_grid_matches_numpy(rng):
    theta = rng.standard_normal((2, 2, 3))
    for align in (False, True):
        h, w = 3, 4
        ys = np.linspace(-1, 1, h) * (1 if align else (h - 1) / h)
        xs = np.linspace(-1, 1, w) * (1 if align else (w - 1) / w)
        base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], 1.0), -1)  # [h, w, 3]
        expected = np.einsum("hwk,njk->nhwj", base, theta)
        check(F.affine_grid(t(theta), (2, 5, h, w), align_corners=align), expected)
    check(F.affine_grid(t(np.eye(2, 3)[None]), (1, 1, 1, 2), align_corners=False), [[[[-0.5, 0.0], [0.5, 0.0]]]])


def test_grid_sample_and_affine_grid_errors():
    x = t(np.zeros((1, 1, 4, 4)))
    with pytest.raises(
        RuntimeError,
        match=r"^grid_sampler\(\): expected grid to have size 2 in last dimension, but got "
        r"grid with sizes \[1, 2, 2, 3\]$",
    ):
        F.grid_sample(x, t(np.zeros((1, 2, 2, 3))), align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected grid and input to have same batch size"):
        F.grid_sample(x, t(np.zeros((2, 2, 2, 2))), align_corners=False)
    with pytest.raises(
        ValueError,
        match=r"^nn.functional.grid_sample\(\): expected mode to be 'bilinear', 'nearest' or "
        r"'bicubic', but got: 'foo'$",
    ):
        F.grid_sample(x, t(np.zeros((1, 2, 2, 2))), mode="foo")
    with pytest.raises(ValueError, match=r"expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x, t(np.zeros((1, 2, 2, 2))), padding_mode="foo")
    with pytest.raises(RuntimeError, match=r"^grid_sampler\(\): bicubic interpolation only supports 4D input$"):
        F.grid_sample(t(np.zeros((1, 1, 2, 2, 2))), t(np.zeros((1, 2, 2, 2, 3))), mode="bicubic")
    with pytest.raises(
        ValueError,
        match=r"^Expected a batch of 2D affine matrices of shape Nx2x3 for size \(1, 1, 2, "
        r"3\)\. Got ember.Size\(\[1, 2, 4\]\)\.$",
    ):
        F.affine_grid(t(np.zeros((1, 2, 4))), (1, 1, 2, 3))
    with pytest.raises(NotImplementedError, match="^affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(t(np.zeros((1, 2, 3))), (1, 1, 2))


# ------------------------------------------------------------------------------------------ pixel shuffle, unfold, fold


def test_pixel_shuffle_and_unshuffle(rng):
    x = rng.standard_normal((2, 3, 8, 2, 3))
    n, b, c, h, w = x.shape
    expected = x.reshape(n, b, 2, 2, 2, h, w).transpose(0, 1, 2, 5, 3, 6, 4).reshape(n, b, 2, 2 * h, 2 * w)
    r = F.pixel_shuffle(t(x), 2)
    check(r, expected)
    check(ember.pixel_unshuffle(r, 2), x)
    check(ember.pixel_shuffle(t(x[0, 0]), 2), expected[0, 0])
    with pytest.raises(
        RuntimeError,
        match=r"^pixel_shuffle expects its input's 'channel' dimension to be divisible by "
        r"the square of upscale_factor, but input.size\(-3\)=5 is not divisible by 4$",
    ):
        F.pixel_shuffle(t(np.zeros((5, 2, 2))), 2)
    with pytest.raises(
        RuntimeError,
        match=r"^pixel_shuffle expects input to have at least 3 dimensions, but got input "
        r"with 2 dimension\(s\)$",
    ):
        F.pixel_shuffle(t(np.zeros((4, 2))), 2)
    with pytest.raises(
        RuntimeError,
        match=r"^pixel_unshuffle expects width to be divisible by downscale_factor, but "
        r"input.size\(-1\)=3 is not divisible by 2$",
    ):
        F.pixel_unshuffle(t(np.zeros((1, 4, 3))), 2)


def np_unfold(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            cols[:, :, i, j] = xp[:, :, i * d[0] : i * d[0] + s[0] * oh : s[0], j * d[1] : j * d[1] + s[1] * ow : s[1]]
    return cols.reshape(n, c * k[0] * k[1], oh * ow)


@pytest.mark.parametrize(
    "k,d,p,s", [((2, 2), (1, 1), (0, 0), (1, 1)), ((2, 3), (2, 1), (1, 2), (1, 2)), ((3, 1), (1, 3), (2, 0), (2, 3))]
)
def test_unfold_and_fold(rng, k, d, p, s):
    x = rng.standard_normal((2, 3, 6, 7))
    cols = np_unfold(x, k, d, p, s)
    r = F.unfold(t(x), k, dilation=d, padding=p, stride=s)
    check(r, cols)
    check(F.unfold(t(x[0]), k, dilation=d, padding=p, stride=s), cols[0])
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>
    y = rng.standard_normal(cols.shape)
    folded = F.fold(t(y), (6, 7), k, dilation=d, padding=p, stride=s)
    np.testing.assert_allclose((cols * y).sum(), (x * arr(folded)).sum(), rtol=1e-12)
    xt = t(x, requires_grad=True)
    F.unfold(xt, k, dilation=d, padding=p, stride=s).backward(t(y))
    check(xt.grad, arr(folded))


def test_fold_sums_overlaps():
    ones = t(np.ones((1, 4, 4)))
    r = F.fold(ones, (3, 3), 2)  # four 2x2 blocks with stride 1 on a 3x3 image
    check(r, [[[[1, 2, 1], [2, 4, 2], [1, 2, 1]]]])


def test_unfold_fold_errors():
    with pytest.raises(
        RuntimeError,
        match=r"^Given input with spatial size \(3, 4\), kernel_size=\(5, 5\), "
        r"dilation=\(1, 1\), padding=\(0, 0\), calculated shape of the array of sliding blocks as "
        r"\(-1, 0\), but its components must be at least one\.$",
    ):
        F.unfold(t(np.zeros((1, 2, 3, 4))), 5)
    with pytest.raises(
        RuntimeError,
        match=r"^Expected size of input's dimension 1 to be divisible by the product of "
        r"kernel_size, but got input.size\(1\)=7 and kernel_size=\(2, 2\)\.$",
    ):
        F.fold(t(np.zeros((1, 7, 6))), (3, 4), 2)
    with pytest.raises(
        RuntimeError,
        match=r"expected size of input's dimension 2 to match the calculated number of "
        r"sliding blocks 2 \* 3 = 6, but got input.size\(2\)=5\.$",
    ):
        F.fold(t(np.zeros((1, 8, 5))), (3, 4), 2)
    with pytest.raises(RuntimeError, match=r"^Input Error: Only 3D or 4D input Tensors are supported \(got 2D\)$"):
        F.unfold(t(np.zeros((3, 4))), 2)


# ------------------------------------------------------------------------------------------ distances


def test_cosine_similarity(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    na, nb = np.linalg.norm(a, axis=1, keepdims=True), np.linalg.norm(b, axis=1, keepdims=True)
    check(F.cosine_similarity(t(a), t(b)), ((a / na) * (b / nb)).sum(1))
    check(ember.cosine_similarity(t(a), t(b[0]), dim=-1), ((a / na) * (b[0] / nb[0])).sum(1))
    check(F.cosine_similarity(t(np.zeros((2, 3))), t(np.ones((2, 3)))), [0.0, 0.0])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
def test_pairwise_distance(rng, p):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    d = np.abs(a - b + 1e-6)
    expected = d.max(-1) if p == math.inf else (d**p).sum(-1) ** (1 / p)
    check(F.pairwise_distance(t(a), t(b), p=p), expected)
    check(ember.pairwise_distance(t(a), t(b), p=p, keepdim=True), expected[:, None])


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("rows", [(3, 4), (30, 27)])  # 30 rows: p = 2 goes through a matrix product
def test_cdist(rng, p, rows):
    a, b = rng.standard_normal((2, rows[0], 5)), rng.standard_normal((1, rows[1], 5))
    d = np.abs(a[:, :, None, :] - b[:, None, :, :])
    expected = (d != 0).sum(-1) if p == 0 else d.max(-1) if p == math.inf else (d**p).sum(-1) ** (1 / p)
    check(ember.cdist(t(a), t(b), p=p), expected, rtol=1e-10, atol=1e-12)


def test_cdist_mm_gradient_at_coincident_points(rng):
    x = t(rng.standard_normal((4, 3)), requires_grad=True)
    d = ember.cdist(x, x, compute_mode="use_mm_for_euclid_dist")
    check(ember.diagonal(d), np.zeros(4))
    d.sum().backward()
    xa = arr(x)
    diff = xa[:, None] - xa[None]
    dist = np.linalg.norm(diff, axis=-1)
    np.fill_diagonal(dist, 1)
    check(x.grad, 2 * (diff / dist[..., None]).sum(1), rtol=1e-10)


def test_pdist(rng):
    x = rng.standard_normal((5, 3))
    i, j = np.triu_indices(5, 1)
    check(F.pdist(t(x)), np.linalg.norm(x[i] - x[j], axis=1))
    check(ember.pdist(t(x), p=1), np.abs(x[i] - x[j]).sum(1))


def np_distances(d, p):
    # p-norms of differences d over the last axis, with NaN kept for every p (PyTorch's kernels)
    nan = np.isnan(d).any(-1)
    with np.errstate(invalid="ignore"):
        r = (d != 0).sum(-1) if p == 0 else d.max(-1) if p == math.inf else (d**p).sum(-1) ** (1 / p)
    return np.where(nan, np.nan, r)


@pytest.mark.parametrize("p", [0, 0.5, 1, 2, 3.5, math.inf])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_distance_kernels_against_numpy(rng, p, dtype):
    # The pair kernels (Note [Distances over transposed rows]): rows long enough for the vector lanes and a tail
    # (37), broadcast batch dims, a repeated row (distance 0), and NaN and infinite entries.
    np_t = np.float32 if dtype is ember.float32 else np.float64
    a, b = rng.standard_normal((2, 1, 6, 37)).astype(np_t), rng.standard_normal((3, 4, 37)).astype(np_t)
    a[0, 0, 2, 5], a[1, 0, 3, 30], b[2, 1] = np.nan, np.inf, a[1, 0, 0]
    tol = dict(rtol=2e-5, atol=1e-5) if dtype is ember.float32 else dict(rtol=1e-10, atol=1e-12)
    got = ember.cdist(ember.from_numpy(a), ember.from_numpy(b), p=p, compute_mode="donot_use_mm_for_euclid_dist")
    ref = np_distances(np.abs(a[..., :, None, :] - b[..., None, :, :]).astype(np.float64), p)
    np.testing.assert_allclose(arr(got), ref, equal_nan=True, **tol)
    x = np.concatenate([a[0, 0], a[1, 0]])
    i, j = np.triu_indices(len(x), 1)
    np.testing.assert_allclose(
        arr(F.pdist(ember.from_numpy(x), p=p)), np_distances(np.abs(x[i] - x[j]), p), equal_nan=True, **tol
    )


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, math.inf])
def test_distance_kernels_in_blocks_and_split_pairs(rng, p):
    # Past 32 columns the kernel measures 4 vectors of rows at once, then 3, 2 or 1 for the rest; pdist's 44850 pairs
    # are split across the threads mid-row. Integers make p = 0's count exact and leave repeated rows.
    x = rng.integers(-3, 4, (300, 41)).astype(np.float32)
    x[7], x[250, 40] = x[3], np.nan
    i, j = np.triu_indices(len(x), 1)
    got = arr(F.pdist(ember.from_numpy(x), p=p))
    np.testing.assert_allclose(got, np_distances(np.abs(x[i] - x[j]).astype(np.float64), p), rtol=2e-5, equal_nan=True)
    for cols in (1, 8, 31, 32, 45, 64, 77):
        a, b = x[:19], x[100 : 100 + cols]
        got = ember.cdist(ember.from_numpy(a), ember.from_numpy(b), p=p, compute_mode="donot_use_mm_for_euclid_dist")
        ref = np_distances(np.abs(a[:, None] - b[None]).astype(np.float64), p)
        np.testing.assert_allclose(arr(got), ref, rtol=2e-5, equal_nan=True)


def test_distance_kernels_in_16_bit_floats_and_empty(rng):
    x = rng.standard_normal((6, 9)).astype(np.float32)
    i, j = np.triu_indices(6, 1)
    for dtype in (ember.float16, ember.bfloat16):
        got = F.pdist(ember.from_numpy(x).to(dtype))
        assert got.dtype is dtype
        xr = arr(ember.from_numpy(x).to(dtype).float())
        np.testing.assert_allclose(arr(got.float()), np.linalg.norm(xr[i] - xr[j], axis=1), rtol=1e-2)
    assert F.pdist(ember.zeros(1, 3)).shape == (0,) and F.pdist(ember.zeros(0, 3)).shape == (0,)
    assert arr(F.pdist(ember.zeros(3, 0))).tolist() == [0.0, 0.0, 0.0]
    assert ember.cdist(ember.zeros(2, 0, 4), ember.zeros(2, 3, 4), p=1).shape == (2, 0, 3)


def test_distance_errors():
    with pytest.raises(RuntimeError, match="^X1 and X2 must have the same number of columns. X1: 4 X2: 5$"):
        ember.cdist(t(np.zeros((3, 4))), t(np.zeros((2, 5))))
    with pytest.raises(RuntimeError, match="^cdist only supports at least 2D tensors, X1 got: 1D$"):
        ember.cdist(t(np.zeros(4)), t(np.zeros((2, 4))))
    with pytest.raises(RuntimeError, match="^cdist only supports non-negative p values$"):
        ember.cdist(t(np.zeros((3, 4))), t(np.zeros((2, 4))), p=-1)
    with pytest.raises(RuntimeError, match="^pdist only supports 2D tensors, got: 3D$"):
        F.pdist(t(np.zeros((3, 4, 2))))


# ------------------------------------------------------------------------------------------ attention


def np_attention(q, k, v, bias=None, scale=None):
    s = q @ np.swapaxes(k, -1, -2) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if bias is not None:
        s = s + bias
    m = s.max(-1, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    e = np.exp(s - m)
    tot = e.sum(-1, keepdims=True)
    return (e / np.where(tot == 0, 1, tot)) @ v


def test_scaled_dot_product_attention(rng):
    q, k, v = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((2, 3, 6, 2))
    check(F.scaled_dot_product_attention(t(q), t(k), t(v)), np_attention(q, k, v), rtol=1e-11)
    check(F.scaled_dot_product_attention(t(q), t(k), t(v), scale=0.2), np_attention(q, k, v, scale=0.2), rtol=1e-11)
    bias = rng.standard_normal((4, 6))
    check(F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(bias)), np_attention(q, k, v, bias), rtol=1e-11)
    mask = rng.uniform(size=(3, 4, 6)) < 0.6
    mask[0, 1] = False  # a fully masked row gives zeros
    r = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=ember.tensor(mask.tolist()))
    check(r, np_attention(q, k, v, np.where(mask, 0, -np.inf)), rtol=1e-11)
    assert np.all(arr(r)[:, 0, 1] == 0)
    causal = np.where(np.tril(np.ones((4, 6), bool)), 0, -np.inf)
    check(F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True), np_attention(q, k, v, causal), rtol=1e-11)


@pytest.mark.parametrize("lq, lk", [(4, 6), (7, 3), (1, 1), (37, 37)])
def test_scaled_dot_product_attention_causal_values_and_grads(rng, lq, lk, four_threads):
    # is_causal alone runs one fused op (causal_softmax); its values and gradients against NumPy's masked math, in
    # float64 and float32, with rows whose kept lengths are not whole vectors, over several threads.
    q, k, v = rng.standard_normal((3, 2, lq, 5)), rng.standard_normal((3, 2, lk, 5)), rng.standard_normal((3, 2, lk, 4))
    g = rng.standard_normal((3, 2, lq, 4))
    keep = np.tril(np.ones((lq, lk), bool))
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(5)
    e = np.exp(np.where(keep, s, -np.inf) - np.where(keep, s, -np.inf).max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    gw = g @ np.swapaxes(v, -1, -2)
    gs = w * (gw - (gw * w).sum(-1, keepdims=True)) / math.sqrt(5)  # softmax's gradient, 0 where masked
    want = {"q": gs @ k, "k": np.swapaxes(gs, -1, -2) @ q, "v": np.swapaxes(w, -1, -2) @ g}
    for dtype, tol in ((ember.float64, 1e-11), (ember.float32, 2e-5)):
        ts = {n: t(a).to(dtype).requires_grad_() for n, a in (("q", q), ("k", k), ("v", v))}
        out = F.scaled_dot_product_attention(ts["q"], ts["k"], ts["v"], is_causal=True)
        out.backward(t(g).to(dtype))
        check(out, w @ v, dtype, rtol=tol, atol=tol)
        for n in ts:
            check(ts[n].grad, want[n], dtype, rtol=tol, atol=tol)
    qq, kk, vv = (t(a).requires_grad_() for a in (q[:1, :1, :, :2], k[:1, :1, :, :2], v[:1, :1, :, :2]))
    attn = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True)  # noqa: E731
    assert ember.autograd.gradgradcheck(attn, (qq, kk, vv))


def test_scaled_dot_product_attention_gqa_and_dropout(rng):
    q, k, v = rng.standard_normal((1, 4, 3, 2)), rng.standard_normal((1, 2, 5, 2)), rng.standard_normal((1, 2, 5, 3))
    r = F.scaled_dot_product_attention(t(q), t(k), t(v), enable_gqa=True)
    check(r, np_attention(q, np.repeat(k, 2, 1), np.repeat(v, 2, 1)), rtol=1e-11)
    check(F.scaled_dot_product_attention(t(q), t(k[:, :1]), t(v[:, :1]), dropout_p=1.0), np.zeros((1, 4, 3, 3)))
    # Dropout keeps each weight with probability 1 - p and scales it by 1 / (1 - p): the mean is preserved.
    qq = t(np.zeros((1, 2000, 1)))
    vv = t(np.ones((1, 10, 1)))
    out = arr(F.scaled_dot_product_attention(qq, t(np.zeros((1, 10, 1))), vv, dropout_p=0.5))
    assert abs(out.mean() - 1.0) < 0.05
    assert set(np.round(np.unique(out * 5), 6)) <= set(range(11))


def test_scaled_dot_product_attention_errors():
    q = t(np.zeros((2, 3, 4)))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=t(np.zeros((3, 3))), is_causal=True)
    with pytest.raises(RuntimeError, match="query and key must have the same embedding size"):
        F.scaled_dot_product_attention(q, t(np.zeros((2, 3, 5))), q)


def test_spatial_ops_on_strided_empty_inputs_and_threads(rng, four_threads):
    x = rng.standard_normal((3, 2, 40, 50))
    xt = t(x.transpose(0, 1, 3, 2)).permute(0, 1, 3, 2)  # x's values, not contiguous
    check(F.interpolate(xt, size=(61, 17), mode="bilinear"), np_interpolate(x, (61, 17), "bilinear"), atol=1e-12)
    check(F.unfold(xt, 3, padding=1), np_unfold(x, (3, 3), (1, 1), (1, 1), (1, 1)))
    empty = F.interpolate(t(np.zeros((0, 2, 3, 3))), size=5, mode="bicubic")
    assert tuple(empty.shape) == (0, 2, 5, 5)
    assert tuple(F.unfold(t(np.zeros((0, 2, 3, 3))), 2).shape) == (0, 8, 4)
    assert tuple(F.grid_sample(t(np.zeros((0, 2, 3, 3))), t(np.zeros((0, 4, 4, 2))), align_corners=False).shape) == (
        0,
        2,
        4,
        4,
    )
