"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (thread-local, in C++).

Each works as a context manager and as a decorator, as in PyTorch.
"""

import functools

from .. import _C


class _DecoratorContextManager:
    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class _GradMode(_DecoratorContextManager):
    _mode = True

    def __new__(cls, orig_func=None):
        # @no_grad without parentheses decorates the function directly (as PyTorch 2 allows).
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False


class no_grad(_GradMode):
    """Ops inside do not record the graph."""

    _mode = False


class enable_grad(_GradMode):
    """Ops inside record the graph (inside no_grad too)."""

    _mode = True


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off; takes effect at once (as a function call) and restores on exit."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and is_inference_mode_enabled() reports it (ember has no separate inference tensors)."""

    def __new__(cls, mode=True):
        if callable(mode):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = (_C.is_grad_enabled(), _C.is_inference_mode_enabled())
        if self.mode:
            _C._set_grad_enabled(False)
        _C._set_inference_mode(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev[0])
        _C._set_inference_mode(self.prev[1])
        return False

    def clone(self):
        return self.__class__(self.mode)


# The C++ functions themselves (documented in python/src/autograd.cpp), as ember.is_grad_enabled is.
is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled
