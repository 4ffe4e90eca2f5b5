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
    image[..., i : i + h, j : j + w] = v
    return image


for _t in (ember.Tensor, tv_tensors.Image, tv_tensors.Video):
    _register(erase, _t)(erase_image)
