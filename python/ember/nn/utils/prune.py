"""ember.nn.utils.prune, as torch.nn.utils.prune: pruning by reparametrization.

Pruning `name` of a module moves the parameter to `name + "_orig"`, registers the binary mask as the buffer
`name + "_mask"` and installs the pruning method as a forward pre-hook that recomputes
`name = name_mask * name_orig` before every forward; state_dict keys are therefore `<name>_orig` and
`<name>_mask`, as in PyTorch. Pruning the same tensor again composes the masks in a PruningContainer (each
new method only sees the entries / channels still unpruned). Masks are computed with ember ops (topk, norm,
index_fill_, index_copy); nothing loops over elements in Python.
"""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import ember

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


class BasePruningMethod(ABC):
    """Abstract pruning method: subclasses define `compute_mask(t, default_mask)` and `PRUNING_TYPE`
    ("unstructured", "structured" with a `dim` attribute, or "global")."""

    _tensor_name: str

    def __call__(self, module, inputs):
        # forward pre-hook: refresh the pruned tensor from the (possibly updated) original and mask
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """Return the mask for `t`, combined with `default_mask` (the mask of earlier pruning rounds)."""

    def apply_mask(self, module):
        name = getattr(self, "_tensor_name", None)
        if name is None:
            raise AssertionError("Module {} has to be pruned".format(module))
        mask = getattr(module, name + "_mask")
        orig = getattr(module, name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Add the pruning reparametrization of `module.<name>` (or extend the existing one) and return the
        pruning method that is now the module's hook for `name`."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if tuple(importance_scores.shape) != tuple(orig.shape):
                raise AssertionError(
                    "importance_scores should have the same shape as parameter {} of {} (got {} and {})".format(
                        name, module, tuple(importance_scores.shape), tuple(orig.shape)
                    )
                )
        else:
            importance_scores = orig

        first = not isinstance(method, PruningContainer)
        if first:
            # move the parameter aside; `name` becomes a plain attribute recomputed by the hook
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ember.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=ember.contiguous_format)

        try:
            with ember.no_grad():
                mask = method.compute_mask(importance_scores.detach(), default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # undo the reparametrization so the module is left as it was
                orig = getattr(module, name + "_orig")
                del module._parameters[name + "_orig"]
                module.register_parameter(name, orig)
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """Return the pruned version of tensor `t` (masks computed from `importance_scores` if given)."""
        if importance_scores is not None:
            if tuple(importance_scores.shape) != tuple(t.shape):
                raise AssertionError("importance_scores should have the same shape as tensor t")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ember.ones_like(t)
        with ember.no_grad():
            mask = self.compute_mask(importance_scores.detach(), default_mask=default_mask)
        return t * mask

    def remove(self, module):
        """Make the pruning permanent: `name` becomes an ordinary parameter holding the pruned values;
        `name_orig` and `name_mask` disappear."""
        name = getattr(self, "_tensor_name", None)
        if name is None:
            raise AssertionError("Module {} has to be pruned before pruning can be removed".format(module))
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        with ember.no_grad():
            orig.copy_(weight)
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    """The new method, folded into a PruningContainer with the hook already pruning `name`, if any."""
    old_keys = [
        k
        for k, hook in module._forward_pre_hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    if len(old_keys) > 1:
        raise AssertionError(
            "Avoid adding multiple pruning hooks to the same tensor {} of module {}. Use a PruningContainer.".format(
                name, module
            )
        )
    old = module._forward_pre_hooks[old_keys[0]] if old_keys else None
    for k in old_keys:
        del module._forward_pre_hooks[k]
        module._forward_pre_hooks_with_kwargs.pop(k, None)

    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old is None:
        return method
    if isinstance(old, PruningContainer):
        old.add_pruning_method(method)
        return old
    container = PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods applied to one tensor; each new method prunes only what is left."""

    def __init__(self, *args):
        self._pruning_methods = tuple()
        if len(args) == 1 and not isinstance(args[0], BasePruningMethod) and isinstance(args[0], Iterable):
            args = tuple(args[0])
        if args and isinstance(args[0], BasePruningMethod) and hasattr(args[0], "_tensor_name"):
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError("{} is not a BasePruningMethod subclass".format(type(method)))
        if method is not None and getattr(self, "_tensor_name", None) != getattr(method, "_tensor_name", None):
            raise ValueError(
                "Can only add pruning methods acting on the parameter named '{}' to PruningContainer "
                "{}. Found '{}'".format(
                    getattr(self, "_tensor_name", None), self, getattr(method, "_tensor_name", None)
                )
            )
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """Apply the newest method to the still-unpruned part of `t` and merge its mask into `default_mask`."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            # the method sees the surviving entries only, as a 1-D tensor
            keep = (default_mask == 1).reshape(-1).nonzero().reshape(-1)
            flat = new_mask.reshape(-1)
            part = method.compute_mask(t.reshape(-1).index_select(0, keep), default_mask=flat.index_select(0, keep))
            flat = flat.index_copy(0, keep, part.to(dtype=flat.dtype))
            return flat.reshape(new_mask.shape)
        if kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` defined.'
                )
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0 or dim >= n_dims:
                raise IndexError("Index is out of bounds for tensor with dimensions {}".format(n_dims))
            others = [d for d in range(n_dims) if d != dim]
            alive = default_mask.sum(dim=others) != 0 if others else default_mask != 0
            keep = alive.nonzero().reshape(-1)
            part = method.compute_mask(t.index_select(dim, keep), default_mask=new_mask.index_select(dim, keep))
            return new_mask.index_copy(dim, keep, part.to(dtype=new_mask.dtype))
        if kind == "global":
            part = method.compute_mask(t, default_mask=new_mask)
            return part.to(dtype=new_mask.dtype)
        raise ValueError("Unrecognized PRUNING_TYPE {}".format(kind))


class Identity(BasePruningMethod):
    """Leaves the tensor unpruned (mask of ones) but installs the reparametrization."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super(Identity, cls).apply(module, name)


class _UnstructuredByScore(BasePruningMethod):
    """Prunes the `amount` entries that come first in `_drop_scores(t)` order (topk over the flattened tensor)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.numel()
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        mask = default_mask.clone(memory_format=ember.contiguous_format)
        if k != 0:
            scores, largest = self._drop_scores(t)
            idx = ember.topk(scores.reshape(-1), k=k, largest=largest).indices
            mask.view(-1).index_fill_(0, idx, 0)
        return mask


class RandomUnstructured(_UnstructuredByScore):
    """Prunes `amount` entries chosen uniformly at random."""

    def _drop_scores(self, t):
        return ember.rand_like(t, dtype=t.dtype if t.is_floating_point() else ember.float32), True

    @classmethod
    def apply(cls, module, name, amount):
        return super(RandomUnstructured, cls).apply(module, name, amount=amount)


class L1Unstructured(_UnstructuredByScore):
    """Prunes the `amount` entries with the smallest absolute value."""

    def _drop_scores(self, t):
        return ember.abs(t), False

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super(L1Unstructured, cls).apply(module, name, amount=amount, importance_scores=importance_scores)


class _StructuredByScore(BasePruningMethod):
    """Prunes the `amount` channels along `dim` with the lowest `_keep_scores(t)` (one score per channel)."""

    PRUNING_TYPE = "structured"

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, channels)
        _validate_pruning_amount(k, channels)
        if k == 0:
            return default_mask
        keep = ember.topk(self._keep_scores(t, channels), k=channels - k, largest=True).indices
        mask = _channel_mask(t, self.dim, keep)
        return mask * default_mask.to(dtype=mask.dtype)


class RandomStructured(_StructuredByScore):
    """Prunes `amount` whole channels along `dim`, chosen at random."""

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def _keep_scores(self, t, channels):
        return ember.rand(channels, device=t.device)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super(RandomStructured, cls).apply(module, name, amount=amount, dim=dim)


class LnStructured(_StructuredByScore):
    """Prunes the `amount` channels along `dim` with the smallest L`n` norm (n: a number, inf or -inf)."""

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def _keep_scores(self, t, channels):
        return _compute_norm(t, self.n, self.dim)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super(LnStructured, cls).apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes with a user-given mask (combined with any earlier mask)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise AssertionError(
                "custom_from_mask: mask of shape {} does not match the tensor's shape {}".format(
                    tuple(self.mask.shape), tuple(default_mask.shape)
                )
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype, device=default_mask.device)

    @classmethod
    def apply(cls, module, name, mask):
        return super(CustomFromMask, cls).apply(module, name, mask=mask)


def identity(module, name):
    """Reparametrize `module.<name>` without pruning anything; returns the module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune `amount` (int count or float fraction) random entries of `module.<name>`; returns the module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the `amount` entries of `module.<name>` with the smallest |importance score|; returns the module."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune `amount` random channels of `module.<name>` along `dim`; returns the module."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the `amount` channels along `dim` with the smallest L`n` norm; returns the module."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) pairs in `parameters` together: the tensors are flattened into one vector, the
    unstructured `pruning_method(**kwargs)` computes one mask over it, and each tensor gets its slice through
    custom_from_mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")

    def flat(tensors):
        return ember.cat([x.detach().reshape(-1) for x in tensors]) if tensors else ember.zeros(0)

    scores = flat([importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    default_mask = flat(
        [
            m._buffers[n + "_mask"] if n + "_mask" in m._buffers else ember.ones_like(getattr(m, n))
            for m, n in parameters
        ]
    )

    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method {} of type {}'.format(
                pruning_method, method.PRUNING_TYPE
            )
        )
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    with ember.no_grad():
        final_mask = container.compute_mask(scores, default_mask)

    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        n = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + n].view_as(param))
        start += n


def custom_from_mask(module, name, mask):
    """Prune `module.<name>` with the given mask (zeros are pruned); returns the module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of `module.<name>` permanent and drop the reparametrization; returns the module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            module._forward_pre_hooks_with_kwargs.pop(k, None)
            return module
    raise ValueError("Parameter '{}' of module {} has to be pruned before pruning can be removed".format(name, module))


def is_pruned(module):
    """True if `module` or any submodule carries a pruning forward pre-hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )


# ---- validation and helpers


def _validate_pruning_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError("Invalid type for amount: {}. Must be int or float.".format(amount))
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0
    ):
        raise ValueError(
            "amount={} should either be a float in the range [0, 1] or a non-negative integer".format(amount)
        )


def _validate_pruning_amount(amount, tensor_size):
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            "amount={} should be smaller than the number of parameters to prune={}".format(amount, tensor_size)
        )


def _validate_structured_pruning(t):
    shape = tuple(t.shape)
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
            "{} with {} dims".format(shape, len(shape))
        )


def _compute_nparams_toprune(amount, tensor_size):
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim):
    if dim >= t.dim() or dim < -t.dim():
        raise IndexError("Invalid index {} for tensor of size {}".format(dim, tuple(t.shape)))


def _compute_norm(t, n, dim):
    dim = dim + t.dim() if dim < 0 else dim
    return ember.norm(t, p=n, dim=[d for d in range(t.dim()) if d != dim])


def _channel_mask(t, dim, keep):
    """Zeros like `t` with ones in the channels `keep` along `dim`."""
    shape = list(t.shape)
    shape[dim] = 1
    ones = ember.ones(shape, dtype=t.dtype, device=t.device).expand(*t.shape)
    return ember.zeros_like(t).index_copy(dim, keep, ones.index_select(dim, keep))
