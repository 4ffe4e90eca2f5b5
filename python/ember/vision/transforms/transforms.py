"""The transform classes (torchvision.transforms' names and arguments). Randomness comes from ember's default
generator (ember.rand, ember.randint, ember.empty(...).uniform_, ember.randperm), so ember.manual_seed makes a
pipeline reproducible and the DataLoader's per-worker seeding makes workers differ."""

import math
import numbers
import random
from collections.abc import Sequence

import ember

from ...nn import Module
from . import functional as F
from .functional import InterpolationMode

__all__ = [
    "Compose",
    "ToTensor",
    "PILToTensor",
    "ToPILImage",
    "ConvertImageDtype",
    "Normalize",
    "Resize",
    "CenterCrop",
    "Pad",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "RandomResizedCrop",
    "ColorJitter",
    "RandomRotation",
    "RandomErasing",
    "Lambda",
    "Grayscale",
    "RandomGrayscale",
    "RandomApply",
    "RandomChoice",
    "RandomOrder",
    "RandomInvert",
    "RandomPosterize",
    "RandomSolarize",
    "RandomAdjustSharpness",
    "RandomAutocontrast",
    "RandomEqualize",
    "GaussianBlur",
    "FiveCrop",
    "TenCrop",
    "RandomAffine",
    "RandomPerspective",
    "ElasticTransform",
    "LinearTransformation",
    "InterpolationMode",
]


def _setup_size(size, error_msg):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return int(size[0]), int(size[0])
    if not isinstance(size, Sequence) or len(size) != 2:
        raise ValueError(error_msg)
    return int(size[0]), int(size[1])


def _uniform(lo, hi):
    return float(ember.empty(1).uniform_(lo, hi).item())


def _randint(lo, hi):
    return int(ember.randint(lo, hi, (1,)).item())


class Compose:
    """Applies transforms one after another."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        lines = [self.__class__.__name__ + "("] + ["    %r" % (t,) for t in self.transforms] + [")"]
        return "\n".join(lines)


class ToTensor:
    """PIL image, HWC (or HW) NumPy array or tensor -> float [C, H, W]; uint8 is scaled to [0, 1]
    (functional.to_tensor)."""

    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return self.__class__.__name__ + "()"


class PILToTensor:
    """PIL image (or HWC/HW NumPy array) -> [C, H, W] tensor of the same dtype, without scaling."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return self.__class__.__name__ + "()"


class ToPILImage:
    """[C, H, W] tensor or [H, W, C] array -> PIL image (functional.to_pil_image; needs Pillow)."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        return self.__class__.__name__ + ("()" if self.mode is None else "(mode=%s)" % self.mode)


class ConvertImageDtype(Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)

    def __repr__(self):
        return "%s(dtype=%s)" % (self.__class__.__name__, self.dtype)


class Normalize(Module):
    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self):
        return "%s(mean=%s, std=%s)" % (self.__class__.__name__, self.mean, self.std)


class Resize(Module):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        F._size_list(size)  # validates
        self.size, self.max_size, self.antialias = size, max_size, antialias
        self.interpolation = F._interp(interpolation)

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return "%s(size=%s, interpolation=%s, max_size=%s, antialias=%s)" % (
            self.__class__.__name__,
            self.size,
            self.interpolation.value,
            self.max_size,
            self.antialias,
        )


class CenterCrop(Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return "%s(size=%s)" % (self.__class__.__name__, self.size)


def _check_padding(padding, fill, padding_mode):
    F._padding_ltrb(padding)
    if isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")


class Pad(Module):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        _check_padding(padding, fill, padding_mode)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return "%s(padding=%s, fill=%s, padding_mode=%s)" % (
            self.__class__.__name__,
            self.padding,
            self.fill,
            self.padding_mode,
        )


class RandomCrop(Module):
    """Crops a random [h, w] window, after optional padding (and padding up to the size with pad_if_needed)."""

    @staticmethod
    def get_params(img, output_size):
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError("Required crop size %s is larger than input image size %s" % ((th, tw), (h, w)))
        if w == tw and h == th:
            return 0, 0, h, w
        i = _randint(0, h - th + 1)
        j = _randint(0, w - tw + 1)
        return i, j, th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        if padding is not None:
            _check_padding(padding, fill, padding_mode)
        else:
            _check_padding(0, fill, padding_mode)
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, h, w = F.get_dimensions(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, [self.size[1] - w, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, [0, self.size[0] - h], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self):
        return "%s(size=%s, padding=%s)" % (self.__class__.__name__, self.size, self.padding)


class RandomHorizontalFlip(Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if float(ember.rand(1).item()) < self.p:
            return F.hflip(img)
        return img

    def __repr__(self):
        return "%s(p=%s)" % (self.__class__.__name__, self.p)


class RandomVerticalFlip(Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if float(ember.rand(1).item()) < self.p:
            return F.vflip(img)
        return img

    def __repr__(self):
        return "%s(p=%s)" % (self.__class__.__name__, self.p)


class RandomResizedCrop(Module):
    """A random crop of random area (scale of the image's) and aspect ratio, resized to size."""

    def __init__(
        self,
        size,
        scale=(0.08, 1.0),
        ratio=(3.0 / 4.0, 4.0 / 3.0),
        interpolation=InterpolationMode.BILINEAR,
        antialias=True,
    ):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, Sequence) or len(scale) != 2:
            raise TypeError("Scale should be a sequence of two numbers")
        if not isinstance(ratio, Sequence) or len(ratio) != 2:
            raise TypeError("Ratio should be a sequence of two numbers")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or ratio[0] <= 0:
            raise ValueError("Scale must be non-negative and ratio positive, got scale=%s ratio=%s" % (scale, ratio))
        self.interpolation = F._interp(interpolation)
        self.scale, self.ratio, self.antialias = tuple(scale), tuple(ratio), antialias

    @staticmethod
    def get_params(img, scale, ratio):
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_lo, log_hi))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                i = _randint(0, height - h + 1)
                j = _randint(0, width - w + 1)
                return i, j, h, w
        # Fall back to a central crop with the ratio clamped into range.
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w = width
            h = int(round(w / min(ratio)))
        elif in_ratio > max(ratio):
            h = height
            w = int(round(h * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, list(self.size), self.interpolation, antialias=self.antialias)

    def __repr__(self):
        return "%s(size=%s, scale=%s, ratio=%s, interpolation=%s, antialias=%s)" % (
            self.__class__.__name__,
            self.size,
            tuple(round(s, 4) for s in self.scale),
            tuple(round(r, 4) for r in self.ratio),
            self.interpolation.value,
            self.antialias,
        )


class ColorJitter(Module):
    """Random brightness, contrast, saturation and hue changes, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number) and not isinstance(value, bool):
            if value < 0:
                raise ValueError("If %s is a single number, it must be non negative." % name)
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError("%s should be a single number or a list/tuple with length 2." % name)
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError("%s values should be between %s, but got %s." % (name, list(bound), value))
        if value[0] == value[1] == center:
            return None
        return tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        order = [int(v) for v in ember.randperm(4).tolist()]
        b = None if brightness is None else _uniform(brightness[0], brightness[1])
        c = None if contrast is None else _uniform(contrast[0], contrast[1])
        s = None if saturation is None else _uniform(saturation[0], saturation[1])
        h = None if hue is None else _uniform(hue[0], hue[1])
        return order, b, c, s, h

    def forward(self, img):
        order, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        for k in order:
            if k == 0 and b is not None:
                img = F.adjust_brightness(img, b)
            elif k == 1 and c is not None:
                img = F.adjust_contrast(img, c)
            elif k == 2 and s is not None:
                img = F.adjust_saturation(img, s)
            elif k == 3 and h is not None:
                img = F.adjust_hue(img, h)
        return img

    def __repr__(self):
        return "%s(brightness=%s, contrast=%s, saturation=%s, hue=%s)" % (
            self.__class__.__name__,
            self.brightness,
            self.contrast,
            self.saturation,
            self.hue,
        )


class RandomRotation(Module):
    """Rotates by an angle drawn uniformly from degrees ((-d, d) for a number d)."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        if isinstance(degrees, numbers.Number) and not isinstance(degrees, bool):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            degrees = [-float(degrees), float(degrees)]
        elif isinstance(degrees, Sequence) and len(degrees) == 2:
            degrees = [float(degrees[0]), float(degrees[1])]
        else:
            raise ValueError("If degrees is a sequence, it must be of len 2.")
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise ValueError("If center is a sequence, it must be of len 2.")
        if fill is None or isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.degrees, self.center, self.fill, self.expand = degrees, center, fill, expand
        self.interpolation = F._interp(interpolation)

    @staticmethod
    def get_params(degrees):
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        c = F.get_dimensions(img)[0]
        fill = [float(self.fill)] * c if isinstance(self.fill, numbers.Number) else list(self.fill)
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self):
        return "%s(degrees=%s, interpolation=%s, expand=%s, fill=%s)" % (
            self.__class__.__name__,
            self.degrees,
            self.interpolation.value,
            self.expand,
            self.fill,
        )


class RandomErasing(Module):
    """Erases a random rectangle of a tensor image (Zhong et al., Random Erasing Data Augmentation).

    value: a number, one per channel, or 'random' (standard normal noise per pixel).
    """

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)) or isinstance(value, bool):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence) or len(scale) != 2:
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence) or len(ratio) != 2:
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if ratio[0] <= 0:
            raise ValueError("Ratio should be positive")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        c, h_img, w_img = img.shape[-3], img.shape[-2], img.shape[-1]
        area = h_img * w_img
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_lo, log_hi))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < h_img and w < w_img):
                continue
            if value is None:
                v = ember.empty(c, h, w, dtype=ember.float32).normal_()
            else:
                v = ember.tensor(value, dtype=ember.float32)[:, None, None]
            i = _randint(0, h_img - h + 1)
            j = _randint(0, w_img - w + 1)
            return i, j, h, w, v
        return 0, 0, h_img, w_img, img  # no fitting rectangle: the image is returned unchanged

    def forward(self, img):
        if not isinstance(img, ember.Tensor):
            raise TypeError("img should be Tensor Image. Got %s" % type(img).__name__)
        if img.dim() < 3:
            raise ValueError("RandomErasing expects a [..., C, H, W] tensor, got shape %s" % (list(img.shape),))
        if float(ember.rand(1).item()) >= self.p:
            return img
        if isinstance(self.value, numbers.Number):
            value = [float(self.value)]
        elif isinstance(self.value, str):
            value = None
        else:
            value = [float(v) for v in self.value]
        c = img.shape[-3]
        if value is not None and len(value) not in (1, c):
            raise ValueError(
                "If value is a sequence, it should have either a single value or %d (number of input channels)" % c
            )
        i, j, h, w, v = self.get_params(img, self.scale, self.ratio, value)
        if v is img:
            return img
        return F.erase(img, i, j, h, w, v.to(img.dtype), self.inplace)

    def __repr__(self):
        return "%s(p=%s, scale=%s, ratio=%s, value=%s, inplace=%s)" % (
            self.__class__.__name__,
            self.p,
            self.scale,
            self.ratio,
            self.value,
            self.inplace,
        )


class Lambda:
    """Applies a user function as a transform."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError("Argument lambd should be callable, got %r" % (type(lambd).__name__,))
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return self.__class__.__name__ + "()"


class Grayscale(Module):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)

    def __repr__(self):
        return "%s(num_output_channels=%s)" % (self.__class__.__name__, self.num_output_channels)


class RandomGrayscale(Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        c = F.get_dimensions(img)[0]
        if float(ember.rand(1).item()) < self.p:
            return F.rgb_to_grayscale(img, c)
        return img

    def __repr__(self):
        return "%s(p=%s)" % (self.__class__.__name__, self.p)


class RandomApply(Module):
    """Applies a list of transforms with probability p."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms, self.p = list(transforms), p

    def forward(self, img):
        if self.p < float(ember.rand(1).item()):
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        inner = "\n".join("    %r" % (t,) for t in self.transforms)
        return "%s(\n    p=%s\n%s\n)" % (self.__class__.__name__, self.p, inner)


class RandomChoice(Module):
    """One of the transforms, picked with weights p (uniform when None) by Python's random, as torchvision."""

    def __init__(self, transforms, p=None):
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        if p is not None and len(p) != len(transforms):
            raise ValueError("Length of p doesn't match the number of transforms: %d != %d" % (len(p), len(transforms)))
        self.transforms, self.p = list(transforms), p

    def forward(self, img):
        return random.choices(self.transforms, weights=self.p)[0](img)

    def __repr__(self):
        return "%s(transforms=%r, p=%r)" % (self.__class__.__name__, self.transforms, self.p)


class RandomOrder(Module):
    """The transforms in an order shuffled by Python's random, as torchvision."""

    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = list(transforms)

    def forward(self, img):
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        for i in order:
            img = self.transforms[i](img)
        return img


class _RandomApplyFn(Module):
    """fn(img, *args) with probability p (one ember.rand draw, as torchvision)."""

    def __init__(self, p, *args):
        super().__init__()
        self.p, self._args = p, args

    def forward(self, img):
        if float(ember.rand(1).item()) < self.p:
            return self._fn(img, *self._args)
        return img

    def __repr__(self):
        return "%s(p=%s)" % (self.__class__.__name__, self.p)


class RandomInvert(_RandomApplyFn):
    _fn = staticmethod(F.invert)

    def __init__(self, p=0.5):
        super().__init__(p)


class RandomPosterize(_RandomApplyFn):
    _fn = staticmethod(F.posterize)

    def __init__(self, bits, p=0.5):
        super().__init__(p, bits)
        self.bits = bits


class RandomSolarize(_RandomApplyFn):
    _fn = staticmethod(F.solarize)

    def __init__(self, threshold, p=0.5):
        super().__init__(p, threshold)
        self.threshold = threshold


class RandomAdjustSharpness(_RandomApplyFn):
    _fn = staticmethod(F.adjust_sharpness)

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p, sharpness_factor)
        self.sharpness_factor = sharpness_factor


class RandomAutocontrast(_RandomApplyFn):
    _fn = staticmethod(F.autocontrast)

    def __init__(self, p=0.5):
        super().__init__(p)


class RandomEqualize(_RandomApplyFn):
    _fn = staticmethod(F.equalize)

    def __init__(self, p=0.5):
        super().__init__(p)


class GaussianBlur(Module):
    """A Gaussian blur with sigma drawn uniformly from [sigma_min, sigma_max] (or fixed)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size, "Kernel size should be a tuple/list of two integers")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number) and not isinstance(sigma, bool):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    def forward(self, img):
        s = _uniform(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, list(self.kernel_size), [s, s])

    def __repr__(self):
        return "%s(kernel_size=%s, sigma=%s)" % (self.__class__.__name__, self.kernel_size, self.sigma)


class FiveCrop(Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.five_crop(img, self.size)

    def __repr__(self):
        return "%s(size=%s)" % (self.__class__.__name__, self.size)


class TenCrop(Module):
    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self):
        return "%s(size=%s, vertical_flip=%s)" % (self.__class__.__name__, self.size, self.vertical_flip)


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number) and not isinstance(x, bool):
        if x < 0:
            raise ValueError("If %s is a single number, it must be positive." % name)
        return [-float(x), float(x)]
    if not isinstance(x, Sequence) or len(x) not in req_sizes:
        raise ValueError("If %s is a sequence, it must be of len %s." % (name, " or ".join(str(s) for s in req_sizes)))
    return [float(d) for d in x]


class RandomAffine(Module):
    """A random affine map: angle from degrees, translation up to translate (fractions of the width and height,
    rounded to pixels), scale from scale, shear from shear (x range, or x and y ranges); drawn from ember's default
    generator in torchvision's order."""

    def __init__(
        self,
        degrees,
        translate=None,
        scale=None,
        shear=None,
        interpolation=InterpolationMode.NEAREST,
        fill=0,
        center=None,
    ):
        super().__init__()
        self.degrees = _setup_angle(degrees, "degrees", (2,))
        if translate is not None:
            if not isinstance(translate, Sequence) or len(translate) != 2:
                raise ValueError("translate should be a sequence of length 2.")
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            if not isinstance(scale, Sequence) or len(scale) != 2:
                raise ValueError("scale should be a sequence of length 2.")
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.translate, self.scale = translate, scale
        self.shear = _setup_angle(shear, "shear", (2, 4)) if shear is not None else None
        self.interpolation = F._interp(interpolation)
        if fill is None:
            fill = 0
        elif isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.fill, self.center = fill, center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            tx = int(round(_uniform(-max_dx, max_dx)))
            ty = int(round(_uniform(-max_dy, max_dy)))
            translations = (tx, ty)
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        c, h, w = F.get_dimensions(img)
        fill = self.fill
        if isinstance(img, ember.Tensor):
            fill = [float(fill)] * c if isinstance(fill, numbers.Number) else [float(f) for f in fill]
        angle, translations, scale, shear = self.get_params(
            self.degrees, self.translate, self.scale, self.shear, [w, h]
        )
        return F.affine(img, angle, list(translations), scale, list(shear), self.interpolation, fill, self.center)

    def __repr__(self):
        return "%s(degrees=%s, translate=%s, scale=%s, shear=%s)" % (
            self.__class__.__name__,
            self.degrees,
            self.translate,
            self.scale,
            self.shear,
        )


class RandomPerspective(Module):
    """With probability p, moves each corner inwards by up to distortion_scale of the half-size (drawn from ember's
    default generator in torchvision's order) and warps the image accordingly."""

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.p, self.distortion_scale = p, distortion_scale
        self.interpolation = F._interp(interpolation)
        if fill is None:
            fill = 0
        elif isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.fill = fill

    @staticmethod
    def get_params(width, height, distortion_scale):
        hw, hh = width // 2, height // 2
        dx, dy = int(distortion_scale * hw), int(distortion_scale * hh)

        def draw(lo, hi):
            return int(ember.randint(lo, hi, (1,)).item())

        topleft = [draw(0, dx + 1), draw(0, dy + 1)]
        topright = [draw(width - dx - 1, width), draw(0, dy + 1)]
        botright = [draw(width - dx - 1, width), draw(height - dy - 1, height)]
        botleft = [draw(0, dx + 1), draw(height - dy - 1, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def forward(self, img):
        c, h, w = F.get_dimensions(img)
        fill = self.fill
        if isinstance(img, ember.Tensor):
            fill = [float(fill)] * c if isinstance(fill, numbers.Number) else [float(f) for f in fill]
        if float(ember.rand(1).item()) < self.p:
            start, end = self.get_params(w, h, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, fill)
        return img

    def __repr__(self):
        return "%s(p=%s)" % (self.__class__.__name__, self.p)


def _float_pair(v, name):
    if isinstance(v, bool) or not isinstance(v, (float, Sequence)):
        raise TypeError("%s should be float or a sequence of floats. Got %s" % (name, type(v)))
    if isinstance(v, Sequence):
        if len(v) not in (1, 2):
            raise ValueError("If %s is a sequence its length should be 2. Got %d" % (name, len(v)))
        if not all(isinstance(e, float) for e in v):
            raise TypeError("%s should be a sequence of floats. Got %r" % (name, v))
        return [float(v[0]), float(v[-1])]
    return [float(v), float(v)]


class ElasticTransform(Module):
    """Displaces pixels by a random field: uniform noise in [-1, 1] blurred by a Gaussian of sigma, scaled by alpha
    (in pixels over the size), as torchvision; drawn from ember's default generator."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha = _float_pair(alpha, "alpha")
        self.sigma = _float_pair(sigma, "sigma")
        self.interpolation = F._interp(interpolation)
        if isinstance(fill, (int, float)) and not isinstance(fill, bool):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError("fill should be int or float or a list or tuple of them. Got %s" % type(fill))
        self.fill = fill

    @staticmethod
    def get_params(alpha, sigma, size):
        parts = []
        for k in range(2):
            d = ember.rand([1, 1] + list(size)) * 2 - 1
            if sigma[k] > 0.0:
                ks = int(8 * sigma[k] + 1)
                ks += 1 - ks % 2
                d = F.gaussian_blur(d, [ks, ks], list(sigma))
            parts.append(d * alpha[k] / size[1 - k])
        return ember.cat(parts, 1).permute(0, 2, 3, 1)

    def forward(self, img):
        _, h, w = F.get_dimensions(img)
        displacement = self.get_params(self.alpha, self.sigma, [h, w])
        return F.elastic_transform(img, displacement, self.interpolation, self.fill)

    def __repr__(self):
        return "%s(alpha=%s, sigma=%s, interpolation=%s, fill=%s)" % (
            self.__class__.__name__,
            self.alpha,
            self.sigma,
            self.interpolation,
            self.fill,
        )


class LinearTransformation(Module):
    """(flattened image - mean_vector) @ transformation_matrix, reshaped back (ZCA whitening and the like)."""

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        if transformation_matrix.shape[0] != transformation_matrix.shape[1]:
            raise ValueError(
                "transformation_matrix should be square. Got %s rectangular matrix."
                % (tuple(transformation_matrix.shape),)
            )
        if mean_vector.shape[0] != transformation_matrix.shape[0]:
            raise ValueError(
                "mean_vector should have the same length %d as any one of the dimensions of the "
                "transformation_matrix [%s]" % (mean_vector.shape[0], tuple(transformation_matrix.shape))
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
        self.transformation_matrix, self.mean_vector = transformation_matrix, mean_vector

    def forward(self, tensor):
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError(
                "Input tensor and transformation matrix have incompatible shape.[%d x %d x %d] != %d"
                % (shape[-3], shape[-2], shape[-1], self.transformation_matrix.shape[0])
            )
        flat = tensor.reshape(-1, n) - self.mean_vector
        return flat.mm(self.transformation_matrix.to(flat.dtype)).view(shape)
