"""AutoAugment, RandAugment and TrivialAugmentWide (torchvision.transforms' v1 automatic augmentation), on tensors and
PIL images: each op is one of ember.vision.transforms.functional's (affine for shears and translations, rotate, the
color ops), with torchvision's magnitude tables; randomness from ember's default generator in torchvision's order."""

import enum
import math

import numpy as np

import ember

from ...nn import Module
from . import functional as F
from .functional import InterpolationMode

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


def _apply_op(img, op_name, magnitude, interpolation, fill):
    """One augmentation op at `magnitude` (shear magnitudes are slopes, turned into degrees by atan)."""
    if op_name == "ShearX":
        return F.affine(img, 0.0, [0, 0], 1.0, [math.degrees(math.atan(magnitude)), 0.0], interpolation, fill, [0, 0])
    if op_name == "ShearY":
        return F.affine(img, 0.0, [0, 0], 1.0, [0.0, math.degrees(math.atan(magnitude))], interpolation, fill, [0, 0])
    if op_name == "TranslateX":
        return F.affine(img, 0.0, [int(magnitude), 0], 1.0, [0.0, 0.0], interpolation, fill)
    if op_name == "TranslateY":
        return F.affine(img, 0.0, [0, int(magnitude)], 1.0, [0.0, 0.0], interpolation, fill)
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    if op_name == "Brightness":
        return F.adjust_brightness(img, 1.0 + magnitude)
    if op_name == "Color":
        return F.adjust_saturation(img, 1.0 + magnitude)
    if op_name == "Contrast":
        return F.adjust_contrast(img, 1.0 + magnitude)
    if op_name == "Sharpness":
        return F.adjust_sharpness(img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    if op_name == "AutoContrast":
        return F.autocontrast(img)
    if op_name == "Equalize":
        return F.equalize(img)
    if op_name == "Invert":
        return F.invert(img)
    if op_name == "Identity":
        return img
    raise ValueError("The provided operator %s is not recognized." % op_name)


def _linspace(lo, hi, n):
    """float32 linspace evaluated as PyTorch's CPU kernel does (the first half from the start, the second half back
    from the end, in float32), so the magnitude tables equal torchvision's to the last bit."""
    lo32, hi32 = np.float32(lo), np.float32(hi)
    if n == 1:
        return ember.tensor([float(lo32)], dtype=ember.float32)
    step = float((hi32 - lo32) / np.float32(n - 1))  # a float32 step; the products below are fused (one rounding)
    half = n // 2
    vals = [float(lo32) + step * i if i < half else float(hi32) - step * (n - i - 1) for i in range(n)]
    return ember.from_numpy(np.array(vals, dtype=np.float64).astype(np.float32))


def _posterize_bits(n, top, span):
    return top - (ember.arange(n) / ((n - 1) / span)).round().to(ember.int32)


def _fill_for(img, fill):
    channels = F.get_dimensions(img)[0]
    if isinstance(img, ember.Tensor):
        if isinstance(fill, (int, float)):
            return [float(fill)] * channels
        if fill is not None:
            return [float(f) for f in fill]
    return fill


def _randint(n):
    return int(ember.randint(n, (1,)).item())


class AutoAugmentPolicy(enum.Enum):
    """The learned policies of AutoAugment (Cubuk et al., 2019) for ImageNet, CIFAR10 and SVHN."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# Each sub-policy: two (op, probability, magnitude bin or None) steps.
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}


class AutoAugment(Module):
    """One random sub-policy of `policy` per call; each of its two ops applied with its probability (and a random
    sign for signed magnitudes)."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        if not isinstance(policy, AutoAugmentPolicy):
            raise ValueError("The provided policy %s is not recognized." % (policy,))
        self.policy, self.interpolation, self.fill = policy, interpolation, fill
        self.policies = list(_POLICIES[policy])

    def _augmentation_space(self, num_bins, image_size):
        return {
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, 150.0 / 331.0 * image_size[1], num_bins), True),
            "TranslateY": (_linspace(0.0, 150.0 / 331.0 * image_size[0], num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.9, num_bins), True),
            "Color": (_linspace(0.0, 0.9, num_bins), True),
            "Contrast": (_linspace(0.0, 0.9, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.9, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 8, 4), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (ember.tensor(0.0), False),
            "Equalize": (ember.tensor(0.0), False),
            "Invert": (ember.tensor(0.0), False),
        }

    @staticmethod
    def get_params(transform_num):
        policy_id = _randint(transform_num)
        probs = ember.rand((2,))
        signs = ember.randint(2, (2,))
        return policy_id, probs, signs

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        transform_id, probs, signs = self.get_params(len(self.policies))
        op_meta = self._augmentation_space(10, (height, width))
        for i, (op_name, p, magnitude_id) in enumerate(self.policies[transform_id]):
            if float(probs[i]) <= p:
                magnitudes, signed = op_meta[op_name]
                magnitude = float(magnitudes[magnitude_id].item()) if magnitude_id is not None else 0.0
                if signed and int(signs[i]) == 0:
                    magnitude *= -1.0
                img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self):
        return "%s(policy=%s, fill=%s)" % (self.__class__.__name__, self.policy, self.fill)


class RandAugment(Module):
    """num_ops ops drawn uniformly, each at bin `magnitude` of num_magnitude_bins, with a random sign when signed
    (Cubuk et al., 2020)."""

    def __init__(
        self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None
    ):
        super().__init__()
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins
        self.interpolation, self.fill = interpolation, fill

    def _augmentation_space(self, num_bins, image_size):
        return {
            "Identity": (ember.tensor(0.0), False),
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, 150.0 / 331.0 * image_size[1], num_bins), True),
            "TranslateY": (_linspace(0.0, 150.0 / 331.0 * image_size[0], num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.9, num_bins), True),
            "Color": (_linspace(0.0, 0.9, num_bins), True),
            "Contrast": (_linspace(0.0, 0.9, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.9, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 8, 4), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (ember.tensor(0.0), False),
            "Equalize": (ember.tensor(0.0), False),
        }

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        op_meta = self._augmentation_space(self.num_magnitude_bins, (height, width))
        names = list(op_meta)
        for _ in range(self.num_ops):
            op_name = names[_randint(len(op_meta))]
            magnitudes, signed = op_meta[op_name]
            magnitude = float(magnitudes[self.magnitude].item()) if magnitudes.dim() > 0 else 0.0
            if signed and _randint(2):
                magnitude *= -1.0
            img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self):
        return "%s(num_ops=%s, magnitude=%s, num_magnitude_bins=%s, interpolation=%s, fill=%s)" % (
            self.__class__.__name__,
            self.num_ops,
            self.magnitude,
            self.num_magnitude_bins,
            self.interpolation,
            self.fill,
        )


class TrivialAugmentWide(Module):
    """One op drawn uniformly at a uniformly drawn magnitude bin (Mueller and Hutter, 2021)."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.num_magnitude_bins, self.interpolation, self.fill = num_magnitude_bins, interpolation, fill

    def _augmentation_space(self, num_bins):
        return {
            "Identity": (ember.tensor(0.0), False),
            "ShearX": (_linspace(0.0, 0.99, num_bins), True),
            "ShearY": (_linspace(0.0, 0.99, num_bins), True),
            "TranslateX": (_linspace(0.0, 32.0, num_bins), True),
            "TranslateY": (_linspace(0.0, 32.0, num_bins), True),
            "Rotate": (_linspace(0.0, 135.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.99, num_bins), True),
            "Color": (_linspace(0.0, 0.99, num_bins), True),
            "Contrast": (_linspace(0.0, 0.99, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.99, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 8, 6), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (ember.tensor(0.0), False),
            "Equalize": (ember.tensor(0.0), False),
        }

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        op_meta = self._augmentation_space(self.num_magnitude_bins)
        op_name = list(op_meta)[_randint(len(op_meta))]
        magnitudes, signed = op_meta[op_name]
        magnitude = float(magnitudes[_randint(len(magnitudes))].item()) if magnitudes.dim() > 0 else 0.0
        if signed and _randint(2):
            magnitude *= -1.0
        return _apply_op(img, op_name, magnitude, self.interpolation, fill)

    def __repr__(self):
        return "%s(num_magnitude_bins=%s, interpolation=%s, fill=%s)" % (
            self.__class__.__name__,
            self.num_magnitude_bins,
            self.interpolation,
            self.fill,
        )


class AugMix(Module):
    """AugMix (Hendrycks et al., 2020): mixture_width chains of 1..3 (or chain_depth) random ops at severity, mixed
    with Dirichlet(alpha) weights, then blended with the original by a Beta(alpha, alpha)-like Dirichlet weight.
    A PIL image is mixed as a uint8 tensor and converted back."""

    _PARAMETER_MAX = 10

    def __init__(
        self,
        severity=3,
        mixture_width=3,
        chain_depth=-1,
        alpha=1.0,
        all_ops=True,
        interpolation=InterpolationMode.BILINEAR,
        fill=None,
    ):
        super().__init__()
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError("The severity must be between [1, %d]. Got %s instead." % (self._PARAMETER_MAX, severity))
        self.severity, self.mixture_width, self.chain_depth = severity, mixture_width, chain_depth
        self.alpha, self.all_ops, self.interpolation, self.fill = alpha, all_ops, interpolation, fill

    def _augmentation_space(self, num_bins, image_size):
        space = {
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, image_size[1] / 3.0, num_bins), True),
            "TranslateY": (_linspace(0.0, image_size[0] / 3.0, num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 4, 4), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (ember.tensor(0.0), False),
            "Equalize": (ember.tensor(0.0), False),
        }
        if self.all_ops:
            space.update(
                {
                    "Brightness": (_linspace(0.0, 0.9, num_bins), True),
                    "Color": (_linspace(0.0, 0.9, num_bins), True),
                    "Contrast": (_linspace(0.0, 0.9, num_bins), True),
                    "Sharpness": (_linspace(0.0, 0.9, num_bins), True),
                }
            )
        return space

    def forward(self, orig_img):
        fill = self.fill
        _, height, width = F.get_dimensions(orig_img)
        if isinstance(orig_img, ember.Tensor):
            img = orig_img
            fill = _fill_for(orig_img, fill)
        else:
            img = F.pil_to_tensor(orig_img)
        op_meta = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        names = list(op_meta)
        orig_dims = list(img.shape)
        batch = img.view([1] * max(4 - img.dim(), 0) + orig_dims)
        n = batch.shape[0]
        batch_dims = [n] + [1] * (batch.dim() - 1)
        m = ember._sample_dirichlet(ember.tensor([self.alpha, self.alpha]).expand(n, -1).contiguous())
        weights = ember._sample_dirichlet(ember.tensor([self.alpha] * self.mixture_width).expand(n, -1).contiguous())
        weights = weights * m[:, 1].view(n, -1)
        mix = m[:, 0].view(batch_dims) * batch
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else int(ember.randint(1, 4, (1,)).item())
            for _ in range(depth):
                op_name = names[_randint(len(op_meta))]
                magnitudes, signed = op_meta[op_name]
                magnitude = float(magnitudes[_randint(self.severity)].item()) if magnitudes.dim() > 0 else 0.0
                if signed and _randint(2):
                    magnitude *= -1.0
                aug = _apply_op(aug, op_name, magnitude, self.interpolation, fill)
            mix = mix + weights[:, i].view(batch_dims) * aug
        mix = mix.view(orig_dims).to(img.dtype)
        if not isinstance(orig_img, ember.Tensor):
            return F.to_pil_image(mix)
        return mix

    def __repr__(self):
        return "%s(severity=%s, mixture_width=%s, chain_depth=%s, alpha=%s, all_ops=%s, interpolation=%s, fill=%s)" % (
            self.__class__.__name__,
            self.severity,
            self.mixture_width,
            self.chain_depth,
            self.alpha,
            self.all_ops,
            self.interpolation,
            self.fill,
        )
