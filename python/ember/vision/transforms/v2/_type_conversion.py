"""PILToTensor, ToImage, ToPILImage, ToPureTensor, ToTensor (transforms.v2)."""

import numpy as np

import ember

from ... import tv_tensors
from . import functional as F
from ._transform import Transform
from .functional._utils import _is_pil, _pil_type, is_pure_tensor

__all__ = ["PILToTensor", "ToImage", "ToPILImage", "ToPureTensor", "ToTensor"]


def _pil_types():
    pil = _pil_type()
    return (pil,) if pil is not None else ()


class PILToTensor(Transform):
    """A PIL image as a plain uint8 [C, H, W] tensor (needs Pillow)."""

    _transformed_types = _pil_types()

    def transform(self, inpt, params):
        return F.pil_to_tensor(inpt)


class ToImage(Transform):
    """A plain tensor, an [H, W(, C)] NumPy array or a PIL image as a tv_tensors.Image."""

    _transformed_types = (is_pure_tensor, np.ndarray) + _pil_types()

    def transform(self, inpt, params):
        return F.to_image(inpt)


class ToPILImage(Transform):
    """A tensor or array image as a PIL image (needs Pillow)."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, np.ndarray)

    def __init__(self, mode=None):
        super().__init__()
        self.mode = mode

    def transform(self, inpt, params):
        return F.to_pil_image(inpt, mode=self.mode)


class ToPureTensor(Transform):
    """TVTensors as plain tensors (the same memory)."""

    _transformed_types = (tv_tensors.TVTensor,)

    def transform(self, inpt, params):
        return inpt.as_subclass(ember.Tensor)


class ToTensor(Transform):
    """The v1 conversion (deprecated in torchvision's v2: use ToImage and ToDtype): a PIL image or [H, W, C] array to
    a float [C, H, W] tensor in [0, 1]."""

    _transformed_types = (is_pure_tensor, np.ndarray) + _pil_types()

    def transform(self, inpt, params):
        return F.to_tensor(inpt)


del _is_pil
