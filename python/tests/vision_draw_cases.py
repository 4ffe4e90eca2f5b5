"""Cases for torchvision.utils' drawing functions, run under ember.vision.utils here and torchvision.utils in the
reference PyTorch's process (test_vision_draw.py); results() returns NumPy arrays to compare."""

import numpy as np


def cases(lib, utils):
    rng = np.random.default_rng(9)
    t = lib.from_numpy
    img = t(rng.integers(0, 256, (3, 20, 24), dtype=np.uint8))
    fimg = t(rng.random((3, 20, 24)).astype(np.float32))
    gray = t(rng.integers(0, 256, (1, 20, 24), dtype=np.uint8))
    masks = t(rng.random((3, 20, 24)) > 0.6)
    boxes = t(np.array([[1, 2, 10, 12], [5, 5, 20, 18], [0, 0, 23, 19]], dtype=np.float32))
    kpts = t(np.array([[[2, 3], [10, 12], [20, 5]], [[7, 7], [15, 15], [1, 18]]], dtype=np.float32))
    out = {}
    out["masks_default"] = utils.draw_segmentation_masks(img, masks)
    out["masks_alpha"] = utils.draw_segmentation_masks(
        img, masks, alpha=0.3, colors=[(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    )
    out["masks_one"] = utils.draw_segmentation_masks(img, masks[0], colors=(10, 200, 30))
    out["masks_float"] = utils.draw_segmentation_masks(fimg, masks, alpha=0.5)
    out["masks_named"] = utils.draw_segmentation_masks(img, masks, colors=["red", "#00ff7f", "blue"])
    out["boxes"] = utils.draw_bounding_boxes(img, boxes)
    out["boxes_wide"] = utils.draw_bounding_boxes(img, boxes, colors="red", width=3)
    out["boxes_fill"] = utils.draw_bounding_boxes(img, boxes, fill=True, colors=[(255, 0, 0), (0, 255, 0), (9, 9, 9)])
    out["boxes_gray"] = utils.draw_bounding_boxes(gray, boxes[:2], colors=(0, 255, 0))
    out["boxes_float"] = utils.draw_bounding_boxes(fimg, boxes)
    out["boxes_labels"] = utils.draw_bounding_boxes(img, boxes, labels=["a", "bc", "d"], fill_labels=True)
    rot = t(np.array([[2, 2, 15, 5, 12, 17, 0, 13], [20.5, 1, 23, 10, 14, 19.5, 11, 9]], dtype=np.float32))
    out["boxes_rotated"] = utils.draw_bounding_boxes(img, rot, colors=["red", (0, 9, 200)], width=2)
    out["boxes_rotated_fill"] = utils.draw_bounding_boxes(img, rot, fill=True, labels=["r", "s"])
    out["kpts"] = utils.draw_keypoints(img, kpts)
    out["kpts_conn"] = utils.draw_keypoints(img, kpts, connectivity=[(0, 1), (1, 2)], colors="blue", radius=3, width=2)
    vis = t(np.array([[True, False, True], [True, True, True]]))
    out["kpts_vis"] = utils.draw_keypoints(img, kpts, connectivity=[(0, 1), (1, 2)], colors=(1, 2, 3), visibility=vis)
    out["kpts_float"] = utils.draw_keypoints(fimg, kpts, colors="yellow")
    flow = t(rng.normal(0, 3, (2, 9, 11)).astype(np.float32))
    out["flow"] = utils.flow_to_image(flow)
    out["flow_batch"] = utils.flow_to_image(t(rng.normal(0, 1, (2, 2, 5, 6)).astype(np.float32)))
    out["flow_zero"] = utils.flow_to_image(t(np.zeros((2, 3, 4), dtype=np.float32)))
    out["grid"] = utils.make_grid(t(rng.random((5, 3, 4, 6)).astype(np.float32)), nrow=2, padding=1, normalize=True)
    return {k: np.ascontiguousarray(v.numpy()) for k, v in out.items()}
