"""ember.vision.ops (issue 24): NMS and RoI pooling (C++ kernels) and the box arithmetic, losses and layers.

Values are checked against NumPy references written here (greedy NMS, IoU, bilinear RoI Align), gradients against
finite differences (gradcheck, float64), and everything against torchvision 0.29 where the reference PyTorch
(/opt/torch2/py) exists: one subprocess computes torchvision's results for all the cases below."""

import os
import subprocess
import textwrap

import numpy as np
import pytest
from vision_ops_cases import ALIGN_CONFIGS, make_cases, results

import ember
from ember.vision import ops

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")


def t(a):
    return ember.tensor(np.ascontiguousarray(a))


# ---------------------------------------------------------------------------------------------- NumPy references


def np_iou(a, b):
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


def np_nms(boxes, scores, thr):
    order = np.argsort(-scores, kind="stable")
    iou = np_iou(boxes, boxes)
    keep, dead = [], np.zeros(len(boxes), bool)
    for i in order:
        if dead[i]:
            continue
        keep.append(i)
        dead |= iou[i] > thr
    return np.array(keep, dtype=np.int64)


def np_bilinear(plane, y, x):
    h, w = plane.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = min(int(y), h - 1), min(int(x), w - 1)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    y, x = (y0 if y0 == h - 1 else y), (x0 if x0 == w - 1 else x)
    ly, lx = y - y0, x - x0
    return (
        (1 - ly) * (1 - lx) * plane[y0, x0]
        + (1 - ly) * lx * plane[y0, x1]
        + ly * (1 - lx) * plane[y1, x0]
        + ly * lx * plane[y1, x1]
    )


def np_roi_align(x, rois, out_hw, scale, ratio, aligned):
    ph, pw = out_hw
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    for k, (b, *box) in enumerate(rois):
        off = 0.5 if aligned else 0.0
        x1, y1, x2, y2 = [v * scale - off for v in box]
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else int(np.ceil(rh / ph))
        gw = ratio if ratio > 0 else int(np.ceil(rw / pw))
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    s = sum(
                        np_bilinear(
                            x[int(b), c], y1 + i * bh + (iy + 0.5) * bh / gh, x1 + j * bw + (ix + 0.5) * bw / gw
                        )
                        for iy in range(gh)
                        for ix in range(gw)
                    )
                    out[k, c, i, j] = s / max(gh * gw, 1)
    return out


TORCH_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import torch
    from torchvision import ops
    sys.path.insert(0, sys.argv[2])
    from vision_ops_cases import make_cases, results
    torch.set_num_threads(1)
    np.savez(sys.argv[1], **results(ops, lambda a: torch.from_numpy(np.ascontiguousarray(a)), make_cases()))
    """
)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    out = tmp_path_factory.mktemp("tv") / "ref.npz"
    script = tmp_path_factory.mktemp("tv") / "ref.py"
    script.write_text(TORCH_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    subprocess.run([TORCH_PY, str(script), str(out), os.path.dirname(__file__)], check=True, env=env, timeout=300)
    return dict(np.load(out))


@needs_torch
def test_everything_matches_torchvision(reference):
    mine = results(ops, t, make_cases())
    assert sorted(mine) == sorted(reference)
    # torchvision's ps_roi_pool backward clips bins differently from its forward (docs/vision.md): ember's gradient is
    # the forward's transpose, checked by finite differences below instead.
    for k in sorted(set(mine) - {"ps_roi_pool_grad"}):
        # The kernels follow torchvision's formulas in its evaluation order: values and gradients equal bit for bit.
        exact = k.startswith(("nms", "batched", "small", "roi_", "ps_roi_"))
        assert mine[k].dtype == reference[k].dtype, k
        assert mine[k].shape == reference[k].shape, k
        if exact:
            np.testing.assert_array_equal(mine[k], reference[k], err_msg=k)
        else:
            np.testing.assert_allclose(mine[k], reference[k], rtol=1e-6, atol=1e-9, err_msg=k)


# ---------------------------------------------------------------------------------------------- without torch


def test_nms_against_numpy_with_ties_and_empty():
    c = make_cases()
    for thr in (0.0, 0.3, 0.5, 1.0):
        np.testing.assert_array_equal(
            ops.nms(t(c["boxes"]), t(c["scores"]), thr).numpy(), np_nms(c["boxes"], c["scores"], thr)
        )
    keep = ops.nms(ember.zeros(0, 4), ember.zeros(0), 0.5)
    assert keep.dtype == ember.int64 and keep.shape == (0,)
    assert ops.batched_nms(ember.zeros(0, 4), ember.zeros(0), ember.zeros(0, dtype=ember.int64), 0.5).shape == (0,)
    # Two identical boxes with equal scores: the first index wins.
    same = t(np.array([[0, 0, 2, 2], [0, 0, 2, 2]], np.float32))
    assert ops.nms(same, ember.ones(2), 0.5).tolist() == [0]


def test_batched_nms_never_mixes_categories():
    c = make_cases()
    boxes, scores, idxs = c["boxes"], c["scores"], c["idxs"]
    keep = set(ops.batched_nms(t(boxes), t(scores), t(idxs), 0.5).tolist())
    expected = set()
    for k in np.unique(idxs):
        sel = np.nonzero(idxs == k)[0]
        expected |= set(sel[np_nms(boxes[sel], scores[sel], 0.5)].tolist())
    assert keep == expected


def test_box_iou_family_against_numpy():
    c = make_cases()
    b1, b2 = c["b1"], c["b2"]
    iou = np_iou(b1, b2)
    np.testing.assert_allclose(ops.box_iou(t(b1), t(b2)).numpy(), iou, rtol=1e-12)
    lt, rb = np.minimum(b1[:, None, :2], b2[None, :, :2]), np.maximum(b1[:, None, 2:], b2[None, :, 2:])
    enclosing = np.prod(rb - lt, -1)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    wh = np.clip(np.minimum(b1[:, None, 2:], b2[None, :, 2:]) - np.maximum(b1[:, None, :2], b2[None, :, :2]), 0, None)
    union = area(b1)[:, None] + area(b2)[None] - wh[..., 0] * wh[..., 1]
    np.testing.assert_allclose(
        ops.generalized_box_iou(t(b1), t(b2)).numpy(), iou - (enclosing - union) / enclosing, rtol=1e-10
    )
    centre = lambda x: (x[:, :2] + x[:, 2:]) / 2  # noqa: E731
    d2 = ((centre(b1)[:, None] - centre(b2)[None]) ** 2).sum(-1)
    diag = ((rb - lt) ** 2).sum(-1) + 1e-7
    np.testing.assert_allclose(ops.distance_box_iou(t(b1), t(b2)).numpy(), iou - d2 / diag, rtol=1e-10)
    np.testing.assert_allclose(ops.box_area(t(b1)).numpy(), area(b1), rtol=1e-12)


def test_box_convert_round_trips():
    c = make_cases()
    b = t(c["b1"])
    for fmt in ("xywh", "cxcywh"):
        np.testing.assert_allclose(ops.box_convert(ops.box_convert(b, "xyxy", fmt), fmt, "xyxy").numpy(), c["b1"])
    xywh = ops.box_convert(b, "xyxy", "xywh").numpy()
    np.testing.assert_allclose(xywh[:, 2:], c["b1"][:, 2:] - c["b1"][:, :2])
    rot = t(c["rot"])
    back = ops.box_convert(ops.box_convert(rot, "xywhr", "xyxyxyxy"), "xyxyxyxy", "xywhr")
    np.testing.assert_allclose(back.numpy(), c["rot"], atol=1e-9)
    with pytest.raises(ValueError, match="Unsupported Bounding Box Conversions"):
        ops.box_convert(b, "xyxy", "xyz")
    with pytest.raises(NotImplementedError):
        ops.box_convert(b, "xyxy", "xywhr")


def test_roi_align_against_numpy():
    c = make_cases()
    for scale, ratio, aligned in ALIGN_CONFIGS:
        out = ops.roi_align(t(c["feat"]), t(c["rois"]), (3, 2), scale, ratio, aligned)
        ref = np_roi_align(c["feat"], c["rois"], (3, 2), scale, ratio, aligned)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-12)
    # float32 agrees with float64 to rounding; the list form equals the [K, 5] form.
    out32 = ops.roi_align(t(c["feat"].astype(np.float32)), t(c["rois"].astype(np.float32)), 2, 0.5, 2)
    out64 = ops.roi_align(t(c["feat"]), t(c["rois"]), 2, 0.5, 2)
    np.testing.assert_allclose(out32.numpy(), out64.numpy(), rtol=1e-4, atol=1e-5)
    listed = ops.roi_align(t(c["feat"]), [t(c["rois"][c["rois"][:, 0] == i, 1:]) for i in (0, 1)], 2, 0.5, 2)
    order = np.argsort(c["rois"][:, 0], kind="stable")
    np.testing.assert_allclose(listed.numpy(), out64.numpy()[order])


def test_roi_pool_against_numpy():
    c = make_cases()
    x, rois = c["feat"], c["rois"]
    out = ops.roi_pool(t(x), t(rois), (3, 2), 0.5).numpy()
    for k, (b, *box) in enumerate(rois):
        x1, y1, x2, y2 = [int(np.floor(v * 0.5 + 0.5)) if v * 0.5 >= 0 else -int(np.floor(-v * 0.5 + 0.5)) for v in box]
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(3):
            for j in range(2):
                bh, bw = rh / 3, rw / 2  # the bin size, then its multiples (Fast R-CNN's rule, in that order)
                h0 = min(max(int(np.floor(i * bh)) + y1, 0), 10)
                h1 = min(max(int(np.ceil((i + 1) * bh)) + y1, 0), 10)
                w0 = min(max(int(np.floor(j * bw)) + x1, 0), 12)
                w1 = min(max(int(np.ceil((j + 1) * bw)) + x1, 0), 12)
                region = x[int(b), :, h0:h1, w0:w1]
                ref = region.max(axis=(1, 2)) if region.size else np.zeros(x.shape[1])
                np.testing.assert_allclose(out[k, :, i, j], ref, err_msg=f"box {k} bin {i},{j}")


@pytest.mark.parametrize("name", ["roi_align", "roi_pool", "ps_roi_align", "ps_roi_pool"])
def test_roi_gradients_against_finite_differences(name):
    rng = np.random.default_rng(1)
    x = t(rng.normal(size=(2, 4, 5, 6))).requires_grad_()
    rois = t(
        np.array([[0, 0.3, 0.6, 5.2, 4.9], [1, 2.1, 1.2, 6.5, 5.5], [1, -1.0, -2.0, 3.1, 2.2], [0, 4, 4, 4.5, 4.5]])
    )
    size = (3, 2) if name in ("roi_align", "roi_pool") else 2

    def f(inp):
        return getattr(ops, name)(inp, rois, size, 1.0)

    assert ember.autograd.gradcheck(f, (x,))
    if name != "roi_pool":  # the linear maps are differentiable twice (their gradient is linear in g)
        assert ember.autograd.gradgradcheck(f, (x,))


def test_deform_conv2d_against_conv2d_and_finite_differences():
    rng = np.random.default_rng(3)
    x, w, b = t(rng.normal(size=(2, 4, 6, 7))), t(rng.normal(size=(6, 2, 3, 3))), t(rng.normal(size=6))
    # Zero offsets and a unit mask sample the kernel taps where a convolution reads them.
    offset = ember.zeros(2, 2 * 9, 3, 7, dtype=ember.float64)
    got = ops.deform_conv2d(
        x, offset, w, b, stride=(2, 1), padding=(1, 1), mask=ember.ones(2, 9, 3, 7, dtype=ember.float64)
    )
    ref = ember.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)
    # An integer offset shifts the samples: offset (dy, dx) = (1, 0) everywhere reads the next row.
    shift = ember.zeros(1, 2, 1, 1, dtype=ember.float64)
    shift[:, 0] = 1
    img = t(rng.normal(size=(1, 1, 5, 5)))
    one = ember.ones(1, 1, 1, 1, dtype=ember.float64)
    out = ops.deform_conv2d(img, shift.expand(1, 2, 5, 5).contiguous(), one)
    np.testing.assert_allclose(out.numpy()[0, 0, :4], img.numpy()[0, 0, 1:])
    np.testing.assert_allclose(out.numpy()[0, 0, 4], 0)  # off the image
    small = (t(rng.normal(size=(1, 2, 4, 4))).requires_grad_(), t(rng.normal(size=(1, 8, 3, 3)) * 0.7).requires_grad_())
    wt = t(rng.normal(size=(3, 2, 2, 2))).requires_grad_()
    mask = t(rng.uniform(size=(1, 4, 3, 3))).requires_grad_()
    assert ember.autograd.gradcheck(lambda i, o, w_, m: ops.deform_conv2d(i, o, w_, mask=m), (*small, wt, mask))
    layer = ops.DeformConv2d(4, 6, 3, padding=1, groups=2)
    assert (
        layer.weight.shape == (6, 2, 3, 3)
        and repr(layer) == "DeformConv2d(4, 6, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=2)"
    )
    with pytest.raises(RuntimeError, match="offset tensor at dimension 1 is not valid"):
        ops.deform_conv2d(x, ember.zeros(2, 3, 3, 7, dtype=ember.float64), w)
    with pytest.raises(RuntimeError, match="does not match the output size"):
        ops.deform_conv2d(x, ember.zeros(2, 18, 4, 4, dtype=ember.float64), w)


def test_half_inputs_compute_in_float32():
    c = make_cases()
    x, rois = t(c["feat"]).half(), t(c["rois"]).half()
    out = ops.roi_align(x, rois, 2, 0.5, 2)
    assert out.dtype == ember.float16
    ref = ops.roi_align(x.float(), rois.float(), 2, 0.5, 2)
    np.testing.assert_allclose(out.float().numpy(), ref.numpy(), rtol=1e-3, atol=1e-3)


def test_empty_and_zero_sized():
    x = ember.randn(1, 4, 5, 5)
    assert ops.roi_align(x, ember.zeros(0, 5), 2).shape == (0, 4, 2, 2)
    assert ops.roi_pool(x, [ember.zeros(0, 4)], 3).shape == (0, 4, 3, 3)
    assert ops.ps_roi_pool(x, ember.zeros(0, 5), 2).shape == (0, 1, 2, 2)
    x.requires_grad_()
    ops.roi_align(x, ember.zeros(0, 5), 2).sum().backward()
    assert x.grad.abs().sum().item() == 0


def test_bad_arguments_raise():
    x = ember.randn(2, 4, 5, 5)
    with pytest.raises(AssertionError, match=r"Tensor\[K, 5\]"):
        ops.roi_align(x, ember.zeros(3, 4), 2)
    with pytest.raises(AssertionError, match=r"List\[Tensor\[L, 4\]\]"):
        ops.roi_align(x, [ember.zeros(3, 5)], 2)
    with pytest.raises(IndexError, match=r"batch index .* \[0, 2\)"):
        ops.roi_align(x, ember.tensor([[2.0, 0, 0, 1, 1]]), 2)
    with pytest.raises(RuntimeError, match="same type as rois"):
        ops.roi_pool(x, ember.zeros(1, 5, dtype=ember.float64), 2)
    with pytest.raises(RuntimeError, match=r"multiple of pooling height \* pooling width"):
        ops.ps_roi_align(x, ember.zeros(1, 5), 3)
    with pytest.raises(RuntimeError, match=r"\[N, C, H, W\]"):
        ops.roi_align(ember.randn(4, 5, 5), ember.zeros(1, 5), 2)
    with pytest.raises(RuntimeError, match=r"sampling points per bin are more than 2\^26"):
        ops.roi_align(x, ember.tensor([[0.0, 0, 0, 3, 3]]), 2, sampling_ratio=2**20)
    with pytest.raises(RuntimeError, match="is not a finite number"):
        ops.roi_pool(x, ember.tensor([[0.0, float("nan"), 0, 3, 3]]), 2)
    with pytest.raises(RuntimeError, match="floating point"):
        ops.roi_align(ember.zeros(1, 1, 2, 2, dtype=ember.int64), ember.zeros(1, 5, dtype=ember.int64), 2)
    with pytest.raises(RuntimeError, match="boxes should have 4 elements in dimension 1, got 5"):
        ops.nms(ember.zeros(3, 5), ember.zeros(3), 0.5)
    with pytest.raises(RuntimeError, match="same number of elements in dimension 0, got 3 and 2"):
        ops.nms(ember.zeros(3, 4), ember.zeros(2), 0.5)
    with pytest.raises(ValueError, match="Invalid alpha value"):
        ops.sigmoid_focal_loss(ember.zeros(2), ember.zeros(2), alpha=2)
    with pytest.raises(ValueError, match="Invalid Value for arg 'reduction'"):
        ops.generalized_box_iou_loss(ember.zeros(1, 4), ember.zeros(1, 4), reduction="max")


def test_layers():
    torch = ember
    x = torch.randn(2, 3, 8, 8)
    bn = ops.FrozenBatchNorm2d(3)
    bn.running_mean.copy_(torch.tensor([1.0, 2.0, 3.0]))
    bn.running_var.copy_(torch.tensor([4.0, 1.0, 0.25]))
    ref = (x - bn.running_mean.view(1, 3, 1, 1)) / (bn.running_var.view(1, 3, 1, 1) + 1e-5).sqrt()
    np.testing.assert_allclose(bn(x).numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    sd = torch.nn.BatchNorm2d(3).state_dict()  # with num_batches_tracked
    bn.load_state_dict(sd)
    assert repr(bn) == "FrozenBatchNorm2d(3, eps=1e-05)"
    block = ops.Conv2dNormActivation(3, 5, kernel_size=3, stride=2)
    assert [k for k in block.state_dict()][:2] == ["0.weight", "1.weight"] and block(x).shape == (2, 5, 4, 4)
    assert ops.Conv3dNormActivation(3, 4, kernel_size=(1, 3, 3))[0].padding == (0, 1, 1)
    mlp = ops.MLP(6, [10, 4], dropout=0.0)
    assert [type(m).__name__ for m in mlp] == ["Linear", "ReLU", "Dropout", "Linear", "Dropout"]
    assert ops.Permute([0, 2, 3, 1])(x).shape == (2, 8, 8, 3)
    se = ops.SqueezeExcitation(3, 2)
    scale = torch.sigmoid(se.fc2(torch.relu(se.fc1(x.mean((2, 3), keepdim=True)))))
    np.testing.assert_allclose(se(x).detach().numpy(), (x * scale).detach().numpy(), rtol=1e-5, atol=1e-6)
    # Stochastic depth and DropBlock: eval is the identity; training zeroes whole rows / blocks and rescales.
    sd_layer = ops.StochasticDepth(0.5, "row").eval()
    assert sd_layer(x) is x
    torch.manual_seed(0)
    y = ops.stochastic_depth(torch.ones(1000, 3), 0.3, "row")
    rows = y[:, 0].numpy()
    np.testing.assert_allclose(rows[rows != 0], 1 / 0.7, rtol=1e-6)
    assert abs((rows == 0).mean() - 0.3) < 0.06
    assert (y == y[:, :1]).all()
    db = ops.drop_block2d(torch.ones(4, 2, 16, 16), 0.2, 3)
    kept = (db > 0).float().mean().item()
    np.testing.assert_allclose(db.sum().item(), 4 * 2 * 16 * 16, rtol=1e-4)  # rescaled to keep the sum
    assert 0.6 < kept < 0.95
    assert ops.drop_block3d(torch.ones(1, 1, 5, 5, 5), 0.1, 3, training=False).sum().item() == 125
    with pytest.raises(ValueError, match="block size should be odd"):
        ops.drop_block2d(torch.ones(1, 1, 8, 8), 0.1, 4)
    with pytest.raises(ValueError, match="drop probability has to be between 0 and 1"):
        ops.stochastic_depth(x, 1.5, "row")


def test_fpn_and_multiscale_roi_align():
    torch = ember
    fpn = ops.FeaturePyramidNetwork([4, 8], 6, extra_blocks=ops.feature_pyramid_network.LastLevelMaxPool())
    keys = list(fpn.state_dict())
    assert keys == [
        "inner_blocks.0.0.weight", "inner_blocks.0.0.bias", "inner_blocks.1.0.weight", "inner_blocks.1.0.bias",
        "layer_blocks.0.0.weight", "layer_blocks.0.0.bias", "layer_blocks.1.0.weight", "layer_blocks.1.0.bias",
    ]  # fmt: skip
    old_names = {k.replace(".0.weight", ".weight").replace(".0.bias", ".bias"): v for k, v in fpn.state_dict().items()}
    copy = ops.FeaturePyramidNetwork([4, 8], 6, extra_blocks=ops.feature_pyramid_network.LastLevelMaxPool())
    copy.load_state_dict(old_names)  # the names of torchvision's checkpoints from before Conv2dNormActivation
    assert all(ember.equal(a, b) for a, b in zip(copy.state_dict().values(), fpn.state_dict().values()))
    feats = {"a": torch.randn(1, 4, 16, 16), "b": torch.randn(1, 8, 8, 8)}
    out = fpn(feats)
    assert list(out) == ["a", "b", "pool"] and [v.shape[-1] for v in out.values()] == [16, 8, 4]
    # The top-down path by hand: the coarse level upsampled (nearest) and added to the lateral 1x1 conv.
    inner_b = fpn.inner_blocks[1](feats["b"])
    ref_a = fpn.layer_blocks[0](
        fpn.inner_blocks[0](feats["a"]) + inner_b.repeat_interleave(2, 2).repeat_interleave(2, 3)
    )
    np.testing.assert_allclose(out["a"].detach().numpy(), ref_a.detach().numpy(), rtol=1e-5, atol=1e-5)
    # MultiScaleRoIAlign: a small box goes to the fine level, a large one to the coarse; each equals roi_align there.
    # Levels: floor(4 + log2(sqrt(area) / 224)) clamped to [2, 3] (the maps are 1/4 and 1/8 of the 64x64 image).
    pool = ops.MultiScaleRoIAlign(["a", "b"], 2, 2)
    small, large = torch.tensor([[2.0, 2.0, 10.0, 10.0]]), torch.tensor([[0.0, 0.0, 120.0, 120.0]])
    levels = {"a": out["a"].detach(), "b": out["b"].detach()}  # the FPN's outputs: one channel count
    got = pool(levels, [torch.cat([small, large])], [(64, 64)])
    np.testing.assert_allclose(got[0].numpy(), ops.roi_align(levels["a"], [small], 2, 0.25, 2)[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1].numpy(), ops.roi_align(levels["b"], [large], 2, 0.125, 2)[0].numpy(), rtol=1e-6)
    assert got.shape == (2, 6, 2, 2) and repr(pool).startswith("MultiScaleRoIAlign(featmap_names=['a', 'b']")
