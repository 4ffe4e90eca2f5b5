"""The Tensor methods written in Python, attached to ember.Tensor here and nowhere else (Note [Python surface] in
docs/architecture.md): every other method is bound in C++ by its op family's binding file (python/src)."""

import builtins
import inspect
import types as _types

from . import _C, _histogram, _spectral, _tensor_types
from . import autograd as _autograd
from . import storage as _storage

Tensor = _C.Tensor
_type_binding = Tensor.type  # the C++ binding: type() names the dtype, type(dtype) converts to it


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor with respect to the leaves of the graph that made it, and accumulates
    it into their ``.grad``.

    The graph is differentiated by the chain rule. A tensor of more than one element needs `gradient`: the gradient
    of the differentiated quantity with respect to this tensor, of its shape. Gradients accumulate: zero the leaves'
    ``.grad`` (or set it to None) between steps. See :func:`ember.autograd.backward`.

    Args:
        gradient (Tensor, optional): the gradient with respect to this tensor; may be omitted for a one-element
            tensor (it is then 1).
        retain_graph (bool, optional): keep the graph's saved tensors so that backward can run through it again;
            by default the value of `create_graph`.
        create_graph (bool): record the backward pass itself, so that higher-order derivatives can be taken.
        inputs (sequence of Tensor, optional): the tensors whose ``.grad`` receives gradients; by default every leaf
            of the graph.

    Example::

        >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
    """
    _autograd.backward(self, gradient, retain_graph, create_graph, inputs)


def type(self, dtype=None, non_blocking=False, **kwargs):  # noqa: A001
    """Returns the legacy type's name of this tensor when `dtype` is not given, else this tensor converted to
    `dtype`.

    ``x.type()`` is a name such as ``'ember.FloatTensor'`` or ``'ember.cuda.LongTensor'``. `dtype` may be a dtype,
    a legacy type (``ember.cuda.HalfTensor``) or its name (``'torch.cuda.HalfTensor'``); the tensor itself is
    returned when it already has that type.

    Args:
        dtype (dtype, type or str, optional): the type to convert to.
        non_blocking (bool): copy asynchronously between pinned CPU memory and a CUDA device.
        **kwargs: ``async``, PyTorch's old name of `non_blocking`.
    """
    non_blocking = non_blocking or bool(kwargs.pop("async", False))
    if kwargs:
        raise TypeError("type() got an unexpected keyword argument '%s'" % next(iter(kwargs)))
    if dtype is None:
        return _tensor_types._type_name(self)
    legacy = _tensor_types._resolve(dtype)
    if legacy is None:
        return _type_binding(self, dtype)
    if isinstance(self, legacy):
        return self
    device = "cuda" if legacy.is_cuda else "cpu"
    if legacy.is_cuda and self.is_cuda:
        device = self.device
    return self.to(device=device, dtype=legacy.dtype, non_blocking=non_blocking)


# ---- __torch_function__ (docs/extending.md; the C++ check: Note [Dispatching __torch_function__]) --------------------


def __torch_function__(cls, func, types, args=(), kwargs=None):
    """The default ``__torch_function__`` of Tensor subclasses: runs ``func`` with subclass handling disabled and
    returns its tensors as instances of ``cls`` (tuples and lists of tensors too), except for the functions of
    ``_get_default_nowrap_functions()`` (``Tensor.grad.__get__``). Returns NotImplemented when one of ``types`` is not
    a superclass of ``cls``, so that a more specific type's handler runs."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with _C.DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in _get_default_nowrap_functions():
            return ret
        return _convert(ret, cls)


def _convert(ret, cls):
    """`ret` with its tensors as instances of `cls` (through as_subclass: a view that keeps the autograd history)."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        t = builtins.type(ret)
        return t._make(items) if hasattr(t, "_fields") else t(items)
    return ret


_NOWRAP = None


def _get_default_nowrap_functions():
    """What the default __torch_function__ returns unwrapped: the accessors of a tensor's gradient, as PyTorch's."""
    global _NOWRAP
    if _NOWRAP is None:
        _NOWRAP = {getattr(Tensor, name).__get__ for name in ("grad", "_grad", "_base") if name in Tensor.__dict__}
    return _NOWRAP


def __init_subclass__(cls, **kwargs):
    """Turns on the __torch_function__ check for every call once a subclass that does not disable it exists."""
    super(Tensor, cls).__init_subclass__(**kwargs)
    tf = inspect.getattr_static(cls, "__torch_function__", None)
    if tf is not _C._disabled_torch_function_impl:
        _C._note_torch_function_type()
    if "__torch_dispatch__" in cls.__dict__:
        from .utils import _python_dispatch

        _python_dispatch._note_dispatch_type(cls)


# ---- __torch_dispatch__ (docs/extending.md; the machinery is ember.utils._python_dispatch) -------------------------


def _disabled_torch_dispatch_impl(func, types, args=(), kwargs=None):
    """Tensor.__torch_dispatch__: the default, which handles nothing (a subclass that defines its own is called)."""
    return NotImplemented


def _make_wrapper_subclass(cls, size, *args, **kwargs):
    """A ``cls`` instance with the given geometry and no data of its own: what a wrapper subclass's ``__new__``
    returns (PyTorch's ``Tensor._make_wrapper_subclass``; see ember.utils._python_dispatch)."""
    from .utils import _python_dispatch

    return _python_dispatch._make_wrapper_subclass(cls, size, *args, **kwargs)


# ---- the negative bit, which ember's tensors never have (docs/dtypes.md) -------------------------------------------


def resolve_neg(self):
    """Returns this tensor with its negation materialized: ember has no negative bit, so the tensor itself.
    See :func:`ember.resolve_neg`."""
    return self


def is_neg(self):
    """Returns True if this tensor's negative bit is set: always False, as ember has none."""
    return False


def is_inference(self):
    """Returns True if this is an inference tensor: always False, as ember's inference_mode makes none."""
    return False


_METHODS = {
    "__torch_function__": classmethod(__torch_function__),
    "__init_subclass__": classmethod(__init_subclass__),
    "backward": backward,
    "type": type,
    # x.histogram(bins, ...) is ember.histogram(x, bins, ...): the same function, whose first parameter is `input`
    "histogram": _histogram.histogram,
    "stft": _spectral.stft,
    "istft": _spectral.istft,
    "__torch_dispatch__": _disabled_torch_dispatch_impl,
    "_make_wrapper_subclass": staticmethod(_make_wrapper_subclass),
    "resolve_neg": resolve_neg,
    "is_neg": is_neg,
    "is_inference": is_inference,
    "untyped_storage": _storage._untyped_storage,
    "storage": _storage._storage,
    # Layouts and devices ember's tensors never have (dense, strided, CPU or CUDA), for programs that test them
    "is_xpu": property(lambda self: False, doc="False: ember has no XPU device."),
    "is_mps": property(lambda self: False, doc="False: ember has no MPS device."),
    "is_sparse": property(lambda self: False, doc="False: ember's tensors are dense (strided)."),
    "is_sparse_csr": property(lambda self: False, doc="False: ember's tensors are dense (strided)."),
    "is_quantized": property(lambda self: False, doc="False: ember has no quantized dtypes."),
    "is_nested": property(lambda self: False, doc="False: ember has no nested tensors."),
    "is_mkldnn": property(lambda self: False, doc="False: ember has no MKL-DNN layout."),
    "is_meta": property(lambda self: self.device.type == "meta", doc="True for a tensor on the meta device."),
}
# Replaced on purpose: the binding of `type`, which knows dtypes only (kept above as _type_binding).
_REPLACES_BINDING = ("type",)


def _attach():
    for name, value in _METHODS.items():
        if name in Tensor.__dict__ and name not in _REPLACES_BINDING:
            # One place per method: a C++ binding of the same name would be silently shadowed.
            raise RuntimeError("ember._tensor: Tensor.%s is bound in C++ already; define it in one place" % name)
        if isinstance(value, _types.FunctionType) and value.__module__ == __name__:
            value.__qualname__ = "Tensor." + name  # pickles and prints as the method it is
        setattr(Tensor, name, value)


_attach()


def _reattach(name, value):
    """Replaces Tensor's attribute `name` (ember.overrides puts its __torch_function__ check in front of the methods
    written in Python: this file stays the one place that assigns Tensor's attributes)."""
    setattr(Tensor, name, value)
