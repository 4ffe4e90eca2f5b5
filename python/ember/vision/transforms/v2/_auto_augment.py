"""AutoAugment, RandAugment, TrivialAugmentWide and AugMix (transforms.v2): torchvision 0.29's operation spaces,
policies and sampling. They take one image or video per sample (boxes and masks are refused, as torchvision's)."""

import math

import ember

from ... import tv_tensors
from ..autoaugment import _POLICIES, AutoAugmentPolicy
from ..functional import InterpolationMode
from . import functional as F
from ._transform import Transform, _flatten, _get_fill, _setup_fill_arg, _unflatten, check_type
from .functional._utils import _is_pil, is_pure_tensor

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


def _lin(lo, hi):
    return lambda num_bins, height, width: ember.linspace(lo, hi, num_bins)


def _posterize_bins(top, spread):
    return lambda num_bins, height, width: (
        (top - (ember.arange(num_bins) / ((num_bins - 1) / spread))).round().to(ember.int32)
    )


def _none(num_bins, height, width):
    return None


class _AutoAugmentBase(Transform):
    def __init__(self, *, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.interpolation = interpolation
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    def _get_random_item(self, dct):
        keys = tuple(dct.keys())
        key = keys[int(ember.randint(len(keys), ()).item())]
        return key, dct[key]

    def _flatten_and_extract_image_or_video(self, inputs):
        flat, spec = _flatten(inputs if len(inputs) > 1 else inputs[0])
        needs = self._needs_transform_list(flat)
        found = []
        for idx, (inpt, need) in enumerate(zip(flat, needs)):
            if need and check_type(inpt, (tv_tensors.Image, _is_pil, is_pure_tensor, tv_tensors.Video)):
                found.append((idx, inpt))
            elif isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.Mask, tv_tensors.KeyPoints)):
                raise TypeError(
                    "Inputs of type %s are not supported by %s()" % (type(inpt).__name__, type(self).__name__)
                )
        if not found:
            raise TypeError("Found no image in the sample.")
        if len(found) > 1:
            raise TypeError(
                "Auto augment transformations are only properly defined for a single image or video, but found %d."
                % len(found)
            )
        idx, image = found[0]
        return (flat, spec, idx), image

    @staticmethod
    def _unflatten_and_insert_image_or_video(flat_with_spec, image):
        flat, spec, idx = flat_with_spec
        flat[idx] = image
        return _unflatten(flat, spec)

    def _apply_image_or_video_transform(self, image, transform_id, magnitude, interpolation, fill):
        fill_ = _get_fill(fill, type(image))
        if transform_id == "Identity":
            return image
        if transform_id == "ShearX":
            return F.affine(
                image,
                angle=0.0,
                translate=[0, 0],
                scale=1.0,
                shear=[math.degrees(math.atan(magnitude)), 0.0],
                interpolation=interpolation,
                fill=fill_,
                center=[0, 0],
            )
        if transform_id == "ShearY":
            return F.affine(
                image,
                angle=0.0,
                translate=[0, 0],
                scale=1.0,
                shear=[0.0, math.degrees(math.atan(magnitude))],
                interpolation=interpolation,
                fill=fill_,
                center=[0, 0],
            )
        if transform_id == "TranslateX":
            return F.affine(
                image,
                angle=0.0,
                translate=[int(magnitude), 0],
                scale=1.0,
                interpolation=interpolation,
                shear=[0.0, 0.0],
                fill=fill_,
            )
        if transform_id == "TranslateY":
            return F.affine(
                image,
                angle=0.0,
                translate=[0, int(magnitude)],
                scale=1.0,
                interpolation=interpolation,
                shear=[0.0, 0.0],
                fill=fill_,
            )
        if transform_id == "Rotate":
            return F.rotate(image, angle=magnitude, interpolation=interpolation, fill=fill_)
        if transform_id == "Brightness":
            return F.adjust_brightness(image, brightness_factor=1.0 + magnitude)
        if transform_id == "Color":
            return F.adjust_saturation(image, saturation_factor=1.0 + magnitude)
        if transform_id == "Contrast":
            return F.adjust_contrast(image, contrast_factor=1.0 + magnitude)
        if transform_id == "Sharpness":
            return F.adjust_sharpness(image, sharpness_factor=1.0 + magnitude)
        if transform_id == "Posterize":
            return F.posterize(image, bits=int(magnitude))
        if transform_id == "Solarize":
            bound = F._color._max_value(image.dtype) if isinstance(image, ember.Tensor) else 255.0
            return F.solarize(image, threshold=bound * magnitude)
        if transform_id == "AutoContrast":
            return F.autocontrast(image)
        if transform_id == "Equalize":
            return F.equalize(image)
        if transform_id == "Invert":
            return F.invert(image)
        raise ValueError("No transform available for %s" % transform_id)

    def _magnitude(self, magnitudes_fn, signed, num_bins, index_fn, height, width):
        magnitudes = magnitudes_fn(num_bins, height, width)
        if magnitudes is None:
            return 0.0
        magnitude = float(magnitudes[index_fn()].item())
        if signed and float(ember.rand(()).item()) <= 0.5:
            magnitude *= -1
        return magnitude


_COMMON_SPACE = {
    "ShearX": (_lin(0.0, 0.3), True),
    "ShearY": (_lin(0.0, 0.3), True),
}


class AutoAugment(_AutoAugmentBase):
    """AutoAugment (Cubuk et al., 2019): one of the policy's 25 sub-policies, each of two operations applied with
    its probability at its magnitude."""

    _AUGMENTATION_SPACE = {
        **_COMMON_SPACE,
        "TranslateX": (lambda n, h, w: ember.linspace(0.0, 150.0 / 331.0 * w, n), True),
        "TranslateY": (lambda n, h, w: ember.linspace(0.0, 150.0 / 331.0 * h, n), True),
        "Rotate": (_lin(0.0, 30.0), True),
        "Brightness": (_lin(0.0, 0.9), True),
        "Color": (_lin(0.0, 0.9), True),
        "Contrast": (_lin(0.0, 0.9), True),
        "Sharpness": (_lin(0.0, 0.9), True),
        "Posterize": (_posterize_bins(8, 4), False),
        "Solarize": (_lin(1.0, 0.0), False),
        "AutoContrast": (_none, False),
        "Equalize": (_none, False),
        "Invert": (_none, False),
    }

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__(interpolation=interpolation, fill=fill)
        self.policy = policy
        self._policies = self._get_policies(policy)

    @staticmethod
    def _get_policies(policy):
        # torchvision's v2 shares v1's AutoAugmentPolicy, and so its policies
        if not isinstance(policy, AutoAugmentPolicy):
            raise ValueError("The provided policy %s is not recognized." % (policy,))
        return list(_POLICIES[policy])

    @staticmethod
    def get_params(transform_num):
        """(policy index, the two probabilities, the two signs) (torchvision's v1 interface)."""
        policy_id = int(ember.randint(transform_num, (1,)).item())
        return policy_id, ember.rand(2), ember.randint(2, (2,))

    def forward(self, *inputs):
        flat_with_spec, image = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(image)
        policy = self._policies[int(ember.randint(len(self._policies), ()).item())]
        for transform_id, probability, magnitude_idx in policy:
            if not float(ember.rand(()).item()) <= probability:
                continue
            fn, signed = self._AUGMENTATION_SPACE[transform_id]
            magnitude = self._magnitude(fn, signed, 10, lambda: magnitude_idx, height, width)
            image = self._apply_image_or_video_transform(image, transform_id, magnitude, self.interpolation, self._fill)
        return self._unflatten_and_insert_image_or_video(flat_with_spec, image)


class RandAugment(_AutoAugmentBase):
    """RandAugment (Cubuk et al., 2020): num_ops operations drawn uniformly, all at the same magnitude."""

    _AUGMENTATION_SPACE = {
        "Identity": (_none, False),
        **{k: v for k, v in AutoAugment._AUGMENTATION_SPACE.items() if k != "Invert"},
    }

    def __init__(
        self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None
    ):
        super().__init__(interpolation=interpolation, fill=fill)
        if not isinstance(num_ops, int) or num_ops < 0:
            raise ValueError("num_ops should be a non-negative integer, but got %s instead." % (num_ops,))
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins

    def forward(self, *inputs):
        flat_with_spec, image = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(image)
        for _ in range(self.num_ops):
            transform_id, (fn, signed) = self._get_random_item(self._AUGMENTATION_SPACE)
            magnitude = self._magnitude(fn, signed, self.num_magnitude_bins, lambda: self.magnitude, height, width)
            image = self._apply_image_or_video_transform(image, transform_id, magnitude, self.interpolation, self._fill)
        return self._unflatten_and_insert_image_or_video(flat_with_spec, image)


class TrivialAugmentWide(_AutoAugmentBase):
    """TrivialAugment (Müller and Hutter, 2021): one operation at a uniformly drawn magnitude."""

    _AUGMENTATION_SPACE = {
        "Identity": (_none, False),
        "ShearX": (_lin(0.0, 0.99), True),
        "ShearY": (_lin(0.0, 0.99), True),
        "TranslateX": (_lin(0.0, 32.0), True),
        "TranslateY": (_lin(0.0, 32.0), True),
        "Rotate": (_lin(0.0, 135.0), True),
        "Brightness": (_lin(0.0, 0.99), True),
        "Color": (_lin(0.0, 0.99), True),
        "Contrast": (_lin(0.0, 0.99), True),
        "Sharpness": (_lin(0.0, 0.99), True),
        "Posterize": (_posterize_bins(8, 6), False),
        "Solarize": (_lin(1.0, 0.0), False),
        "AutoContrast": (_none, False),
        "Equalize": (_none, False),
    }

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__(interpolation=interpolation, fill=fill)
        self.num_magnitude_bins = num_magnitude_bins

    def forward(self, *inputs):
        flat_with_spec, image = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(image)
        transform_id, (fn, signed) = self._get_random_item(self._AUGMENTATION_SPACE)
        n = self.num_magnitude_bins
        magnitude = self._magnitude(fn, signed, n, lambda: int(ember.randint(n, ()).item()), height, width)
        image = self._apply_image_or_video_transform(image, transform_id, magnitude, self.interpolation, self._fill)
        return self._unflatten_and_insert_image_or_video(flat_with_spec, image)


class AugMix(_AutoAugmentBase):
    """AugMix (Hendrycks et al., 2020): a Dirichlet-weighted mix of mixture_width augmentation chains, blended with
    the original by a Beta-distributed weight."""

    _PARTIAL_AUGMENTATION_SPACE = {
        **_COMMON_SPACE,
        "TranslateX": (lambda n, h, w: ember.linspace(0.0, w / 3.0, n), True),
        "TranslateY": (lambda n, h, w: ember.linspace(0.0, h / 3.0, n), True),
        "Rotate": (_lin(0.0, 30.0), True),
        "Posterize": (_posterize_bins(4, 4), False),
        "Solarize": (_lin(1.0, 0.0), False),
        "AutoContrast": (_none, False),
        "Equalize": (_none, False),
    }
    _AUGMENTATION_SPACE = {
        **_PARTIAL_AUGMENTATION_SPACE,
        "Brightness": (_lin(0.0, 0.9), True),
        "Color": (_lin(0.0, 0.9), True),
        "Contrast": (_lin(0.0, 0.9), True),
        "Sharpness": (_lin(0.0, 0.9), True),
    }

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
        super().__init__(interpolation=interpolation, fill=fill)
        self._PARAMETER_MAX = 10
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError("The severity must be between [1, %d]. Got %s instead." % (self._PARAMETER_MAX, severity))
        self.severity = severity
        self.mixture_width = mixture_width
        self.chain_depth = chain_depth
        self.alpha = alpha
        self.all_ops = all_ops

    @staticmethod
    def _sample_dirichlet(params):
        return ember.distributions.Dirichlet(params).sample()

    def forward(self, *inputs):
        flat_with_spec, orig = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(orig)
        image = orig if isinstance(orig, ember.Tensor) else F.pil_to_tensor(orig)
        plain = image.as_subclass(ember.Tensor) if type(image) is not ember.Tensor else image
        space = self._AUGMENTATION_SPACE if self.all_ops else self._PARTIAL_AUGMENTATION_SPACE
        orig_dims = list(plain.shape)
        expected_ndim = 5 if isinstance(orig, tv_tensors.Video) else 4
        batch = plain.reshape([1] * max(expected_ndim - plain.ndim, 0) + orig_dims)
        batch_dims = [batch.shape[0]] + [1] * (batch.ndim - 1)
        m = self._sample_dirichlet(ember.tensor([self.alpha, self.alpha]).expand(batch_dims[0], 2).contiguous())
        weights = self._sample_dirichlet(
            ember.tensor([float(self.alpha)] * self.mixture_width)
            .expand(batch_dims[0], self.mixture_width)
            .contiguous()
        ) * m[:, 1].reshape(batch_dims[0], -1)
        mix = m[:, 0].reshape(batch_dims) * batch
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else int(ember.randint(1, 4, (1,)).item())
            for _ in range(depth):
                transform_id, (fn, signed) = self._get_random_item(space)
                magnitude = self._magnitude(
                    fn,
                    signed,
                    self._PARAMETER_MAX,
                    lambda: int(ember.randint(self.severity, ()).item()),
                    height,
                    width,
                )
                aug = self._apply_image_or_video_transform(aug, transform_id, magnitude, self.interpolation, self._fill)
            mix = mix + weights[:, i].reshape(batch_dims) * aug
        mix = mix.reshape(orig_dims).to(plain.dtype)
        if isinstance(orig, (tv_tensors.Image, tv_tensors.Video)):
            mix = tv_tensors.wrap(mix, like=orig)
        elif _is_pil(orig):
            mix = F.to_pil_image(mix)
        return self._unflatten_and_insert_image_or_video(flat_with_spec, mix)
