"""Colour transforms of transforms.v2 (images and videos; boxes, masks and keypoints pass through)."""

import numbers

import ember

from ... import tv_tensors
from . import functional as F
from ._transform import Transform, _rand, _RandomApplyTransform, _uniform, query_chw

__all__ = [
    "Grayscale",
    "RandomGrayscale",
    "RGB",
    "ColorJitter",
    "RandomChannelPermutation",
    "RandomPhotometricDistort",
    "RandomEqualize",
    "RandomInvert",
    "RandomPosterize",
    "RandomSolarize",
    "RandomAutocontrast",
    "RandomAdjustSharpness",
]


class Grayscale(Transform):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def transform(self, inpt, params):
        return self._call_kernel(F.rgb_to_grayscale, inpt, num_output_channels=self.num_output_channels)


class RandomGrayscale(_RandomApplyTransform):
    """Grayscale with probability p, keeping the number of channels."""

    def __init__(self, p=0.1):
        super().__init__(p=p)

    def make_params(self, flat_inputs):
        num_input_channels, *_ = query_chw(flat_inputs)
        return dict(num_input_channels=num_input_channels)

    def transform(self, inpt, params):
        return self._call_kernel(F.rgb_to_grayscale, inpt, num_output_channels=params["num_input_channels"])


class RGB(Transform):
    """1-channel images to 3 channels."""

    def transform(self, inpt, params):
        return self._call_kernel(F.grayscale_to_rgb, inpt)


class ColorJitter(Transform):
    """Brightness, contrast, saturation and hue factors drawn uniformly from their ranges, applied in a random
    order."""

    def __init__(self, brightness=None, contrast=None, saturation=None, hue=None):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def _check_input(self, value, name, center=1.0, bound=(0, float("inf")), clip_first_on_zero=True):
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value < 0:
                raise ValueError("If %s is a single number, it must be non negative." % name)
            value = [center - value, center + value]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (list, tuple)) and len(value) == 2:
            value = [float(v) for v in value]
        else:
            raise TypeError("%s=%s should be a single number or a sequence with length 2." % (name, value))
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError("%s values should be between %s, but got %s." % (name, bound, value))
        return None if value[0] == value[1] == center else (float(value[0]), float(value[1]))

    @staticmethod
    def _generate_value(left, right):
        return _uniform(left, right)

    def make_params(self, flat_inputs):
        fn_idx = ember.randperm(4).tolist()
        b = None if self.brightness is None else self._generate_value(*self.brightness)
        c = None if self.contrast is None else self._generate_value(*self.contrast)
        s = None if self.saturation is None else self._generate_value(*self.saturation)
        h = None if self.hue is None else self._generate_value(*self.hue)
        return dict(fn_idx=fn_idx, brightness_factor=b, contrast_factor=c, saturation_factor=s, hue_factor=h)

    def transform(self, inpt, params):
        out = inpt
        for fn_id in params["fn_idx"]:
            if fn_id == 0 and params["brightness_factor"] is not None:
                out = self._call_kernel(F.adjust_brightness, out, brightness_factor=params["brightness_factor"])
            elif fn_id == 1 and params["contrast_factor"] is not None:
                out = self._call_kernel(F.adjust_contrast, out, contrast_factor=params["contrast_factor"])
            elif fn_id == 2 and params["saturation_factor"] is not None:
                out = self._call_kernel(F.adjust_saturation, out, saturation_factor=params["saturation_factor"])
            elif fn_id == 3 and params["hue_factor"] is not None:
                out = self._call_kernel(F.adjust_hue, out, hue_factor=params["hue_factor"])
        return out


def _v1_color_get_params():
    from .. import transforms as _v1

    ColorJitter.get_params = staticmethod(_v1.ColorJitter.get_params)


_v1_color_get_params()


class RandomChannelPermutation(Transform):
    """The channels in a uniformly random order."""

    def make_params(self, flat_inputs):
        num_channels, *_ = query_chw(flat_inputs)
        return dict(permutation=ember.randperm(num_channels).tolist())

    def transform(self, inpt, params):
        return self._call_kernel(F.permute_channels, inpt, params["permutation"])


class RandomPhotometricDistort(Transform):
    """SSD's photometric distortion: each of brightness, contrast (before or after the others), saturation, hue and
    a channel permutation applied with probability p."""

    def __init__(self, brightness=(0.875, 1.125), contrast=(0.5, 1.5), saturation=(0.5, 1.5), hue=(-0.05, 0.05), p=0.5):
        super().__init__()
        self.brightness = brightness
        self.contrast = contrast
        self.hue = hue
        self.saturation = saturation
        self.p = p

    def make_params(self, flat_inputs):
        num_channels, *_ = query_chw(flat_inputs)
        params = {}
        for key, rng in (
            ("brightness_factor", self.brightness),
            ("contrast_factor", self.contrast),
            ("saturation_factor", self.saturation),
            ("hue_factor", self.hue),
        ):
            params[key] = ColorJitter._generate_value(rng[0], rng[1]) if _rand() < self.p else None
        params["contrast_before"] = _rand() < 0.5
        params["channel_permutation"] = ember.randperm(num_channels).tolist() if _rand() < self.p else None
        return params

    def transform(self, inpt, params):
        if params["brightness_factor"] is not None:
            inpt = self._call_kernel(F.adjust_brightness, inpt, brightness_factor=params["brightness_factor"])
        if params["contrast_factor"] is not None and params["contrast_before"]:
            inpt = self._call_kernel(F.adjust_contrast, inpt, contrast_factor=params["contrast_factor"])
        if params["saturation_factor"] is not None:
            inpt = self._call_kernel(F.adjust_saturation, inpt, saturation_factor=params["saturation_factor"])
        if params["hue_factor"] is not None:
            inpt = self._call_kernel(F.adjust_hue, inpt, hue_factor=params["hue_factor"])
        if params["contrast_factor"] is not None and not params["contrast_before"]:
            inpt = self._call_kernel(F.adjust_contrast, inpt, contrast_factor=params["contrast_factor"])
        if params["channel_permutation"] is not None:
            inpt = self._call_kernel(F.permute_channels, inpt, permutation=params["channel_permutation"])
        return inpt


class RandomEqualize(_RandomApplyTransform):
    def transform(self, inpt, params):
        return self._call_kernel(F.equalize, inpt)


class RandomInvert(_RandomApplyTransform):
    def transform(self, inpt, params):
        return self._call_kernel(F.invert, inpt)


class RandomPosterize(_RandomApplyTransform):
    def __init__(self, bits, p=0.5):
        super().__init__(p=p)
        self.bits = bits

    def transform(self, inpt, params):
        return self._call_kernel(F.posterize, inpt, bits=self.bits)


class RandomSolarize(_RandomApplyTransform):
    def __init__(self, threshold, p=0.5):
        super().__init__(p=p)
        self.threshold = threshold

    def transform(self, inpt, params):
        return self._call_kernel(F.solarize, inpt, threshold=self.threshold)


class RandomAutocontrast(_RandomApplyTransform):
    def transform(self, inpt, params):
        return self._call_kernel(F.autocontrast, inpt)


class RandomAdjustSharpness(_RandomApplyTransform):
    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p=p)
        self.sharpness_factor = sharpness_factor

    def transform(self, inpt, params):
        return self._call_kernel(F.adjust_sharpness, inpt, sharpness_factor=self.sharpness_factor)


del numbers, tv_tensors
