// torchvision.ops' kernel-backed operators (ember.vision.ops; docs/vision.md): RoI pooling over [N, C, H, W] feature
// maps, with gradients with respect to the input, and greedy non-maximum suppression. The box arithmetic (IoUs,
// conversions, losses) is composed of ember ops in Python.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::vision {

// input: float [N, C, H, W]; rois: [K, 5] rows (batch index, x1, y1, x2, y2) in image coordinates, of input's dtype
// and device; spatial_scale maps them onto the feature map. Results are [K, C', pooled_h, pooled_w].
//
// The average of sampling_ratio^2 bilinear samples per bin (ceil(bin size) per side when sampling_ratio <= 0);
// aligned shifts the box by -0.5 pixel (Detectron2), else a box is at least 1x1 (Mask R-CNN's legacy rule).
Tensor roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w,
                 int64_t sampling_ratio = -1, bool aligned = false);
// The maximum of each bin of the box rounded to pixels (Fast R-CNN); an empty bin gives 0.
Tensor roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w);
// Position-sensitive forms (R-FCN): C must be a multiple of pooled_h * pooled_w, and output channel c's bin (i, j)
// reads input channel (c * pooled_h + i) * pooled_w + j. ps_roi_align always shifts boxes by -0.5.
Tensor ps_roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w,
                    int64_t sampling_ratio = -1);
Tensor ps_roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w);

// The indices (int64, by decreasing score) of the boxes [M, 4] (x1, y1, x2, y2) that greedy NMS keeps: a box is
// dropped when its IoU with a kept box of higher score is above iou_threshold. Equal scores keep index order.
Tensor nms(const Tensor& boxes, const Tensor& scores, double iou_threshold);

}  // namespace ember::vision
