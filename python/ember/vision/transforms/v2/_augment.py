"""RandomErasing, CutMix and MixUp (transforms.v2)."""

import math
import numbers
import warnings

import ember

from ... import tv_tensors
from . import functional as F
from ._transform import (
    Transform,
    _check_sequence_input,
    _flatten,
    _RandomApplyTransform,
    _unflatten,
    has_any,
    query_chw,
    query_size,
)
from .functional._utils import _is_pil, is_pure_tensor

__all__ = ["RandomErasing", "CutMix", "MixUp", "JPEG"]


class RandomErasing(_RandomApplyTransform):
    """Erases a random rectangle (area fraction in scale, aspect ratio log-uniform in ratio) with value (a number,
    one per channel, or "random": standard normal noise)."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0.0, inplace=False):
        super().__init__(p=p)
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, (list, tuple)):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, (list, tuple)):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        self.scale = scale
        self.ratio = ratio
        if isinstance(value, (int, float)):
            self.value = [float(value)]
        elif isinstance(value, str):
            self.value = None
        else:
            self.value = [float(v) for v in value]
        self.inplace = inplace
        self._log_ratio = [math.log(float(r)) for r in ratio]

    def _call_kernel(self, functional, inpt, *args, **kwargs):
        if isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints, tv_tensors.Mask)):
            warnings.warn(
                "%s() is currently passing through inputs of type tv_tensors.%s. This will likely change in the "
                "future." % (type(self).__name__, type(inpt).__name__)
            )
        return super()._call_kernel(functional, inpt, *args, **kwargs)

    def make_params(self, flat_inputs):
        img_c, img_h, img_w = query_chw(flat_inputs)
        if self.value is not None and len(self.value) not in (1, img_c):
            raise ValueError(
                "If value is a sequence, it should have either a single value or %d (number of inpt channels)" % img_c
            )
        area = img_h * img_w
        for _ in range(10):
            erase_area = area * float(ember.empty(1).uniform_(self.scale[0], self.scale[1]).item())
            aspect = math.exp(float(ember.empty(1).uniform_(self._log_ratio[0], self._log_ratio[1]).item()))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < img_h and w < img_w):
                continue
            if self.value is None:
                v = ember.empty(img_c, h, w, dtype=ember.float32).normal_()
            else:
                v = ember.tensor(self.value)[:, None, None]
            i = int(ember.randint(0, img_h - h + 1, (1,)).item())
            j = int(ember.randint(0, img_w - w + 1, (1,)).item())
            break
        else:
            i, j, h, w, v = 0, 0, img_h, img_w, None
        return dict(i=i, j=j, h=h, w=w, v=v)

    def transform(self, inpt, params):
        if params["v"] is not None:
            inpt = self._call_kernel(F.erase, inpt, **params, inplace=self.inplace)
        return inpt


def _v1_erasing_get_params():
    from .. import transforms as _v1

    RandomErasing.get_params = staticmethod(_v1.RandomErasing.get_params)


_v1_erasing_get_params()


def _find_labels_default(inputs):
    if isinstance(inputs, (tuple, list)):
        inputs = inputs[1]
    if is_pure_tensor(inputs):
        return inputs
    if not isinstance(inputs, dict):
        raise ValueError(
            "When using the default labels_getter, the input passed to forward must be a dictionary or a two-tuple "
            "whose second item is a dictionary or a tensor, but got %r instead." % (inputs,)
        )
    key = next((k for k in inputs if k.lower() == "labels"), None)
    if key is None:
        key = next((k for k in inputs if "label" in k.lower()), None)
    if key is None:
        raise ValueError(
            "Could not infer where the labels are in the sample. Try passing a callable as the labels_getter "
            "parameter?If there are no labels in the sample by design, pass labels_getter=None."
        )
    return inputs[key]


def _parse_labels_getter(labels_getter):
    if labels_getter == "default":
        return _find_labels_default
    if callable(labels_getter):
        return labels_getter
    if labels_getter is None:
        return lambda _: None
    raise ValueError("labels_getter should either be 'default', a callable, or None, but got %s." % (labels_getter,))


class _BaseMixUpCutMix(Transform):
    def __init__(self, *, alpha=1.0, num_classes=None, labels_getter="default"):
        super().__init__()
        self.alpha = float(alpha)
        self._dist = ember.distributions.Beta(ember.tensor([self.alpha]), ember.tensor([self.alpha]))
        self.num_classes = num_classes
        self._labels_getter = _parse_labels_getter(labels_getter)

    def _lam(self):
        return float(self._dist.sample(()).item())

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat, spec = _flatten(inputs)
        needs = self._needs_transform_list(flat)
        if has_any(flat, _is_pil, tv_tensors.BoundingBoxes, tv_tensors.Mask, tv_tensors.KeyPoints):
            raise ValueError(
                "%s() does not support PIL images, bounding boxes, keypoints and masks." % type(self).__name__
            )
        labels = self._labels_getter(inputs)
        if not isinstance(labels, ember.Tensor):
            raise ValueError("The labels must be a tensor, but got %s instead." % type(labels).__name__)
        if labels.ndim not in (1, 2):
            raise ValueError(
                "labels should be index based with shape (batch_size,) or probability based with shape "
                "(batch_size, num_classes), but got a tensor of shape %s instead." % (tuple(labels.shape),)
            )
        if labels.ndim == 2 and self.num_classes is not None and labels.shape[-1] != self.num_classes:
            raise ValueError(
                "When passing 2D labels, the number of elements in last dimension must match num_classes: %d != %d. "
                "You can Leave num_classes to None." % (labels.shape[-1], self.num_classes)
            )
        if labels.ndim == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")
        params = {
            "labels": labels,
            "batch_size": labels.shape[0],
            **self.make_params([x for x, n in zip(flat, needs) if n]),
        }
        needs[next(i for i, x in enumerate(flat) if x is labels)] = True
        out = [self.transform(x, params) if n else x for x, n in zip(flat, needs)]
        return _unflatten(out, spec)

    @staticmethod
    def _check_image_or_video(inpt, *, batch_size):
        expected = 5 if isinstance(inpt, tv_tensors.Video) else 4
        if inpt.ndim != expected:
            raise ValueError(
                "Expected a batched input with %d dims, but got %d dimensions instead." % (expected, inpt.ndim)
            )
        if inpt.shape[0] != batch_size:
            raise ValueError(
                "The batch size of the image or video does not match the batch size of the labels: %d != %d."
                % (inpt.shape[0], batch_size)
            )

    def _mixup_label(self, label, *, lam):
        if label.ndim == 1:
            label = ember.nn.functional.one_hot(label, num_classes=self.num_classes)
        if not label.is_floating_point():
            label = label.float()
        return label.roll(1, 0) * (1.0 - lam) + label * lam


class MixUp(_BaseMixUpCutMix):
    """Blends each image (and label) of a batch with the previous one (a roll by 1), lam ~ Beta(alpha, alpha)."""

    def make_params(self, flat_inputs):
        return dict(lam=self._lam())

    def transform(self, inpt, params):
        lam = params["lam"]
        if inpt is params["labels"]:
            return self._mixup_label(inpt, lam=lam)
        if isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)) or is_pure_tensor(inpt):
            self._check_image_or_video(inpt, batch_size=params["batch_size"])
            x = inpt.as_subclass(ember.Tensor)
            out = x.roll(1, 0) * (1.0 - lam) + x * lam
            return tv_tensors.wrap(out, like=inpt) if not is_pure_tensor(inpt) else out
        return inpt


class CutMix(_BaseMixUpCutMix):
    """Pastes a box of each batch's previous image (a roll by 1) into it; labels mix by the pasted area."""

    def make_params(self, flat_inputs):
        lam = self._lam()
        H, W = query_size(flat_inputs)
        r_x = int(ember.randint(W, (1,)).item())
        r_y = int(ember.randint(H, (1,)).item())
        r = 0.5 * math.sqrt(1.0 - lam)
        rw, rh = int(r * W), int(r * H)
        x1, y1 = max(r_x - rw, 0), max(r_y - rh, 0)
        x2, y2 = min(r_x + rw, W), min(r_y + rh, H)
        return dict(box=(x1, y1, x2, y2), lam_adjusted=float(1.0 - (x2 - x1) * (y2 - y1) / (W * H)))

    def transform(self, inpt, params):
        if inpt is params["labels"]:
            return self._mixup_label(inpt, lam=params["lam_adjusted"])
        if isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)) or is_pure_tensor(inpt):
            self._check_image_or_video(inpt, batch_size=params["batch_size"])
            x1, y1, x2, y2 = params["box"]
            x = inpt.as_subclass(ember.Tensor)
            out = x.clone()
            out[..., y1:y2, x1:x2] = x.roll(1, 0)[..., y1:y2, x1:x2]
            return tv_tensors.wrap(out, like=inpt) if not is_pure_tensor(inpt) else out
        return inpt


class JPEG(Transform):
    """JPEG compression artefacts at a quality drawn uniformly from [quality[0], quality[1]] (ember.vision.io)."""

    def __init__(self, quality):
        super().__init__()
        if isinstance(quality, int):
            if isinstance(quality, bool):
                raise TypeError("quality can't be bool")
            quality = [quality, quality]
        else:
            _check_sequence_input(quality, "quality", req_sizes=(2,))
        if not (isinstance(quality[0], int) and isinstance(quality[1], int) and 1 <= quality[0] <= quality[1] <= 100):
            raise ValueError("quality must be an integer from 1 to 100, got quality =%s" % (quality,))
        self.quality = quality

    def make_params(self, flat_inputs):
        return dict(quality=int(ember.randint(self.quality[0], self.quality[1] + 1, ()).item()))

    def transform(self, inpt, params):
        return self._call_kernel(F.jpeg, inpt, quality=params["quality"])
