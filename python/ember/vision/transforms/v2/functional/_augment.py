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
    """Each image encoded as JPEG at quality (1 to 100) and decoded again (uint8 images, 1 or 3 channels), with
    ember.vision.io's codec (libjpeg-turbo), as torchvision's encode_jpeg / decode_jpeg."""


def jpeg_image(image, quality):
    from ember.vision import io as vio

    if image.dtype != ember.uint8:
        raise TypeError("Input tensor dtype should be uint8, but got %s." % image.dtype)
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError("quality must be an integer from 1 to 100, got quality=%s" % (quality,))
    if image.ndim < 3:
        raise ValueError("jpeg expects an image of shape [..., C, H, W], got %s" % (tuple(image.shape),))
    c = image.shape[-3]
    if c not in (1, 3):
        raise ValueError("The number of channels should be 1 or 3, got: %d" % c)
    shape = image.shape
    batch = image.as_subclass(ember.Tensor).reshape(-1, *shape[-3:])
    if batch.shape[0] == 0:
        return image.clone()
    out = [vio.decode_jpeg(vio.encode_jpeg(batch[i].contiguous(), quality=quality)) for i in range(batch.shape[0])]
    return ember.stack(out).reshape(shape).to(image.device)


jpeg_video = jpeg_image
for _t in (ember.Tensor, tv_tensors.Image, tv_tensors.Video):
    _register(jpeg, _t)(jpeg_image)
__all__.append("jpeg")
