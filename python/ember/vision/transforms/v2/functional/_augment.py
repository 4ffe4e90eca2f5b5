"""erase (transforms.v2.functional)."""

import ember

from .... import tv_tensors
from ._utils import _dispatch, _register

__all__ = ["erase"]


@_dispatch
def erase(inpt, i, j, h, w, v, inplace=False):
    """image[..., i:i + h, j:j + w] = v."""


def erase_image(image, i, j, h, w, v, inplace=False):
    if not inplace:
        image = image.clone()
    if isinstance(v, ember.Tensor) and v.device != image.device:
        v = v.to(image.device)
    image[..., i : i + h, j : j + w] = v
    return image


for _t in (ember.Tensor, tv_tensors.Image, tv_tensors.Video):
    _register(erase, _t)(erase_image)


@_dispatch
def jpeg(image, quality):
    """Each image encoded as JPEG at quality (1 to 100) and decoded again (uint8 images, 1 or 3 channels). The codec
    is Pillow's (libjpeg): ember.vision.io has no JPEG encoder."""


def jpeg_image(image, quality):
    import io

    import numpy as np

    try:
        import PIL.Image
    except ImportError:
        raise ImportError("jpeg needs Pillow (pip install pillow): ember.vision.io has no JPEG encoder") from None
    if image.dtype != ember.uint8:
        raise TypeError("Input tensor dtype should be uint8, but got %s." % image.dtype)
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError("quality must be an integer from 1 to 100, got quality=%s" % (quality,))
    c = image.shape[-3]
    if c not in (1, 3):
        raise ValueError("The number of channels should be 1 or 3, got: %d" % c)
    shape = image.shape
    batch = image.reshape(-1, *shape[-3:])
    out = []
    for i in range(batch.shape[0]):
        hwc = batch[i].permute(1, 2, 0).contiguous().numpy()
        buf = io.BytesIO()
        PIL.Image.fromarray(hwc[:, :, 0] if c == 1 else hwc, mode="L" if c == 1 else "RGB").save(
            buf, format="JPEG", quality=quality
        )
        buf.seek(0)
        dec = np.asarray(PIL.Image.open(buf).convert("L" if c == 1 else "RGB"))
        dec = dec[:, :, None] if dec.ndim == 2 else dec
        out.append(ember.from_numpy(np.ascontiguousarray(dec.transpose(2, 0, 1)).copy()))
    if not out:
        return image.clone()
    return ember.stack(out).reshape(shape)


jpeg_video = jpeg_image
for _t in (ember.Tensor, tv_tensors.Image, tv_tensors.Video):
    _register(jpeg, _t)(jpeg_image)
__all__.append("jpeg")
