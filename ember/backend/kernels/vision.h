// The kernels of ember.vision.ops (ember/vision/ops.h): RoI pooling over [N, C, H, W] feature maps and greedy
// non-maximum suppression. Operands arrive validated, contiguous, float32 or float64, on one device.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/backend/kernels.h"

namespace ember {

// Which pooling and where each bin reads. Boxes are rois [K, 5]: (batch index, x1, y1, x2, y2) in image coordinates,
// scaled by spatial_scale to the feature map. Position-sensitive pooling reads output channel c's bin (ph, pw) from
// input channel (c * pooled_h + ph) * pooled_w + pw (R-FCN); otherwise from channel c.
struct RoiArgs {
  double spatial_scale = 1.0;
  int64_t pooled_h = 1, pooled_w = 1;
  int64_t sampling_ratio = -1;  // roi_align: samples per bin side, or <= 0 for ceil(bin size)
  bool aligned = false;         // roi_align: shift the box by -0.5 pixel (ps_roi_align always does)
  bool position_sensitive = false;
};

// out [K, C_out, PH, PW] = the average of bilinear samples of each bin (roi_align, ps_roi_align).
EMBER_DECLARE_KERNEL(roi_align, const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a)
// grad_input [N, C, H, W] (zero on entry) += the transpose of roi_align applied to grad [K, C_out, PH, PW].
EMBER_DECLARE_KERNEL(roi_align_backward, const Tensor& grad_input, const Tensor& grad, const Tensor& rois,
                     const RoiArgs& a)
// out [K, C_out, PH, PW] = the mean of each integer bin (ps_roi_pool; torchvision's bins stop one pixel short of the
// bottom and right edges).
EMBER_DECLARE_KERNEL(ps_roi_pool, const Tensor& out, const Tensor& input, const Tensor& rois, const RoiArgs& a)
// grad_input [N, C, H, W] (zero on entry) += the transpose of ps_roi_pool applied to grad.
EMBER_DECLARE_KERNEL(ps_roi_pool_backward, const Tensor& grad_input, const Tensor& grad, const Tensor& rois,
                     const RoiArgs& a)
// out [K, C, PH, PW] = the maximum of each integer bin (roi_pool), 0 for an empty bin; argmax (int64, out's shape)
// = the maximum's flat index into input, or -1 for an empty bin.
EMBER_DECLARE_KERNEL(roi_pool, const Tensor& out, const Tensor& argmax, const Tensor& input, const Tensor& rois,
                     const RoiArgs& a)
// keep = the indices of boxes [M, 4] (x1, y1, x2, y2) that greedy NMS keeps, visiting them in `order` (int64 [M],
// scores descending): a box is dropped when its IoU with a kept one is above iou_threshold.
EMBER_DECLARE_KERNEL(nms, std::vector<int64_t>& keep, const Tensor& boxes, const Tensor& order, double iou_threshold)

}  // namespace ember
