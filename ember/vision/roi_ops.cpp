// RoI pooling and NMS (ember/vision/ops.h): argument checks, the float32 detour for half inputs, and the graph nodes.
// roi_align, ps_roi_align and ps_roi_pool are linear in the input: each kernel pair is recorded with the other as its
// formula, so gradients of every order exist. roi_pool's gradient scatters through the argmax with index_add, an op.
// Boxes get no gradient, as in torchvision.
#include <array>
#include <cstring>
#include <memory>

#include "ember/autograd/node.h"
#include "ember/backend/kernels/vision.h"
#include "ember/ops.h"
#include "ember/sizes.h"
#include "ember/vision/ops.h"

namespace ember::vision {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

bool is_narrow(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }
Tensor widen(const Tensor& t) { return is_narrow(t.dtype()) ? to(t, ScalarType::Float32) : t; }

// Checks the operands of the RoI op `op`; returns the channels of its result.
int64_t check_roi(const char* op, const Tensor& input, const Tensor& rois, const RoiArgs& a) {
  EMBER_CHECK(input.dim() == 4, op, ": expected input of shape [N, C, H, W], got ", shape_str(input.sizes()));
  EMBER_CHECK(rois.dim() == 2 && rois.size(1) == 5, op, ": rois must have shape as Tensor[K, 5], got ",
              shape_str(rois.sizes()));
  EMBER_CHECK(is_floating(input.dtype()), op, ": expected a floating point input, got ", input.dtype());
  EMBER_CHECK(input.dtype() == rois.dtype(), op, ": input should have the same type as rois, got ", input.dtype(),
              " and ", rois.dtype());
  EMBER_CHECK(input.device() == rois.device(), op, ": input and rois must be on the same device, got ", input.device(),
              " and ", rois.device());
  EMBER_CHECK(a.pooled_h >= 0 && a.pooled_w >= 0, op, ": output_size must be non-negative, got (", a.pooled_h, ", ",
              a.pooled_w, ")");
  int64_t channels = input.size(1);
  if (a.position_sensitive) {
    const int64_t bins = checked_mul(a.pooled_h, a.pooled_w, op, "the bins per box");
    EMBER_CHECK(bins > 0 && channels % bins == 0, op,
                ": input channels must be a multiple of pooling height * pooling width, got ", channels,
                " channels and output_size (", a.pooled_h, ", ", a.pooled_w, ")");
    channels /= bins;
  }
  if (rois.size(0) > 0) {
    EMBER_CHECK(input.size(2) > 0 && input.size(3) > 0, op, ": expected a non-empty feature map, got input of shape ",
                shape_str(input.sizes()));
    if (input.is_meta()) return channels;  // no values to check (as indices are not checked on meta)
    const Tensor batch = select(rois, 1, 0);
    const bool ok = all(logical_and(ge(batch, 0), lt(batch, input.size(0)))).item<bool>();
    EMBER_CHECK_INDEX(ok, op, ": every box's batch index rois[:, 0] must be in [0, ", input.size(0),
                      ") for input of shape ", shape_str(input.sizes()));
  }
  return channels;
}

// A linear RoI op (roi_align's, ps_roi_align's or ps_roi_pool's map) with what its transpose needs.
struct LinearRoi {
  bool pool;  // ps_roi_pool's kernels, else roi_align's
  RoiArgs a;
  Tensor rois;  // contiguous, of the compute dtype
  std::array<int64_t, 4> in_shape;
  int64_t channels_out;
  const char* names[2];  // the graph nodes of the map and of its transpose
};

// The map applied to x (its transpose when `transpose`), recorded with the other as its formula.
Tensor apply_roi(const std::shared_ptr<const LinearRoi>& op, const Tensor& x, bool transpose) {
  const RoiArgs& a = op->a;
  const auto opts = TensorOptions(x.dtype()).device(x.device());
  Tensor out;
  if (!transpose) {
    out = empty({{op->rois.size(0), op->channels_out, a.pooled_h, a.pooled_w}}, opts);
    if (out.numel()) (op->pool ? ps_roi_pool_kernel : roi_align_kernel)[x.device()](out, contiguous(x), op->rois, a);
  } else {
    out = zeros({{op->in_shape[0], op->in_shape[1], op->in_shape[2], op->in_shape[3]}}, opts);
    if (out.numel() && x.numel())
      (op->pool ? ps_roi_pool_backward_kernel : roi_align_backward_kernel)[x.device()](out, contiguous(x), op->rois, a);
  }
  if (auto n = autograd::make_node(op->names[transpose], {&x}, [op, transpose](FormulaNode&, TensorList& g) {
        return TensorList{apply_roi(op, g[0], !transpose)};
      }))
    autograd::set_history(out, n);
  return out;
}

Tensor linear_roi(const char* op_name, bool pool, const Tensor& input, const Tensor& rois, const RoiArgs& a,
                  const char* node, const char* transpose_node) {
  const int64_t channels_out = check_roi(op_name, input, rois, a);
  const Tensor x = widen(input);
  auto op = std::make_shared<LinearRoi>(LinearRoi{
      pool, a, contiguous(widen(rois).detach()), {x.size(0), x.size(1), x.size(2), x.size(3)}, channels_out, {}});
  op->names[0] = node;
  op->names[1] = transpose_node;
  const Tensor out = apply_roi(op, x, false);
  return is_narrow(input.dtype()) ? to(out, input.dtype()) : out;
}

// roi_pool's gradient: g scattered into a zero input through the argmax (flat indices, -1 for an empty bin).
Tensor pool_scatter(const Tensor& g, const Tensor& argmax, const std::array<int64_t, 4>& shape) {
  const int64_t n = checked_numel({{shape[0], shape[1], shape[2], shape[3]}}, "roi_pool");
  const Tensor index = masked_fill(argmax, lt(argmax, 0), Scalar(n));  // empty bins add to one slot past the end
  Tensor flat = zeros({{n + 1}}, TensorOptions(g.dtype()).device(g.device()));
  flat = index_add(flat, 0, reshape(index, {{-1}}), reshape(g, {{-1}}));
  return view(narrow(flat, 0, 0, n), {{shape[0], shape[1], shape[2], shape[3]}});
}

}  // namespace

Tensor roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w,
                 int64_t sampling_ratio, bool aligned) {
  const RoiArgs a{spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned, false};
  return linear_roi("roi_align", false, input, rois, a, "RoIAlignBackward0", "RoIAlignBackwardBackward0");
}

Tensor ps_roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w,
                    int64_t sampling_ratio) {
  const RoiArgs a{spatial_scale, pooled_h, pooled_w, sampling_ratio, true, true};
  return linear_roi("ps_roi_align", false, input, rois, a, "PSRoIAlignBackward0", "PSRoIAlignBackwardBackward0");
}

Tensor ps_roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w) {
  const RoiArgs a{spatial_scale, pooled_h, pooled_w, -1, false, true};
  return linear_roi("ps_roi_pool", true, input, rois, a, "PSRoIPoolBackward0", "PSRoIPoolBackwardBackward0");
}

Tensor roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w) {
  const RoiArgs a{spatial_scale, pooled_h, pooled_w, -1, false, false};
  const int64_t channels = check_roi("roi_pool", input, rois, a);
  const Tensor x = widen(input);
  const Tensor r = contiguous(widen(rois).detach());
  const auto opts = TensorOptions(x.dtype()).device(x.device());
  Tensor out = empty({{r.size(0), channels, pooled_h, pooled_w}}, opts);
  Tensor argmax = empty(out.sizes(), TensorOptions(ScalarType::Int64).device(x.device()));
  if (out.numel()) roi_pool_kernel[x.device()](out, argmax, contiguous(x), r, a);
  const std::array<int64_t, 4> shape{x.size(0), x.size(1), x.size(2), x.size(3)};
  if (auto n = autograd::make_node("RoIPoolBackward0", {&x}, [argmax, shape](FormulaNode&, TensorList& g) {
        return TensorList{pool_scatter(g[0], argmax, shape)};
      }))
    autograd::set_history(out, n);
  return is_narrow(input.dtype()) ? to(out, input.dtype()) : out;
}

Tensor nms(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  EMBER_CHECK(boxes.dim() == 2, "nms: boxes should be a 2d tensor, got ", boxes.dim(), "D");
  EMBER_CHECK(boxes.size(1) == 4, "nms: boxes should have 4 elements in dimension 1, got ", boxes.size(1));
  EMBER_CHECK(scores.dim() == 1, "nms: scores should be a 1d tensor, got ", scores.dim(), "D");
  EMBER_CHECK(boxes.size(0) == scores.size(0),
              "nms: boxes and scores should have same number of elements in dimension 0, got ", boxes.size(0), " and ",
              scores.size(0));
  EMBER_CHECK(is_floating(boxes.dtype()), "nms: expected floating point boxes, got ", boxes.dtype());
  EMBER_CHECK(boxes.dtype() == scores.dtype(), "nms: dets should have the same type as scores, got ", boxes.dtype(),
              " and ", scores.dtype());
  EMBER_CHECK(boxes.device() == scores.device(), "nms: boxes and scores must be on the same device, got ",
              boxes.device(), " and ", scores.device());
  const auto opts = TensorOptions(ScalarType::Int64).device(boxes.device());
  if (boxes.size(0) == 0) return empty({{0}}, opts);
  const Tensor b = contiguous(widen(boxes).detach());
  const Tensor order = contiguous(sort(widen(scores).detach(), 0, /*descending=*/true, /*stable=*/true).second);
  std::vector<int64_t> keep;
  nms_kernel[boxes.device()](keep, b, order, iou_threshold);
  Tensor out = empty({{static_cast<int64_t>(keep.size())}}, TensorOptions(ScalarType::Int64));
  if (!keep.empty()) std::memcpy(out.data_ptr(), keep.data(), keep.size() * sizeof(int64_t));
  return boxes.device().is_cpu() ? out : to(out, boxes.device());
}

}  // namespace ember::vision
