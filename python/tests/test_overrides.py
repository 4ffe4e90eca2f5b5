"""ember.overrides: the public helpers of __torch_function__ (PyTorch's torch.overrides)."""

import inspect

import pytest
from both_libraries import needs_torch, run_ember, run_torch

import ember
import ember.nn.functional as F
from ember import overrides


class Like:
    """A tensor-like type (not a Tensor) that records what it was called with."""

    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func, types, args, kwargs))
        return "handled"


def test_has_torch_function():
    t = ember.ones(1)
    assert not overrides.has_torch_function((t, 1, "a", None))
    assert overrides.has_torch_function((t, Like()))
    assert overrides.has_torch_function_unary(Like()) and not overrides.has_torch_function_unary(t)
    assert overrides.has_torch_function_variadic(t, Like()) and not overrides.has_torch_function_variadic(t, t)
    assert not overrides.has_torch_function_unary(ember.nn.Parameter(ember.ones(1)))  # Parameter opts out
    with ember._C.DisableTorchFunctionSubclass():
        assert not overrides.has_torch_function_unary(Like())
    with overrides.BaseTorchFunctionMode():
        assert overrides.has_torch_function_unary(t)  # a mode sees every call


def test_handle_torch_function_from_python():
    def my_func(a, b=1):
        if overrides.has_torch_function_variadic(a, b):
            return overrides.handle_torch_function(my_func, (a, b), a, b=b)
        return "plain"

    Like.calls.clear()
    assert my_func(ember.ones(1)) == "plain"
    like = Like()
    assert my_func(like, b=2) == "handled"
    func, types, args, kwargs = Like.calls[-1]
    assert func is my_func and types == (Like,) and args == (like,) and kwargs == {"b": 2}

    class No:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    with pytest.raises(
        TypeError,
        match=r"no implementation found for '.*my_func' on types that implement "
        r"__torch_function__: \[<class '.*No'>\]",
    ):
        overrides.handle_torch_function(my_func, (No(),), No())


def test_wrap_torch_function():
    @overrides.wrap_torch_function(lambda a, scale=1: (a,))
    def scaled(a, scale=1):
        return a * scale

    assert scaled(ember.tensor([1.0, 2.0]), 3).tolist() == [3.0, 6.0]
    Like.calls.clear()
    assert scaled(Like(), 3) == "handled"
    assert Like.calls[-1][0] is scaled and scaled.__name__ == "scaled"


def test_calls_reach_the_handler_with_the_public_function():
    Like.calls.clear()
    like = Like()
    t = ember.ones(2)
    assert ember.add(t, like, alpha=2) == "handled"
    assert ember.cat([t, like]) == "handled"
    assert F.relu(like) == "handled"
    assert ember.linalg.norm(like) == "handled"
    assert ember.special.expm1(like) == "handled"
    funcs = [c[0] for c in Like.calls]
    assert funcs == [ember.add, ember.cat, F.relu, ember.linalg.norm, ember.special.expm1]
    assert Like.calls[0][2] == (t, like) and Like.calls[0][3] == {"alpha": 2}
    assert Like.calls[1][2] == ([t, like],) and Like.calls[1][3] is None


def test_is_tensor_like_and_methods():
    assert overrides.is_tensor_like(ember.ones(1)) and overrides.is_tensor_like(Like())
    assert not overrides.is_tensor_like(1) and not overrides.is_tensor_like([ember.ones(1)])
    assert overrides.is_tensor_method_or_property(ember.Tensor.add)
    assert overrides.is_tensor_method_or_property(ember.Tensor.shape.__get__)
    assert overrides.is_tensor_method_or_property(ember.Tensor.backward)
    assert not overrides.is_tensor_method_or_property(ember.add)


def test_overridable_and_ignored_functions():
    funcs = overrides.get_overridable_functions()
    assert ember.add in funcs[ember] and ember.cat in funcs[ember]
    assert F.relu in funcs[ember.nn.functional] and F.one_hot in funcs[ember.nn.functional]
    assert ember.linalg.svd in funcs[ember.linalg]
    assert ember.Tensor.add in funcs[ember.Tensor] and ember.Tensor.shape.__get__ in funcs[ember.Tensor]
    ignored = overrides.get_ignored_functions()
    assert ember.is_tensor in ignored and ember.set_num_threads in ignored and ember.zeros in ignored
    assert not (ignored & set(funcs[ember]))


def test_every_overridable_function_dispatches():
    # PyTorch's own test: a type whose __torch_function__ answers every function gets every call, whatever the
    # other arguments, as long as it is passed where the function looks (here: first).
    testing = overrides.get_testing_overrides()
    assert ember.add in testing and testing[ember.add]() == -1
    assert str(inspect.signature(testing[ember.add])) == str(inspect.signature(ember.add))

    class Answer:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("answered", func)

    checked = 0
    for ns in (ember, F, ember.linalg, ember.special):
        for func in overrides.get_overridable_functions()[ns]:
            assert func(Answer()) == ("answered", func), func
            checked += 1
    assert checked > 500


def test_modes_push_and_pop():
    class M(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    m1, m2 = M(), M()
    assert overrides._get_current_function_mode() is None
    with m1:
        with m2:
            assert overrides._get_current_function_mode_stack() == [m1, m2]
            assert overrides._pop_mode() is m2
            assert overrides._get_current_function_mode() is m1
            overrides._push_mode(m2)
        assert overrides._len_torch_function_stack() == 1
    assert ember._C._len_torch_function_stack() == 0
    with pytest.raises(RuntimeError, match="empty mode stack"):
        overrides._pop_mode()
    with pytest.warns(UserWarning, match="no longer necessary"):
        assert isinstance(M.push(), M)
    with overrides.enable_reentrant_dispatch():
        assert (ember.ones(1) + 1).tolist() == [2.0]


OVERRIDES_SURFACE = """
o = torch.overrides
result = sorted(n for n in ["BaseTorchFunctionMode", "TorchFunctionMode", "enable_reentrant_dispatch",
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
    "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like",
    "is_tensor_method_or_property", "wrap_torch_function", "_pop_mode", "_push_mode", "_pop_mode_temporarily",
    "_get_current_function_mode", "_get_current_function_mode_stack"] if hasattr(o, n))
"""


@needs_torch
def test_the_names_are_pytorchs():
    assert run_ember(OVERRIDES_SURFACE) == run_torch(OVERRIDES_SURFACE)
