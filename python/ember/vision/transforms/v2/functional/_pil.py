"""The PIL kernels of transforms.v2.functional (with Pillow installed): as torchvision does, a PIL image goes
through Pillow's own operations (Image.resize, Image.transform, ImageEnhance, ImageOps) where torchvision uses them,
so PIL inputs give torchvision's PIL results; the others (elastic, permute_channels, the non-constant paddings)
go through a uint8 tensor and back."""

import numbers
import warnings

from ...functional import InterpolationMode, _interp
from . import _color, _geometry
from ._utils import _PIL_VIA_TENSOR, _pil_adapter, _pil_type, _register

_PIL_RESAMPLE = {
    InterpolationMode.NEAREST: 0,
    InterpolationMode.NEAREST_EXACT: 0,
    InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3,
}


def _resample(interpolation):
    return _PIL_RESAMPLE[_interp(interpolation)]


def _fill_opts(fill, img, name="fillcolor"):
    """fill as Pillow wants it: one value per band (ints unless the image is float)."""
    bands = len(img.getbands())
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * bands
        elif len(fill) != bands:
            raise ValueError(
                "The number of elements in 'fill' does not match the number of channels of the image (%d != %d)"
                % (len(fill), bands)
            )
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def _register_pil_kernels():
    pil = _pil_type()
    if pil is None:
        return
    import numpy as np
    from PIL import Image, ImageEnhance, ImageOps

    from . import _augment, _misc

    _PIL_VIA_TENSOR.update(
        {_geometry.elastic, _color.permute_channels, _misc.gaussian_blur, _augment.erase, _augment.jpeg}
    )

    G, C = _geometry, _color

    def reg(functional):
        return _register(functional, pil, wrapper=False)

    reg(G.horizontal_flip)(lambda img: img.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    reg(G.vertical_flip)(lambda img: img.transpose(Image.Transpose.FLIP_TOP_BOTTOM))

    def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
        oh, ow = G._output_size((img.height, img.width), size, max_size)
        if (oh, ow) == (img.height, img.width):
            return img
        return img.resize((ow, oh), resample=_resample(interpolation))

    reg(G.resize)(resize)

    def crop(img, top, left, height, width):
        return img.crop((left, top, left + width, top + height))

    reg(G.crop)(crop)

    def pad(img, padding, fill=None, padding_mode="constant"):
        if padding_mode != "constant":
            return _pil_adapter(G.pad_image)(img, padding, fill=fill, padding_mode=padding_mode)
        border = tuple(padding) if isinstance(padding, (list, tuple)) else padding
        if isinstance(border, tuple) and len(border) == 1:
            border = border[0]
        if not isinstance(border, (numbers.Integral, tuple)):
            raise TypeError("Got inappropriate padding arg")
        opts = _fill_opts(fill, img, name="fill")
        if img.mode == "P":
            palette = img.getpalette()
            out = ImageOps.expand(img, border=border, **opts)
            out.putpalette(palette)
            return out
        return ImageOps.expand(img, border=border, **opts)

    reg(G.pad)(pad)

    def center_crop(img, output_size):
        ch, cw = G._F1._crop_size(output_size)
        h, w = img.height, img.width
        if ch > h or cw > w:
            img = pad(
                img,
                [
                    (cw - w) // 2 if cw > w else 0,
                    (ch - h) // 2 if ch > h else 0,
                    (cw - w + 1) // 2 if cw > w else 0,
                    (ch - h + 1) // 2 if ch > h else 0,
                ],
                fill=0,
            )
            h, w = img.height, img.width
            if (ch, cw) == (h, w):
                return img
        return crop(img, int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw)

    reg(G.center_crop)(center_crop)

    def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
        return resize(crop(img, top, left, height, width), size, interpolation)

    reg(G.resized_crop)(resized_crop)

    def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
        angle, translate, scale, shear, center = G._affine_args(angle, translate, scale, shear, center)
        if center is None:
            center = [img.width * 0.5, img.height * 0.5]
        matrix = G._affine_matrix(center, angle, translate, scale, shear)
        return img.transform(
            img.size, Image.Transform.AFFINE, matrix, _resample(interpolation), **_fill_opts(fill, img)
        )

    reg(G.affine)(affine)

    def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
        return img.rotate(angle, _resample(interpolation), expand, center, **_fill_opts(fill, img))

    reg(G.rotate)(rotate)

    def perspective(
        img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None, coefficients=None
    ):
        coeffs = G._coefficients(startpoints, endpoints, coefficients)
        return img.transform(
            img.size, Image.Transform.PERSPECTIVE, coeffs, _resample(interpolation), **_fill_opts(fill, img)
        )

    reg(G.perspective)(perspective)

    def five_crop(img, size):
        ch, cw = G._F1._crop_size(size)
        h, w = img.height, img.width
        if cw > w or ch > h:
            raise ValueError("Requested crop size %s is bigger than input size %s" % ((ch, cw), (h, w)))
        return (
            crop(img, 0, 0, ch, cw),
            crop(img, 0, w - cw, ch, cw),
            crop(img, h - ch, 0, ch, cw),
            crop(img, h - ch, w - cw, ch, cw),
            center_crop(img, [ch, cw]),
        )

    reg(G.five_crop)(five_crop)

    def ten_crop(img, size, vertical_flip=False):
        flipped = img.transpose(Image.Transpose.FLIP_TOP_BOTTOM if vertical_flip else Image.Transpose.FLIP_LEFT_RIGHT)
        return five_crop(img, size) + five_crop(flipped, size)

    reg(G.ten_crop)(ten_crop)

    # ---- colour
    def grayscale(img, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError("num_output_channels should be either 1 or 3")
        gray = img.convert("L")
        return gray if num_output_channels == 1 else Image.merge("RGB", (gray, gray, gray))

    reg(C.rgb_to_grayscale)(grayscale)
    reg(C.grayscale_to_rgb)(lambda img: img.convert("RGB"))

    def enhance(kind, name):
        def run(img, factor):
            if factor < 0:
                raise ValueError("%s (%s) is not non-negative." % (name, factor))
            return kind(img).enhance(factor)

        return run

    reg(C.adjust_brightness)(enhance(ImageEnhance.Brightness, "brightness_factor"))
    reg(C.adjust_contrast)(enhance(ImageEnhance.Contrast, "contrast_factor"))
    reg(C.adjust_saturation)(enhance(ImageEnhance.Color, "saturation_factor"))
    reg(C.adjust_sharpness)(enhance(ImageEnhance.Sharpness, "sharpness_factor"))

    def hue(img, hue_factor):
        if not -0.5 <= hue_factor <= 0.5:
            raise ValueError("hue_factor (%s) is not in [-0.5, 0.5]." % (hue_factor,))
        if img.mode in ("L", "1", "I", "F"):
            return img
        h, s, v = img.convert("HSV").split()
        shifted = (np.asarray(h, dtype=np.uint8) + np.uint8(np.int32(hue_factor * 255) & 0xFF)).astype(np.uint8)
        return Image.merge("HSV", (Image.fromarray(shifted, "L"), s, v)).convert(img.mode)

    reg(C.adjust_hue)(hue)

    def gamma(img, gamma, gain=1.0):
        if gamma < 0:
            raise ValueError("Gamma should be a non-negative real number")
        lut = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)] * 3
        return img.convert("RGB").point(lut).convert(img.mode)

    reg(C.adjust_gamma)(gamma)
    reg(C.posterize)(lambda img, bits: ImageOps.posterize(img, bits))
    reg(C.solarize)(lambda img, threshold: ImageOps.solarize(img, threshold))
    reg(C.autocontrast)(lambda img: ImageOps.autocontrast(img))
    reg(C.equalize)(lambda img: ImageOps.equalize(img))
    reg(C.invert)(lambda img: ImageOps.invert(img))


_register_pil_kernels()
