"""The Tensor methods written in Python, attached to ember.Tensor here and nowhere else (Note [Python surface] in
docs/architecture.md): every other method is bound in C++ by its op family's binding file (python/src)."""

from . import _C, _histogram, _tensor_types
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


# ---- the conjugate and negative bits, which ember's tensors never have (docs/dtypes.md) ---------------------------


def resolve_neg(self):
    """Returns this tensor with its negation materialized: ember has no negative bit, so the tensor itself.
    See :func:`ember.resolve_neg`."""
    return self


def is_conj(self):
    """Returns True if this tensor's conjugate bit is set: always False, as ember's conj() copies (no lazy bit)."""
    return False


def is_neg(self):
    """Returns True if this tensor's negative bit is set: always False, as ember has none."""
    return False


def is_inference(self):
    """Returns True if this is an inference tensor: always False, as ember's inference_mode makes none."""
    return False


_METHODS = {
    "backward": backward,
    "type": type,
    # x.histogram(bins, ...) is ember.histogram(x, bins, ...): the same function, whose first parameter is `input`
    "histogram": _histogram.histogram,
    "resolve_neg": resolve_neg,
    "is_conj": is_conj,
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
        if getattr(value, "__module__", None) == __name__:
            value.__qualname__ = "Tensor." + name  # pickles and prints as the method it is
        setattr(Tensor, name, value)


_attach()
