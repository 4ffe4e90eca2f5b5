"""ember.vision.ops on CUDA against the CPU kernels (ember/backend/cuda/vision.cu, docs/vision.md): RoI Align,
PS RoI Align, RoI Pool and PS RoI Pool (outputs and gradients) and NMS, on random boxes inside, across and outside
the feature map, malformed and empty inputs, and NMS with tied scores, duplicate boxes and tile-crossing sizes.

The CUDA kernels keep the CPU's evaluation order and are compiled without FMA contraction, so forward values and NMS
decisions should be the CPU's exactly; the comparisons allow a few ulps anyway for the forward passes (rtol 1e-6 in
float32, 1e-12 in float64) and keep NMS exact. Backward passes add with atomics in another order: rtol 1e-4 / 1e-10
relative to the largest gradient (as test_cuda_ops.py's F32_LOOSE / F64).

Everything skips where `ember.cuda.is_available()` is false; `EMBER_TEST_CUDA_AS=cpu` runs the "cuda" half on the
CPU, which checks the harness on a machine without a GPU (as test_cuda_ops.py)."""

import os

import numpy as np
import pytest

import ember
from ember.vision import ops

CUDA_AS = os.environ.get("EMBER_TEST_CUDA_AS", "")
DEV = "cpu" if CUDA_AS == "cpu" else "cuda"
pytestmark = pytest.mark.skipif(
    DEV == "cuda" and not ember.cuda.is_available(),
    reason="no CUDA device (EMBER_TEST_CUDA_AS=cpu runs the harness on the CPU)",
)

f16, f32, f64 = ember.float16, ember.float32, ember.float64
NP = {f16: np.float16, f32: np.float32, f64: np.float64}
FWD_RTOL = {f16: 1e-3, f32: 1e-6, f64: 1e-12}
BWD_RTOL = {f16: 1e-3, f32: 1e-4, f64: 1e-10}


def close(got, exp, rtol, what):
    got, exp = np.asarray(got, np.float64), np.asarray(exp, np.float64)
    assert got.shape == exp.shape, f"{what}: shape {got.shape} vs {exp.shape}"
    assert np.array_equal(np.isnan(got), np.isnan(exp)), f"{what}: NaNs in different places"
    ok = ~np.isnan(exp)
    got, exp = got[ok], exp[ok]
    if got.size == 0:
        return
    scale = np.abs(exp).max()
    bad = np.abs(got - exp) > rtol * (np.abs(exp) + scale)
    first = f"cuda {got[bad][0]!r} vs cpu {exp[bad][0]!r}" if bad.any() else ""
    assert not bad.any(), f"{what}: {bad.sum()} of {bad.size} differ; first: {first}"


def random_rois(rng, k, n, h, w, scale):
    """[K, 5] boxes in image coordinates (the map times 1 / scale): inside, across the border, outside, reversed
    (x2 < x1), degenerate, and on the half-pixel grid (where roi_pool's rounding ties)."""
    size = np.array([w, h, w, h]) / scale
    xy = rng.uniform(-0.3, 1.1, (k, 2)) * size[:2]
    wh = rng.uniform(-0.2, 0.8, (k, 2)) * size[:2]
    boxes = np.concatenate([xy, xy + wh], 1)
    boxes[: k // 4] = np.round(boxes[: k // 4] * 2 * scale) / (2 * scale)  # x.5 after spatial_scale
    if k > 3:
        boxes[1] = [2, 2, 2, 2]
        boxes[2] = -boxes[2] - size  # off the map entirely
    batch = rng.integers(0, n, (k, 1))
    return np.concatenate([batch, boxes], 1)


def on_both(fn, x, rois, dtype, seed):
    """fn(x, rois) on the CPU and on DEV: outputs and the gradients of sum(out * w) with respect to x."""
    rng = np.random.default_rng(seed)
    results = []
    w = None
    for dev in ("cpu", DEV):
        xt = ember.tensor(x.astype(NP[dtype]), device=dev).requires_grad_()
        out = fn(xt, ember.tensor(rois.astype(NP[dtype]), device=dev))
        assert out.device.type == dev and out.dtype == dtype
        if w is None:
            w = rng.standard_normal(tuple(out.shape))
        (out * ember.tensor(w.astype(NP[dtype]), device=dev)).sum().backward()
        results.append((out.detach().cpu().float().numpy(), xt.grad.cpu().float().numpy()))
    return results


ROI_OPS = {
    "roi_align": lambda x, r: ops.roi_align(x, r, (3, 2), 0.5, -1, False),
    "roi_align_aligned": lambda x, r: ops.roi_align(x, r, (3, 2), 0.5, -1, True),
    "roi_align_ratio2": lambda x, r: ops.roi_align(x, r, (2, 3), 0.5, 2, False),
    "roi_align_ratio1_aligned": lambda x, r: ops.roi_align(x, r, 4, 1.0, 1, True),
    "ps_roi_align": lambda x, r: ops.ps_roi_align(x, r, 2, 0.5, -1),
    "ps_roi_align_ratio2": lambda x, r: ops.ps_roi_align(x, r, (2, 2), 1.0, 2),
    "roi_pool": lambda x, r: ops.roi_pool(x, r, (3, 2), 0.5),
    "roi_pool_unit_scale": lambda x, r: ops.roi_pool(x, r, 2, 1.0),
    "ps_roi_pool": lambda x, r: ops.ps_roi_pool(x, r, 2, 0.5),
    "ps_roi_pool_unit_scale": lambda x, r: ops.ps_roi_pool(x, r, (2, 2), 1.0),
}


@pytest.mark.parametrize("dtype", [f32, f64, f16], ids=["float32", "float64", "float16"])
@pytest.mark.parametrize("name", list(ROI_OPS))
def test_roi_op_matches_cpu(name, dtype):
    rng = np.random.default_rng(len(name))
    n, c, h, w = 2, 8, 9, 11
    x = rng.standard_normal((n, c, h, w))
    scale = 1.0 if "unit" in name or "ratio1" in name or name == "ps_roi_align_ratio2" else 0.5
    rois = random_rois(rng, 24, n, h, w, scale)
    (out_cpu, g_cpu), (out_dev, g_dev) = on_both(ROI_OPS[name], x, rois, dtype, seed=7)
    close(out_dev, out_cpu, FWD_RTOL[dtype], f"{name} output")
    close(g_dev, g_cpu, BWD_RTOL[dtype], f"{name} gradient")
    assert np.abs(g_cpu).sum() > 0  # the boxes do read the map


def test_roi_pool_picks_the_same_maximum():
    # Distinct values: the argmax is unique, so the gradient (scattered through it) must land in the same places.
    rng = np.random.default_rng(3)
    x = rng.permutation(2 * 3 * 7 * 8).reshape(2, 3, 7, 8).astype(np.float64)
    rois = random_rois(rng, 16, 2, 7, 8, 1.0)
    (out_cpu, g_cpu), (out_dev, g_dev) = on_both(lambda a, r: ops.roi_pool(a, r, 3, 1.0), x, rois, f64, seed=1)
    np.testing.assert_array_equal(out_dev, out_cpu)
    np.testing.assert_array_equal(g_dev != 0, g_cpu != 0)
    close(g_dev, g_cpu, 1e-12, "roi_pool gradient")


def test_empty_inputs():
    x = ember.randn(2, 4, 5, 5, device=DEV, requires_grad=True)
    none = ember.zeros(0, 5, device=DEV)
    outs = [f(x, none, 2) for f in (ops.roi_align, ops.roi_pool, ops.ps_roi_align, ops.ps_roi_pool)]
    for out, channels in zip(outs, (4, 4, 1, 1)):
        assert out.shape == (0, channels, 2, 2) and out.device.type == DEV
        out.sum().backward()
    assert x.grad.device.type == DEV and x.grad.abs().sum().item() == 0
    assert ops.roi_align(x, ember.tensor([[0.0, 0, 0, 2, 2]], device=DEV), (0, 2)).shape == (1, 4, 0, 2)
    keep = ops.nms(ember.zeros(0, 4, device=DEV), ember.zeros(0, device=DEV), 0.5)
    assert keep.shape == (0,) and keep.dtype == ember.int64 and keep.device.type == DEV
    keep = ops.batched_nms(ember.zeros(0, 4, device=DEV), ember.zeros(0, device=DEV), ember.zeros(0, device=DEV), 0.5)
    assert keep.shape == (0,) and keep.device.type == DEV


def nms_case(rng, m, dtype):
    xy = rng.uniform(0, 30, (m, 2))
    wh = rng.uniform(1, 12, (m, 2))
    boxes = np.concatenate([xy, xy + wh], 1)
    scores = rng.integers(0, 8, m) / 8.0  # many tied scores
    if m > 4:
        boxes[m // 2 :: 5] = boxes[: len(boxes[m // 2 :: 5])]  # duplicate boxes (IoU exactly 1)
        boxes[3] = [5, 5, 5, 9]  # zero area
    return boxes.astype(NP[dtype]), scores.astype(NP[dtype])


@pytest.mark.parametrize("dtype", [f32, f64, f16], ids=["float32", "float64", "float16"])
@pytest.mark.parametrize("m", [1, 2, 63, 64, 65, 130, 300])
def test_nms_matches_cpu(m, dtype):
    rng = np.random.default_rng(m)
    boxes, scores = nms_case(rng, m, dtype)
    kept = {}
    for thr in (0.0, 0.3, 0.7, 1.0):
        exp = ops.nms(ember.tensor(boxes), ember.tensor(scores), thr)
        got = ops.nms(ember.tensor(boxes, device=DEV), ember.tensor(scores, device=DEV), thr)
        assert got.device.type == DEV and got.dtype == ember.int64
        np.testing.assert_array_equal(got.cpu().numpy(), exp.numpy(), err_msg=f"m={m} threshold={thr}")
        kept[thr] = len(exp)
    assert kept[1.0] == m  # no IoU is above 1: the duplicates survive
    if m > 4:
        assert kept[0.0] < kept[0.7] < m  # the duplicates (IoU 1) go below 1


def test_nms_threshold_ties_and_nan():
    # IoU exactly 0.5 (2x the overlap area): kept at threshold 0.5, removed below; a NaN box suppresses nothing.
    boxes = np.array([[0, 0, 2, 2], [1, 0, 3, 2], [0, 0, 2, 2], [np.nan, 0, 1, 1], [10, 10, 11, 11]], np.float32)
    boxes[1] = [0, 0, 2, 1.0]  # IoU with box 0: 2 / 4 = 0.5
    scores = np.array([0.9, 0.8, 0.5, 0.95, 0.1], np.float32)
    for thr in (0.49, 0.5):
        exp = ops.nms(ember.tensor(boxes), ember.tensor(scores), thr).numpy()
        got = ops.nms(ember.tensor(boxes, device=DEV), ember.tensor(scores, device=DEV), thr).cpu().numpy()
        np.testing.assert_array_equal(got, exp)
    assert 1 in ops.nms(ember.tensor(boxes), ember.tensor(scores), 0.5).numpy()
    assert 1 not in ops.nms(ember.tensor(boxes), ember.tensor(scores), 0.49).numpy()


def test_batched_nms_matches_cpu():
    rng = np.random.default_rng(5)
    boxes, _ = nms_case(rng, 200, f32)
    scores = rng.permutation(200).astype(np.float32) / 200  # distinct: batched_nms's sort is not stable
    idxs = rng.integers(0, 4, 200)
    exp = ops.batched_nms(ember.tensor(boxes), ember.tensor(scores), ember.tensor(idxs), 0.4).numpy()
    dev = [ember.tensor(a, device=DEV) for a in (boxes, scores, idxs)]
    np.testing.assert_array_equal(ops.batched_nms(*dev, 0.4).cpu().numpy(), exp)


def test_gradcheck_on_device():
    # float64 leaves on the CPU, the ops (forward, backward and double backward kernels) on DEV.
    rng = np.random.default_rng(11)
    x = ember.tensor(rng.standard_normal((2, 4, 5, 6)), requires_grad=True)
    rois = ember.tensor(
        [[0, 0.3, 0.6, 5.2, 4.9], [1, 2.1, 1.2, 6.5, 5.5], [1, -1.0, -2.0, 3.1, 2.2], [0, 4, 4, 4.5, 4.5]],
        dtype=f64,
        device=DEV,
    )
    for name, size in (("roi_align", (3, 2)), ("ps_roi_align", 2), ("ps_roi_pool", 2), ("roi_pool", (3, 2))):

        def f(inp, name=name, size=size):
            return getattr(ops, name)(inp.to(DEV), rois, size, 1.0).cpu()

        assert ember.autograd.gradcheck(f, (x,)), name
        if name != "roi_pool":
            assert ember.autograd.gradgradcheck(f, (x,)), name


def test_bad_boxes_raise_and_leave_the_device_usable():
    x = ember.randn(1, 4, 5, 5, device=DEV)
    with pytest.raises(RuntimeError, match="roi_pool.*not a finite number"):
        ops.roi_pool(x, ember.tensor([[0.0, float("nan"), 0, 3, 3]], device=DEV), 2).cpu()
    with pytest.raises(RuntimeError, match="ps_roi_pool.*not a finite number"):
        ops.ps_roi_pool(x, ember.tensor([[0.0, 0, 0, float("inf"), 3]], device=DEV), 2).cpu()
    with pytest.raises(RuntimeError, match=r"roi_align.*2\^26"):
        ops.roi_align(x, ember.tensor([[0.0, 0, 0, 3, 3]], device=DEV), 2, sampling_ratio=2**20).cpu()
    with pytest.raises(IndexError, match=r"batch index .* \[0, 1\)"):
        ops.roi_align(x, ember.tensor([[1.0, 0, 0, 3, 3]], device=DEV), 2)
    good = ops.roi_align(x, ember.tensor([[0.0, 0, 0, 3, 3]], device=DEV), 2, 1.0, 2)
    ref = ops.roi_align(x.cpu(), ember.tensor([[0.0, 0, 0, 3, 3]]), 2, 1.0, 2)
    close(good.cpu().numpy(), ref.numpy(), 1e-6, "roi_align after an error")


@pytest.mark.skipif(DEV != "cuda", reason="only the CUDA backward kernels add with float atomics")
def test_deterministic_algorithms_refuse_the_atomic_backward():
    x = ember.randn(1, 4, 5, 5, device=DEV, requires_grad=True)
    rois = ember.tensor([[0.0, 0, 0, 3, 3]], device=DEV)
    try:
        ember.use_deterministic_algorithms(True)
        ops.roi_align(x, rois, 2).sum()  # the forward passes are deterministic
        with pytest.raises(RuntimeError, match="roi_align_backward on CUDA does not have a deterministic"):
            ops.roi_align(x, rois, 2).sum().backward()
        with pytest.raises(RuntimeError, match="ps_roi_pool_backward on CUDA does not have a deterministic"):
            ops.ps_roi_pool(x, rois, 2).sum().backward()
    finally:
        ember.use_deterministic_algorithms(False)


def test_harness_detects_differences():
    exp = np.array([[1.0, -2.0], [3.0, np.nan]])
    close(exp.copy(), exp, 1e-6, "same")
    with pytest.raises(AssertionError, match="1 of 3 differ"):
        close(exp + [[0, 0], [1e-3, 0]], exp, 1e-6, "perturbed")
    with pytest.raises(AssertionError, match="NaNs in different places"):
        close(np.nan_to_num(exp), exp, 1e-6, "nan")
