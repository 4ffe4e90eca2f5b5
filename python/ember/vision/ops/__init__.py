"""ember.vision.ops: torchvision.ops' operators and layers (docs/vision.md). NMS and the RoI pooling ops are C++
kernels with their gradients (ember/vision/ops.h); the box arithmetic and losses are compositions of ember ops."""

from .boxes import (
    batched_nms,
    box_area,
    box_convert,
    box_iou,
    clip_boxes_to_image,
    complete_box_iou,
    distance_box_iou,
    generalized_box_iou,
    masks_to_boxes,
    nms,
    remove_small_boxes,
)
from .deform_conv import DeformConv2d, deform_conv2d
from .feature_pyramid_network import FeaturePyramidNetwork
from .losses import complete_box_iou_loss, distance_box_iou_loss, generalized_box_iou_loss, sigmoid_focal_loss
from .misc import MLP, Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d, Permute, SqueezeExcitation
from .poolers import MultiScaleRoIAlign
from .roi import PSRoIAlign, PSRoIPool, RoIAlign, RoIPool, ps_roi_align, ps_roi_pool, roi_align, roi_pool
from .stochastic_depth import DropBlock2d, DropBlock3d, StochasticDepth, drop_block2d, drop_block3d, stochastic_depth

__all__ = [
    "deform_conv2d",
    "DeformConv2d",
    "masks_to_boxes",
    "nms",
    "batched_nms",
    "remove_small_boxes",
    "clip_boxes_to_image",
    "box_convert",
    "box_area",
    "box_iou",
    "generalized_box_iou",
    "distance_box_iou",
    "complete_box_iou",
    "roi_align",
    "RoIAlign",
    "roi_pool",
    "RoIPool",
    "ps_roi_align",
    "PSRoIAlign",
    "ps_roi_pool",
    "PSRoIPool",
    "MultiScaleRoIAlign",
    "FeaturePyramidNetwork",
    "sigmoid_focal_loss",
    "generalized_box_iou_loss",
    "distance_box_iou_loss",
    "complete_box_iou_loss",
    "stochastic_depth",
    "StochasticDepth",
    "FrozenBatchNorm2d",
    "Conv2dNormActivation",
    "Conv3dNormActivation",
    "SqueezeExcitation",
    "MLP",
    "Permute",
    "drop_block2d",
    "DropBlock2d",
    "drop_block3d",
    "DropBlock3d",
]
