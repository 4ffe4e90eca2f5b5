"""The preprocessing that torchvision's weights expect (``weights.transforms()``): torchvision.transforms._presets."""

import ember

from ... import nn
from . import functional as F
from .functional import InterpolationMode

__all__ = ["ImageClassification", "SemanticSegmentation", "ObjectDetection"]


class ImageClassification(nn.Module):
    """Resize (the shorter side to resize_size), center crop to crop_size, scale to float in [0, 1] and normalize:
    the evaluation transform of torchvision's ImageNet classification weights. Takes a [..., C, H, W] tensor (uint8
    or float) or an HWC NumPy array."""

    def __init__(
        self,
        *,
        crop_size,
        resize_size=256,
        mean=(0.485, 0.456, 0.406),
        std=(0.229, 0.224, 0.225),
        interpolation=InterpolationMode.BILINEAR,
        antialias=True,
    ):
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = InterpolationMode(interpolation)
        self.antialias = antialias

    def forward(self, img):
        if not isinstance(img, ember.Tensor):
            img = F.pil_to_tensor(img)
        img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        img = F.convert_image_dtype(img, ember.float)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        lines = [f"crop_size={self.crop_size}", f"resize_size={self.resize_size}", f"mean={self.mean}"]
        lines += [f"std={self.std}", f"interpolation={self.interpolation}"]
        return self.__class__.__name__ + "(\n    " + "\n    ".join(lines) + "\n)"

    def describe(self):
        return (
            "Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image ``torch.Tensor`` objects. "
            f"The images are resized to ``resize_size={self.resize_size}`` using ``interpolation={self.interpolation}``"
            f", followed by a central crop of ``crop_size={self.crop_size}``. Finally the values are first rescaled "
            f"to ``[0.0, 1.0]`` and then normalized using ``mean={self.mean}`` and ``std={self.std}``."
        )


class ObjectDetection(nn.Module):
    """Scales an image to float in [0, 1]: the preprocessing of torchvision's detection weights (the model's
    GeneralizedRCNNTransform, or its own transform, resizes and normalizes)."""

    def forward(self, img):
        if not isinstance(img, ember.Tensor):
            img = F.pil_to_tensor(img)
        return F.convert_image_dtype(img, ember.float)

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def describe(self):
        return (
            "Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image ``torch.Tensor`` objects. "
            "The images are rescaled to ``[0.0, 1.0]``."
        )


class SemanticSegmentation(nn.Module):
    """Resize (the shorter side to resize_size, unless None), scale to float in [0, 1] and normalize: the evaluation
    transform of torchvision's segmentation weights."""

    def __init__(
        self,
        *,
        resize_size,
        mean=(0.485, 0.456, 0.406),
        std=(0.229, 0.224, 0.225),
        interpolation=InterpolationMode.BILINEAR,
        antialias=True,
    ):
        super().__init__()
        self.resize_size = [resize_size] if resize_size is not None else None
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = InterpolationMode(interpolation)
        self.antialias = antialias

    def forward(self, img):
        # A PIL image (or array) is resized as such, then converted (torchvision's order, so its pixels).
        if self.resize_size is not None:
            img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        if not isinstance(img, ember.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, ember.float)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        lines = [f"resize_size={self.resize_size}", f"mean={self.mean}", f"std={self.std}"]
        lines += [f"interpolation={self.interpolation}"]
        return self.__class__.__name__ + "(\n    " + "\n    ".join(lines) + "\n)"

    def describe(self):
        return (
            "Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image ``torch.Tensor`` objects. "
            f"The images are resized to ``resize_size={self.resize_size}`` using ``interpolation={self.interpolation}``"
            f". Finally the values are first rescaled to ``[0.0, 1.0]`` and then normalized using ``mean={self.mean}``"
            f" and ``std={self.std}``."
        )
