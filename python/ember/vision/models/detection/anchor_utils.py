"""Anchor (prior box) generators (torchvision.models.detection.anchor_utils)."""

import math

import ember

from .... import nn

__all__ = ["AnchorGenerator", "DefaultBoxGenerator"]


class AnchorGenerator(nn.Module):
    """Anchors for a set of feature maps: for feature map i, len(sizes[i]) * len(aspect_ratios[i]) boxes centred on
    every cell, the cell's stride apart (in image pixels).

    Args:
        sizes (tuple[tuple[int]]): the anchor sizes of each feature map.
        aspect_ratios (tuple[tuple[float]]): their height / width ratios, per feature map.
    """

    def __init__(self, sizes=((128, 256, 512),), aspect_ratios=((0.5, 1.0, 2.0),)):
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [self.generate_anchors(s, a) for s, a in zip(sizes, aspect_ratios)]

    def generate_anchors(self, scales, aspect_ratios, dtype=ember.float32, device="cpu"):
        """The anchors of one cell centred on 0: [len(aspect_ratios) * len(scales), 4], rounded."""
        scales = ember.as_tensor(scales, dtype=dtype, device=device)
        aspect_ratios = ember.as_tensor(aspect_ratios, dtype=dtype, device=device)
        h_ratios = ember.sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).reshape(-1)
        hs = (h_ratios[:, None] * scales[None, :]).reshape(-1)
        return (ember.stack([-ws, -hs, ws, hs], dim=1) / 2).round()

    def set_cell_anchors(self, dtype, device):
        self.cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]

    def num_anchors_per_location(self):
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(self, grid_sizes, strides):
        if not len(grid_sizes) == len(strides) == len(self.cell_anchors):
            raise AssertionError(
                "AnchorGenerator: the number of feature maps (%d) must equal the number of sizes and aspect ratios "
                "given (%d)" % (len(grid_sizes), len(self.cell_anchors))
            )
        anchors = []
        for (grid_h, grid_w), (stride_h, stride_w), base in zip(grid_sizes, strides, self.cell_anchors):
            device = base.device
            shifts_x = ember.arange(0, grid_w, dtype=ember.int32, device=device) * stride_w
            shifts_y = ember.arange(0, grid_h, dtype=ember.int32, device=device) * stride_h
            shift_y, shift_x = ember.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = ember.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.reshape(-1, 1, 4) + base.reshape(1, -1, 4)).reshape(-1, 4))
        return anchors

    def forward(self, image_list, feature_maps):
        grid_sizes = [tuple(f.shape[-2:]) for f in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        strides = [
            [
                ember.full((), image_size[0] // g[0], dtype=ember.int64, device=device),
                ember.full((), image_size[1] // g[1], dtype=ember.int64, device=device),
            ]
            for g in grid_sizes
        ]
        self.set_cell_anchors(dtype, device)
        all_levels = ember.cat(self.grid_anchors(grid_sizes, strides))
        return [all_levels for _ in range(len(image_list.image_sizes))]


class DefaultBoxGenerator(nn.Module):
    """SSD's default boxes: per feature map k, the boxes of scale s_k and sqrt(s_k s_{k+1}) and of each aspect ratio
    (and its inverse), centred on every cell, in relative coordinates scaled to the image.

    Args:
        aspect_ratios (list[list[int]]): the aspect ratios of each feature map.
        min_ratio (float), max_ratio (float): the scales' range when scales is not given.
        scales (list[float], optional): the scales of the feature maps (one more than feature maps).
        steps (list[int], optional): the feature maps' strides (else the grid sizes are used).
        clip (bool): whether the widths and heights are clamped to [0, 1].
    """

    def __init__(self, aspect_ratios, min_ratio=0.15, max_ratio=0.9, scales=None, steps=None, clip=True):
        super().__init__()
        if steps is not None and len(aspect_ratios) != len(steps):
            raise ValueError("aspect_ratios and steps should have the same length")
        self.aspect_ratios = aspect_ratios
        self.steps = steps
        self.clip = clip
        num_outputs = len(aspect_ratios)
        if scales is None:
            if num_outputs > 1:
                span = max_ratio - min_ratio
                self.scales = [min_ratio + span * k / (num_outputs - 1.0) for k in range(num_outputs)]
                self.scales.append(1.0)
            else:
                self.scales = [min_ratio, max_ratio]
        else:
            self.scales = scales
        self._wh_pairs = self._generate_wh_pairs(num_outputs)

    def _generate_wh_pairs(self, num_outputs, dtype=ember.float32, device="cpu"):
        pairs = []
        for k in range(num_outputs):
            s_k = self.scales[k]
            s_prime = math.sqrt(self.scales[k] * self.scales[k + 1])
            wh = [[s_k, s_k], [s_prime, s_prime]]
            for ar in self.aspect_ratios[k]:
                sq = math.sqrt(ar)
                wh.extend([[s_k * sq, s_k / sq], [s_k / sq, s_k * sq]])
            pairs.append(ember.as_tensor(wh, dtype=dtype, device=device))
        return pairs

    def num_anchors_per_location(self):
        return [2 + 2 * len(r) for r in self.aspect_ratios]

    def _grid_default_boxes(self, grid_sizes, image_size, dtype=ember.float32):
        boxes = []
        for k, f_k in enumerate(grid_sizes):
            if self.steps is not None:
                x_f_k, y_f_k = image_size[1] / self.steps[k], image_size[0] / self.steps[k]
            else:
                y_f_k, x_f_k = f_k
            shifts_x = ((ember.arange(0, f_k[1]) + 0.5) / x_f_k).to(dtype=dtype)
            shifts_y = ((ember.arange(0, f_k[0]) + 0.5) / y_f_k).to(dtype=dtype)
            shift_y, shift_x = ember.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = ember.stack((shift_x, shift_y) * len(self._wh_pairs[k]), dim=-1).reshape(-1, 2)
            wh = self._wh_pairs[k].clamp(min=0, max=1) if self.clip else self._wh_pairs[k]
            boxes.append(ember.cat((shifts, wh.repeat(f_k[0] * f_k[1], 1)), dim=1))
        return ember.cat(boxes, dim=0)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(aspect_ratios={self.aspect_ratios}, clip={self.clip}, scales={self.scales}, "
            f"steps={self.steps})"
        )

    def forward(self, image_list, feature_maps):
        grid_sizes = [tuple(f.shape[-2:]) for f in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        boxes = self._grid_default_boxes(grid_sizes, image_size, dtype=dtype).to(device)
        x_y_size = ember.tensor([image_size[1], image_size[0]], device=device)
        xyxy = ember.cat(
            [(boxes[:, :2] - 0.5 * boxes[:, 2:]) * x_y_size, (boxes[:, :2] + 0.5 * boxes[:, 2:]) * x_y_size], -1
        )
        return [xyxy for _ in image_list.image_sizes]
