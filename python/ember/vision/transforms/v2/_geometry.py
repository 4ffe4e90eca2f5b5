"""Geometry transforms of transforms.v2 (torchvision 0.29's parameters and their sampling)."""

import math
import numbers

import ember

from ... import tv_tensors
from ...ops import box_iou
from ..functional import InterpolationMode
from . import functional as F
from ._transform import (
    Transform,
    _check_sequence_input,
    _get_fill,
    _rand,
    _randint,
    _RandomApplyTransform,
    _setup_angle,
    _setup_fill_arg,
    _setup_number_or_seq,
    _setup_size,
    _uniform,
    get_bounding_boxes,
    has_all,
    has_any,
    query_size,
)
from .functional._utils import _is_pil, is_pure_tensor

__all__ = [
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Resize",
    "CenterCrop",
    "RandomResizedCrop",
    "FiveCrop",
    "TenCrop",
    "Pad",
    "RandomZoomOut",
    "RandomRotation",
    "RandomAffine",
    "RandomCrop",
    "RandomPerspective",
    "ElasticTransform",
    "RandomIoUCrop",
    "ScaleJitter",
    "RandomShortestSize",
    "RandomResize",
]

_SIZE_MSG = "Please provide only two dimensions (h, w) for size."


class RandomHorizontalFlip(_RandomApplyTransform):
    """Flips left-right with probability p."""

    def transform(self, inpt, params):
        return self._call_kernel(F.horizontal_flip, inpt)


class RandomVerticalFlip(_RandomApplyTransform):
    """Flips top-bottom with probability p."""

    def transform(self, inpt, params):
        return self._call_kernel(F.vertical_flip, inpt)


class Resize(Transform):
    """F.resize with fixed arguments."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            size = [int(size)]
        elif isinstance(size, (list, tuple)) and len(size) in (1, 2):
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError("max_size must be an integer when size is None, but got %s instead." % (max_size,))
        else:
            raise ValueError(
                "size can be an integer, a sequence of one or two integers, or None, but got %s instead." % (size,)
            )
        self.size = size
        self.interpolation = interpolation
        self.max_size = max_size
        self.antialias = antialias

    def transform(self, inpt, params):
        return self._call_kernel(
            F.resize,
            inpt,
            self.size,
            interpolation=self.interpolation,
            max_size=self.max_size,
            antialias=self.antialias,
        )


class CenterCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def transform(self, inpt, params):
        return self._call_kernel(F.center_crop, inpt, output_size=self.size)


class RandomResizedCrop(Transform):
    """A crop of random area (scale of the image's) and aspect ratio (log-uniform in ratio), resized to size."""

    def __init__(
        self,
        size,
        scale=(0.08, 1.0),
        ratio=(3.0 / 4.0, 4.0 / 3.0),
        interpolation=InterpolationMode.BILINEAR,
        antialias=True,
    ):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if not isinstance(scale, (list, tuple)):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, (list, tuple)):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            import warnings

            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation
        self.antialias = antialias
        self._log_ratio = ember.log(ember.tensor([float(r) for r in ratio]))

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        area = height * width
        log_ratio = self._log_ratio
        for _ in range(10):
            target_area = area * _uniform(self.scale[0], self.scale[1])
            aspect_ratio = math.exp(_uniform(log_ratio[0].item(), log_ratio[1].item()))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                i = _randint(0, height - h + 1)
                j = _randint(0, width - w + 1)
                break
        else:
            in_ratio = float(width) / float(height)
            if in_ratio < min(self.ratio):
                w = width
                h = int(round(w / min(self.ratio)))
            elif in_ratio > max(self.ratio):
                h = height
                w = int(round(h * max(self.ratio)))
            else:
                w, h = width, height
            i = (height - h) // 2
            j = (width - w) // 2
        return dict(top=i, left=j, height=h, width=w)

    def transform(self, inpt, params):
        return self._call_kernel(
            F.resized_crop, inpt, **params, size=self.size, interpolation=self.interpolation, antialias=self.antialias
        )


class FiveCrop(Transform):
    """The four corner crops and the center crop: a tuple of five samples."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def check_inputs(self, flat_inputs):
        if has_any(flat_inputs, tv_tensors.BoundingBoxes, tv_tensors.Mask, tv_tensors.KeyPoints):
            raise TypeError(
                "BoundingBoxes'es, KeyPoints'es, and Mask's are not supported by %s()" % type(self).__name__
            )

    def transform(self, inpt, params):
        return self._call_kernel(F.five_crop, inpt, self.size)


class TenCrop(Transform):
    """FiveCrop of the image and of its flip."""

    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        self.vertical_flip = vertical_flip

    def check_inputs(self, flat_inputs):
        if has_any(flat_inputs, tv_tensors.BoundingBoxes, tv_tensors.Mask, tv_tensors.KeyPoints):
            raise TypeError(
                "BoundingBoxes'es, KeyPoints'es, and Mask's are not supported by %s()" % type(self).__name__
            )

    def transform(self, inpt, params):
        return self._call_kernel(F.ten_crop, inpt, self.size, vertical_flip=self.vertical_flip)


def _check_padding(padding):
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2, 4):
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a %d element tuple" % len(padding))


def _check_padding_mode(padding_mode):
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")


class Pad(Transform):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        _check_padding(padding)
        _check_padding_mode(padding_mode)
        if isinstance(padding, list):
            padding = tuple(padding)
        self.padding = padding
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        self.padding_mode = padding_mode

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.pad, inpt, padding=self.padding, fill=fill, padding_mode=self.padding_mode)


class RandomZoomOut(_RandomApplyTransform):
    """Places the sample on a canvas side_range times as large (uniform), at a uniform position, filled with fill."""

    def __init__(self, fill=0, side_range=(1.0, 4.0), p=0.5):
        super().__init__(p=p)
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        _check_sequence_input(side_range, "side_range", req_sizes=(2,))
        self.side_range = side_range
        if side_range[0] < 1.0 or side_range[0] > side_range[1]:
            raise ValueError("Invalid side range provided %s." % (side_range,))

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        r = self.side_range[0] + _rand() * (self.side_range[1] - self.side_range[0])
        canvas_w, canvas_h = int(orig_w * r), int(orig_h * r)
        r2 = ember.rand(2).tolist()
        left = int((canvas_w - orig_w) * r2[0])
        top = int((canvas_h - orig_h) * r2[1])
        return dict(padding=[left, top, canvas_w - (left + orig_w), canvas_h - (top + orig_h)])

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.pad, inpt, **params, fill=fill)


class RandomRotation(Transform):
    """Rotates by an angle uniform in degrees ([-d, d] for a number d)."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        self.interpolation = interpolation
        self.expand = expand
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def make_params(self, flat_inputs):
        return dict(angle=_uniform(self.degrees[0], self.degrees[1]))

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(
            F.rotate,
            inpt,
            **params,
            interpolation=self.interpolation,
            expand=self.expand,
            center=self.center,
            fill=fill,
        )


class RandomAffine(Transform):
    """Random rotation (degrees), translation (fractions of the size), scale and shear, in one affine map."""

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
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = _setup_angle(shear, name="shear", req_sizes=(2, 4)) if shear is not None else None
        self.interpolation = interpolation
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """(angle, (tx, ty), scale, (shear_x, shear_y)) for an image of img_size [width, height] (torchvision's v1
        interface; make_params draws the same way)."""
        width, height = img_size
        angle = _uniform(degrees[0], degrees[1])
        if translate is not None:
            max_dx = float(translate[0] * width)
            max_dy = float(translate[1] * height)
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

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        angle, translate, scale, shear = self.get_params(
            self.degrees, self.translate, self.scale, self.shear, [width, height]
        )
        return dict(angle=angle, translate=translate, scale=scale, shear=shear)

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(
            F.affine, inpt, **params, interpolation=self.interpolation, fill=fill, center=self.center
        )


class RandomCrop(Transform):
    """A crop of size at a uniform position, after optional padding (and pad_if_needed)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if pad_if_needed or padding is not None:
            if padding is not None:
                _check_padding(padding)
            _check_padding_mode(padding_mode)
        # torchvision's attribute order: [left, right, top, bottom]
        if padding:
            l, t, r, b = F._geometry._parse_padding(padding)
            self.padding = [l, r, t, b]
        else:
            self.padding = None
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self._fill = _setup_fill_arg(fill)
        self.padding_mode = padding_mode

    def make_params(self, flat_inputs):
        ph, pw = query_size(flat_inputs)
        if self.padding is not None:
            pl, pr, pt, pb = self.padding
            ph += pt + pb
            pw += pl + pr
        else:
            pl = pr = pt = pb = 0
        ch, cw = self.size
        if self.pad_if_needed:
            if ph < ch:
                diff = ch - ph
                pt += diff
                pb += diff
                ph += 2 * diff
            if pw < cw:
                diff = cw - pw
                pl += diff
                pr += diff
                pw += 2 * diff
        if ph < ch or pw < cw:
            raise ValueError(
                "Required crop size %s is larger than %sinput image size %s."
                % ((ch, cw), "padded " if self.padding is not None else "", (ph, pw))
            )
        padding = [pl, pt, pr, pb]
        top = _randint(0, ph - ch + 1) if ph > ch else 0
        left = _randint(0, pw - cw + 1) if pw > cw else 0
        return dict(
            needs_crop=ph > ch or pw > cw,
            top=top,
            left=left,
            height=ch,
            width=cw,
            needs_pad=any(padding),
            padding=padding,
        )

    def transform(self, inpt, params):
        if params["needs_pad"]:
            fill = _get_fill(self._fill, type(inpt))
            inpt = self._call_kernel(F.pad, inpt, padding=params["padding"], fill=fill, padding_mode=self.padding_mode)
        if params["needs_crop"]:
            inpt = self._call_kernel(
                F.crop, inpt, top=params["top"], left=params["left"], height=params["height"], width=params["width"]
            )
        return inpt


class RandomPerspective(_RandomApplyTransform):
    """A perspective map that moves each corner inward by up to distortion_scale of half the size."""

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__(p=p)
        if not 0 <= distortion_scale <= 1:
            raise ValueError("Argument distortion_scale value should be between 0 and 1")
        self.distortion_scale = distortion_scale
        self.interpolation = interpolation
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    @staticmethod
    def get_params(width, height, distortion_scale):
        """(startpoints, endpoints): the image corners and where they go, each moved inward by up to
        distortion_scale of half the size (torchvision's v1 interface)."""
        bh = int(distortion_scale * (height // 2)) + 1
        bw = int(distortion_scale * (width // 2)) + 1
        topleft = [_randint(0, bw), _randint(0, bh)]
        topright = [_randint(width - bw, width), _randint(0, bh)]
        botright = [_randint(width - bw, width), _randint(height - bh, height)]
        botleft = [_randint(0, bw), _randint(height - bh, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
        return dict(coefficients=F._geometry._perspective_coeffs(startpoints, endpoints))

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(
            F.perspective,
            inpt,
            startpoints=None,
            endpoints=None,
            fill=fill,
            interpolation=self.interpolation,
            **params,
        )


class ElasticTransform(Transform):
    """Displaces pixels by a smooth random field: uniform [-1, 1] noise blurred by sigma, scaled by alpha."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha = _setup_number_or_seq(alpha, "alpha")
        self.sigma = _setup_number_or_seq(sigma, "sigma")
        self.interpolation = interpolation
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    @staticmethod
    def get_params(alpha, sigma, size):
        """The [1, H, W, 2] displacement for size [H, W] (torchvision's v1 interface)."""
        height, width = size
        fields = []
        for i, extent in ((0, width), (1, height)):
            d = ember.rand(1, 1, height, width) * 2 - 1
            if sigma[i] > 0.0:
                k = int(8 * sigma[i] + 1)
                if k % 2 == 0:
                    k += 1
                d = F.gaussian_blur(d, [k, k], list(sigma))
            fields.append(d * alpha[i] / extent)
        return ember.cat(fields, 1).permute(0, 2, 3, 1)

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        return dict(displacement=self.get_params(self.alpha, self.sigma, [height, width]))

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.elastic, inpt, **params, fill=fill, interpolation=self.interpolation)


class RandomIoUCrop(Transform):
    """SSD's crop: a random window whose IoU with some box reaches a sampled threshold; boxes whose center falls
    outside it are zeroed (follow with SanitizeBoundingBoxes)."""

    def __init__(
        self, min_scale=0.3, max_scale=1.0, min_aspect_ratio=0.5, max_aspect_ratio=2.0, sampler_options=None, trials=40
    ):
        super().__init__()
        self.min_scale = min_scale
        self.max_scale = max_scale
        self.min_aspect_ratio = min_aspect_ratio
        self.max_aspect_ratio = max_aspect_ratio
        self.options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0] if sampler_options is None else sampler_options
        self.trials = trials

    def check_inputs(self, flat_inputs):
        if not (
            has_all(flat_inputs, tv_tensors.BoundingBoxes)
            and has_any(flat_inputs, _is_pil, tv_tensors.Image, is_pure_tensor)
        ):
            raise TypeError(
                "%s() requires input sample to contain tensor or PIL images and bounding boxes. Sample can also "
                "contain masks." % type(self).__name__
            )

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        boxes = get_bounding_boxes(flat_inputs)
        while True:
            threshold = self.options[_randint(0, len(self.options))]
            if threshold >= 1.0:
                return dict()
            for _ in range(self.trials):
                r = (self.min_scale + (self.max_scale - self.min_scale) * ember.rand(2)).tolist()
                new_w, new_h = int(orig_w * r[0]), int(orig_h * r[1])
                if new_h == 0 or not self.min_aspect_ratio <= new_w / new_h <= self.max_aspect_ratio:
                    continue
                r = ember.rand(2).tolist()
                left, top = int((orig_w - new_w) * r[0]), int((orig_h - new_h) * r[1])
                right, bottom = left + new_w, top + new_h
                if left == right or top == bottom:
                    continue
                xyxy = F.convert_bounding_box_format(
                    boxes.as_subclass(ember.Tensor), boxes.format, tv_tensors.BoundingBoxFormat.XYXY
                )
                cx = 0.5 * (xyxy[..., 0] + xyxy[..., 2])
                cy = 0.5 * (xyxy[..., 1] + xyxy[..., 3])
                within = (left < cx) & (cx < right) & (top < cy) & (cy < bottom)
                if not bool(within.any()):
                    continue
                ious = box_iou(
                    xyxy[within], ember.tensor([[left, top, right, bottom]], dtype=xyxy.dtype, device=xyxy.device)
                )
                if float(ious.max()) < threshold:
                    continue
                return dict(top=top, left=left, height=new_h, width=new_w, is_within_crop_area=within)

    def transform(self, inpt, params):
        if len(params) < 1:
            return inpt
        out = self._call_kernel(
            F.crop, inpt, top=params["top"], left=params["left"], height=params["height"], width=params["width"]
        )
        if isinstance(out, tv_tensors.BoundingBoxes):
            keep = params["is_within_crop_area"].view(-1, 1).to(out.dtype)
            out = tv_tensors.wrap(out.as_subclass(ember.Tensor) * keep, like=out)
        return out


class ScaleJitter(Transform):
    """Resizes to fit target_size (w, h) times a scale uniform in scale_range (large-scale jitter)."""

    def __init__(self, target_size, scale_range=(0.1, 2.0), interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.target_size = target_size
        self.scale_range = scale_range
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        scale = self.scale_range[0] + _rand() * (self.scale_range[1] - self.scale_range[0])
        r = min(self.target_size[1] / h, self.target_size[0] / w) * scale
        return dict(size=(int(h * r), int(w * r)))

    def transform(self, inpt, params):
        return self._call_kernel(
            F.resize, inpt, size=params["size"], interpolation=self.interpolation, antialias=self.antialias
        )


class RandomShortestSize(Transform):
    """Resizes the shorter side to one of min_size (uniform choice), the longer to at most max_size."""

    def __init__(self, min_size, max_size=None, interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.min_size = [min_size] if isinstance(min_size, int) else list(min_size)
        self.max_size = max_size
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        min_size = self.min_size[_randint(0, len(self.min_size))]
        r = min_size / min(h, w)
        if self.max_size is not None:
            r = min(r, self.max_size / max(h, w))
        return dict(size=(int(h * r), int(w * r)))

    def transform(self, inpt, params):
        return self._call_kernel(
            F.resize, inpt, size=params["size"], interpolation=self.interpolation, antialias=self.antialias
        )


class RandomResize(Transform):
    """Resizes the shorter side to an integer uniform in [min_size, max_size)."""

    def __init__(self, min_size, max_size, interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.min_size = min_size
        self.max_size = max_size
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        return dict(size=[_randint(self.min_size, self.max_size)])

    def transform(self, inpt, params):
        return self._call_kernel(
            F.resize, inpt, params["size"], interpolation=self.interpolation, antialias=self.antialias
        )


def _v1_get_params():
    """The v1 get_params of the classes that have one in ember.vision.transforms (torchvision's v2 classes expose
    them)."""
    from .. import transforms as _v1

    for cls in (RandomCrop, RandomResizedCrop, RandomRotation):
        cls.get_params = staticmethod(getattr(_v1, cls.__name__).get_params)


_v1_get_params()
