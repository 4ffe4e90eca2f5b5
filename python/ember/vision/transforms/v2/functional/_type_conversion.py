"""to_image, pil_to_tensor, to_pil_image, to_pure_tensor (transforms.v2.functional). PIL images need Pillow."""

import numpy as np

import ember

from .... import tv_tensors
from ._utils import _is_pil

__all__ = ["to_image", "pil_to_tensor", "to_pil_image", "to_pure_tensor", "to_tensor"]


def _need_pil():
    try:
        import PIL.Image
    except ImportError:
        raise ImportError("this conversion needs Pillow (pip install pillow)") from None
    return PIL.Image


def pil_to_tensor(pic):
    """A PIL image as a [C, H, W] tensor of its values (uint8 for 8-bit modes)."""
    if not _is_pil(pic):
        raise TypeError("pic should be PIL Image. Got %s" % type(pic).__name__)
    arr = np.asarray(pic)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return ember.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)).copy())


def to_image(inpt):
    """A tv_tensors.Image from a tensor ([..., C, H, W]), a NumPy array ([H, W, C] or [H, W]) or a PIL image."""
    if isinstance(inpt, np.ndarray):
        arr = np.ascontiguousarray(np.atleast_3d(inpt).transpose(2, 0, 1)).copy()
        out = ember.from_numpy(arr)
    elif _is_pil(inpt):
        out = pil_to_tensor(inpt)
    elif isinstance(inpt, ember.Tensor):
        out = inpt
    else:
        raise TypeError(
            "Input can either be a pure Tensor, a numpy array, or a PIL image, but got %s instead."
            % type(inpt).__name__
        )
    return tv_tensors.Image(out)


def to_pil_image(pic, mode=None):
    """A [C, H, W] (or [H, W]) tensor or an [H, W, C] array as a PIL image; floats are scaled by 255."""
    PIL_Image = _need_pil()
    if isinstance(pic, ember.Tensor):
        if pic.ndim not in (2, 3):
            raise ValueError("pic should be 2/3 dimensional. Got %d dimensions." % pic.ndim)
        t = pic.as_subclass(ember.Tensor) if type(pic) is not ember.Tensor else pic
        if t.ndim == 2:
            t = t.unsqueeze(0)
        if t.shape[-3] > 4:
            raise ValueError("pic should not have > 4 channels. Got %d channels." % t.shape[-3])
        if t.is_floating_point() and mode != "F":
            t = (t * 255).to(ember.uint8)
        arr = t.permute(1, 2, 0).contiguous().numpy()
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError("pic should be 2/3 dimensional. Got %d dimensions." % pic.ndim)
        arr = pic if pic.ndim == 3 else pic[:, :, None]
    else:
        raise TypeError("pic should be Tensor or ndarray. Got %s." % type(pic).__name__)
    if arr.shape[2] == 1:
        arr = arr[:, :, 0]
        if mode is None:
            mode = {np.uint8: "L", np.int16: "I;16", np.int32: "I", np.float32: "F"}.get(arr.dtype.type)
            if mode is None:
                raise TypeError("Input type %s is not supported" % arr.dtype)
        return PIL_Image.fromarray(
            arr.astype({"L": np.uint8, "F": np.float32, "I": np.int32}.get(mode, arr.dtype)), mode=mode
        )
    if arr.dtype != np.uint8:
        raise TypeError("Input type %s is not supported for a %d-channel image" % (arr.dtype, arr.shape[2]))
    if mode is None:
        mode = {2: "LA", 3: "RGB", 4: "RGBA"}[arr.shape[2]]
    return PIL_Image.fromarray(np.ascontiguousarray(arr), mode=mode)


def to_pure_tensor(inpt):
    """A TVTensor as a plain ember.Tensor (the same memory)."""
    return inpt.as_subclass(ember.Tensor) if isinstance(inpt, ember.Tensor) else inpt


def to_tensor(pic):
    """The v1 conversion (deprecated in torchvision's v2): a PIL image or an HWC array to a float [C, H, W] in [0, 1]
    for uint8."""
    from ... import functional as _F1

    if _is_pil(pic):
        return _F1.to_tensor(np.asarray(pic))
    return _F1.to_tensor(pic)
