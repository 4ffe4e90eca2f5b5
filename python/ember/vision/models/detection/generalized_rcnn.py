"""GeneralizedRCNN: transform, backbone, RPN and RoI heads in one module (torchvision.models.detection)."""

from collections import OrderedDict

import ember

from .... import nn
from .._predict import DetectionMixin

__all__ = ["GeneralizedRCNN"]


def _check_targets(targets):
    """targets is a list of dicts with float "boxes" [N, 4] of positive width and height (before any resize)."""
    if targets is None:
        raise AssertionError("targets should not be none when in training mode")
    for target in targets:
        boxes = target["boxes"]
        if not isinstance(boxes, ember.Tensor):
            raise AssertionError(f"Expected target boxes to be of type Tensor, got {type(boxes)}.")
        if boxes.dim() != 2 or boxes.shape[-1] != 4:
            raise AssertionError(f"Expected target boxes to be a tensor of shape [N, 4], got {list(boxes.shape)}.")


def _check_degenerate(targets):
    for i, target in enumerate(targets):
        boxes = target["boxes"]
        degenerate = boxes[:, 2:] <= boxes[:, :2]
        if degenerate.any():
            bb_idx = int(ember.where(degenerate.any(dim=1))[0][0])
            raise AssertionError(
                "All bounding boxes should have positive height and width. Found invalid box "
                f"{boxes[bb_idx].tolist()} for target at index {i}."
            )


class GeneralizedRCNN(DetectionMixin, nn.Module):
    """The R-CNN family's forward: images (a list of [C, H, W] tensors, sizes may differ) -> transform -> backbone
    -> rpn -> roi_heads -> detections in the original sizes. Returns the losses (a dict) in training, given targets
    (a list of dicts: "boxes" [N, 4] x1 y1 x2 y2, "labels" int64 [N], ...), and the detections otherwise."""

    def __init__(self, backbone, rpn, roi_heads, transform):
        super().__init__()
        self.transform = transform
        self.backbone = backbone
        self.rpn = rpn
        self.roi_heads = roi_heads
        self._has_warned = False

    def eager_outputs(self, losses, detections):
        return losses if self.training else detections

    def forward(self, images, targets=None):
        if self.training:
            _check_targets(targets)
        original_image_sizes = []
        for img in images:
            if img.dim() < 2:
                raise AssertionError(
                    f"expecting the last two dimensions of the Tensor to be H and W instead got {list(img.shape)}"
                )
            original_image_sizes.append((int(img.shape[-2]), int(img.shape[-1])))
        images, targets = self.transform(images, targets)
        if targets is not None:
            _check_degenerate(targets)
        features = self.backbone(images.tensors)
        if isinstance(features, ember.Tensor):
            features = OrderedDict([("0", features)])
        proposals, proposal_losses = self.rpn(images, features, targets)
        detections, detector_losses = self.roi_heads(features, proposals, images.image_sizes, targets)
        detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        losses = {}
        losses.update(detector_losses)
        losses.update(proposal_losses)
        return self.eager_outputs(losses, detections)
