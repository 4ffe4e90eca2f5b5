"""ember.autograd.Function: user-defined ops with a hand-written backward.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    y = Exp.apply(x)

forward runs with grad mode off; the call is recorded as one graph node (a C++ node that calls backward with
the GIL held). backward is itself recorded when the backward pass runs with create_graph=True, so a Function
whose backward is written with ember ops can be differentiated again.
"""

from .. import _C
from .._C import Tensor


class FunctionCtx:
    """The ctx object passed to forward and backward."""

    def __init__(self, cls, args):
        self._cls = cls
        self._num_args = len(args)
        self._tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self._to_save = ()
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self._node = None
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument %d is not a Tensor or None"
                    % tensors.index(t)
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        if self._node is None:
            return tuple(self._to_save)
        return tuple(_C._saved_tensors(self._node))

    saved_variables = saved_tensors

    def _run_backward(self, grads):
        result = self._cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        name = self._cls.__name__ + "Backward"
        if len(result) != self._num_args:
            if len(result) > self._num_args and all(r is None for r in result[self._num_args :]):
                result = result[: self._num_args]
            else:
                raise RuntimeError(
                    "function %s returned an incorrect number of gradients (expected %d, got %d)"
                    % (name, self._num_args, len(result))
                )
        out = []
        for i, r in enumerate(result):
            if i in self._tensor_positions:
                if r is not None and not isinstance(r, Tensor):
                    raise TypeError(
                        "function %s returned a gradient of type %s at index %d; expected a Tensor "
                        "or None" % (name, type(r).__name__, i)
                    )
                out.append(r)
            elif r is not None:
                raise RuntimeError(
                    "function %s returned a gradient different than None at position %d, but the "
                    "corresponding forward input was not a Tensor" % (name, i + 1)
                )
        return out


class _FunctionMeta(type):
    pass


class Function(metaclass=_FunctionMeta):
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call with Function.apply."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-"
            "style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError(
                "%s.apply() takes positional arguments only (got keyword arguments %s)"
                % (cls.__name__, ", ".join(kwargs))
            )
        ctx = FunctionCtx(cls, args)
        tensors = [a for a in args if isinstance(a, Tensor)]
        record = _C.is_grad_enabled() and any(t.requires_grad for t in tensors)
        ctx.needs_input_grad = tuple(record and isinstance(a, Tensor) and a.requires_grad for a in args)
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            outputs = cls.forward(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)
        if not record:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        new = _C._record_function(
            ctx, cls.__name__ + "Backward", tensors, outs, ctx._dirty, ctx._non_differentiable, ctx._to_save
        )
        ctx._to_save = ()
        return new[0] if single else tuple(new)


def once_differentiable(fn):
    """Marks a backward that cannot be differentiated again: it runs with grad mode off."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            return fn(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)

    return wrapper
