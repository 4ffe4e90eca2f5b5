"""Names PyTorch exports that ember derives from its other functions, in one place (no list to keep in sync):

- the top-level in-place functions (torch.abs_, torch.clamp_, ...): Tensor.X_ for every X at top level;
- the *_copy functions (torch.view_copy, torch.permute_copy, ...): a contiguous copy of what the view returns;
- torch.detach / detach_ / zero_, which are Tensor methods at top level.
"""
from ._C import Tensor

# PyTorch's view ops that have a *_copy twin at top level (torch 1.13), by the method that makes the view.
_VIEWS = ("view", "permute", "expand", "t", "transpose", "unsqueeze", "squeeze", "select", "diagonal", "as_strided",
          "detach", "unfold", "split", "split_with_sizes", "unbind", "alias", "slice")


def _copied(r):
    if isinstance(r, (tuple, list)):
        return type(r)(_copied(t) for t in r)
    return r.contiguous() if not r.is_contiguous() else r.clone()


def _slice(input, dim=0, start=None, end=None, step=1):
    dim = dim + input.dim() if dim < 0 else dim
    return input[(slice(None),) * dim + (slice(start, end, step),)]


def _alias(input):
    return input.view(input.shape)


def _copy_function(name, view):
    def f(input, *args, **kwargs):
        kwargs.pop("implicit", None)  # expand_copy's flag for traced graphs: no effect
        return _copied(view(input, *args, **kwargs))
    f.__name__ = f.__qualname__ = name + "_copy"
    f.__module__ = "ember"
    f.__doc__ = "A contiguous copy of ember.Tensor.%s's result (torch.%s_copy)." % (name, name)
    return f


def install(namespace):
    """Adds the derived names to `namespace` (ember's globals), never replacing one it has."""
    extra = {"detach": Tensor.detach, "detach_": Tensor.detach_, "zero_": Tensor.zero_}
    for name in dir(Tensor):
        if name.endswith("_") and not name.startswith("_") and name[:-1] in namespace:
            extra[name] = getattr(Tensor, name)
    special = {"slice": _slice, "alias": _alias}
    for name in _VIEWS:
        view = special.get(name) or getattr(Tensor, name)
        extra[name + "_copy"] = _copy_function(name, view)
    for name, value in extra.items():
        namespace.setdefault(name, value)
