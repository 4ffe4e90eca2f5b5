"""Identity, Lambda, LinearTransformation, Normalize, GaussianBlur, GaussianNoise, ToDtype, ConvertImageDtype,
SanitizeBoundingBoxes (transforms.v2)."""

import warnings

import ember

from ... import tv_tensors
from . import functional as F
from ._augment import _parse_labels_getter
from ._transform import (
    Transform,
    _flatten,
    _setup_number_or_seq,
    _setup_size,
    _unflatten,
    get_bounding_boxes,
    get_keypoints,
    has_any,
)
from .functional._utils import _is_pil, is_pure_tensor

__all__ = [
    "Identity",
    "Lambda",
    "LinearTransformation",
    "Normalize",
    "GaussianBlur",
    "GaussianNoise",
    "ToDtype",
    "ConvertImageDtype",
    "SanitizeBoundingBoxes",
    "SanitizeKeyPoints",
]


class Identity(Transform):
    def transform(self, inpt, params):
        return inpt


class Lambda(Transform):
    """lambd applied to the inputs of the given types (any type by default)."""

    _transformed_types = (object,)

    def __init__(self, lambd, *types):
        super().__init__()
        self.lambd = lambd
        self.types = types or self._transformed_types

    def transform(self, inpt, params):
        return self.lambd(inpt) if isinstance(inpt, self.types) else inpt

    def extra_repr(self):
        extras = []
        name = getattr(self.lambd, "__name__", None)
        if name:
            extras.append(name)
        extras.append("types=%s" % [t.__name__ for t in self.types])
        return ", ".join(extras)


class LinearTransformation(Transform):
    """(flattened image - mean_vector) @ transformation_matrix (ZCA whitening and the like)."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, tv_tensors.Video)

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        if transformation_matrix.shape[0] != transformation_matrix.shape[1]:
            raise ValueError(
                "transformation_matrix should be square. Got %s rectangular matrix."
                % (tuple(transformation_matrix.shape),)
            )
        if mean_vector.shape[0] != transformation_matrix.shape[0]:
            raise ValueError(
                "mean_vector should have the same length %d as any one of the dimensions of the transformation_matrix "
                "[%s]" % (mean_vector.shape[0], tuple(transformation_matrix.shape))
            )
        if transformation_matrix.device != mean_vector.device:
            raise ValueError(
                "Input tensors should be on the same device. Got %s and %s"
                % (transformation_matrix.device, mean_vector.device)
            )
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError(
                "Input tensors should have the same dtype. Got %s and %s"
                % (transformation_matrix.dtype, mean_vector.dtype)
            )
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def check_inputs(self, flat_inputs):
        if has_any(flat_inputs, _is_pil):
            raise TypeError("%s() does not support PIL images." % type(self).__name__)

    def transform(self, inpt, params):
        shape = inpt.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError(
                "Input tensor and transformation matrix have incompatible shape.[%d x %d x %d] != %d"
                % (shape[-3], shape[-2], shape[-1], self.transformation_matrix.shape[0])
            )
        x = inpt.as_subclass(ember.Tensor).reshape(-1, n) - self.mean_vector
        out = ember.mm(x, self.transformation_matrix.to(x.dtype)).reshape(shape)
        return tv_tensors.wrap(out, like=inpt) if isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)) else out


class Normalize(Transform):
    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean = list(mean)
        self.std = list(std)
        self.inplace = inplace

    def check_inputs(self, flat_inputs):
        if has_any(flat_inputs, _is_pil):
            raise TypeError("%s() does not support PIL images." % type(self).__name__)

    def transform(self, inpt, params):
        return self._call_kernel(F.normalize, inpt, mean=self.mean, std=self.std, inplace=self.inplace)


class GaussianBlur(Transform):
    """Gaussian blur with sigma uniform in the sigma range."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size, "Kernel size should be a tuple/list of two integers")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        self.sigma = _setup_number_or_seq(sigma, "sigma")
        if not 0.0 < self.sigma[0] <= self.sigma[1]:
            raise ValueError("sigma values should be positive and of the form (min, max). Got %s" % (self.sigma,))

    @staticmethod
    def get_params(sigma_min, sigma_max):
        """A sigma uniform in [sigma_min, sigma_max] (torchvision's v1 interface)."""
        return float(ember.empty(1).uniform_(sigma_min, sigma_max).item())

    def make_params(self, flat_inputs):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return dict(sigma=[sigma, sigma])

    def transform(self, inpt, params):
        return self._call_kernel(F.gaussian_blur, inpt, self.kernel_size, **params)


class GaussianNoise(Transform):
    def __init__(self, mean=0.0, sigma=0.1, clip=True):
        super().__init__()
        self.mean = mean
        self.sigma = sigma
        self.clip = clip

    def transform(self, inpt, params):
        return self._call_kernel(F.gaussian_noise, inpt, mean=self.mean, sigma=self.sigma, clip=self.clip)


class ToDtype(Transform):
    """Converts images and videos to dtype (scale=True rescales value ranges); a dict maps tv_tensor types (and
    "others") to dtypes."""

    def __init__(self, dtype, scale=False):
        super().__init__()
        if not isinstance(dtype, (dict, ember.dtype)):
            raise ValueError("dtype must be a dict or a torch.dtype, got %s instead" % type(dtype).__name__)
        if (
            isinstance(dtype, dict)
            and ember.Tensor in dtype
            and any(c in dtype for c in (tv_tensors.Image, tv_tensors.Video))
        ):
            warnings.warn(
                "Got `dtype` values for `torch.Tensor` and either `tv_tensors.Image` or `tv_tensors.Video`. Note that "
                "a plain `torch.Tensor` will *not* be transformed by this (or any other transformation) in case a "
                "`tv_tensors.Image` or `tv_tensors.Video` is present in the input."
            )
        self.dtype = dtype
        self.scale = scale

    def transform(self, inpt, params):
        if isinstance(self.dtype, ember.dtype):
            if not is_pure_tensor(inpt) and not isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)):
                return inpt
            dtype = self.dtype
        elif type(inpt) in self.dtype:
            dtype = self.dtype[type(inpt)]
        elif "others" in self.dtype:
            dtype = self.dtype["others"]
        else:
            raise ValueError(
                "No dtype was specified for type %s. If you only need to convert the dtype of images or videos, you "
                'can just pass e.g. dtype=torch.float32. If you\'re passing a dict as dtype, you can use "others" as '
                'a catch-all key e.g. dtype={tv_tensors.Mask: torch.int64, "others": None} to pass-through the '
                "rest of the inputs." % type(inpt)
            )
        supports_scaling = is_pure_tensor(inpt) or isinstance(inpt, (tv_tensors.Image, tv_tensors.Video))
        if dtype is None:
            if self.scale and supports_scaling:
                warnings.warn(
                    "scale was set to True but no dtype was specified for images or videos: no scaling will be done."
                )
            return inpt
        return self._call_kernel(F.to_dtype, inpt, dtype=dtype, scale=self.scale)


class ConvertImageDtype(Transform):
    """ToDtype(dtype, scale=True) for images and videos (torchvision's v1 name)."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, tv_tensors.Video)

    def __init__(self, dtype=ember.float32):
        super().__init__()
        self.dtype = dtype

    def transform(self, inpt, params):
        return self._call_kernel(F.to_dtype, inpt, dtype=self.dtype, scale=True)


class SanitizeBoundingBoxes(Transform):
    """Drops boxes smaller than min_size / min_area or reaching outside the canvas, with their labels (found by
    labels_getter) and masks."""

    def __init__(self, min_size=1.0, min_area=1.0, labels_getter="default"):
        super().__init__()
        if min_size < 1:
            raise ValueError("min_size must be >= 1, got %s." % (min_size,))
        if min_area < 1:
            raise ValueError("min_area must be >= 1, got %s." % (min_area,))
        self.min_size = min_size
        self.min_area = min_area
        self.labels_getter = labels_getter
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        labels = self._labels_getter(inputs)
        if labels is not None:
            msg = "The labels in the input to forward() must be a tensor or None, got %s instead."
            if isinstance(labels, ember.Tensor):
                labels = (labels,)
            elif isinstance(labels, (tuple, list)):
                for entry in labels:
                    if not isinstance(entry, ember.Tensor):
                        raise ValueError(msg % type(entry))
            else:
                raise ValueError(msg % type(labels))
        flat, spec = _flatten(inputs)
        boxes = get_bounding_boxes(flat)
        if labels is not None:
            for label in labels:
                if boxes.shape[0] != label.shape[0]:
                    raise ValueError(
                        "Number of boxes (shape=%s) and must match the number of labels.Found labels with shape=%s)."
                        % (tuple(boxes.shape), tuple(label.shape))
                    )
        valid = F._misc._sanitize_mask(
            boxes.as_subclass(ember.Tensor), boxes.format, boxes.canvas_size, self.min_size, self.min_area
        )
        params = dict(valid=valid, labels=labels)
        return _unflatten([self.transform(x, params) for x in flat], spec)

    def transform(self, inpt, params):
        is_label = params["labels"] is not None and any(inpt is label for label in params["labels"])
        is_boxes = isinstance(inpt, tv_tensors.BoundingBoxes)
        is_mask = isinstance(inpt, tv_tensors.Mask)
        if not (is_label or is_boxes or is_mask):
            return inpt
        plain = inpt.as_subclass(ember.Tensor)
        if plain.ndim == 0 or plain.shape[0] != params["valid"].shape[0]:
            return inpt
        out = plain[params["valid"]]
        return out if is_label else tv_tensors.wrap(out, like=inpt)


class SanitizeKeyPoints(Transform):
    """Drops the keypoints (or groups of them) outside the canvas, with their labels (labels_getter: none by
    default)."""

    def __init__(self, labels_getter=None):
        super().__init__()
        self.labels_getter = labels_getter
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        labels = self._labels_getter(inputs)
        if labels is not None:
            msg = "The labels in the input to forward() must be a tensor or None, got %s instead."
            if isinstance(labels, ember.Tensor):
                labels = (labels,)
            elif isinstance(labels, (tuple, list)):
                for entry in labels:
                    if not isinstance(entry, ember.Tensor):
                        raise ValueError(msg % type(entry))
            else:
                raise ValueError(msg % type(labels))
        flat, spec = _flatten(inputs)
        points = get_keypoints(flat)
        if labels is not None:
            for label in labels:
                if points.shape[0] != label.shape[0]:
                    raise ValueError(
                        "Number of kepyoints (shape=%s) must match the number of labels.Found labels with shape=%s)."
                        % (tuple(points.shape), tuple(label.shape))
                    )
        valid = F._misc._sanitize_keypoints_mask(points.as_subclass(ember.Tensor), points.canvas_size)
        params = dict(valid=valid, labels=labels)
        return _unflatten([self.transform(x, params) for x in flat], spec)

    def transform(self, inpt, params):
        is_label = params["labels"] is not None and any(inpt is label for label in params["labels"])
        if not (is_label or isinstance(inpt, tv_tensors.KeyPoints)):
            return inpt
        out = inpt.as_subclass(ember.Tensor)[params["valid"]]
        return out if is_label else tv_tensors.wrap(out, like=inpt)
