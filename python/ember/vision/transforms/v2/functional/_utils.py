"""The kernel registry of transforms.v2.functional: each functional dispatches on its input's type (a plain tensor
is an image) to the kernel registered for that type or the nearest base class, as torchvision's."""

import functools

import ember

from .... import tv_tensors

_KERNELS = {}
# The functionals whose PIL kernel is the tensor kernel between pil_to_tensor and to_pil_image (torchvision's).
_PIL_VIA_TENSOR = set()


def is_pure_tensor(inpt):
    return isinstance(inpt, ember.Tensor) and not isinstance(inpt, tv_tensors.TVTensor)


def _is_pil(inpt):
    return tv_tensors._is_pil(inpt)


def _pil_type():
    try:
        import PIL.Image

        return PIL.Image.Image
    except ImportError:
        return None


def _plain(t):
    return t.as_subclass(ember.Tensor) if type(t) is not ember.Tensor else t


def _wrap_kernel(kernel):
    """An image/video/mask kernel applied to a TVTensor: the kernel sees a plain tensor, the result is re-wrapped."""

    @functools.wraps(kernel)
    def wrapper(inpt, *args, **kwargs):
        out = kernel(_plain(inpt), *args, **kwargs)
        return tv_tensors.wrap(out, like=inpt)

    return wrapper


def _register(functional, input_type, *, wrapper=True):
    registry = _KERNELS.setdefault(functional, {})
    if input_type in registry:
        raise ValueError("Functional %s already has a kernel registered for type %s." % (functional, input_type))

    def decorator(kernel):
        registry[input_type] = (
            _wrap_kernel(kernel)
            if wrapper and isinstance(input_type, type) and issubclass(input_type, tv_tensors.TVTensor)
            else kernel
        )
        return kernel

    return decorator


def register_kernel(functional, tv_tensor_cls):
    """Registers a kernel of `functional` (a function of transforms.v2.functional) for a custom TVTensor class; the
    kernel gets the TVTensor itself and returns what the functional should (torchvision's contract)."""
    if not callable(functional) or functional.__module__ is None:
        raise ValueError("Kernels can only be registered on functionals, got %r" % (functional,))
    if not (isinstance(tv_tensor_cls, type) and issubclass(tv_tensor_cls, tv_tensors.TVTensor)):
        raise ValueError("Kernels can only be registered for subclasses of TVTensor, got %r" % (tv_tensor_cls,))
    if tv_tensor_cls in (
        tv_tensors.Image,
        tv_tensors.Video,
        tv_tensors.Mask,
        tv_tensors.BoundingBoxes,
        tv_tensors.KeyPoints,
    ):
        raise ValueError(
            "Kernels cannot be registered for the builtin tv_tensor types, got %s" % tv_tensor_cls.__name__
        )
    return _register(functional, tv_tensor_cls, wrapper=False)


def _noop(inpt, *args, **kwargs):
    return inpt


def _get_kernel(functional, input_type, *, allow_passthrough=False):
    registry = _KERNELS.get(functional, {})
    pil = _pil_type()
    for cls in input_type.__mro__:
        if cls in registry:
            return registry[cls]
        if cls is tv_tensors.TVTensor or (pil is not None and cls is pil):
            break
    if pil is not None and issubclass(input_type, pil) and functional in _PIL_VIA_TENSOR:
        return _pil_adapter(registry[ember.Tensor])
    if allow_passthrough:
        return _noop
    raise TypeError(
        "Functional F.%s supports inputs of type %s, but got %s instead."
        % (functional.__name__, [getattr(t, "__name__", t) for t in registry], input_type)
    )


def _pil_adapter(kernel):
    """A PIL image through an image kernel: converted to a uint8 [C, H, W] tensor and back."""

    def run(img, *args, **kwargs):
        from ._type_conversion import pil_to_tensor, to_pil_image

        out = kernel(pil_to_tensor(img), *args, **kwargs)
        if isinstance(out, ember.Tensor) and out.ndim == 3:
            return to_pil_image(out, mode=img.mode if out.shape[0] == len(img.getbands()) else None)
        return out

    return run


def _dispatch(functional):
    """The functional's body: the kernel of the input's type."""

    @functools.wraps(functional)
    def call(inpt, *args, **kwargs):
        kernel = _get_kernel(call, type(inpt))
        return kernel(inpt, *args, **kwargs)

    return call
