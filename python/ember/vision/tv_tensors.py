"""ember.vision.tv_tensors: torchvision 0.29's tv_tensors, Tensor subclasses that tell transforms.v2 what they hold.

Image ([..., C, H, W]), Video ([..., T, C, H, W]), Mask ([..., H, W]), BoundingBoxes ([N, 4], with a format and the
canvas_size (H, W) of the image they belong to) and KeyPoints ([..., 2], with canvas_size) are ember.Tensor subclasses
through ``__torch_function__`` (docs/extending.md). As torchvision's, an ember op on one returns a plain Tensor, except
``clone``, ``to``, ``detach``, ``requires_grad_`` and ``pin_memory`` (which keep the type and metadata), or everything
inside ``set_return_type("TVTensor")``. ``wrap(tensor, like=...)`` gives a plain tensor the type and metadata of
another.
"""

import enum

import numpy as np

import ember

from .. import _C

__all__ = [
    "TVTensor",
    "Image",
    "Video",
    "Mask",
    "BoundingBoxes",
    "BoundingBoxFormat",
    "KeyPoints",
    "is_rotated_bounding_format",
    "set_return_type",
    "wrap",
]

_RETURN_SUBCLASS = False


class _ReturnTypeCM:
    def __init__(self, to_restore):
        self.to_restore = to_restore

    def __enter__(self):
        return self

    def __exit__(self, *args):
        global _RETURN_SUBCLASS
        _RETURN_SUBCLASS = self.to_restore


def set_return_type(return_type):
    """What ember ops on a TVTensor return: "Tensor" (a plain tensor, the default) or "TVTensor" (the input's type).
    Works as a global switch or as a context manager. Transforms and functionals always keep the input's type."""
    global _RETURN_SUBCLASS
    to_restore = _RETURN_SUBCLASS
    if not isinstance(return_type, str) or return_type.lower() not in ("tensor", "tvtensor"):
        raise ValueError("return_type must be 'TVTensor' or 'Tensor', got %s" % (return_type,))
    _RETURN_SUBCLASS = return_type.lower() == "tvtensor"
    return _ReturnTypeCM(to_restore)


_KEEP = None


def _keep_functions():
    """The methods whose result keeps the TVTensor type whatever set_return_type says (torchvision's list)."""
    global _KEEP
    if _KEEP is None:
        _KEEP = {getattr(ember.Tensor, n) for n in ("clone", "to", "detach", "requires_grad_", "pin_memory")}
    return _KEEP


def _flat(obj):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _flat(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _flat(o)
    else:
        yield obj


class TVTensor(ember.Tensor):
    """Base class of the tv_tensors (torchvision.tv_tensors.TVTensor)."""

    def __init__(self, *args, **kwargs):
        # __new__ builds the instance (as_subclass of the data); Tensor's own __init__ must not run again.
        pass

    @staticmethod
    def _to_tensor(data, dtype=None, device=None, requires_grad=None):
        if requires_grad is None:
            requires_grad = data.requires_grad if isinstance(data, ember.Tensor) else False
        if isinstance(data, np.ndarray):
            data = ember.from_numpy(np.ascontiguousarray(data).copy())
        t = ember.as_tensor(data, dtype=dtype, device=device)
        if type(t) is not ember.Tensor:
            t = t.as_subclass(ember.Tensor)
        return t.requires_grad_(requires_grad)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        if isinstance(output, ember.Tensor) and not isinstance(output, cls):
            output = output.as_subclass(cls)
        if isinstance(output, (tuple, list)) and any(isinstance(p, ember.Tensor) for p in output):
            output = type(output)(cls._wrap_output(part, args, kwargs) for part in output)
        return output

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        return tensor.as_subclass(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with _C.DisableTorchFunctionSubclass():
            output = func(*args, **(kwargs or {}))
        if _RETURN_SUBCLASS or (func in _keep_functions() and args and isinstance(args[0], cls)):
            return cls._wrap_output(output, args, kwargs)
        if isinstance(output, cls):
            return output.as_subclass(ember.Tensor)
        return output

    def _make_repr(self, **kwargs):
        with _C.DisableTorchFunctionSubclass():
            base = ember.Tensor.__repr__(self)
        extra = ", ".join("%s=%s" % (k, v) for k, v in kwargs.items())
        return "%s, %s)" % (base[:-1], extra) if extra else base

    def __repr__(self):
        return self._make_repr()

    def __deepcopy__(self, memo):
        return self.detach().clone().requires_grad_(self.requires_grad)

    def __reduce_ex__(self, protocol):
        # pickled as the plain tensor plus the class and its metadata (format, canvas_size, ...), so that DataLoader
        # workers and copy.copy keep the type
        with _C.DisableTorchFunctionSubclass():
            plain = self.as_subclass(ember.Tensor)
        return (_rebuild, (type(self), plain, dict(self.__dict__)))


class Image(TVTensor):
    """An image or a batch of images, [..., C, H, W] (a 2-d input gets a channel dim). Takes tensors, arrays, nested
    lists and, with Pillow, PIL images."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        if _is_pil(data):
            from .transforms.v2 import functional as F

            data = F.pil_to_tensor(data)
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 2:
            raise ValueError("Tensor must be 2D or higher, got %dD tensor." % tensor.ndim)
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        return tensor.as_subclass(cls)


class Video(TVTensor):
    """A video or a batch of videos, [..., T, C, H, W]."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 4:
            raise ValueError("Tensor must be 4D or higher, got %dD tensor." % tensor.ndim)
        return tensor.as_subclass(cls)


class Mask(TVTensor):
    """Segmentation or detection masks, [..., H, W]. Takes PIL images with Pillow (as [C, H, W], C = 1 for mode L)."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        if _is_pil(data):
            from .transforms.v2 import functional as F

            data = F.pil_to_tensor(data)  # [C, H, W], as torchvision: a mode-L mask is [1, H, W]
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        return tensor.as_subclass(cls)


class BoundingBoxFormat(enum.Enum):
    """XYXY (corners), XYWH (top-left corner, size), CXCYWH (center, size); the rotated formats XYWHR, CXCYWHR (the
    angle in degrees, counter-clockwise) and XYXYXYXY (the four corners)."""

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"
    XYWHR = "XYWHR"
    CXCYWHR = "CXCYWHR"
    XYXYXYXY = "XYXYXYXY"


def is_rotated_bounding_format(format):
    if isinstance(format, BoundingBoxFormat):
        return format in (BoundingBoxFormat.XYWHR, BoundingBoxFormat.CXCYWHR, BoundingBoxFormat.XYXYXYXY)
    if isinstance(format, str):
        return format in ("XYWHR", "CXCYWHR", "XYXYXYXY")
    raise ValueError("format should be str or BoundingBoxFormat, got %s" % type(format).__name__)


def _format(format):
    if isinstance(format, BoundingBoxFormat):
        return format
    if isinstance(format, str):
        try:
            return BoundingBoxFormat[format.upper()]
        except KeyError:
            raise KeyError(
                "unknown bounding box format %r (expected one of %s)"
                % (format, ", ".join(BoundingBoxFormat.__members__))
            ) from None
    raise TypeError("format should be a str or a BoundingBoxFormat, got %s" % type(format).__name__)


def _canvas(canvas_size):
    if not isinstance(canvas_size, (tuple, list)) or len(canvas_size) != 2:
        raise ValueError("canvas_size should be a (height, width) pair, got %r" % (canvas_size,))
    return tuple(int(v) for v in canvas_size)


class BoundingBoxes(TVTensor):
    """Boxes, [N, K] (a 1-d input is one box), with their ``format``, the ``canvas_size`` (H, W) of their image and the
    ``clamping_mode`` ("soft", "hard" or None) that ClampBoundingBoxes and the geometry transforms apply."""

    @classmethod
    def _wrap(cls, tensor, *, format, canvas_size, clamping_mode="soft", check_dims=True):
        if check_dims:
            if tensor.ndim == 1:
                tensor = tensor.unsqueeze(0)
            elif tensor.ndim != 2:
                raise ValueError("Expected a 1D or 2D tensor, got %dD" % tensor.ndim)
        if clamping_mode is not None and clamping_mode not in ("hard", "soft"):
            raise ValueError("clamping_mode must be None, hard or soft, got %s." % (clamping_mode,))
        boxes = tensor.as_subclass(cls)
        boxes.format = _format(format)
        boxes.canvas_size = _canvas(canvas_size)
        boxes.clamping_mode = clamping_mode
        return boxes

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        return cls._wrap(
            tensor,
            format=kwargs.get("format", like.format),
            canvas_size=kwargs.get("canvas_size", like.canvas_size),
            clamping_mode=kwargs.get("clamping_mode", like.clamping_mode),
        )

    def __new__(cls, data, *, format, canvas_size, clamping_mode="soft", dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        fmt = _format(format)
        if not tensor.is_floating_point() and is_rotated_bounding_format(fmt):
            raise ValueError("Rotated bounding boxes should be floating point tensors, got %s." % tensor.dtype)
        return cls._wrap(tensor, format=fmt, canvas_size=canvas_size, clamping_mode=clamping_mode)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        first = next(x for x in _flat((args, kwargs or {})) if isinstance(x, BoundingBoxes))
        meta = dict(format=first.format, canvas_size=first.canvas_size, clamping_mode=first.clamping_mode)
        if isinstance(output, ember.Tensor) and not isinstance(output, BoundingBoxes):
            output = BoundingBoxes._wrap(output, check_dims=False, **meta)
        elif isinstance(output, (tuple, list)):  # chunk, unbind (tolist's numbers stay numbers)
            output = type(output)(
                BoundingBoxes._wrap(p, check_dims=False, **meta) if isinstance(p, ember.Tensor) else p for p in output
            )
        return output

    def __repr__(self):
        return self._make_repr(format=self.format, canvas_size=self.canvas_size, clamping_mode=self.clamping_mode)


class KeyPoints(TVTensor):
    """Points, [..., 2] as (x, y), with the ``canvas_size`` (H, W) of their image."""

    @classmethod
    def _wrap(cls, tensor, *, canvas_size, check_dims=True):
        if check_dims:
            if tensor.ndim == 1:
                tensor = tensor.unsqueeze(0)
            elif tensor.shape[-1] != 2:
                raise ValueError("Expected a tensor of shape (..., 2), not %s" % (tensor.shape,))
        points = tensor.as_subclass(cls)
        points.canvas_size = _canvas(canvas_size)
        return points

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        return cls._wrap(tensor, canvas_size=kwargs.get("canvas_size", like.canvas_size))

    def __new__(cls, data, *, canvas_size, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        return cls._wrap(tensor, canvas_size=canvas_size)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        first = next(x for x in _flat((args, kwargs or {})) if isinstance(x, KeyPoints))
        if isinstance(output, ember.Tensor) and not isinstance(output, KeyPoints):
            output = KeyPoints._wrap(output, canvas_size=first.canvas_size, check_dims=False)
        elif isinstance(output, (tuple, list)):
            output = type(output)(
                KeyPoints._wrap(p, canvas_size=first.canvas_size, check_dims=False)
                if isinstance(p, ember.Tensor)
                else p
                for p in output
            )
        return output

    def __repr__(self):
        return self._make_repr(canvas_size=self.canvas_size)


def _rebuild(cls, tensor, state):
    out = tensor.as_subclass(cls)
    out.__dict__.update(state)
    return out


def wrap(wrappee, *, like, **kwargs):
    """`wrappee` as the TVTensor type of `like`, with its metadata (format, canvas_size, ...) unless kwargs override
    them."""
    method = getattr(type(like), "wrap", None)
    if method is not None:
        return method(wrappee, like, **kwargs)
    return wrappee.as_subclass(type(like))


def _is_pil(obj):
    try:
        import PIL.Image
    except ImportError:
        return False
    return isinstance(obj, PIL.Image.Image)
