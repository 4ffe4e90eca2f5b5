"""Normalization ops (ember/nn/normalization.cpp, backend/cpu/norm.cpp, python/src/nn_norm.cpp): layer, batch, group,
instance and local response normalization and normalize against NumPy; batch norm's running statistics; the fused
backward kernels against the composite formulas used under create_graph; PyTorch's error messages."""

import numpy as np
import pytest
from conftest import assert_equal, from_np, to_np

import ember
import ember.nn.functional as F


def _norm(a, axes, eps):
    m = a.mean(axis=axes, keepdims=True)
    v = a.var(axis=axes, keepdims=True)
    return (a - m) / np.sqrt(v + eps)


def _tol(dtype):
    return dict(rtol=1e-5, atol=2e-5) if dtype is ember.float32 else dict(rtol=1e-12, atol=1e-12)


DTYPES = [ember.float32, ember.float64]
IDS = ["f32", "f64"]


# ---------------------------------------------------------------------------------------------------- layer_norm


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("shape,k", [((4, 37), 1), ((2, 3, 5, 6), 2), ((7,), 1), ((3, 1000), 1)])
def test_layer_norm_matches_numpy(shape, k, dtype, rng):
    a = rng.standard_normal(shape) * 3 + 1
    ns = shape[len(shape) - k :]
    w, b = rng.standard_normal(ns), rng.standard_normal(ns)
    x = from_np(a, dtype)
    axes = tuple(range(len(shape) - k, len(shape)))
    ref = _norm(a, axes, 1e-5)
    np.testing.assert_allclose(to_np(F.layer_norm(x, ns)), ref, **_tol(dtype))
    np.testing.assert_allclose(
        to_np(F.layer_norm(x, ns, from_np(w, dtype), from_np(b, dtype), eps=1e-3)),
        _norm(a, axes, 1e-3) * w + b,
        **_tol(dtype),
    )
    np.testing.assert_allclose(to_np(F.layer_norm(x, ns, bias=from_np(b, dtype))), ref + b, **_tol(dtype))
    np.testing.assert_allclose(to_np(ember.layer_norm(x, list(ns), from_np(w, dtype))), ref * w, **_tol(dtype))


def test_layer_norm_layouts_and_dtypes(rng):
    a = rng.standard_normal((6, 8))
    x = from_np(a).t()  # non-contiguous
    np.testing.assert_allclose(to_np(F.layer_norm(x, [6])), _norm(a.T, (1,), 1e-5), rtol=1e-5, atol=1e-5)
    assert F.layer_norm(ember.zeros(0, 4), [4]).shape == (0, 4)
    h = F.layer_norm(from_np(a, ember.float16), [8])
    assert h.dtype is ember.float16
    np.testing.assert_allclose(to_np(h.float()), _norm(a.astype(np.float16).astype(np.float64), (1,), 1e-5), atol=5e-3)
    assert F.layer_norm(ember.ones(3, 4), 4).shape == (3, 4)  # an int normalized_shape, as nn.LayerNorm passes


def test_layer_norm_errors():
    with pytest.raises(
        RuntimeError,
        match=r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], but "
        r"got input of size\[2, 3\]",
    ):
        F.layer_norm(ember.ones(2, 3), [5])
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[2, 3\], expected input with shape \[\*, 2, 3\]"):
        F.layer_norm(ember.ones(3), [2, 3])
    with pytest.raises(
        RuntimeError,
        match=r"Expected weight to be of same shape as normalized_shape, but got weight "
        r"of shape \[2\] and normalized_shape = \[3\]",
    ):
        F.layer_norm(ember.ones(2, 3), [3], weight=ember.ones(2))
    with pytest.raises(RuntimeError, match="Expected bias to be of same shape"):
        F.layer_norm(ember.ones(2, 3), [3], bias=ember.ones(3, 1))


# ---------------------------------------------------------------------------------------------------- batch_norm


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 4), (300, 70), (2, 70, 3)])
def test_batch_norm_training_matches_numpy_and_updates_running_stats(shape, dtype, rng):
    a = rng.standard_normal(shape) * 2 + 0.5
    C = shape[1]
    w, b = rng.standard_normal(C), rng.standard_normal(C)
    rm0, rv0 = rng.standard_normal(C), rng.uniform(0.5, 2, C)
    rm, rv = from_np(rm0, dtype), from_np(rv0, dtype)
    axes = (0,) + tuple(range(2, len(shape)))
    bshape = (1, C) + (1,) * (len(shape) - 2)
    y = F.batch_norm(from_np(a, dtype), rm, rv, from_np(w, dtype), from_np(b, dtype), training=True, momentum=0.3)
    np.testing.assert_allclose(to_np(y), _norm(a, axes, 1e-5) * w.reshape(bshape) + b.reshape(bshape), **_tol(dtype))
    n = a.size // C
    np.testing.assert_allclose(to_np(rm), 0.7 * rm0 + 0.3 * a.mean(axis=axes), **_tol(dtype))
    np.testing.assert_allclose(to_np(rv), 0.7 * rv0 + 0.3 * a.var(axis=axes) * n / (n - 1), **_tol(dtype))
    assert rm._version == 1 and rv._version == 1
    # without running statistics or affine parameters
    np.testing.assert_allclose(
        to_np(F.batch_norm(from_np(a, dtype), None, None, training=True, eps=0.1)), _norm(a, axes, 0.1), **_tol(dtype)
    )


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_batch_norm_eval_uses_the_running_stats(dtype, rng):
    a = rng.standard_normal((5, 4, 3))
    rm, rv, w, b = rng.standard_normal(4), rng.uniform(0.5, 2, 4), rng.standard_normal(4), rng.standard_normal(4)
    trm, trv = from_np(rm, dtype), from_np(rv, dtype)
    y = F.batch_norm(from_np(a, dtype), trm, trv, from_np(w, dtype), from_np(b, dtype))
    ref = (a - rm[:, None]) / np.sqrt(rv[:, None] + 1e-5) * w[:, None] + b[:, None]
    np.testing.assert_allclose(to_np(y), ref, **_tol(dtype))
    assert_equal(trm, rm.astype(to_np(trm).dtype))  # unchanged
    y2 = ember.batch_norm(from_np(a, dtype), from_np(w, dtype), from_np(b, dtype), trm, trv, False, 0.1, 1e-5, False)
    assert_equal(y2, to_np(y))


@pytest.mark.parametrize(
    "stats,params,affine",
    [
        (ember.float32, ember.float32, True),
        (ember.float64, ember.float64, True),
        (ember.float64, ember.float32, True),  # mixed: all taken to float64 for the coefficients
        (ember.bfloat16, ember.bfloat16, True),
        (ember.float32, ember.float32, False),
    ],
)
def test_batch_norm_eval_coefficients_and_gradient(rng, stats, params, affine):
    """Evaluation computes scale = w / sqrt(var + eps) and shift = b - mean * scale in one kernel from statistics and
    parameters of any floating dtype (with w, b absent: 1 and 0); the output and the input's gradient against NumPy in
    float64."""
    a, g = rng.standard_normal((3, 6, 5)), rng.standard_normal((3, 6, 5))
    rm, rv = rng.standard_normal(6), rng.uniform(0.5, 2, 6)
    w, b = (rng.standard_normal(6), rng.standard_normal(6)) if affine else (np.ones(6), np.zeros(6))
    # the reference uses the statistics and parameters as rounded to their dtypes
    rm, rv = (to_np(ember.tensor(v).to(stats)).astype(np.float64) for v in (rm, rv))
    w, b = (to_np(ember.tensor(v).to(params)).astype(np.float64) for v in (w, b))
    x = ember.tensor(a, dtype=ember.float32, requires_grad=True)
    tw, tb = (ember.tensor(w).to(params), ember.tensor(b).to(params)) if affine else (None, None)
    y = F.batch_norm(x, ember.tensor(rm).to(stats), ember.tensor(rv).to(stats), tw, tb, training=False, eps=0.01)
    scale = w / np.sqrt(rv + 0.01)
    ref = a * scale[:, None] + (b - rm * scale)[:, None]
    np.testing.assert_allclose(to_np(y), ref, rtol=1e-5, atol=1e-5)
    y.backward(ember.tensor(g, dtype=ember.float32))
    np.testing.assert_allclose(to_np(x.grad), g * scale[:, None], rtol=1e-5, atol=1e-5)


def test_batch_norm_errors():
    with pytest.raises(
        ValueError,
        match=r"Expected more than 1 value per channel when training, got input size "
        r"torch.Size\(\[1, 3\]\)",
    ):
        F.batch_norm(ember.ones(1, 3), ember.zeros(3), ember.ones(3), training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 2"):
        F.batch_norm(ember.ones(4, 3), ember.zeros(2), ember.ones(3), training=True)
    with pytest.raises(RuntimeError, match="weight should contain 3 elements not 2"):
        F.batch_norm(ember.ones(4, 3), ember.zeros(3), ember.ones(3), weight=ember.ones(2))
    with pytest.raises(RuntimeError, match="bias should contain 3 elements not 4"):
        F.batch_norm(ember.ones(4, 3), ember.zeros(3), ember.ones(3), bias=ember.ones(4))
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(ember.ones(4, 3), None, None)
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.batch_norm(ember.ones(4), None, None, training=True)


def test_batch_norm_in_several_threads_matches_one(four_threads, rng):
    a = from_np(rng.standard_normal((16, 130, 40)).astype(np.float32)).requires_grad_()
    g = from_np(rng.standard_normal((16, 130, 40)).astype(np.float32))
    y = F.batch_norm(a, None, None, training=True)
    y.backward(g)
    ember.set_num_threads(1)
    a1 = a.detach().requires_grad_()
    y1 = F.batch_norm(a1, None, None, training=True)
    y1.backward(g)
    np.testing.assert_allclose(to_np(y), to_np(y1), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(to_np(a.grad), to_np(a1.grad), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------- fused backward vs create_graph


def _grads(fn, inputs, g, create_graph):
    ts = [from_np(v).requires_grad_() for v in inputs]
    out = fn(*ts)
    return [to_np(t) for t in ember.autograd.grad(out, ts, g, create_graph=create_graph)]


@pytest.mark.parametrize("case", ["layer_norm", "layer_norm_2d", "batch_norm", "batch_norm_eval", "batch_norm_4d"])
def test_fused_backward_matches_the_composite_formula(case, rng):
    """gradcheck runs the fused kernels, gradgradcheck the composite formulas: both must give one gradient."""
    rm, rv = from_np(rng.standard_normal(3)), from_np(rng.uniform(0.5, 2, 3))
    fns = {
        "layer_norm": (lambda x, w, b: F.layer_norm(x, [5], w, b), [(4, 5), (5,), (5,)]),
        "layer_norm_2d": (lambda x, w, b: F.layer_norm(x, [3, 5], w, b), [(2, 3, 5), (3, 5), (3, 5)]),
        "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, True), [(6, 3), (3,), (3,)]),
        "batch_norm_eval": (lambda x, w, b: F.batch_norm(x, rm, rv, w, b), [(6, 3, 2), (3,), (3,)]),
        "batch_norm_4d": (lambda x, w, b: F.batch_norm(x, None, None, w, b, True), [(2, 3, 2, 3), (3,), (3,)]),
    }
    fn, shapes = fns[case]
    inputs = [rng.standard_normal(s) for s in shapes]
    g = from_np(rng.standard_normal(fn(*[from_np(v) for v in inputs]).shape))
    fused = _grads(fn, inputs, g, False)
    composite = _grads(fn, inputs, g, True)
    for a, b in zip(fused, composite):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_layer_norm_records_one_node():
    x = ember.ones(2, 3, requires_grad=True)
    assert F.layer_norm(x, [3]).grad_fn.name() == "NativeLayerNormBackward0"
    assert F.batch_norm(x, None, None, training=True).grad_fn.name() == "NativeBatchNormBackward0"


# ----------------------------------------------------------------------------------- group_norm, instance_norm


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_group_norm_matches_numpy(dtype, rng):
    a = rng.standard_normal((3, 6, 4, 2))
    w, b = rng.standard_normal(6), rng.standard_normal(6)
    ref = _norm(a.reshape(3, 2, -1), (2,), 1e-5).reshape(a.shape)
    y = F.group_norm(from_np(a, dtype), 2, from_np(w, dtype), from_np(b, dtype))
    np.testing.assert_allclose(to_np(y), ref * w[:, None, None] + b[:, None, None], **_tol(dtype))
    np.testing.assert_allclose(
        to_np(ember.group_norm(from_np(a, dtype), 3, eps=0.5)),
        _norm(a.reshape(3, 3, -1), (2,), 0.5).reshape(a.shape),
        **_tol(dtype),
    )
    np.testing.assert_allclose(
        to_np(F.group_norm(from_np(a[:, :, 0, 0], dtype), 6, weight=from_np(w, dtype))), np.zeros((3, 6)), atol=1e-6
    )  # one value per group


def test_group_norm_errors():
    with pytest.raises(
        RuntimeError,
        match=r"Expected number of channels in input to be divisible by num_groups, but "
        r"got input of shape \[2, 6, 3\] and num_groups=4",
    ):
        F.group_norm(ember.ones(2, 6, 3), 4)
    with pytest.raises(
        RuntimeError,
        match=r"Expected weight to be a vector of size equal to the number of channels in "
        r"input, but got weight of shape \[5\] and input of shape \[2, 6, 3\]",
    ):
        F.group_norm(ember.ones(2, 6, 3), 3, weight=ember.ones(5))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_instance_norm_matches_numpy_and_updates_running_stats(dtype, rng):
    a = rng.standard_normal((3, 4, 5, 2)) + 1
    w, b = rng.standard_normal(4), rng.standard_normal(4)
    rm0, rv0 = rng.standard_normal(4), rng.uniform(0.5, 2, 4)
    rm, rv = from_np(rm0, dtype), from_np(rv0, dtype)
    y = F.instance_norm(from_np(a, dtype), rm, rv, from_np(w, dtype), from_np(b, dtype), momentum=0.2)
    ref = _norm(a, (2, 3), 1e-5) * w[:, None, None] + b[:, None, None]
    np.testing.assert_allclose(to_np(y), ref, **_tol(dtype))
    np.testing.assert_allclose(to_np(rm), 0.8 * rm0 + 0.2 * a.mean(axis=(2, 3)).mean(0), **_tol(dtype))
    np.testing.assert_allclose(to_np(rv), 0.8 * rv0 + 0.2 * (a.var(axis=(2, 3)) * 10 / 9).mean(0), **_tol(dtype))
    # use_input_stats=False: the running statistics normalize
    y = F.instance_norm(from_np(a, dtype), from_np(rm0, dtype), from_np(rv0, dtype), use_input_stats=False)
    np.testing.assert_allclose(to_np(y), (a - rm0[:, None, None]) / np.sqrt(rv0[:, None, None] + 1e-5), **_tol(dtype))
    np.testing.assert_allclose(
        to_np(ember.instance_norm(from_np(a, dtype), None, None, None, None, True, 0.1, 1e-5, False)),
        _norm(a, (2, 3), 1e-5),
        **_tol(dtype),
    )


def test_instance_norm_errors():
    with pytest.raises(
        ValueError,
        match=r"Expected more than 1 spatial element when training, got input size "
        r"torch.Size\(\[2, 3, 1\]\)",
    ):
        F.instance_norm(ember.ones(2, 3, 1))


# ----------------------------------------------------------------------------------- local_response_norm, normalize


def _lrn(a, size, alpha, beta, k):
    sq = a * a
    C = a.shape[1]
    div = np.zeros_like(a)
    for c in range(C):
        lo, hi = c - size // 2, c + (size - 1) // 2
        div[:, c] = sq[:, max(lo, 0) : min(hi, C - 1) + 1].sum(axis=1)
    return a / (k + alpha / size * div) ** beta


@pytest.mark.parametrize("shape,size", [((2, 5, 4), 3), ((2, 6, 3, 2), 2), ((1, 4, 2, 2, 2), 5)])
def test_local_response_norm_matches_numpy(shape, size, rng):
    a = rng.standard_normal(shape) * 3
    np.testing.assert_allclose(
        to_np(F.local_response_norm(from_np(a), size, alpha=0.3, beta=0.6, k=1.5)),
        _lrn(a, size, 0.3, 0.6, 1.5),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality input \(got 2 dimensions\)"):
        F.local_response_norm(ember.ones(2, 3), 2)


def test_normalize_matches_numpy(rng):
    a = rng.standard_normal((3, 4, 5))
    np.testing.assert_allclose(to_np(F.normalize(from_np(a))), a / np.linalg.norm(a, axis=1, keepdims=True), rtol=1e-13)
    p3 = (np.abs(a) ** 3).sum(axis=2, keepdims=True) ** (1 / 3)
    np.testing.assert_allclose(to_np(F.normalize(from_np(a), p=3, dim=-1)), a / p3, rtol=1e-13)
    z = F.normalize(ember.zeros(2, 3), dim=1)  # eps keeps zero rows finite
    assert_equal(z, np.zeros((2, 3), np.float32))
    out = ember.empty(3, 4, 5, dtype=ember.float64)
    assert F.normalize(from_np(a), out=out) is out
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.normalize(ember.ones(3))


def test_layer_norm_in_several_threads(four_threads, rng):
    a = rng.standard_normal((512, 300)).astype(np.float32)
    w, b = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    x = from_np(a).requires_grad_()
    tw, tb = from_np(w).requires_grad_(), from_np(b).requires_grad_()
    y = F.layer_norm(x, [300], tw, tb)
    np.testing.assert_allclose(to_np(y.detach()), _norm(a.astype(np.float64), (1,), 1e-5) * w + b, rtol=1e-4, atol=1e-4)
    g = from_np(rng.standard_normal((512, 300)).astype(np.float32))
    y.backward(g)
    grads = [to_np(t.grad) for t in (x, tw, tb)]
    ember.set_num_threads(1)
    for t in (x, tw, tb):
        t.grad = None
    F.layer_norm(x, [300], tw, tb).backward(g)
    for a1, t in zip(grads, (x, tw, tb)):
        np.testing.assert_allclose(a1, to_np(t.grad), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grads[2], to_np(g).sum(0), rtol=1e-4, atol=1e-4)
