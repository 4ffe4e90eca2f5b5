"""GeneralizedRCNNTransform: normalizes, resizes and batches a detector's input images and maps the detections
back to the original sizes (torchvision.models.detection.transform)."""

import math

import ember

from .... import nn
from ....nn import functional as F
from .image_list import ImageList

__all__ = ["GeneralizedRCNNTransform", "resize_boxes", "resize_keypoints"]


def _resize_image_and_masks(image, self_min_size, self_max_size, target=None, fixed_size=None):
    size, scale_factor, recompute = None, None, None
    if fixed_size is not None:
        size = [fixed_size[1], fixed_size[0]]
    else:
        h, w = image.shape[-2:]
        scale_factor = min(self_min_size / min(h, w), self_max_size / max(h, w))
        recompute = True
    image = F.interpolate(
        image[None],
        size=size,
        scale_factor=scale_factor,
        mode="bilinear",
        recompute_scale_factor=recompute,
        align_corners=False,
    )[0]
    if target is not None and "masks" in target:
        mask = F.interpolate(
            target["masks"][:, None].float(), size=size, scale_factor=scale_factor, recompute_scale_factor=recompute
        )[:, 0]
        target["masks"] = mask.to(ember.uint8)
    return image, target


def _ratios(original_size, new_size, device):
    return [
        ember.tensor(s, dtype=ember.float32, device=device) / ember.tensor(s_orig, dtype=ember.float32, device=device)
        for s, s_orig in zip(new_size, original_size)
    ]


def resize_boxes(boxes, original_size, new_size):
    """boxes [N, 4] (x1, y1, x2, y2) scaled from an image of original_size (h, w) to one of new_size."""
    ratio_h, ratio_w = _ratios(original_size, new_size, boxes.device)
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return ember.stack((xmin * ratio_w, ymin * ratio_h, xmax * ratio_w, ymax * ratio_h), dim=1)


def resize_keypoints(keypoints, original_size, new_size):
    """keypoints [N, K, 3] (x, y, visibility) scaled from original_size (h, w) to new_size."""
    ratio_h, ratio_w = _ratios(original_size, new_size, keypoints.device)
    return ember.stack((keypoints[..., 0] * ratio_w, keypoints[..., 1] * ratio_h, keypoints[..., 2]), dim=-1)


class GeneralizedRCNNTransform(nn.Module):
    """Normalizes each image with image_mean/image_std, resizes it (bilinear) so that its shorter side is min_size
    (a random choice of min_size in training) unless the longer would exceed max_size (or to fixed_size (w, h)),
    resizes the targets' boxes, masks and keypoints with it, and pads the images into one batch whose sides are
    multiples of size_divisible. forward returns (ImageList, targets); postprocess maps detections back."""

    def __init__(self, min_size, max_size, image_mean, image_std, size_divisible=32, fixed_size=None, **kwargs):
        super().__init__()
        if not isinstance(min_size, (list, tuple)):
            min_size = (min_size,)
        self.min_size = min_size
        self.max_size = max_size
        self.image_mean = image_mean
        self.image_std = image_std
        self.size_divisible = size_divisible
        self.fixed_size = fixed_size
        self._skip_resize = kwargs.pop("_skip_resize", False)

    def forward(self, images, targets=None):
        images = list(images)
        if targets is not None:
            targets = [dict(t) for t in targets]  # the caller's dicts stay as they are
        for i, image in enumerate(images):
            if image.dim() != 3:
                raise ValueError(
                    f"images is expected to be a list of 3d tensors of shape [C, H, W], got {list(image.shape)}"
                )
            target = targets[i] if targets is not None else None
            image = self.normalize(image)
            image, target = self.resize(image, target)
            images[i] = image
            if targets is not None and target is not None:
                targets[i] = target
        image_sizes = [tuple(img.shape[-2:]) for img in images]
        batched = self.batch_images(images, size_divisible=self.size_divisible)
        return ImageList(batched, [(int(h), int(w)) for h, w in image_sizes]), targets

    def normalize(self, image):
        if not image.is_floating_point():
            raise TypeError(
                f"Expected input images to be of floating type (in range [0, 1]), but found type {image.dtype} instead"
            )
        mean = ember.as_tensor(self.image_mean, dtype=image.dtype, device=image.device)
        std = ember.as_tensor(self.image_std, dtype=image.dtype, device=image.device)
        return (image - mean[:, None, None]) / std[:, None, None]

    def torch_choice(self, k):
        """A random element of k, drawn with ember's generator (as torchvision draws it with torch's)."""
        return k[int(ember.empty(1).uniform_(0.0, float(len(k))).item())]

    def resize(self, image, target=None):
        h, w = image.shape[-2:]
        if self.training:
            if self._skip_resize:
                return image, target
            size = self.torch_choice(self.min_size)
        else:
            size = self.min_size[-1]
        image, target = _resize_image_and_masks(image, size, self.max_size, target, self.fixed_size)
        if target is None:
            return image, target
        target["boxes"] = resize_boxes(target["boxes"], (h, w), image.shape[-2:])
        if "keypoints" in target:
            target["keypoints"] = resize_keypoints(target["keypoints"], (h, w), image.shape[-2:])
        return image, target

    def max_by_axis(self, the_list):
        maxes = list(the_list[0])
        for sublist in the_list[1:]:
            for i, item in enumerate(sublist):
                maxes[i] = max(maxes[i], item)
        return maxes

    def batch_images(self, images, size_divisible=32):
        max_size = self.max_by_axis([list(img.shape) for img in images])
        stride = float(size_divisible)
        max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
        max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
        batched = images[0].new_full([len(images)] + max_size, 0)
        for i, img in enumerate(images):
            batched[i, : img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        return batched

    def postprocess(self, result, image_shapes, original_image_sizes):
        """Scales the detections' boxes (and keypoints; masks are pasted into the image) back to each image's
        original size; in training the result is returned as is."""
        if self.training:
            return result
        for pred, im_s, o_im_s in zip(result, image_shapes, original_image_sizes):
            boxes = resize_boxes(pred["boxes"], im_s, o_im_s)
            pred["boxes"] = boxes
            if "masks" in pred:
                from .roi_heads import paste_masks_in_image

                pred["masks"] = paste_masks_in_image(pred["masks"], boxes, o_im_s)
            if "keypoints" in pred:
                pred["keypoints"] = resize_keypoints(pred["keypoints"], im_s, o_im_s)
        return result

    def __repr__(self):
        indent = "\n    "
        s = f"{self.__class__.__name__}("
        s += f"{indent}Normalize(mean={self.image_mean}, std={self.image_std})"
        s += f"{indent}Resize(min_size={self.min_size}, max_size={self.max_size}, mode='bilinear')"
        return s + "\n)"
