"""MultiScaleRoIAlign (torchvision.ops.poolers): RoI Align over a feature pyramid, each box pooled from the level that
its size selects (Feature Pyramid Networks, eq. 1)."""

import math

import ember

from ... import nn
from .boxes import box_area
from .roi import convert_boxes_to_roi_format, roi_align

__all__ = ["MultiScaleRoIAlign", "LevelMapper"]


class LevelMapper:
    """Maps boxes to pyramid levels: k = floor(canonical_level + log2(sqrt(area) / canonical_scale) + eps), clamped
    to [k_min, k_max], returned as k - k_min."""

    def __init__(self, k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
        self.k_min = k_min
        self.k_max = k_max
        self.s0 = canonical_scale
        self.lvl0 = canonical_level
        self.eps = eps

    def __call__(self, boxlists):
        s = ember.sqrt(ember.cat([box_area(b) for b in boxlists]))
        levels = ember.floor(self.lvl0 + ember.log2(s / self.s0) + ember.tensor(self.eps, dtype=s.dtype))
        return ember.clamp(levels, min=self.k_min, max=self.k_max).to(ember.int64) - self.k_min


def _infer_scale(feature, original_size):
    # The power of two nearest to the feature map's size over the image's (from the first dim, as torchvision).
    approx = float(feature.shape[-2]) / float(original_size[0])
    return 2 ** float(round(math.log2(approx))) if approx > 0 else 0.0


class MultiScaleRoIAlign(nn.Module):
    """Multi-scale RoIAlign pooling, useful for detection with or without FPN.

    Args:
        featmap_names (List[str]): the names of the feature maps used for the pooling.
        output_size (List[Tuple[int, int]] or List[int]): output size for the pooled region.
        sampling_ratio (int): sampling ratio for ROIAlign.
        canonical_scale (int, optional): canonical_scale for LevelMapper. Default: 224
        canonical_level (int, optional): canonical_level for LevelMapper. Default: 4
    """

    def __init__(self, featmap_names, output_size, sampling_ratio, *, canonical_scale=224, canonical_level=4):
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        self.output_size = tuple(output_size)
        self.scales = None
        self.map_levels = None
        self.canonical_scale = canonical_scale
        self.canonical_level = canonical_level

    def _setup_scales(self, features, image_shapes):
        if not image_shapes:
            raise ValueError("images list should not be empty")
        original = (max(s[0] for s in image_shapes), max(s[1] for s in image_shapes))
        self.scales = [_infer_scale(f, original) for f in features]
        lvl_min = -math.log2(self.scales[0])
        lvl_max = -math.log2(self.scales[-1])
        self.map_levels = LevelMapper(
            int(lvl_min), int(lvl_max), canonical_scale=self.canonical_scale, canonical_level=self.canonical_level
        )

    def forward(self, x, boxes, image_shapes):
        """Pools each box of ``boxes`` (a list of Tensor[L, 4] per image) from the feature maps of ``x`` (a dict)
        named in featmap_names; ``image_shapes`` are the images' (height, width) before any batching."""
        features = [v for k, v in x.items() if k in self.featmap_names]
        if self.scales is None or self.map_levels is None:
            self._setup_scales(features, image_shapes)
        rois = convert_boxes_to_roi_format(boxes)
        if len(features) == 1:
            return roi_align(features[0], rois, self.output_size, self.scales[0], self.sampling_ratio)
        levels = self.map_levels(boxes)
        result = ember.zeros(
            (rois.shape[0], features[0].shape[1]) + self.output_size, dtype=features[0].dtype, device=features[0].device
        )
        for level, (feature, scale) in enumerate(zip(features, self.scales)):
            idx = ember.where(levels == level)[0]
            pooled = roi_align(feature, rois[idx], self.output_size, scale, self.sampling_ratio)
            result[idx] = pooled.to(result.dtype)
        return result

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(featmap_names={self.featmap_names}, output_size={self.output_size}, "
            f"sampling_ratio={self.sampling_ratio})"
        )
