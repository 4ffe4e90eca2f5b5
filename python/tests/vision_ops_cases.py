"""The cases of test_vision_ops.py, importable by the reference PyTorch too (no ember import): results(ops, t) runs
them through torchvision.ops-compatible `ops` with `t` turning a NumPy array into that library's tensor."""

import numpy as np


def random_boxes(rng, n, size=40.0, dtype=np.float32):
    xy = rng.uniform(0, size, (n, 2))
    wh = rng.uniform(1, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(dtype)


def make_cases():
    rng = np.random.default_rng(0)
    c = {}
    c["boxes"] = random_boxes(rng, 300)
    c["scores"] = rng.integers(0, 20, 300).astype(np.float32) / 20  # many ties
    c["boxes64"] = random_boxes(rng, 200, dtype=np.float64)
    c["scores64"] = rng.uniform(0, 1, 200)
    c["idxs"] = rng.integers(0, 5, 300)
    c["big_boxes"] = random_boxes(rng, 1200)  # batched_nms's per-category path (> 4000 numbers)
    c["big_scores"] = rng.uniform(0, 1, 1200).astype(np.float32)
    c["big_idxs"] = rng.integers(0, 7, 1200)
    c["b1"] = random_boxes(rng, 17, dtype=np.float64)
    c["b2"] = random_boxes(rng, 11, dtype=np.float64)
    c["pairs1"] = random_boxes(rng, 23, dtype=np.float64)
    c["pairs2"] = random_boxes(rng, 23, dtype=np.float64)
    c["pairs2"][:5] = c["pairs1"][:5] + 100  # disjoint pairs
    c["logits"] = rng.normal(size=(6, 7))
    c["targets"] = (rng.uniform(size=(6, 7)) > 0.6).astype(np.float64)
    c["rot"] = np.concatenate([random_boxes(rng, 9, dtype=np.float64), rng.uniform(-90, 90, (9, 1))], 1)
    masks = np.zeros((4, 9, 11), np.uint8)
    masks[0, 2:5, 3:8] = 1
    masks[1, 0, 10] = 1
    masks[3, 4:, :2] = 1
    c["masks"] = masks
    c["feat"] = rng.normal(size=(2, 8, 10, 12))
    # Boxes inside, across the border, outside, degenerate and tiny; the first column is the image.
    boxes = np.concatenate([random_boxes(rng, 10, size=24.0, dtype=np.float64), [[5, 5, 5, 5], [-8, -8, -2, -2]]])
    boxes[3] = [10, 3, 30, 40]
    c["rois"] = np.concatenate([rng.integers(0, 2, (12, 1)).astype(np.float64), boxes], 1)
    c["grad_align"] = rng.normal(size=(12, 8, 3, 2))
    c["grad_ps"] = rng.normal(size=(12, 2, 2, 2))
    # deform_conv2d: 2 offset groups, 2 weight groups, stride (2, 1), padding 1, dilation (1, 2): output 4x6.
    c["dc_x"], c["dc_w"], c["dc_b"] = rng.normal(size=(2, 4, 7, 8)), rng.normal(size=(6, 2, 3, 3)), rng.normal(size=6)
    c["dc_off"] = rng.normal(size=(2, 36, 4, 6)) * 2
    c["dc_mask"] = rng.uniform(size=(2, 18, 4, 6))
    c["dc_grad"] = rng.normal(size=(2, 6, 4, 6))
    return c


ALIGN_CONFIGS = [(0.5, -1, False), (0.5, 2, True), (1.0, 3, False), (0.25, -1, True)]  # scale, sampling_ratio, aligned


def results(ops, t, c):
    r = {}
    for thr in (0.3, 0.5, 0.7):
        r[f"nms_{thr}"] = ops.nms(t(c["boxes"]), t(c["scores"]), thr)
    r["nms64"] = ops.nms(t(c["boxes64"]), t(c["scores64"]), 0.4)
    no_boxes, no_scores = t(np.zeros((0, 4), np.float32)), t(np.zeros(0, np.float32))
    r["nms_empty"] = ops.nms(no_boxes, no_scores, 0.5)
    r["batched_empty"] = ops.batched_nms(no_boxes, no_scores, t(np.zeros(0, np.int64)), 0.5)
    r["roi_align_empty"] = ops.roi_align(t(c["feat"]), t(np.zeros((0, 5))), 3, 0.5)
    r["roi_pool_empty"] = ops.roi_pool(t(c["feat"]), [t(np.zeros((0, 4))), t(np.zeros((0, 4)))], 3, 0.5)
    r["batched"] = ops.batched_nms(t(c["boxes"]), t(c["scores"]), t(c["idxs"]), 0.5)
    r["batched_big"] = ops.batched_nms(t(c["big_boxes"]), t(c["big_scores"]), t(c["big_idxs"]), 0.5)
    b1, b2 = t(c["b1"]), t(c["b2"])
    for name in ("box_iou", "generalized_box_iou", "distance_box_iou", "complete_box_iou"):
        r[name] = getattr(ops, name)(b1, b2)
    r["box_area"] = ops.box_area(b1)
    for fmt in ("xywh", "cxcywh"):
        r[f"iou_{fmt}"] = ops.box_iou(ops.box_convert(b1, "xyxy", fmt), ops.box_convert(b2, "xyxy", fmt), fmt=fmt)
        r[f"area_{fmt}"] = ops.box_area(ops.box_convert(b1, "xyxy", fmt), fmt=fmt)
    for a in ("xyxy", "xywh", "cxcywh"):
        for b in ("xyxy", "xywh", "cxcywh"):
            r[f"convert_{a}_{b}"] = ops.box_convert(b1, a, b)
    for a in ("xywhr", "cxcywhr", "xyxyxyxy"):
        for b in ("xywhr", "cxcywhr", "xyxyxyxy"):
            src = t(c["rot"]) if a != "xyxyxyxy" else ops.box_convert(t(c["rot"]), "xywhr", "xyxyxyxy")
            r[f"convert_{a}_{b}"] = ops.box_convert(src, a, b)
    r["clip"] = ops.clip_boxes_to_image(b1 - 10, (25, 30))
    r["small"] = ops.remove_small_boxes(b1, 8.0)
    r["masks"] = ops.masks_to_boxes(t(c["masks"]))
    for name in ("generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss"):
        p1 = t(c["pairs1"]).requires_grad_()
        for red in ("none", "mean", "sum"):
            r[f"{name}_{red}"] = getattr(ops, name)(p1, t(c["pairs2"]), reduction=red).detach()
        getattr(ops, name)(p1, t(c["pairs2"]), reduction="sum").backward()
        r[f"{name}_grad"] = p1.grad
    x = t(c["logits"]).requires_grad_()
    for alpha, gamma, red in ((0.25, 2, "none"), (-1, 1.5, "mean"), (0.7, 0, "sum")):
        r[f"focal_{alpha}_{red}"] = ops.sigmoid_focal_loss(x, t(c["targets"]), alpha, gamma, red).detach()
    ops.sigmoid_focal_loss(x, t(c["targets"]), reduction="sum").backward()
    r["focal_grad"] = x.grad
    rois = t(c["rois"])
    for i, (scale, ratio, aligned) in enumerate(ALIGN_CONFIGS):
        f = t(c["feat"]).requires_grad_()
        out = ops.roi_align(f, rois, (3, 2), scale, ratio, aligned)
        out.backward(t(c["grad_align"]))
        r[f"roi_align_{i}"], r[f"roi_align_grad_{i}"] = out.detach(), f.grad
    for name, grad in (("roi_pool", "grad_align"), ("ps_roi_align", "grad_ps"), ("ps_roi_pool", "grad_ps")):
        f = t(c["feat"]).requires_grad_()
        size = (3, 2) if name == "roi_pool" else 2
        out = getattr(ops, name)(f, rois, size, 0.5)
        out.backward(t(c[grad]))
        r[name], r[f"{name}_grad"] = out.detach(), f.grad
    boxes_list = [t(c["rois"][c["rois"][:, 0] == i, 1:]) for i in (0, 1)]
    r["roi_align_list"] = ops.roi_align(t(c["feat"]), boxes_list, 2, 0.5, 2)
    x, w, b, off, mask = (t(c[k]).requires_grad_() for k in ("dc_x", "dc_w", "dc_b", "dc_off", "dc_mask"))
    out = ops.deform_conv2d(x, off, w, b, stride=(2, 1), padding=1, dilation=(1, 2), mask=mask)
    out.backward(t(c["dc_grad"]))
    r["deform_conv2d"] = out.detach()
    for name, v in (("x", x), ("w", w), ("b", b), ("off", off), ("mask", mask)):
        r[f"deform_conv2d_grad_{name}"] = v.grad
    r["deform_conv2d_v1"] = ops.deform_conv2d(x, off, w, stride=(2, 1), padding=1, dilation=(1, 2)).detach()
    return {k: v.numpy() for k, v in r.items()}
