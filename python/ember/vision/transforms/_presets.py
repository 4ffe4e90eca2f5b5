"""The preprocessing that torchvision's weights expect (``weights.transforms()``): torchvision.transforms._presets."""

import ember

from ... import nn
from . import functional as F
from .functional import InterpolationMode

__all__ = ["ImageClassification", "ObjectDetection", "SemanticSegmentation", "VideoClassification", "OpticalFlow"]


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
        # A PIL image is resized and cropped by Pillow, then converted (torchvision's order, so its pixels).
        img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, ember.Tensor):
            img = F.pil_to_tensor(img)
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


class VideoClassification(nn.Module):
    """Resize every frame (bilinear, without antialiasing, as the video weights were trained), center crop, scale to
    float in [0, 1] and normalize, then move the time axis after the channels: [N, T, C, H, W] (or [T, C, H, W]) in,
    [N, C, T, H, W] (or [C, T, H, W]) out. The evaluation transform of torchvision's video classification weights."""

    def __init__(
        self,
        *,
        crop_size,
        resize_size,
        mean=(0.43216, 0.394666, 0.37645),
        std=(0.22803, 0.22145, 0.216989),
        interpolation=InterpolationMode.BILINEAR,
    ):
        super().__init__()
        self.crop_size = list(crop_size)
        self.resize_size = list(resize_size)
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = InterpolationMode(interpolation)

    def forward(self, vid):
        if not isinstance(vid, ember.Tensor) or vid.dim() not in (4, 5):
            raise ValueError(
                "VideoClassification expects a [T, C, H, W] or [N, T, C, H, W] tensor, got %s"
                % (list(vid.shape) if isinstance(vid, ember.Tensor) else type(vid).__name__)
            )
        single = vid.dim() == 4
        if single:
            vid = vid.unsqueeze(0)
        n, t, c = vid.shape[:3]
        vid = vid.reshape(n * t, c, vid.shape[3], vid.shape[4])
        vid = F.resize(vid, self.resize_size, interpolation=self.interpolation, antialias=False)
        vid = F.center_crop(vid, self.crop_size)
        vid = F.normalize(F.convert_image_dtype(vid, ember.float), mean=self.mean, std=self.std)
        vid = vid.reshape(n, t, c, self.crop_size[0], self.crop_size[1]).permute(0, 2, 1, 3, 4)
        return vid[0] if single else vid

    def __repr__(self):
        lines = [f"crop_size={self.crop_size}", f"resize_size={self.resize_size}", f"mean={self.mean}"]
        lines += [f"std={self.std}", f"interpolation={self.interpolation}"]
        return self.__class__.__name__ + "(\n    " + "\n    ".join(lines) + "\n)"

    def describe(self):
        return (
            "Accepts batched ``(B, T, C, H, W)`` and single ``(T, C, H, W)`` video frame ``torch.Tensor`` objects. "
            f"The frames are resized to ``resize_size={self.resize_size}`` using ``interpolation={self.interpolation}``"
            f", followed by a central crop of ``crop_size={self.crop_size}``. Finally the values are first rescaled to "
            f"``[0.0, 1.0]`` and then normalized using ``mean={self.mean}`` and ``std={self.std}``. Finally the output "
            "dimensions are permuted to ``(..., C, T, H, W)`` tensors."
        )


class OpticalFlow(nn.Module):
    """Scales both images of a pair to float in [-1, 1] (contiguous): the preprocessing of torchvision's RAFT
    weights. Takes two [..., C, H, W] tensors (uint8 or float) or PIL images; returns the pair."""

    def forward(self, img1, img2):
        out = []
        for img in (img1, img2):
            if not isinstance(img, ember.Tensor):
                img = F.pil_to_tensor(img)
            img = F.normalize(F.convert_image_dtype(img, ember.float), mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])
            out.append(img.contiguous())
        return tuple(out)

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def describe(self):
        return (
            "Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image ``torch.Tensor`` objects. "
            "The images are rescaled to ``[-1.0, 1.0]``."
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
