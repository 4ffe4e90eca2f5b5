"""__torch_function__: Tensor subclasses, tensor-like types, modes, as_subclass, the disabling context managers
(docs/extending.md). The programs that PyTorch can run too are run in both and compared (both_libraries.py)."""

import subprocess
import sys

import numpy as np
import pytest
from both_libraries import needs_torch, run_ember, run_torch

import ember

# A logging subclass through a small training step: forward, loss, backward, optimizer step.
TRAINING_STEP = """
class Logged(torch.Tensor):
    log = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.log.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs)

def phase(name):
    out = [name] + list(Logged.log)
    Logged.log.clear()
    return out

w = torch.tensor([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]]).as_subclass(Logged).requires_grad_()
b = torch.tensor([0.1, 0.2, 0.3]).as_subclass(Logged).requires_grad_()
x = torch.tensor([[1.0, 2.0], [3.0, -1.0]]).as_subclass(Logged)
y = torch.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]])
phases = [phase("setup")]
opt = torch.optim.SGD([w, b], lr=0.1)
phase("optimizer")  # PyTorch's constructor reads is_leaf, ember's does not
out = torch.nn.functional.linear(x, w, b)
h = torch.relu(out) * 2.0
phases.append(phase("forward"))
loss = torch.nn.functional.mse_loss(h, y)
phases.append(phase("loss"))
loss.backward()
phases.append(phase("backward"))
grad_types = [type(w.grad).__name__, type(b.grad).__name__]
grads = [w.grad.tolist(), b.grad.tolist()]
phase("reading the gradients")
opt.step()
step_log = phase("step")
result = {
    "phases": phases,
    "types": [type(out).__name__, type(h).__name__, type(loss).__name__],
    "grad_types": grad_types,
    "grads": grads,
    "loss": loss.item(),
    "step_logged": len(step_log) > 1,
    "weights": [w.tolist(), b.tolist()],
    "weight_types": [type(w).__name__, type(b).__name__],
}
"""


def test_logging_subclass_training_step():
    r = run_ember(TRAINING_STEP)
    phases = {p[0]: p[1:] for p in r["phases"]}
    assert phases["setup"] == ["requires_grad_", "requires_grad_"]
    assert phases["forward"] == ["linear", "relu", "mul"]  # an operator reaches handlers as its method (PyTorch's)
    assert phases["loss"] == ["mse_loss"]
    assert phases["backward"] == ["backward"]
    assert r["step_logged"]  # the optimizer's update of the subclass's parameters went through it
    assert r["types"] == ["Logged", "Logged", "Logged"]
    assert r["weight_types"] == ["Logged", "Logged"]
    # Closed form: out = x w^T + b, h = 2 relu(out), loss = mean((h - y)^2), w -= 0.1 grad.
    x = [[1.0, 2.0], [3.0, -1.0]]
    w = [[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]]
    b = [0.1, 0.2, 0.3]
    y = [[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]]
    out = [[sum(x[i][k] * w[j][k] for k in range(2)) + b[j] for j in range(3)] for i in range(2)]
    h = [[2 * max(v, 0.0) for v in row] for row in out]
    loss = sum((h[i][j] - y[i][j]) ** 2 for i in range(2) for j in range(3)) / 6
    assert r["loss"] == pytest.approx(loss, rel=1e-6)
    dh = [[2 * (h[i][j] - y[i][j]) / 6 * (2.0 if out[i][j] > 0 else 0.0) for j in range(3)] for i in range(2)]
    gw = [[sum(dh[i][j] * x[i][k] for i in range(2)) for k in range(2)] for j in range(3)]
    gb = [sum(dh[i][j] for i in range(2)) for j in range(3)]
    np.testing.assert_allclose(r["grads"][0], gw, rtol=1e-5)
    np.testing.assert_allclose(r["grads"][1], gb, rtol=1e-5)
    np.testing.assert_allclose(r["weights"][0], np.array(w) - 0.1 * np.array(gw), rtol=1e-5)


@needs_torch
def test_logging_subclass_training_step_matches_pytorch():
    ours, theirs = run_ember(TRAINING_STEP), run_torch(TRAINING_STEP)
    # PyTorch's SGD updates through _foreach ops, ember's through one fused call: the other phases match exactly.
    assert [p for p in ours["phases"] if p[0] != "step"] == [p for p in theirs["phases"] if p[0] != "step"]
    for key in ("types", "grad_types", "step_logged", "weight_types"):
        assert ours[key] == theirs[key], key
    assert ours["loss"] == pytest.approx(theirs["loss"], rel=1e-6)
    np.testing.assert_allclose(ours["weights"][0], theirs["weights"][0], rtol=1e-6)


SUBCLASS_RESULTS = """
class S(torch.Tensor):
    pass

s = torch.arange(6.0).view(2, 3).as_subclass(S)
names = lambda v: [type(e).__name__ for e in v]
result = {
    "ops": names([s + 1, torch.add(s, 1), s.sum(), torch.cat([s, s]), s[0], s.t(), -s, s.clone(), s.float()]),
    "tuple": names(torch.split(s, 1)),
    "max": names(s.max(0)),
    "max_type": type(s.max(0)).__name__,
    "list": names(s.unbind(0)),
    "shape": type(s.shape).__name__,
    "dtype": type(s.dtype).__name__,
    "item": type(s.sum().item()).__name__,
    "inplace_is_self": s.add_(1) is s,
    "values": (s * 2).tolist(),
}
"""


def test_results_of_ops_on_a_subclass_are_the_subclass():
    r = run_ember(SUBCLASS_RESULTS)
    assert set(r["ops"]) == {"S"}
    assert r["tuple"] == ["S", "S"] and r["list"] == ["S", "S"] and r["max"] == ["S", "S"]
    assert r["max_type"] == "max"
    assert r["shape"] == "Size" and r["dtype"] == "dtype" and r["item"] == "float"
    assert r["inplace_is_self"]
    assert r["values"] == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]


@needs_torch
def test_results_of_ops_on_a_subclass_match_pytorch():
    assert run_ember(SUBCLASS_RESULTS) == run_torch(SUBCLASS_RESULTS)


def test_as_subclass_round_trip_shares_memory_and_history():
    class S(ember.Tensor):
        pass

    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = x.as_subclass(S)
    assert type(s) is S and s.requires_grad and not s.is_leaf
    back = s.as_subclass(ember.Tensor)
    assert type(back) is ember.Tensor
    (back * ember.tensor([2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 3.0, 4.0]
    plain = ember.zeros(3)
    view = plain.as_subclass(S)
    view.fill_(7.0)  # same memory
    assert plain.tolist() == [7.0, 7.0, 7.0]
    p = ember.Tensor._make_subclass(S, ember.ones(2), True)
    assert type(p) is S and p.is_leaf and p.requires_grad


def test_as_subclass_errors():
    x = ember.ones(2)
    with pytest.raises(TypeError, match=r"cls must be a type \(got int\)"):
        x.as_subclass(3)
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        x.as_subclass(int)


ORDERING = """
log = []

def handler(name, answer):
    def tf(cls, func, types, args=(), kwargs=None):
        log.append(name)
        if answer == "value":
            return name
        return NotImplemented
    return classmethod(tf)

class A(torch.Tensor):
    __torch_function__ = handler("A", "no")

class B(A):
    __torch_function__ = handler("B", "no")

class C:
    __torch_function__ = handler("C", "no")

class D:
    __torch_function__ = handler("D", "value")

a = torch.ones(1).as_subclass(A)
b = torch.ones(1).as_subclass(B)
runs = []
for args in [(a, b), (b, a), (C(), D()), (D(), C()), (a, C()), (C(), a, D())]:
    log.clear()
    try:
        out = torch.add(*args[:2]) if len(args) == 2 else torch.cat(list(args))
        runs.append([list(log), out])
    except TypeError as e:
        runs.append([list(log), "TypeError", str(e).splitlines()[0].replace("ember", "torch")])
log.clear()
try:
    a + b
    runs.append("no error")
except TypeError as e:
    runs.append([list(log), str(e)])
result = runs
"""


def test_not_implemented_tries_the_next_handler_in_order():
    r = run_ember(ORDERING)
    assert r[0][0] == ["B", "A"] and r[0][1] == "TypeError"  # subclass before superclass, though right of it
    assert r[1][0] == ["B", "A"]
    assert r[2] == [["C", "D"], "D"]  # unrelated types: left to right
    assert r[3] == [["D"], "D"]
    assert r[4][0] == ["A", "C"]
    assert r[5] == [["C", "A", "D"], "D"]  # the tensors of cat's list
    assert (
        r[0][2] == "Multiple dispatch failed for 'torch.add'; all __torch_function__ handlers returned NotImplemented:"
    )
    # a binary operator's TypeError becomes NotImplemented, so that Python reports the operand types
    assert r[6][0][:2] == ["B", "A"] and r[6][1] == "unsupported operand type(s) for +: 'A' and 'B'"


@needs_torch
def test_not_implemented_ordering_matches_pytorch():
    assert run_ember(ORDERING) == run_torch(ORDERING)


MODES = """
TorchFunctionMode = torch.overrides.TorchFunctionMode

class Logger(TorchFunctionMode):
    def __init__(self, name, log):
        super().__init__()
        self.name, self.log = name, log

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.log.append(self.name + ":" + func.__name__)
        return func(*args, **(kwargs or {}))

class Doubler(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.add:
            return out * 2
        return out

log = []
x = torch.tensor([1.0, 2.0])
with Logger("outer", log):
    with Logger("inner", log):
        y = torch.add(x, 1)
        z = y.sum()
        s = x.shape
        t = torch.nn.functional.relu(x)
    w = torch.mul(x, 3)
after = torch.add(x, 1)
with Doubler():
    doubled = torch.add(x, 1).tolist()
with torch._C.DisableTorchFunction():
    with Logger("off", log):
        torch.add(x, 1)
result = {"log": log, "after": after.tolist(), "doubled": doubled, "z": z.item(), "stack":
          torch.overrides._len_torch_function_stack() if hasattr(torch.overrides, "_len_torch_function_stack")
          else torch._C._len_torch_function_stack()}
"""


def test_modes_intercept_functions_and_methods_and_nest():
    r = run_ember(MODES)
    assert r["log"] == [
        "inner:add",
        "outer:add",
        "inner:sum",
        "outer:sum",
        "inner:__get__",
        "outer:__get__",
        "inner:relu",
        "outer:relu",
        "outer:mul",
    ]
    assert r["after"] == [2.0, 3.0] and r["doubled"] == [4.0, 6.0] and r["z"] == 5.0 and r["stack"] == 0


@needs_torch
def test_modes_match_pytorch():
    assert run_ember(MODES) == run_torch(MODES)


def test_parameter_disables_torch_function():
    p = ember.nn.Parameter(ember.ones(2))
    assert ember.nn.Parameter.__torch_function__ is ember._C._disabled_torch_function_impl
    assert type(p * 2) is ember.Tensor and type(ember.add(p, 1)) is ember.Tensor
    assert type(p) is ember.nn.Parameter
    seen = []

    class Seen(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func.__name__, types))
            return func(*args, **(kwargs or {}))

    with Seen():
        (p * 3).sum()
    assert seen == [("mul", ()), ("sum", ())]  # modes still see Parameters' ops; no type overrides them


def test_disable_torch_function_subclass():
    class S(ember.Tensor):
        pass

    s = ember.ones(2).as_subclass(S)
    with ember._C.DisableTorchFunctionSubclass():
        assert type(s + 1) is ember.Tensor
        assert not ember._C._is_torch_function_enabled()
    assert type(s + 1) is S and ember._C._is_torch_function_enabled()
    with ember._C.DisableTorchFunction():
        assert type(s + 1) is ember.Tensor and ember._C._is_torch_function_all_disabled()


def test_user_exception_propagates_unchanged():
    class Boom(Exception):
        pass

    err = Boom("from the handler")

    class S(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            raise err

    s = ember.ones(1).as_subclass(S)
    for call in (
        lambda: s + 1,
        lambda: ember.exp(s),
        lambda: s.sum(),
        lambda: s.shape,
        lambda: ember.nn.functional.one_hot(s),
    ):
        with pytest.raises(Boom) as info:
            call()
        assert info.value is err


def test_recursion_through_a_handler_is_a_recursion_error():
    class Loop(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))  # never disables itself

    class LoopMode(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            with self:  # pushes itself again
                return func(*args, **(kwargs or {}))

    with pytest.raises(RecursionError):
        ember.ones(1).as_subclass(Loop) + 1
    with pytest.raises(RecursionError):
        with LoopMode():
            ember.add(ember.ones(1), 1)
    assert ember._C._len_torch_function_stack() == 0
    assert (ember.ones(1) + 1).tolist() == [2.0]


def test_tensor_like_type_that_is_not_a_tensor():
    class Scalar:
        """PyTorch's docs' example: a tensor-like object that implements a few functions."""

        handled = {}

        def __init__(self, n, value):
            self.n, self.value = n, value

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func not in cls.handled:
                return NotImplemented
            return cls.handled[func](*args, **(kwargs or {}))

    Scalar.handled[ember.mean] = lambda s: float(s.value)
    Scalar.handled[ember.add] = lambda a, b: Scalar(a.n, a.value + b)
    d = Scalar(5, 2.0)
    assert ember.mean(d) == 2.0
    assert ember.add(d, 3).value == 5.0
    with pytest.raises(TypeError, match=r"Multiple dispatch failed for 'ember.exp'"):
        ember.exp(d)


def test_fast_path_stays_off_in_a_plain_program():
    # Importing ember (Parameter, lazy modules' placeholders) turns nothing on: every call takes the fast path.
    # A tensor-like object that is not a Tensor is found when the call fails to convert it, and the call retried.
    code = """if True:
        import ember
        m = ember.nn.Linear(2, 2)
        m(ember.ones(1, 2)).sum()
        print(ember._C._torch_function_active())
        try:
            ember.zeros(())[0]  # an error on the fast path is the op's own (looking for a tensor-like kept it)
        except IndexError as e:
            print(type(e).__name__)

        class Like:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return func.__name__

        print(ember.nn.functional.one_hot(Like()), ember._C._torch_function_active(), ember.mean(Like()))
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "IndexError", "one_hot", "1", "mean"]
