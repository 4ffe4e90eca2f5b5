"""RoI pooling of torchvision.ops: roi_align, roi_pool, ps_roi_align, ps_roi_pool and their modules. The work and the
gradients are C++ (ember/vision/ops.h, kernels in ember/backend/cpu/vision.cpp); this file converts torchvision's
arguments (boxes as Tensor[K, 5] or a list of Tensor[L, 4], output_size as an int or a pair)."""

import ember

from ... import _C, nn

__all__ = ["roi_align", "roi_pool", "ps_roi_align", "ps_roi_pool", "RoIAlign", "RoIPool", "PSRoIAlign", "PSRoIPool"]


def _pair(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def _check_boxes(boxes):
    # AssertionError, as torchvision's torch._assert raises.
    if isinstance(boxes, (list, tuple)):
        for t in boxes:
            if not isinstance(t, ember.Tensor) or t.dim() != 2 or t.size(1) != 4:
                raise AssertionError("The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]")
    elif isinstance(boxes, ember.Tensor):
        if boxes.dim() != 2 or boxes.size(1) != 5:
            raise AssertionError("The boxes tensor shape is not correct as Tensor[K, 5]")
    else:
        raise AssertionError("boxes is expected to be a Tensor[L, 5] or a List[Tensor[K, 4]]")


def convert_boxes_to_roi_format(boxes):
    """A list of per-image boxes [L_i, 4] as one Tensor[K, 5] whose first column is the image's index."""
    ids = [ember.full_like(b[:, :1], i) for i, b in enumerate(boxes)]
    cat = (lambda ts: ts[0]) if len(boxes) == 1 else (lambda ts: ember.cat(ts, 0))
    return ember.cat([cat(ids), cat(list(boxes))], dim=1)


def _rois(boxes):
    _check_boxes(boxes)
    return boxes if isinstance(boxes, ember.Tensor) else convert_boxes_to_roi_format(boxes)


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """Performs Region of Interest (RoI) Align operator with average pooling, as described in Mask R-CNN.

    Args:
        input (Tensor[N, C, H, W]): the input tensor.
        boxes (Tensor[K, 5] or List[Tensor[L, 4]]): the box coordinates in (x1, y1, x2, y2) format, with the batch
            index in the first column of a Tensor[K, 5], or one tensor per image in a list.
        output_size (int or Tuple[int, int]): the size of the output (in bins) after pooling, as (height, width).
        spatial_scale (float): maps box coordinates to input coordinates. Default: 1.0
        sampling_ratio (int): sampling points per bin side; if <= 0, ``ceil(roi_width / output_width)`` (and
            likewise for height). Default: -1
        aligned (bool): if True, shift the box coordinates by -0.5 pixel (Detectron2). Default: False

    Returns:
        Tensor[K, C, output_size[0], output_size[1]]: the pooled RoIs.
    """
    ph, pw = _pair(output_size)
    return _C._vision.roi_align(input, _rois(boxes), float(spatial_scale), ph, pw, int(sampling_ratio), bool(aligned))


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Performs Region of Interest (RoI) Pool operator described in Fast R-CNN.

    Args:
        input (Tensor[N, C, H, W]): the input tensor.
        boxes (Tensor[K, 5] or List[Tensor[L, 4]]): the box coordinates in (x1, y1, x2, y2) format.
        output_size (int or Tuple[int, int]): the size of the output after pooling, as (height, width).
        spatial_scale (float): maps box coordinates to input coordinates. Default: 1.0

    Returns:
        Tensor[K, C, output_size[0], output_size[1]]: the pooled RoIs.
    """
    ph, pw = _pair(output_size)
    return _C._vision.roi_pool(input, _rois(boxes), float(spatial_scale), ph, pw)


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    """Performs Position-Sensitive Region of Interest (RoI) Align operator mentioned in Light-Head R-CNN.

    Args:
        input (Tensor[N, C, H, W]): the input tensor; C must be a multiple of output_size[0] * output_size[1].
        boxes (Tensor[K, 5] or List[Tensor[L, 4]]): the box coordinates in (x1, y1, x2, y2) format.
        output_size (int or Tuple[int, int]): the size of the output (in bins) after pooling, as (height, width).
        spatial_scale (float): maps box coordinates to input coordinates. Default: 1.0
        sampling_ratio (int): sampling points per bin side; if <= 0, adaptive. Default: -1

    Returns:
        Tensor[K, C / (output_size[0] * output_size[1]), output_size[0], output_size[1]]: the pooled RoIs.
    """
    ph, pw = _pair(output_size)
    return _C._vision.ps_roi_align(input, _rois(boxes), float(spatial_scale), ph, pw, int(sampling_ratio))


def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Performs Position-Sensitive Region of Interest (RoI) Pool operator described in R-FCN.

    Args:
        input (Tensor[N, C, H, W]): the input tensor; C must be a multiple of output_size[0] * output_size[1].
        boxes (Tensor[K, 5] or List[Tensor[L, 4]]): the box coordinates in (x1, y1, x2, y2) format.
        output_size (int or Tuple[int, int]): the size of the output after pooling, as (height, width).
        spatial_scale (float): maps box coordinates to input coordinates. Default: 1.0

    Returns:
        Tensor[K, C / (output_size[0] * output_size[1]), output_size[0], output_size[1]]: the pooled RoIs.
    """
    ph, pw = _pair(output_size)
    return _C._vision.ps_roi_pool(input, _rois(boxes), float(spatial_scale), ph, pw)


class RoIAlign(nn.Module):
    """See :func:`roi_align`."""

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
            f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})"
        )


class RoIPool(nn.Module):
    """See :func:`roi_pool`."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"


class PSRoIAlign(nn.Module):
    """See :func:`ps_roi_align`."""

    def __init__(self, output_size, spatial_scale, sampling_ratio):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio

    def forward(self, input, rois):
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
            f"sampling_ratio={self.sampling_ratio})"
        )


class PSRoIPool(RoIPool):
    """See :func:`ps_roi_pool`."""

    def forward(self, input, rois):
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)
