"""__torch_dispatch__ (TorchDispatchMode, subclasses, _make_wrapper_subclass), ember.ops.aten, ember.library's custom
ops and make_fx (issue 22). The op lists are compared with the reference PyTorch's when it is installed."""

import numpy as np
import pytest
from both_libraries import needs_torch, run_ember, run_torch

import ember
from ember.fx.experimental.proxy_tensor import make_fx
from ember.library import Library, custom_op, register_autograd
from ember.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode


class Recorder(TorchDispatchMode):
    def __init__(self, tag="", log=None):
        super().__init__()
        self.tag, self.log = tag, [] if log is None else log

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(self.tag + str(func))
        return func(*args, **(kwargs or {}))


MLP_PROGRAM = """
class Rec(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
x = torch.randn(5, 4)
with Rec() as fwd:
    loss = net(x).sum()
with Rec() as bwd:
    loss.backward()
skip = ("aten.detach.default",)
result = [[f for f in fwd.log if f not in skip], [f for f in bwd.log if f not in skip]]
"""


def _run_ember(program):
    return run_ember(program)


def _run_torch(program):
    """`program` on PyTorch 2.15, whose TorchDispatchMode lives in torch.utils._python_dispatch."""
    return run_torch("import torch.utils._python_dispatch\n" + program)


def _assert_cases_reach_modes(program, wanted, unlike_pytorch=()):
    """Runs `program` (a dict of case -> (ops, err)) on ember: each case records `wanted`'s ops (except the cases in
    `unlike_pytorch`, which the caller checks) and its values and gradients under the mode are the plain ones."""
    got = _run_ember(program)
    for k, want in wanted.items():
        ops, err = got[k]
        if k not in unlike_pytorch:
            assert ops == want, k
        assert err < 1e-12, k
    return got


def _pytorch_case_ops(program):
    """The op list PyTorch's own mode records for each case of `program`."""
    got = _run_torch(program)
    return {k: v[0] for k, v in got.items()}


def _run_ember_mlp():
    return run_ember(MLP_PROGRAM)


def test_mode_records_mlp_forward_and_backward():
    fwd, bwd = _run_ember_mlp()
    assert fwd == ["aten.t.default", "aten.addmm.default", "aten.relu.default", "aten.t.default",
                   "aten.addmm.default", "aten.sum.default"]  # fmt: skip
    # the backward's ops: seeded with ones_like, relu's gradient as threshold_backward, the weights' through mm
    assert bwd[0] == "aten.ones_like.default"
    assert bwd.count("aten.threshold_backward.default") == 1
    assert bwd.count("aten.mm.default") == 3  # dx of layer 2, dW of layer 2, dW of layer 1
    assert bwd.count("aten.sum.dim_IntList") == 2  # the two biases


@needs_torch
def test_mode_op_names_match_pytorch():
    e_fwd, e_bwd = _run_ember_mlp()
    t_fwd, t_bwd = _run_torch(MLP_PROGRAM)
    assert e_fwd == t_fwd
    # PyTorch's backward: expand; t+mm; sum; view; threshold_backward; ... ember's transposes are transpose.int (mT)
    # and it reshapes the bias gradients with extra views and clones (docs/extending.md lists the differences).
    common = {"aten.ones_like.default", "aten.mm.default", "aten.sum.dim_IntList", "aten.threshold_backward.default"}
    assert [f for f in e_bwd if f in common] == [f for f in t_bwd if f in common]


def test_mode_sees_values_and_can_replace_results():
    class Doubler(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return out * 2 if func is ember.ops.aten.relu.default else out

    x = ember.tensor([-1.0, 2.0, 3.0])
    with Doubler():
        y = ember.relu(x) + 1
    np.testing.assert_allclose(y.numpy(), [1.0, 5.0, 7.0])


def test_modes_nest_innermost_first_and_stack_queries():
    log = []
    x = ember.ones(2)
    assert _get_current_dispatch_mode() is None
    with Recorder("outer:", log) as outer, Recorder("inner:", log) as inner:
        assert _get_current_dispatch_mode() is inner
        ember.mul(x, 3)
    assert _get_current_dispatch_mode() is None and outer is not inner
    assert log == ["inner:aten.mul.Tensor", "outer:aten.mul.Tensor"]


def test_disable_current_modes():
    from ember.utils._python_dispatch import _disable_current_modes

    log = []
    with Recorder("a:", log) as a, Recorder("b:", log) as b:
        with _disable_current_modes() as modes:
            ember.neg(ember.ones(1))
            assert modes == [a, b] and _get_current_dispatch_mode() is None
        ember.exp(ember.ones(1))
    # the factory reaches the modes too, as in PyTorch
    assert log == ["b:aten.ones.default", "a:aten.ones.default", "b:aten.exp.default", "a:aten.exp.default"]


def test_overload_objects_have_pytorch_names():
    add = ember.ops.aten.add.Tensor
    assert add.name() == "aten::add.Tensor"
    assert str(add) == "aten.add.Tensor"
    assert add.overloadpacket is ember.ops.aten.add
    assert add._schema == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    np.testing.assert_allclose(add(ember.ones(2), ember.ones(2), alpha=3).numpy(), [4.0, 4.0])
    np.testing.assert_allclose(ember.ops.aten.mm.default(ember.eye(2), ember.full((2, 2), 5.0)).numpy(), 5.0)


def test_kwargs_only_when_not_default():
    seen = []

    class Kw(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((str(func), len(args), dict(kwargs or {})))
            return func(*args, **(kwargs or {}))

    x = ember.ones(3)
    with Kw():
        ember.add(x, x)
        r = ember.add(x, x, alpha=2)
        ember.sum(ember.ones(2, 3), 1)
    np.testing.assert_allclose(r.numpy(), 3.0)
    # the factory's keyword arguments as PyTorch's dispatcher fills them in (device and pin_memory, not dtype)
    ones = ("aten.ones.default", 1, {"device": ember.device("cpu"), "pin_memory": False})
    assert seen == [
        ("aten.add.Tensor", 2, {}),
        ("aten.add.Tensor", 2, {"alpha": 2}),
        ones,
        ("aten.sum.dim_IntList", 2, {}),
    ]


def test_infinite_recursion_is_a_recursion_error():
    class Loop(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            with self:  # re-entering itself: every call dispatches to it again
                return func(*args, **(kwargs or {}))

    with pytest.raises(RecursionError, match="maximum recursion depth exceeded"), Loop():
        ember.neg(ember.ones(2))
    assert _get_current_dispatch_mode() is None
    np.testing.assert_allclose(ember.neg(ember.ones(2)).numpy(), -1.0)  # still works afterwards

    class Unwrapped(ember.Tensor):  # a wrapper whose handler forgets to unwrap: each op dispatches to it again
        @staticmethod
        def __new__(cls, elem):
            return ember.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with pytest.raises(RecursionError, match="maximum recursion depth exceeded"):
        ember.neg(Unwrapped(ember.ones(2)))


def logging_tensor_class():
    """A subclass over real data whose __torch_dispatch__ logs each op and runs it on plain tensors (a new class per
    test: a class defining __torch_dispatch__ keeps the ops' hook on while it exists)."""

    class LoggingTensor(ember.Tensor):
        log = []

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            cls.log.append(str(func))

            def unwrap(a):
                return a.as_subclass(ember.Tensor) if isinstance(a, LoggingTensor) else a

            out = func(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in (kwargs or {}).items()})
            return out.as_subclass(LoggingTensor) if isinstance(out, ember.Tensor) else out

    return LoggingTensor


def test_logging_subclass_through_a_training_step():
    LoggingTensor = logging_tensor_class()
    rng = np.random.default_rng(0)
    w0, x0, t0 = (rng.standard_normal(s).astype(np.float32) for s in ((3, 2), (4, 3), (4, 2)))
    LoggingTensor.log.clear()
    w = ember.tensor(w0).as_subclass(LoggingTensor).requires_grad_()
    x = ember.tensor(x0).as_subclass(LoggingTensor)
    loss = ((x @ w - ember.tensor(t0)) ** 2).mean()
    loss.backward()
    assert isinstance(loss, LoggingTensor)
    # d/dw mean((xw - t)^2) = 2 x^T (xw - t) / n
    np.testing.assert_allclose(w.grad.numpy(), 2 * x0.T @ (x0 @ w0 - t0) / t0.size, rtol=1e-5, atol=1e-6)
    assert LoggingTensor.log[:4] == ["aten.mm.default", "aten.sub.Tensor", "aten.pow.Tensor_Scalar",
                                     "aten.mean.default"]  # fmt: skip
    assert "aten.ones_like.default" in LoggingTensor.log[4:]  # the backward's ops reach the subclass too


def test_wrapper_subclass():
    class Scaled(ember.Tensor):
        """A wrapper subclass: no data of its own, it holds a tensor and a scale."""

        __torch_function__ = ember._C._disabled_torch_function_impl

        @staticmethod
        def __new__(cls, elem, scale):
            r = ember.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device)
            r._elem, r._scale = elem, scale
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            def unwrap(a):
                return a._elem * a._scale if isinstance(a, Scaled) else a

            out = func(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in (kwargs or {}).items()})
            return Scaled(out, 1.0) if isinstance(out, ember.Tensor) else out

    a = Scaled(ember.tensor([[1.0, 2.0], [3.0, 4.0]]), 0.5)
    assert a.shape == (2, 2) and a.dtype == ember.float32 and a.device == ember.device("cpu")
    b = ember.tensor([[1.0, 0.0], [1.0, 1.0]])
    c = ember.mm(a, b) + 1
    assert isinstance(c, Scaled)
    np.testing.assert_allclose(c._elem.numpy(), 0.5 * np.array([[1.0, 2.0], [3.0, 4.0]]) @ b.numpy() + 1)


def wrapped_tensor_class():
    """A wrapper subclass that logs each op and computes it on the tensor it wraps (in-place ops update that one)."""

    class Wrapped(ember.Tensor):
        __torch_function__ = ember._C._disabled_torch_function_impl
        log = []

        @staticmethod
        def __new__(cls, elem, requires_grad=False):
            r = ember.Tensor._make_wrapper_subclass(
                cls, elem.shape, dtype=elem.dtype, device=elem.device, requires_grad=requires_grad
            )
            r._elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            cls.log.append(str(func))

            def unwrap(a):
                if isinstance(a, (list, tuple)):
                    return type(a)(unwrap(x) for x in a)
                return a._elem if isinstance(a, Wrapped) else a

            out = func(*unwrap(tuple(args)), **{k: unwrap(v) for k, v in (kwargs or {}).items()})
            if func.overloadpacket.__name__.endswith("_"):
                return args[0]  # in place: the wrapped tensor was updated
            return Wrapped(out) if isinstance(out, ember.Tensor) else out

    return Wrapped


def test_wrapper_subclass_through_training_steps():
    from ember.utils import _python_dispatch as pd

    Wrapped = wrapped_tensor_class()
    rng = np.random.default_rng(1)
    w0, x0, t0 = (rng.standard_normal(s).astype(np.float32) for s in ((3, 2), (4, 3), (4, 2)))
    w = Wrapped(ember.tensor(w0), requires_grad=True)
    x = Wrapped(ember.tensor(x0))
    target = ember.tensor(t0)
    w_ref = w0.copy()
    for _ in range(2):
        loss = ember.relu(x @ w - target).pow(2).mean()
        assert isinstance(loss, Wrapped) and loss.grad_fn is not None and loss.device == ember.device("cpu")
        w.grad = None
        loss.backward()
        assert isinstance(w.grad, Wrapped)  # the gradient is a wrapper too, computed by the handler
        r = np.maximum(x0 @ w_ref - t0, 0)
        want = 2 * x0.T @ r / t0.size  # d/dw mean(relu(xw - t)^2)
        np.testing.assert_allclose(w.grad._elem.numpy(), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(loss._elem.numpy(), (r**2).mean(), rtol=1e-5)
        with ember.no_grad():
            w.sub_(w.grad, alpha=0.5)
        w_ref = w_ref - 0.5 * want
        np.testing.assert_allclose(w._elem.numpy(), w_ref, rtol=1e-5, atol=1e-6)
    log = Wrapped.log
    assert "aten.threshold_backward.default" in log and "aten.sub_.Tensor" in log  # the backward's ops, the step
    del loss, w, x, r
    ember.ones(1) + 1
    import gc

    gc.collect()
    assert not pd._wrappers  # the wrappers' identity entries go with their storages


def test_hook_is_on_while_a_dispatch_class_exists():
    import gc

    gc.collect()
    before = ember._C._python_dispatch_enabled()

    class Temporary(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    assert ember._C._python_dispatch_enabled() == before + 1
    with Recorder():
        assert ember._C._python_dispatch_enabled() == before + 2
    del Temporary
    gc.collect()
    assert ember._C._python_dispatch_enabled() == before


def test_dispatch_subclass_constructed_like_tensor():
    cls = logging_tensor_class()
    t = cls([1.0, 2.0])
    assert type(t) is cls
    np.testing.assert_allclose((t * 2).as_subclass(ember.Tensor).numpy(), [2.0, 4.0])
    assert cls.log == ["aten.mul.Tensor"]


def test_dispatch_type_returning_not_implemented_raises_type_error():
    class Refuses(ember.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    r = ember.ones(2).as_subclass(Refuses)
    with pytest.raises(TypeError, match="Multiple dispatch failed for aten.neg.default"):
        ember.neg(r)


# ---- ember.library -------------------------------------------------------------------------------------------------


@custom_op("emtest::numpy_sin", mutates_args=())
def numpy_sin(x: ember.Tensor, scale: float) -> ember.Tensor:
    return ember.from_numpy(np.sin(x.numpy()) * scale)


@numpy_sin.register_fake
def _(x, scale):
    return ember.empty_like(x)


def _setup(ctx, inputs, output):
    x, scale = inputs
    ctx.save_for_backward(x)
    ctx.scale = scale


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * x.cos() * ctx.scale, None


register_autograd("emtest::numpy_sin", _backward, setup_context=_setup)


def test_custom_op_trains_with_autograd_and_passes_gradcheck():
    x0 = np.linspace(-2, 2, 5)
    x = ember.tensor(x0, requires_grad=True)
    y = ember.ops.emtest.numpy_sin(x, 3.0)
    np.testing.assert_allclose(y.detach().numpy(), 3 * np.sin(x0))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.cos(x0))
    assert ember.autograd.gradcheck(
        lambda t: numpy_sin(t, 1.5), (ember.randn(4, dtype=ember.float64, requires_grad=True),)
    )
    assert ember.ops.emtest.numpy_sin.default._schema == "emtest::numpy_sin(Tensor x, float scale) -> Tensor"


def test_custom_op_meta_and_modes():
    m = numpy_sin(ember.empty(3, 2, device="meta"), 1.0)
    assert m.is_meta and m.shape == (3, 2)
    x = ember.ones(2, requires_grad=True)
    with Recorder() as rec:
        numpy_sin(x, 2.0).sum().backward()
    assert rec.log[0] == "emtest.numpy_sin.default"
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(1.0), rtol=1e-6)


def test_custom_op_errors():
    @custom_op("emtest::cpu_only", mutates_args=(), device_types="cpu")
    def cpu_only(x: ember.Tensor) -> ember.Tensor:
        return x + 1

    with pytest.raises(NotImplementedError, match="no fake impl"):
        cpu_only(ember.empty(2, device="meta"))
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="no autograd formula was registered"):
        cpu_only(x).sum().backward()
    with pytest.raises(ValueError, match="namespace::opname"):
        custom_op("noname", lambda x: x, mutates_args=())


def test_library_define_and_impl():
    lib = Library("emtest_lib", "DEF")
    try:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: x * 2, "CPU")
        lib.impl("twice", lambda x: ember.empty_like(x), "Meta")
        np.testing.assert_allclose(ember.ops.emtest_lib.twice(ember.tensor([1.0, 2.0])).numpy(), [2.0, 4.0])
        assert ember.ops.emtest_lib.twice(ember.empty(4, device="meta")).shape == (4,)
        with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
            Library("emtest_lib", "DEF")
    finally:
        lib._destroy()


# ---- make_fx -------------------------------------------------------------------------------------------------------


def test_make_fx_forward_graph_runs_equal():
    ember.manual_seed(0)
    net = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))

    def f(x):
        return net(x).sum(1)

    x = ember.randn(5, 3)
    gm = make_fx(f)(x)
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert targets == ["aten.t.default", "aten.addmm.default", "aten.relu.default", "aten.t.default",
                       "aten.addmm.default", "aten.sum.dim_IntList"]  # fmt: skip
    assert "ember.ops.aten.addmm.default(" in gm.code
    x2 = ember.randn(5, 3)
    np.testing.assert_allclose(gm(x2).numpy(), f(x2).detach().numpy(), rtol=1e-6)


def test_make_fx_traces_the_backward():
    def f(x, w):
        y = ember.tanh(x @ w).sum()
        return ember.autograd.grad(y, [x, w])

    x, w = ember.randn(4, 3, requires_grad=True), ember.randn(3, 2, requires_grad=True)
    gm = make_fx(f)(x, w)
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert "aten.tanh_backward.default" in targets and targets.count("aten.mm.default") == 3
    assert not [n for n in gm.graph.nodes if n.op == "get_attr"]  # everything comes from the inputs
    x2, w2 = ember.randn(4, 3, requires_grad=True), ember.randn(3, 2, requires_grad=True)
    for got, want in zip(gm(x2, w2), f(x2, w2)):
        np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    # closed form: d/dx sum(tanh(xw)) = (1 - tanh^2) w^T
    t = np.tanh(x2.detach().numpy() @ w2.detach().numpy())
    np.testing.assert_allclose(gm(x2, w2)[0].detach().numpy(), (1 - t**2) @ w2.detach().numpy().T, rtol=1e-5, atol=1e-6)


def test_inplace_ops_reach_modes_and_subclasses():
    x = ember.ones(3)
    with Recorder() as rec:
        x.add_(ember.ones(3), alpha=2)
        x.mul_(2)
        x.neg_()
        ember.nn.ReLU(inplace=True)(x)
    assert rec.log == ["aten.ones.default", "aten.add_.Tensor", "aten.mul_.Tensor", "aten.neg_.default",
                       "aten.relu_.default"]  # fmt: skip
    np.testing.assert_allclose(x.numpy(), 0.0)  # relu(-6)
    assert ember.ops.aten.relu_.default._schema == "aten::relu_(Tensor(a!) self) -> Tensor(a!)"
    x = ember.ones(3)
    # an SGD step on a subclass parameter
    LoggingTensor = logging_tensor_class()
    w = ember.tensor([1.0, 2.0]).as_subclass(LoggingTensor).requires_grad_()
    (w * w).sum().backward()
    with ember.no_grad():
        w.sub_(w.grad, alpha=0.25)
    assert LoggingTensor.log[-1] == "aten.sub_.Tensor"
    np.testing.assert_allclose(w.detach().numpy(), [0.5, 1.0])  # w - 0.25 * 2w


def test_handler_exceptions_propagate_unchanged_forward_and_backward():
    class Boom(Exception):
        pass

    class Raise(TorchDispatchMode):
        def __init__(self, target):
            super().__init__()
            self.target = target

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if str(func) == self.target:
                raise Boom(str(func))
            return func(*args, **(kwargs or {}))

    with pytest.raises(Boom, match="aten.exp.default"), Raise("aten.exp.default"):
        ember.exp(ember.ones(2))
    x = ember.ones(2, requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(Boom, match="aten.ones_like.default"), Raise("aten.ones_like.default"):
        y.backward()
    assert _get_current_dispatch_mode() is None


SOFTMAX_PROGRAM = """
class Rec(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
w = torch.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, -1.0]])
with Rec() as rec:
    y = torch.cat([x.log_softmax(1), x.softmax(0)], 1)
    (y * torch.cat([w, w], 1)).sum().backward()
want = ("aten._log_softmax.default", "aten._softmax.default", "aten.cat.default",
        "aten._log_softmax_backward_data.default", "aten._softmax_backward_data.default")
result = [[f for f in rec.log if f in want], x.grad.tolist()]
"""


def test_softmax_and_cat_reach_modes():
    ops_seen, grad = _run_ember(SOFTMAX_PROGRAM)
    assert ops_seen == ["aten._log_softmax.default", "aten._softmax.default", "aten.cat.default", "aten.cat.default",
                        "aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default"]  # fmt: skip
    # closed form: d/dx sum(w * log_softmax(x, 1)) + sum(w * softmax(x, 0))
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    w = np.array([[1.0, 0.0, 2.0], [3.0, 1.0, -1.0]])
    p1 = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    p0 = np.exp(x) / np.exp(x).sum(0, keepdims=True)
    want = w - p1 * w.sum(1, keepdims=True) + p0 * (w - (w * p0).sum(0, keepdims=True))
    np.testing.assert_allclose(grad, want, rtol=1e-5)


@needs_torch
def test_softmax_and_cat_op_order_matches_pytorch():
    assert _run_ember(SOFTMAX_PROGRAM)[0] == _run_torch(SOFTMAX_PROGRAM)[0]


def test_hook_turns_off_after_subclass_use():
    import gc

    gc.collect()
    before = ember._C._python_dispatch_enabled()
    LoggingTensor = logging_tensor_class()
    y = ember.ones(2).as_subclass(LoggingTensor) * 2
    assert isinstance(y, LoggingTensor) and ember._C._python_dispatch_enabled() == before + 1
    del y, LoggingTensor
    ember.ones(2) + 1  # an op of plain tensors releases the subclass results held for their callers
    gc.collect()
    assert ember._C._python_dispatch_enabled() == before


def _ember_schemas():
    """Every aten overload ember has, after the generated elementwise ones are looked up as the C++ ops name them."""
    import re
    from pathlib import Path

    from ember._ops import ops

    root = Path(__file__).resolve().parents[2] / "ember" / "ops"
    unary = re.findall(r"^EMBER_UNARY_(?:OP|SPECIAL)\(\w+, (\w+)", (root / "unary.def").read_text(), re.M)
    binary = re.findall(r"^EMBER_BINARY_(?:OP|SPECIAL)\(\w+, (\w+)", (root / "binary.def").read_text(), re.M)
    for n in unary:
        ops._lookup(f"aten.{n}.default")
    for n in binary:
        if n != "pow":
            ops._lookup(f"aten.{n}.Tensor")
    return {f"{n}.{ov}": op._schema for n, pk in ops.aten._packets.items() for ov, op in pk._overloads.items()}


def test_generated_elementwise_overloads_run_their_ops():
    schemas = _ember_schemas()
    assert len(schemas) > 100
    x = ember.tensor([0.25, 0.5])
    np.testing.assert_allclose(ember.ops.aten.exp.default(x).numpy(), np.exp([0.25, 0.5]), rtol=1e-6)
    np.testing.assert_allclose(ember.ops.aten.atan2.default(x, x + 1).numpy(), np.arctan2([0.25, 0.5], [1.25, 1.5]))
    assert schemas["maximum.default"] == "aten::maximum(Tensor self, Tensor other) -> Tensor"
    with Recorder() as rec:
        ember.maximum(x, x), ember.logical_and(x, x)
    assert rec.log == ["aten.maximum.default", "aten.logical_and.default"]


@needs_torch
def test_overload_names_and_schemas_match_pytorch():
    import json

    schemas = _ember_schemas()
    program = f"""
ember = {json.dumps(schemas)}
result = {{}}
for key, schema in ember.items():
    name, overload = key.split(".")
    op = getattr(getattr(torch.ops.aten, name, None), overload, None)
    theirs = str(op._schema) if op is not None else "missing"
    if theirs != schema:
        result[key] = theirs
"""
    assert run_torch(program) == {}


def test_library_composite_implicit_and_autograd_keys():
    lib = Library("emtest_keys", "DEF")
    try:
        lib.define("square(Tensor x) -> Tensor")
        lib.impl("square", lambda x: x * x, "CompositeImplicitAutograd")
        x = ember.tensor([1.0, -3.0], requires_grad=True)
        with Recorder() as rec:
            y = ember.ops.emtest_keys.square(x)
        assert rec.log == ["aten.mul.Tensor"]  # a composite op decomposes before modes, as in PyTorch
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [2.0, -6.0])  # autograd through its parts

        class Cube(ember.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g

        lib.define("cube(Tensor x) -> Tensor")
        lib.impl("cube", lambda x: x * x * x, "CPU")
        lib.impl("cube", Cube.apply, "Autograd")
        z = ember.tensor([2.0], requires_grad=True)
        ember.ops.emtest_keys.cube(z).backward()
        np.testing.assert_allclose(z.grad.numpy(), [12.0])
        np.testing.assert_allclose(ember.ops.emtest_keys.cube(ember.tensor([3.0])).numpy(), [27.0])
    finally:
        lib._destroy()


def test_make_fx_traces_a_backward_call_into_grads():
    def step(x, w):
        loss = ember.sigmoid(x @ w).sum()
        loss.backward()
        return w.grad

    x, w = ember.randn(4, 3), ember.randn(3, 2, requires_grad=True)
    gm = make_fx(step)(x, w)
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert "aten.sigmoid_backward.default" in targets and "aten.mm.default" in targets
    x2, w2 = ember.randn(4, 3), ember.randn(3, 2, requires_grad=True)
    s = 1 / (1 + np.exp(-(x2.numpy() @ w2.detach().numpy())))
    # d/dw sum(sigmoid(xw)) = x^T (s (1 - s))
    np.testing.assert_allclose(gm(x2, w2).detach().numpy(), x2.numpy().T @ (s * (1 - s)), rtol=1e-5, atol=1e-6)


PYTREE_PROGRAM = """
import collections
import importlib
pytree = importlib.import_module(torch.__name__ + ".utils._pytree")
Point = collections.namedtuple("Point", "x y")
tree = {"a": [1, (2, 3)], "b": None, "c": Point(4, [5]), "d": collections.OrderedDict(z=6, y=7), "e": ()}
leaves, spec = pytree.tree_flatten(tree)
back = pytree.tree_unflatten([v if v is None else v * 10 for v in leaves], spec)
mapped = pytree.tree_map(lambda v: v if v is None else v + 1, tree)
only = pytree.tree_map_only(int, lambda v: -v, [1, "s", (2.5, 3)])
result = [leaves, repr(back), repr(mapped), repr(only), spec.num_leaves, pytree.tree_structure(tree) == spec]
"""


def test_pytree_flatten_unflatten_map():
    leaves, back, mapped, only, n, same = _run_ember(PYTREE_PROGRAM)
    assert leaves == [1, 2, 3, None, 4, 5, 6, 7] and n == 8 and same
    assert back == (
        "{'a': [10, (20, 30)], 'b': None, 'c': Point(x=40, y=[50]), 'd': OrderedDict([('z', 60), ('y', 70)]), 'e': ()}"
    )
    assert mapped.startswith("{'a': [2, (3, 4)], 'b': None, 'c': Point(x=5, y=[6])")
    assert only == "[-1, 's', (2.5, -3)]"


@needs_torch
def test_pytree_matches_pytorch():
    assert _run_ember(PYTREE_PROGRAM) == run_torch(PYTREE_PROGRAM)


# ---- convolutions (issue 22's coverage) ----------------------------------------------------------------------------

CNN_PROGRAM = """
class Rec(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(3, 2, 2, stride=2),
                          torch.nn.Flatten(), torch.nn.Linear(8, 3))
x = torch.randn(2, 1, 4, 4)
with Rec() as fwd:
    loss = net(x).sum()
with Rec() as bwd:
    loss.backward()
skip = ("aten.detach.default",)
result = [[f for f in fwd.log if f not in skip], [f for f in bwd.log if f not in skip]]
"""


def test_mode_records_cnn_convolutions_forward_and_backward():
    fwd, bwd = _run_ember(CNN_PROGRAM)
    assert fwd == ["aten.convolution.default", "aten.relu.default", "aten.convolution.default", "aten.view.default",
                   "aten.t.default", "aten.addmm.default", "aten.sum.default"]  # fmt: skip
    # the second convolution's backward asks for all three gradients, the first's (its input needs none) for two
    assert bwd.count("aten.convolution_backward.default") == 2
    conv_bwd = [i for i, f in enumerate(bwd) if f == "aten.convolution_backward.default"]
    assert conv_bwd[0] < bwd.index("aten.threshold_backward.default") < conv_bwd[1]


@needs_torch
def test_cnn_op_names_match_pytorch():
    e_fwd, e_bwd = _run_ember(CNN_PROGRAM)
    t_fwd, t_bwd = _run_torch(CNN_PROGRAM)
    assert e_fwd == t_fwd
    # the backward's convolution ops come in PyTorch's order (ember's matrix-product gradients differ, see the MLP)
    keep = {"aten.convolution_backward.default", "aten.threshold_backward.default", "aten.ones_like.default"}
    assert [f for f in e_bwd if f in keep] == [f for f in t_bwd if f in keep]


def _conv_ref(x, w, b, stride, pad):
    """Direct cross-correlation in NumPy (the reference for aten.convolution)."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = x.shape
    co, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, co, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + b[None, :, None, None]


def test_aten_convolution_and_backward_values():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3)), rng.standard_normal(3)
    aten = ember.ops.aten
    xe, we, be = (ember.tensor(a, dtype=ember.float64) for a in (x, w, b))
    y = aten.convolution.default(xe, we, be, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)
    np.testing.assert_allclose(y.numpy(), _conv_ref(x, w, b, 2, 1), rtol=1e-10)
    gy = rng.standard_normal(y.shape)
    gx, gw, gb = aten.convolution_backward.default(
        ember.tensor(gy), xe, we, [3], [2, 2], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]
    )

    # the conv is linear in each operand: <gy, conv(x, w)> differentiated by central differences
    def f(xx, ww):
        return float((gy * _conv_ref(xx, ww, b, 2, 1)).sum())

    e = 1e-6
    for idx in [(0, 1, 2, 3), (1, 0, 0, 0)]:
        d = np.zeros_like(x)
        d[idx] = e
        assert abs(gx.numpy()[idx] - (f(x + d, w) - f(x - d, w)) / (2 * e)) < 1e-5
    for idx in [(2, 1, 0, 2), (0, 0, 1, 1)]:
        d = np.zeros_like(w)
        d[idx] = e
        assert abs(gw.numpy()[idx] - (f(x, w + d) - f(x, w - d)) / (2 * e)) < 1e-5
    np.testing.assert_allclose(gb.numpy(), gy.sum((0, 2, 3)), rtol=1e-10)
    gx2, gw2, gb2 = aten.convolution_backward.default(
        ember.tensor(gy), xe, we, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False]
    )
    assert gx2 is None and gb2 is None
    np.testing.assert_allclose(gw2.numpy(), gw.numpy(), rtol=1e-10)


def test_make_fx_cnn_forward_backward_has_no_constants():
    ember.manual_seed(0)
    conv1, conv2 = ember.nn.Conv2d(1, 3, 3, padding=1), ember.nn.Conv2d(3, 2, 2, stride=2)
    lin = ember.nn.Linear(8, 3)

    def step(x, w1, b1, w2, b2, lw, lb):
        h = ember.relu(ember.nn.functional.conv2d(x, w1, b1, padding=1))
        h = ember.nn.functional.conv2d(h, w2, b2, stride=2)
        loss = ember.nn.functional.linear(h.flatten(1), lw, lb).pow(2).mean()
        return ember.autograd.grad(loss, [w1, b1, w2, b2, lw, lb])

    params = [p.detach().clone().requires_grad_() for m in (conv1, conv2, lin) for p in (m.weight, m.bias)]
    x = ember.randn(2, 1, 4, 4)
    gm = make_fx(step)(x, *params)
    nodes = [n for n in gm.graph.nodes]
    assert not [n for n in nodes if n.op == "get_attr"]  # every result is computed from the inputs
    targets = [str(n.target) for n in nodes if n.op == "call_function"]
    assert targets.count("aten.convolution.default") == 2 and targets.count("aten.convolution_backward.default") == 2
    x2 = ember.randn(2, 1, 4, 4)
    for got, want in zip(gm(x2, *params), step(x2, *params)):
        np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


# ---- a CNN training step: batch_norm, max_pool2d, cross_entropy ----------------------------------------------------

CNN_STEP_PROGRAM = """
class Rec(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))
torch.manual_seed(0)
nn = torch.nn
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(16, 3))
x, y = torch.randn(2, 1, 4, 4), torch.tensor([0, 2])
with Rec() as fwd:
    loss = nn.functional.cross_entropy(net(x), y)
with Rec() as bwd:
    loss.backward()
skip = ("aten.detach.default",)
result = [[f for f in fwd.log if f not in skip], [f for f in bwd.log if f not in skip]]
"""

CNN_STEP_KEY_OPS = {
    "aten.ones_like.default", "aten.nll_loss_backward.default", "aten._log_softmax_backward_data.default",
    "aten.max_pool2d_with_indices_backward.default", "aten.threshold_backward.default",
    "aten.native_batch_norm_backward.default", "aten.convolution_backward.default",
}  # fmt: skip


def test_mode_records_a_cnn_training_step():
    fwd, bwd = _run_ember(CNN_STEP_PROGRAM)
    assert fwd == ["aten.convolution.default", "aten.add_.Tensor", "aten.native_batch_norm.default",
                   "aten.relu.default", "aten.max_pool2d_with_indices.default", "aten.view.default", "aten.t.default",
                   "aten.addmm.default", "aten._log_softmax.default", "aten.nll_loss_forward.default"]  # fmt: skip
    assert [f for f in bwd if f in CNN_STEP_KEY_OPS] == [
        "aten.ones_like.default", "aten.nll_loss_backward.default", "aten._log_softmax_backward_data.default",
        "aten.max_pool2d_with_indices_backward.default", "aten.threshold_backward.default",
        "aten.native_batch_norm_backward.default", "aten.convolution_backward.default"]  # fmt: skip


@needs_torch
def test_cnn_training_step_ops_match_pytorch():
    e_fwd, e_bwd = _run_ember(CNN_STEP_PROGRAM)
    t_fwd, t_bwd = _run_torch(CNN_STEP_PROGRAM)
    # PyTorch's BatchNorm also makes an empty reserve tensor (aten.empty.memory_format) that ember has no use for
    assert e_fwd == [f for f in t_fwd if f != "aten.empty.memory_format"]
    assert [f for f in e_bwd if f in CNN_STEP_KEY_OPS] == [f for f in t_bwd if f in CNN_STEP_KEY_OPS]


def _cnn_step_parts():
    ember.manual_seed(0)
    conv, bn, lin = ember.nn.Conv2d(1, 4, 3, padding=1), ember.nn.BatchNorm2d(4), ember.nn.Linear(16, 3)
    params = [p.detach().clone().requires_grad_() for p in (*conv.parameters(), *bn.parameters(), *lin.parameters())]

    def step(x, y, cw, cb, gamma, beta, lw, lb):
        F = ember.nn.functional
        h = F.batch_norm(F.conv2d(x, cw, cb, padding=1), None, None, gamma, beta, True, 0.1, 1e-5)
        h = F.max_pool2d(ember.relu(h), 2).flatten(1)
        loss = F.cross_entropy(F.linear(h, lw, lb), y)
        return (loss, *ember.autograd.grad(loss, [cw, cb, gamma, beta, lw, lb]))

    return step, params


def test_cnn_step_gradients_under_a_mode_equal_plain_ones():
    step, params = _cnn_step_parts()
    x, y = ember.randn(3, 1, 4, 4), ember.tensor([0, 2, 1])
    plain = step(x, y, *params)
    with Recorder() as rec:
        seen = step(x, y, *params)
    assert "aten.native_batch_norm_backward.default" in rec.log and "aten.nll_loss_backward.default" in rec.log
    for a, b in zip(seen, plain):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_make_fx_cnn_training_step_has_no_constants():
    step, params = _cnn_step_parts()
    x, y = ember.randn(3, 1, 4, 4), ember.tensor([0, 2, 1])
    gm = make_fx(step)(x, y, *params)
    assert not [n for n in gm.graph.nodes if n.op == "get_attr"]
    targets = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    assert CNN_STEP_KEY_OPS - {"aten.ones_like.default"} <= targets
    x2, y2 = ember.randn(3, 1, 4, 4), ember.tensor([1, 1, 0])
    for got, want in zip(gm(x2, y2, *params), step(x2, y2, *params)):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_aten_batch_norm_ops_values():
    rng = np.random.default_rng(1)
    x, w, b, gy = rng.standard_normal((3, 2, 2, 2)), rng.standard_normal(2), rng.standard_normal(2), None
    aten, eps = ember.ops.aten, 1e-5
    rm, rv = ember.zeros(2, dtype=ember.float64), ember.ones(2, dtype=ember.float64)
    xe, we, be = (ember.tensor(a) for a in (x, w, b))
    out, mean, invstd = aten.native_batch_norm.default(xe, we, be, rm, rv, True, 0.1, eps)
    mu, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(mean.numpy(), mu, rtol=1e-10)
    np.testing.assert_allclose(invstd.numpy(), 1 / np.sqrt(var + eps), rtol=1e-10)

    def bn(xx, ww):
        m, v = xx.mean((0, 2, 3), keepdims=True), xx.var((0, 2, 3), keepdims=True)
        return (xx - m) / np.sqrt(v + eps) * ww[None, :, None, None] + b[None, :, None, None]

    np.testing.assert_allclose(out.numpy(), bn(x, w), rtol=1e-8)
    np.testing.assert_allclose(rm.numpy(), 0.1 * mu, rtol=1e-10)  # the running mean was updated once
    gy = rng.standard_normal(x.shape)
    for saved in ((mean, invstd), (None, None)):
        gx, gw, gb = aten.native_batch_norm_backward.default(
            ember.tensor(gy), xe, we, None, None, *saved, True, eps, [True, True, True]
        )
        e = 1e-6
        for idx in [(0, 1, 1, 0), (2, 0, 0, 1)]:
            d = np.zeros_like(x)
            d[idx] = e
            fd = ((gy * bn(x + d, w)).sum() - (gy * bn(x - d, w)).sum()) / (2 * e)
            assert abs(gx.numpy()[idx] - fd) < 1e-6
        d = np.array([e, 0.0])
        fd = ((gy * bn(x, w + d)).sum() - (gy * bn(x, w - d)).sum()) / (2 * e)
        assert abs(gw.numpy()[0] - fd) < 1e-6
        np.testing.assert_allclose(gb.numpy(), gy.sum((0, 2, 3)), rtol=1e-10)


def test_aten_max_pool2d_ops_values():
    x = np.array([[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 7.0, 6.0], [0.0, 9.0, 8.0, 1.0], [2.0, 2.0, 3.0, 4.0]]]])
    aten = ember.ops.aten
    xe = ember.tensor(x)
    out, idx = aten.max_pool2d_with_indices.default(xe, [2, 2], [2, 2])
    np.testing.assert_array_equal(out.numpy(), [[[[5.0, 7.0], [9.0, 8.0]]]])
    np.testing.assert_array_equal(idx.numpy(), [[[[1, 6], [9, 10]]]])
    gy = ember.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    gx = aten.max_pool2d_with_indices_backward.default(gy, xe, [2, 2], [2, 2], [0, 0], [1, 1], False, idx)
    want = np.zeros(16)
    want[[1, 6, 9, 10]] = [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(gx.numpy(), want.reshape(1, 1, 4, 4))


def test_aten_nll_loss_ops_values():
    rng = np.random.default_rng(2)
    logits, t, w = rng.standard_normal((4, 3)), np.array([2, 0, 1, 2]), np.array([0.5, 2.0, 1.0])
    aten = ember.ops.aten
    x = ember.tensor(logits, requires_grad=True)
    lsm = aten._log_softmax.default(x, 1, False)
    for reduction, ignore in ((1, -100), (2, 0), (0, -100)):
        out, total = aten.nll_loss_forward.default(lsm, ember.tensor(t), ember.tensor(w), reduction, ignore)
        logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        keep = t != ignore
        per = -w[t] * logp[np.arange(4), t] * keep
        want_total = (w[t] * keep).sum() if reduction else 0.0
        want = per if reduction == 0 else per.sum() / want_total if reduction == 1 else per.sum()
        np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-10)
        np.testing.assert_allclose(total.numpy(), want_total, rtol=1e-10)
        # d/d logits of cross entropy: (softmax - onehot) * w[t] (/ total for the mean)
        g = ember.ones_like(out)
        (gx,) = ember.autograd.grad(out, [x], g, retain_graph=True)
        onehot = np.eye(3)[t]
        scale = (w[t] * keep)[:, None] / (want_total if reduction == 1 else 1.0)
        np.testing.assert_allclose(gx.numpy(), (np.exp(logp) - onehot) * scale, rtol=1e-8, atol=1e-12)


# ---- embedding, index_select, gather -------------------------------------------------------------------------------

EMBEDDING_PROGRAM = """
class Rec(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))
w = torch.arange(12.0).reshape(4, 3).requires_grad_()
i = torch.tensor([[1, 3], [1, 0]])
with Rec() as fwd:
    e = torch.nn.functional.embedding(i, w, padding_idx=0)
    s = torch.index_select(w, 0, torch.tensor([2, 0]))
    g = torch.gather(w, 1, torch.tensor([[0], [2], [1], [1]]))
    loss = e.sum() + s.sum() + g.sum()
with Rec() as bwd:
    loss.backward()
result = [fwd.log, [f for f in bwd.log if f == "aten.embedding_dense_backward.default"], w.grad.tolist()]
"""


def test_embedding_index_select_gather_reach_modes():
    fwd, bwd, grad = _run_ember(EMBEDDING_PROGRAM)
    assert [f for f in fwd if f in ("aten.embedding.default", "aten.index_select.default", "aten.gather.default")] == [
        "aten.embedding.default", "aten.index_select.default", "aten.gather.default"]  # fmt: skip
    assert bwd == ["aten.embedding_dense_backward.default"]
    # closed form: each look-up adds ones to its row (row 0 is padding for the embedding), plus the selects and gathers
    want = np.zeros((4, 3))
    for r in (1, 3, 1):
        want[r] += 1
    want[[2, 0]] += 1
    for r, c in enumerate([0, 2, 1, 1]):
        want[r, c] += 1
    np.testing.assert_allclose(grad, want)


@needs_torch
def test_embedding_ops_match_pytorch():
    e_fwd, e_bwd, e_grad = _run_ember(EMBEDDING_PROGRAM)
    t_fwd, t_bwd, t_grad = _run_torch(EMBEDDING_PROGRAM)
    keep = ("aten.embedding.default", "aten.index_select.default", "aten.gather.default")
    assert [f for f in e_fwd if f in keep] == [f for f in t_fwd if f in keep]
    assert e_bwd == t_bwd and e_grad == t_grad


def test_aten_embedding_dense_backward_values():
    gy = np.arange(12.0).reshape(2, 2, 3)
    idx = ember.tensor([[1, 2], [1, 0]])
    aten = ember.ops.aten
    g = aten.embedding_dense_backward.default(ember.tensor(gy), idx, 4, 0, True)
    want = np.zeros((4, 3))
    want[1] = (gy[0, 0] + gy[1, 0]) / 2  # row 1 looked up twice: scaled by 1/2
    want[2] = gy[0, 1]  # row 0 is padding_idx: no gradient
    np.testing.assert_allclose(g.numpy(), want)
    w = ember.tensor(np.arange(8.0).reshape(4, 2))
    np.testing.assert_allclose(aten.embedding.default(w, idx).numpy(), np.arange(8.0).reshape(4, 2)[[[1, 2], [1, 0]]])


# ---- factories -----------------------------------------------------------------------------------------------------

FACTORY_PROGRAM = """
class Rec(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kw = {k: str(v) for k, v in (kwargs or {}).items()}
        self.log.append([str(func), [list(a) if isinstance(a, (list, tuple)) else a for a in args], kw])
        return func(*args, **(kwargs or {}))
with Rec() as rec:
    a = torch.zeros(2, 3)
    b = torch.ones([2], dtype=torch.float64)
    c = torch.empty(4)
    d = torch.zeros(2, requires_grad=True)
    e = [torch.full((2,), 1.5), torch.full([1], 3), torch.arange(3), torch.arange(1, 5, 2.0)]
result = [rec.log, a.tolist(), b.tolist(), list(c.shape), d.requires_grad, d.is_leaf, [t.tolist() for t in e],
          [str(t.dtype).split(".")[1] for t in e]]
"""


def test_factories_reach_modes():
    log, a, b, c, grad, leaf, more, dtypes = _run_ember(FACTORY_PROGRAM)
    cpu = {"device": "cpu", "pin_memory": "False"}
    f64 = {"dtype": "ember.float64", **cpu}
    assert log == [["aten.zeros.default", [[2, 3]], cpu], ["aten.ones.default", [[2]], f64],
                   ["aten.empty.memory_format", [[4]], cpu], ["aten.zeros.default", [[2]], cpu],
                   ["aten.full.default", [[2], 1.5], cpu], ["aten.full.default", [[1], 3], cpu],
                   ["aten.arange.default", [3], cpu], ["aten.arange.start_step", [1, 5, 2.0], cpu]]  # fmt: skip
    assert more == [[1.5, 1.5], [3], [0, 1, 2], [1.0, 3.0]] and dtypes == ["float32", "int64", "int64", "float32"]
    assert a == [[0.0] * 3] * 2 and b == [1.0, 1.0] and c == [4] and grad and leaf


@needs_torch
def test_factories_match_pytorch():
    e = _run_ember(FACTORY_PROGRAM)
    t = _run_torch(FACTORY_PROGRAM)
    for entry in e[0]:
        entry[2] = {k: v.replace("ember.", "torch.") for k, v in entry[2].items()}
    assert e == t


def test_make_fx_records_factories():
    def f(x):
        return x * ember.ones(3) + ember.zeros(2, 3)

    gm = make_fx(f)(ember.randn(2, 3))
    assert not [n for n in gm.graph.nodes if n.op == "get_attr"]
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert targets == ["aten.ones.default", "aten.mul.Tensor", "aten.zeros.default", "aten.add.Tensor"]
    x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_allclose(gm(x).numpy(), x.numpy())


def test_layer_norm_forward_reaches_modes():
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((2, 3, 4)), rng.standard_normal(4), rng.standard_normal(4)
    xe, we, be = (ember.tensor(a) for a in (x, w, b))
    with Recorder() as rec:
        y = ember.nn.functional.layer_norm(xe, [4], we, be, 1e-5)
    assert rec.log == ["aten.native_layer_norm.default"]
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - mu) / np.sqrt(var + 1e-5) * w + b, rtol=1e-8)
    out, mean, rstd = ember.ops.aten.native_layer_norm.default(xe, [4], we, be, 1e-5)
    assert mean.shape == (2, 3, 1) and rstd.shape == (2, 3, 1)  # PyTorch's: the normalized dims kept as size 1
    np.testing.assert_allclose(mean.numpy(), mu, rtol=1e-10)
    np.testing.assert_allclose(rstd.numpy(), 1 / np.sqrt(var + 1e-5), rtol=1e-10)
    np.testing.assert_allclose(out.numpy(), y.numpy(), rtol=1e-12)


# ---- Transformer and LSTM training steps, the losses, GELU/SiLU, select/slice, wrapper safety ----------------------

STEP_RECORDER = """
class Rec(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))
torch.manual_seed(0)
nn = torch.nn
"""

TRANSFORMER_STEP_PROGRAM = (
    STEP_RECORDER
    + """
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
head = nn.Linear(8, 3)
x, y = torch.randn(2, 5, 8), torch.tensor([0, 2])
with Rec() as fwd:
    loss = nn.functional.cross_entropy(head(layer(x).mean(1)), y)
with Rec() as bwd:
    loss.backward()
skip = ("aten.detach.default",)
result = [[f for f in fwd.log if f not in skip], [f for f in bwd.log if f not in skip]]
"""
)

# The ops PyTorch 2.15 and ember both run as one op in this step (ember's attention multiplies 4-d tensors with
# aten.matmul where PyTorch reshapes them for bmm/mm, and the two arrange their views and copies differently).
TRANSFORMER_KEY_OPS = {
    "aten.addmm.default", "aten._safe_softmax.default", "aten.native_layer_norm.default", "aten.relu.default",
    "aten.mean.dim", "aten._log_softmax.default", "aten.nll_loss_forward.default", "aten.ones_like.default",
    "aten.nll_loss_backward.default", "aten._log_softmax_backward_data.default",
    "aten.native_layer_norm_backward.default", "aten.threshold_backward.default",
    "aten._softmax_backward_data.default",
}  # fmt: skip

TRANSFORMER_KEY_FWD = [
    "aten._safe_softmax.default", "aten.addmm.default", "aten.native_layer_norm.default", "aten.addmm.default",
    "aten.relu.default", "aten.addmm.default", "aten.native_layer_norm.default", "aten.mean.dim",
    "aten.addmm.default", "aten._log_softmax.default", "aten.nll_loss_forward.default",
]  # fmt: skip
TRANSFORMER_KEY_BWD = [
    "aten.ones_like.default", "aten.nll_loss_backward.default", "aten._log_softmax_backward_data.default",
    "aten.native_layer_norm_backward.default", "aten.threshold_backward.default",
    "aten.native_layer_norm_backward.default", "aten._softmax_backward_data.default",
]  # fmt: skip


def _key(ops, keys):
    return [f for f in ops if f in keys]


def test_mode_records_a_transformer_training_step():
    fwd, bwd = _run_ember(TRANSFORMER_STEP_PROGRAM)
    assert _key(fwd, TRANSFORMER_KEY_OPS) == TRANSFORMER_KEY_FWD
    assert _key(bwd, TRANSFORMER_KEY_OPS) == TRANSFORMER_KEY_BWD


@needs_torch
def test_transformer_training_step_ops_match_pytorch():
    t_fwd, t_bwd = _run_torch(TRANSFORMER_STEP_PROGRAM)
    # without dropout PyTorch's CPU attention is one op (_scaled_dot_product_flash_attention_for_cpu, and its
    # backward); ember's is PyTorch's math path, whose softmax is _safe_softmax: the rest is compared
    keys = TRANSFORMER_KEY_OPS - {"aten._safe_softmax.default", "aten._softmax_backward_data.default"}
    assert _key(t_fwd, keys) == _key(TRANSFORMER_KEY_FWD, keys)
    assert _key(t_bwd, keys) == _key(TRANSFORMER_KEY_BWD, keys)


LSTM_STEP_PROGRAM = (
    STEP_RECORDER
    + """
lstm = nn.LSTM(4, 6, batch_first=True)
head = nn.Linear(6, 1)
x, y = torch.randn(3, 5, 4), torch.randn(3, 1)
out, _ = lstm(x)
with Rec() as fwd:
    loss = nn.functional.mse_loss(head(out[:, -1]), y)
with Rec() as bwd:
    loss.backward()
skip = ("aten.detach.default",)
result = [[f for f in fwd.log if f not in skip], [f for f in bwd.log if f not in skip]]
"""
)


def test_mode_records_an_lstm_head_step():
    # the step after the recurrent layer (PyTorch runs the layer as one oneDNN op, mkldnn_rnn_layer, which ember
    # composes of its cell's ops): every op and its order are PyTorch's
    want_fwd = ["aten.select.int", "aten.t.default", "aten.addmm.default", "aten.mse_loss.default"]
    fwd, bwd = _run_ember(LSTM_STEP_PROGRAM)
    assert fwd == want_fwd
    assert _key(_through_head(bwd), LSTM_KEY_OPS) == LSTM_KEY_BWD


def _through_head(bwd):
    return bwd[: bwd.index("aten.select_backward.default") + 1]  # the recurrent layer's gradient follows


LSTM_KEY_OPS = {"aten.ones_like.default", "aten.mse_loss_backward.default", "aten.mm.default", "aten.sum.dim_IntList",
                "aten.select_backward.default"}  # fmt: skip
LSTM_KEY_BWD = ["aten.ones_like.default", "aten.mse_loss_backward.default", "aten.mm.default", "aten.mm.default",
                "aten.sum.dim_IntList", "aten.select_backward.default"]  # fmt: skip


@needs_torch
def test_lstm_head_step_ops_match_pytorch():
    t_fwd, t_bwd = _run_torch(LSTM_STEP_PROGRAM)
    assert t_fwd == ["aten.select.int", "aten.t.default", "aten.addmm.default", "aten.mse_loss.default"]
    assert _key(_through_head(t_bwd), LSTM_KEY_OPS) == LSTM_KEY_BWD


def _grads_seen_and_plain(fn, *inputs):
    """fn's value and input gradients computed plainly (ember's own formulas) and under a recording mode (the aten
    ops in Python); returns (plain, seen, ops the mode saw)."""
    outs, rec = [], None
    for mode in (None, Recorder()):
        xs = [t.detach().clone().requires_grad_(t.requires_grad) for t in inputs]
        if mode is None:
            y = fn(*xs)
            gs = ember.autograd.grad(y.sum(), [x for x in xs if x.requires_grad])
        else:
            with mode:
                y = fn(*xs)
                gs = ember.autograd.grad(y.sum(), [x for x in xs if x.requires_grad])
            rec = mode
        outs.append([y.detach().numpy(), *[g.numpy() for g in gs]])
    return outs[0], outs[1], rec.log


@pytest.mark.parametrize(
    "name, fn, fwd_op, bwd_op",
    [
        ("mse", lambda x, t: ember.nn.functional.mse_loss(x, t), "mse_loss.default", "mse_loss_backward.default"),
        ("mse_sum", lambda x, t: ember.nn.functional.mse_loss(x, t, reduction="sum"), "mse_loss.default",
         "mse_loss_backward.default"),
        ("smooth_l1", lambda x, t: ember.nn.functional.smooth_l1_loss(x, t, beta=0.5), "smooth_l1_loss.default",
         "smooth_l1_loss_backward.default"),
        ("huber", lambda x, t: ember.nn.functional.huber_loss(x, t, reduction="none", delta=0.7),
         "huber_loss.default", "huber_loss_backward.default"),
        ("bce", lambda x, t: ember.nn.functional.binary_cross_entropy(ember.sigmoid(x), ember.sigmoid(t)),
         "binary_cross_entropy.default", "binary_cross_entropy_backward.default"),
        ("gelu", lambda x, t: ember.nn.functional.gelu(x) * t, "gelu.default", "gelu_backward.default"),
        ("gelu_tanh", lambda x, t: ember.nn.functional.gelu(x, approximate="tanh") * t, "gelu.default",
         "gelu_backward.default"),
        ("silu", lambda x, t: ember.nn.functional.silu(x) * t, "silu.default", "silu_backward.default"),
        ("layer_norm", lambda x, t: ember.nn.functional.layer_norm(x, [4], t[0], t[1]),
         "native_layer_norm.default", "native_layer_norm_backward.default"),
        ("select", lambda x, t: x.select(1, 2) * t[:, 0], "select.int", "select_backward.default"),
        ("slice", lambda x, t: x[:, 1:4:2] * t[:, :2], "slice.Tensor", "slice_backward.default"),
        ("narrow", lambda x, t: x.narrow(0, 1, 2) * t[:2], "slice.Tensor", "slice_backward.default"),
    ],
)  # fmt: skip
def test_training_ops_reach_modes_with_plain_values(name, fn, fwd_op, bwd_op):
    rng = np.random.default_rng(3)
    x = ember.tensor(rng.standard_normal((3, 4)), dtype=ember.float64, requires_grad=True)
    t = ember.tensor(rng.standard_normal((3, 4)), dtype=ember.float64, requires_grad=True)
    plain, seen, log = _grads_seen_and_plain(fn, x, t)
    assert "aten." + fwd_op in log and "aten." + bwd_op in log
    for a, b in zip(plain, seen):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_training_op_gradients_against_closed_forms():
    rng = np.random.default_rng(4)
    x0, t0, g0 = (rng.standard_normal((2, 5)) for _ in range(3))
    x, t, g = (ember.tensor(v) for v in (x0, t0, g0))
    aten = ember.ops.aten
    np.testing.assert_allclose(aten.mse_loss_backward.default(g, x, t, 0).numpy(), 2 * (x0 - t0) * g0)
    np.testing.assert_allclose(aten.mse_loss_backward.default(ember.tensor(1.5), x, t, 1).numpy(),
                               2 * (x0 - t0) * 1.5 / 10)  # fmt: skip
    d = x0 - t0
    np.testing.assert_allclose(aten.huber_loss_backward.default(g, x, t, 0, 0.5).numpy(),
                               np.where(np.abs(d) <= 0.5, d, 0.5 * np.sign(d)) * g0)  # fmt: skip
    np.testing.assert_allclose(aten.smooth_l1_loss_backward.default(g, x, t, 0, 0.5).numpy(),
                               np.where(np.abs(d) < 0.5, d / 0.5, np.sign(d)) * g0)  # fmt: skip
    from math import erf, pi, sqrt

    phi = np.exp(-(x0**2) / 2) / sqrt(2 * pi)
    cdf = 0.5 * (1 + np.vectorize(erf)(x0 / sqrt(2)))
    np.testing.assert_allclose(aten.gelu_backward.default(g, x).numpy(), g0 * (cdf + x0 * phi), rtol=1e-12)
    s = 1 / (1 + np.exp(-x0))
    np.testing.assert_allclose(aten.silu_backward.default(g, x).numpy(), g0 * s * (1 + x0 * (1 - s)), rtol=1e-12)
    z = aten.select_backward.default(g, [2, 3, 5], 1, 2).numpy()
    want = np.zeros((2, 3, 5))
    want[:, 2] = g0
    np.testing.assert_array_equal(z, want)
    z = aten.slice_backward.default(g[:, :2], [2, 7], 1, 1, 5, 2).numpy()
    want = np.zeros((2, 7))
    want[:, 1:5:2] = g0[:, :2]
    np.testing.assert_array_equal(z, want)
    # layer_norm's gradient against central differences of its forward
    w0 = rng.standard_normal(5)
    gx, gw, gb = aten.native_layer_norm_backward.default(
        g, x, [5], ember.tensor(x0.mean(1, keepdims=True)), ember.tensor(1 / np.sqrt(x0.var(1, keepdims=True) + 1e-5)),
        ember.tensor(w0), None, [True, True, True])  # fmt: skip

    def ln(xv):
        return (((xv - xv.mean(1, keepdims=True)) / np.sqrt(xv.var(1, keepdims=True) + 1e-5)) * w0 * g0).sum()

    num = np.zeros_like(x0)
    for i in np.ndindex(*x0.shape):
        e = np.zeros_like(x0)
        e[i] = 1e-6
        num[i] = (ln(x0 + e) - ln(x0 - e)) / 2e-6
    np.testing.assert_allclose(gx.numpy(), num, rtol=1e-5, atol=1e-7)
    xhat = (x0 - x0.mean(1, keepdims=True)) / np.sqrt(x0.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(gw.numpy(), (g0 * xhat).sum(0), rtol=1e-10)
    np.testing.assert_allclose(gb.numpy(), g0.sum(0), rtol=1e-12)


@needs_torch
def test_new_aten_schemas_match_pytorch():
    names = ["native_layer_norm_backward.default", "mse_loss.default", "mse_loss_backward.default",
             "smooth_l1_loss.default", "smooth_l1_loss_backward.default", "huber_loss.default",
             "huber_loss_backward.default", "binary_cross_entropy.default", "binary_cross_entropy_backward.default",
             "binary_cross_entropy_with_logits.default", "gelu.default", "gelu_backward.default",
             "silu_backward.default", "select.int", "select_backward.default", "slice.Tensor",
             "slice_backward.default", "_safe_softmax.default"]  # fmt: skip
    prog = f"names = {names!r}\nresult = [str(eval('torch.ops.aten.' + n)._schema) for n in names]"
    want = run_torch(prog)
    got = [ember.ops._lookup("aten." + n)._schema for n in names]
    assert got == want


def _wrapper_class():
    """PyTorch docs' classic wrapper subclass (a new class per test: a class defining __torch_dispatch__ keeps the
    ops' hook on while it exists)."""

    class _Wrapper(ember.Tensor):
        """PyTorch docs' classic wrapper subclass: no data of its own, every op computed on the tensor it wraps."""

        __torch_function__ = ember._C._disabled_torch_function_impl
        seen = []

        @staticmethod
        def __new__(cls, elem, requires_grad=False):
            r = ember.Tensor._make_wrapper_subclass(
                cls,
                elem.size(),
                strides=elem.stride(),
                dtype=elem.dtype,
                device=elem.device,
                requires_grad=requires_grad,
            )
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            from ember.utils._pytree import tree_map

            cls.seen.append(str(func))

            def unwrap(e):
                return e.elem if isinstance(e, cls) else e

            def wrap(e):
                return cls(e) if isinstance(e, ember.Tensor) else e

            return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))

    return _Wrapper


def _mlp_step(params, x, y, lr=0.1):
    """A training step of Linear-GELU-LayerNorm-Linear with mse_loss and a hand-written SGD update."""
    F = ember.nn.functional
    w1, b1, g, b, w2, b2 = params
    h = F.layer_norm(F.gelu(F.linear(x, w1, b1)), [6], g, b)
    loss = F.mse_loss(F.linear(h, w2, b2), y)
    loss.backward()
    with ember.no_grad():
        for p in params:
            p.sub_(p.grad, alpha=lr)
            p.grad = None
    return loss


def test_wrapper_subclass_runs_a_training_step():
    _Wrapper = _wrapper_class()
    rng = np.random.default_rng(5)
    shapes = [(6, 4), (6,), (6,), (6,), (2, 6), (2,)]
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    x0, y0 = rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32)
    plain = [ember.tensor(v, requires_grad=True) for v in init]
    wrapped = [_Wrapper(ember.tensor(v), requires_grad=True) for v in init]
    _Wrapper.seen.clear()
    for _ in range(2):
        want = _mlp_step(plain, ember.tensor(x0), ember.tensor(y0))
        got = _mlp_step(wrapped, _Wrapper(ember.tensor(x0)), _Wrapper(ember.tensor(y0)))
        assert isinstance(got, _Wrapper)
        np.testing.assert_allclose(got.elem.numpy(), want.detach().numpy(), rtol=1e-5)
        for w, p in zip(wrapped, plain):
            np.testing.assert_allclose(w.elem.numpy(), p.detach().numpy(), rtol=1e-5, atol=1e-6)
    ops = ["gelu.default", "native_layer_norm.default", "mse_loss.default", "mse_loss_backward.default",
           "native_layer_norm_backward.default", "gelu_backward.default", "addmm.default", "sub_.Tensor"]  # fmt: skip
    for op in ops:
        assert "aten." + op in _Wrapper.seen


def test_wrapper_subclass_refuses_ops_without_dispatch():
    _Wrapper = _wrapper_class()
    w = _Wrapper(ember.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal((w + 1).elem.numpy(), [2.0, 3.0, 4.0])  # an op that offers its call: computed
    with pytest.raises(NotImplementedError, match=r"\[scan\] a tensor subclass made with _make_wrapper_subclass"):
        ember.cumprod(w, 0)  # no dispatch: it must not hand back a meta tensor for the values
    with pytest.raises(NotImplementedError, match="_make_wrapper_subclass"):
        ember.flip(w, [0])
    # plain meta tensors still run every op on their geometry
    assert ember.cumsum(ember.empty(3, device="meta"), 0).shape == (3,)


OP_CASES_PROGRAM = (
    STEP_RECORDER
    + """
x, s = torch.randn(3, 4), torch.randn(3, 4)
m, idx = x > 0, torch.tensor([[0, 1, 2, 0], [2, 2, 1, 0], [1, 0, 0, 2]])
i2, s2 = torch.tensor([2, 0]), torch.randn(2, 4)
cases = {
    "where": lambda: torch.where(m, x, s), "masked_fill": lambda: x.masked_fill(m, 0.5),
    "scatter_src": lambda: x.scatter(0, idx, s), "scatter_value": lambda: x.scatter(0, idx, 2.0),
    "scatter_add": lambda: x.scatter_add(0, idx, s), "index_add": lambda: x.index_add(0, i2, s2, alpha=2),
    "prod_dim": lambda: x.prod(1), "prod": lambda: x.prod(), "amax": lambda: x.amax(1),
    "amin": lambda: x.amin(0, keepdim=True), "max": lambda: x.max(), "min": lambda: x.min(),
    "max_dim": lambda: x.max(1), "min_dim": lambda: x.min(0), "argmax": lambda: x.argmax(1),
    "argmin": lambda: x.argmin(), "var": lambda: x.var(1), "std": lambda: x.std(0, correction=0),
    "cumsum": lambda: x.cumsum(1), "sort": lambda: x.sort(1, descending=True), "topk": lambda: x.topk(2, 1),
    "to_double": lambda: x.double(), "dropout": lambda: torch.nn.functional.dropout(x, 0.25),
    "copy_": lambda: torch.empty(3, 4).copy_(x),
}
result = {}
for k, f in cases.items():
    with Rec() as r:
        out = f()
    plain = f() if k != "dropout" else out
    plain = plain if isinstance(plain, torch.Tensor) else plain[0]
    out = out if isinstance(out, torch.Tensor) else out[0]
    result[k] = [r.log, (out.double() - plain.double()).abs().max().item()]
"""
)

OP_CASES_WANT = {
    "where": ["aten.where.self"], "masked_fill": ["aten.masked_fill.Scalar"], "scatter_src": ["aten.scatter.src"],
    "scatter_value": ["aten.scatter.value"], "scatter_add": ["aten.scatter_add.default"],
    "index_add": ["aten.index_add.default"],
    "prod_dim": ["aten.prod.dim_int"], "prod": ["aten.prod.default"], "amax": ["aten.amax.default"],
    "amin": ["aten.amin.default"], "max": ["aten.max.default"], "min": ["aten.min.default"],
    "max_dim": ["aten.max.dim"], "min_dim": ["aten.min.dim"], "argmax": ["aten.argmax.default"],
    "argmin": ["aten.argmin.default"], "var": ["aten.var.correction"], "std": ["aten.std.correction"],
    "cumsum": ["aten.cumsum.default"], "sort": ["aten.sort.default"], "topk": ["aten.topk.default"],
    "to_double": ["aten._to_copy.default"],
    "dropout": ["aten.empty_like.default", "aten.bernoulli_.float", "aten.div_.Scalar", "aten.mul.Tensor"],
    "copy_": ["aten.empty.memory_format", "aten.copy_.default"],
}  # fmt: skip


def test_indexing_reduction_sorting_ops_reach_modes():
    got = _run_ember(OP_CASES_PROGRAM)
    for k, want in OP_CASES_WANT.items():
        log, diff = got[k]
        assert log == want, k
        if k != "dropout":
            assert diff == 0, k  # the handler's result is the plain op's


@needs_torch
def test_indexing_reduction_sorting_ops_match_pytorch():
    assert _pytorch_case_ops(OP_CASES_PROGRAM) == OP_CASES_WANT


def test_dropout_under_a_mode_is_pytorch_cpu_composition():
    ember.manual_seed(0)
    x = ember.randn(200, dtype=ember.float64, requires_grad=True)
    with Recorder() as rec:
        y = ember.nn.functional.dropout(x, 0.25)
        (g,) = ember.autograd.grad(y.sum(), [x])
    assert rec.log[:4] == ["aten.empty_like.default", "aten.bernoulli_.float", "aten.div_.Scalar", "aten.mul.Tensor"]
    assert "aten.mul.Tensor" in rec.log[4:]  # the gradient: grad times the mask
    kept = y.detach().numpy() != 0
    assert 0.5 < kept.mean() < 0.95  # 200 draws of Bernoulli(0.75)
    np.testing.assert_allclose(y.detach().numpy()[kept], x.detach().numpy()[kept] / 0.75)
    np.testing.assert_allclose(g.numpy(), kept / 0.75)


CNN_OP_CASES_PROGRAM = (
    STEP_RECORDER
    + """
F = torch.nn.functional
x = torch.randn(2, 4, 4, 4, dtype=torch.float64, requires_grad=True)
w, b = torch.randn(4, dtype=torch.float64, requires_grad=True), torch.randn(4, dtype=torch.float64, requires_grad=True)
cases = {
    "group_norm": lambda: F.group_norm(x, 2, w, b), "avg_pool2d": lambda: F.avg_pool2d(x, 2),
    "avg_pool2d_pad": lambda: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "adaptive_2x2": lambda: F.adaptive_avg_pool2d(x, 2), "adaptive_3x3": lambda: F.adaptive_avg_pool2d(x, (3, 3)),
    "adaptive_1x1": lambda: F.adaptive_avg_pool2d(x, 1), "nearest": lambda: F.interpolate(x, scale_factor=2),
    "nearest_size": lambda: F.interpolate(x, size=(5, 7)),
    "bilinear": lambda: F.interpolate(x, scale_factor=1.5, mode="bilinear"),
    "bilinear_aligned": lambda: F.interpolate(x, size=(6, 3), mode="bilinear", align_corners=True),
}
result = {}
for k, f in cases.items():
    plain = f()
    want = torch.autograd.grad((plain * plain.detach()).sum(), [x, w, b], allow_unused=True)
    with Rec() as r:
        out = f()
        got = torch.autograd.grad((out * out.detach()).sum(), [x, w, b], allow_unused=True)
    err = max((a - c).abs().max().item() for a, c in zip([out, *got], [plain, *want]) if a is not None)
    # the ops of the product, the sum and its gradient (ember's sum gradient views before it expands)
    ops = [o for o in r.log if o not in ("aten.mul.Tensor", "aten.sum.default", "aten.ones_like.default",
                                         "aten.expand.default", "aten.view.default", "aten.detach.default")]
    result[k] = [ops, err]
"""
)

CNN_OP_CASES_WANT = {
    "group_norm": ["aten.native_group_norm.default", "aten.native_group_norm_backward.default"],
    "avg_pool2d": ["aten.avg_pool2d.default", "aten.avg_pool2d_backward.default"],
    "avg_pool2d_pad": ["aten.avg_pool2d.default", "aten.avg_pool2d_backward.default"],
    "adaptive_2x2": ["aten._adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d_backward.default"],
    "adaptive_3x3": ["aten._adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d_backward.default"],
    "adaptive_1x1": ["aten.mean.dim", "aten.div.Scalar"],
    "nearest": ["aten.upsample_nearest2d.default", "aten.upsample_nearest2d_backward.default"],
    "nearest_size": ["aten.upsample_nearest2d.default", "aten.upsample_nearest2d_backward.default"],
    "bilinear": ["aten.upsample_bilinear2d.default", "aten.upsample_bilinear2d_backward.default"],
    "bilinear_aligned": ["aten.upsample_bilinear2d.default", "aten.upsample_bilinear2d_backward.default"],
}


def test_cnn_ops_reach_modes_with_their_backward_ops():
    # mean's gradient: PyTorch's is expand + div.Scalar, ember's has its own parts
    got = _assert_cases_reach_modes(CNN_OP_CASES_PROGRAM, CNN_OP_CASES_WANT, unlike_pytorch=("adaptive_1x1",))
    assert got["adaptive_1x1"][0][0] == "aten.mean.dim"


@needs_torch
def test_cnn_ops_match_pytorch():
    assert _pytorch_case_ops(CNN_OP_CASES_PROGRAM) == CNN_OP_CASES_WANT


RANDOM_PROGRAM = (
    STEP_RECORDER
    + """
def draws():
    return [torch.rand(3), torch.randn(2, 2), torch.randint(5, (3,)), torch.randint(2, 9, (4,)),
            torch.empty(3).normal_(), torch.empty(3).uniform_(-1, 1), torch.bernoulli(torch.full((5,), 0.5)),
            torch.empty(4).bernoulli_(0.25)]
torch.manual_seed(0)
plain = draws()
torch.manual_seed(0)
with Rec() as r:
    seen = draws()
result = [r.log, all(bool((a == b).all()) for a, b in zip(plain, seen)), [str(t.dtype) for t in seen]]
"""
)

RANDOM_WANT = [
    "aten.rand.default", "aten.randn.default", "aten.randint.default", "aten.randint.low", "aten.empty.memory_format",
    "aten.normal_.default", "aten.empty.memory_format", "aten.uniform_.default", "aten.full.default",
    "aten.bernoulli.default", "aten.empty.memory_format", "aten.bernoulli_.float",
]  # fmt: skip


def test_random_factories_and_samplers_reach_modes():
    log, same, dtypes = _run_ember(RANDOM_PROGRAM)
    assert log == RANDOM_WANT
    assert same  # the handler's draws are the plain ones: same generator, same order
    assert dtypes[2:4] == ["ember.int64", "ember.int64"]


@needs_torch
def test_random_factories_and_samplers_match_pytorch():
    log, same, _ = _run_torch(RANDOM_PROGRAM)
    assert log == RANDOM_WANT and same


# ---- advanced indexing, vector norms, clamp, number-first arithmetic, cross_entropy of [N, C, H, W] inputs

INDEX_NORM_PROGRAM = (
    STEP_RECORDER
    + """
F = torch.nn.functional
w = torch.randn(5, 3, dtype=torch.float64)
i, j = torch.tensor([0, 2, 2, 4]), torch.tensor([1, 0])
v = torch.randn(4, 3, dtype=torch.float64)
z = torch.randn(2, 3, 4, 4, dtype=torch.float64)
t = torch.tensor([[[0, 1, 2, 1]] * 4, [[2, 2, 0, 1]] * 4])
t[0, 1, 1] = -100


def grad(f, x):
    x = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(f(x).sum(), [x])
    return g


def setitem(index, value):
    out = w.clone()
    out[index] = value
    return out


def clip():
    ps = [w.clone().requires_grad_(), v.clone().requires_grad_()]
    for p in ps:
        p.grad = p.detach() * 3
    torch.nn.utils.clip_grad_norm_(ps, 1.0, foreach=False)
    return torch.cat([p.grad.reshape(-1) for p in ps])


cases = {
    "index": lambda: w[i], "index_none": lambda: w[:, j], "index_mask": lambda: w[w > 0],
    "index_grad": lambda: grad(lambda x: x[i] * 2, w), "index_none_grad": lambda: grad(lambda x: x[:, j], w),
    "setitem": lambda: setitem(i, v), "index_put_": lambda: w.clone().index_put_((i,), v, True),
    "setitem_number": lambda: setitem((slice(None), j), 2.0), "setitem_mask": lambda: setitem(w > 0, 0.5),
    "setitem_rows_mask": lambda: setitem(w[:, 0] > 0, 1),
    "index_put": lambda: torch.index_put(w, (i,), v, accumulate=True),
    "vector_norm": lambda: torch.linalg.vector_norm(w, 3, dim=0), "norm": lambda: w.norm(),
    "norm_dtype": lambda: torch.norm(v.float(), 2, dtype=torch.float64),
    "norm_empty": lambda: torch.zeros(0, 3, dtype=torch.float64).norm(dim=0),
    "normalize": lambda: F.normalize(w, dim=1), "clamp": lambda: w.clamp(-0.5, 0.5),
    "clamp_min": lambda: w.clamp_min(0.1), "clamp_max": lambda: w.clamp_max(0.1),
    "rsub": lambda: 1 - w, "rmul": lambda: 2 * w, "radd": lambda: 3 + w, "rdiv": lambda: 2 / w,
    "clip": clip,
    "ce_4d": lambda: F.cross_entropy(z, t), "ce_4d_grad": lambda: grad(lambda x: F.cross_entropy(x, t), z),
    "ce_4d_none_grad": lambda: grad(lambda x: F.cross_entropy(x, t, reduction="none") * 2, z),
}
KEY = {"aten.index.Tensor", "aten.new_zeros.default", "aten.index_put.default", "aten.index_put_.default",
       "aten.gt.Scalar", "aten.linalg_vector_norm.default", "aten.clamp_min.default", "aten.clamp_max.default",
       "aten.clamp.default", "aten.expand.default", "aten.div.Tensor", "aten.rsub.Scalar", "aten.mul.Tensor",
       "aten.add.Tensor", "aten.reciprocal.default", "aten.stack.default", "aten.mul_.Tensor",
       "aten._log_softmax.default", "aten.nll_loss2d_forward.default", "aten.nll_loss2d_backward.default",
       "aten._log_softmax_backward_data.default", "aten.index_fill_.int_Scalar", "aten.masked_fill_.Scalar",
       "aten.unsqueeze.default"}
result = {}
for k, f in cases.items():
    with Rec() as r:
        out = f()
    plain = f()
    result[k] = [[op for op in r.log if op in KEY], (out - plain).abs().max().item() if out is not None else 0.0]
"""
)  # fmt: skip

INDEX_NORM_WANT = {
    k: ["aten." + op for op in v]
    for k, v in {
        "index": ["index.Tensor"],
        "index_none": ["index.Tensor"],
        "index_mask": ["gt.Scalar", "index.Tensor"],
        "index_grad": [
            "index.Tensor", "mul.Tensor", "expand.default", "mul.Tensor", "new_zeros.default", "index_put.default"
        ],
        "index_none_grad": ["index.Tensor", "expand.default", "new_zeros.default", "index_put.default"],
        "setitem": ["index_put_.default"],
        "setitem_number": ["index_fill_.int_Scalar"],
        "setitem_mask": ["gt.Scalar", "masked_fill_.Scalar"],
        "setitem_rows_mask": ["gt.Scalar", "unsqueeze.default", "masked_fill_.Scalar"],
        "index_put_": ["index_put_.default"],
        "index_put": ["index_put.default"],
        "vector_norm": ["linalg_vector_norm.default"],
        "norm": ["linalg_vector_norm.default"],
        "norm_dtype": ["linalg_vector_norm.default"],
        "norm_empty": ["linalg_vector_norm.default"],
        "normalize": ["linalg_vector_norm.default", "clamp_min.default", "expand.default", "div.Tensor"],
        "clamp": ["clamp.default"],
        "clamp_min": ["clamp_min.default"],
        "clamp_max": ["clamp_max.default"],
        "rsub": ["rsub.Scalar"],
        "rmul": ["mul.Tensor"],
        "radd": ["add.Tensor"],
        "rdiv": ["reciprocal.default", "mul.Tensor"],
        "clip": [
            "mul.Tensor", "mul.Tensor", "linalg_vector_norm.default", "linalg_vector_norm.default", "stack.default",
            "linalg_vector_norm.default", "add.Tensor", "reciprocal.default", "mul.Tensor", "clamp.default",
            "mul_.Tensor", "mul_.Tensor"
        ],
        "ce_4d": ["_log_softmax.default", "nll_loss2d_forward.default"],
        "ce_4d_grad": [
            "_log_softmax.default", "nll_loss2d_forward.default", "expand.default", "nll_loss2d_backward.default",
            "_log_softmax_backward_data.default"
        ],
        "ce_4d_none_grad": [
            "_log_softmax.default", "nll_loss2d_forward.default", "mul.Tensor", "expand.default", "mul.Tensor",
            "nll_loss2d_backward.default", "_log_softmax_backward_data.default"
        ],
    }.items()
}  # fmt: skip


def test_indexing_norm_clamp_ops_reach_modes_with_plain_values():
    _assert_cases_reach_modes(INDEX_NORM_PROGRAM, INDEX_NORM_WANT)


@needs_torch
def test_indexing_norm_clamp_ops_match_pytorch():
    assert _pytorch_case_ops(INDEX_NORM_PROGRAM) == INDEX_NORM_WANT


INDEX_ARGS_PROGRAM = (
    STEP_RECORDER.replace("self.log.append(str(func))", "self.log.append([str(func), _show(args)])")
    + """
def _show(a):
    if isinstance(a, (list, tuple)):
        return [_show(e) for e in a]
    if isinstance(a, torch.Tensor):
        return ["T", list(a.shape), str(a.dtype).split(".")[-1]]
    return a
w = torch.randn(4, 3, 2)
i = torch.tensor([0, 2])
with Rec() as r:
    w[:, i]
    w[i, :, torch.tensor([1, 0])]
    w[..., torch.tensor([1])]
    w[w > 0]
    w.clone()[:, i] = torch.ones(4, 2, 2)
    torch.linalg.vector_norm(w, 3.0, dim=(0, 2), keepdim=True)
    torch.linalg.vector_norm(w, dtype=torch.float64)
result = r.log
"""
)


def test_index_and_norm_arguments_are_pytorchs():
    got = _run_ember(INDEX_ARGS_PROGRAM)
    # the dims not indexed go as None in the Tensor?[] list, as PyTorch passes them
    assert got[0] == ["aten.index.Tensor", [["T", [4, 3, 2], "float32"], [None, ["T", [2], "int64"]]]]
    assert got[1][1][1] == [["T", [2], "int64"], None, ["T", [2], "int64"]]
    assert got[2][1][1] == [None, None, ["T", [1], "int64"]]
    assert got[4] == ["aten.index.Tensor", [["T", [4, 3, 2], "float32"], [["T", [4, 3, 2], "bool"]]]]
    assert got[-3][0] == "aten.index_put_.default" and got[-3][1][1] == [None, ["T", [2], "int64"]]
    assert got[-2] == ["aten.linalg_vector_norm.default", [["T", [4, 3, 2], "float32"], 3.0, [0, 2], True]]
    assert got[-1][0] == "aten.linalg_vector_norm.default"


@needs_torch
def test_index_and_norm_arguments_match_pytorch():
    want = _run_torch(INDEX_ARGS_PROGRAM)
    got = _run_ember(INDEX_ARGS_PROGRAM)
    # PyTorch lifts the literal index tensors (aten.lift_fresh) and keeps defaults out of the call; the rest is equal
    want = [e for e in want if e[0] != "aten.lift_fresh.default"]
    assert [e[0] for e in got] == [e[0] for e in want]
    assert got[:-1] == want[:-1]


@needs_torch
def test_indexing_norm_schemas_match_pytorch():
    names = ["index.Tensor", "index_put_.default", "index_put.default", "new_zeros.default",
             "linalg_vector_norm.default", "nll_loss2d_forward.default", "nll_loss2d_backward.default",
             "clamp.default", "clamp_min.default", "clamp_max.default", "rsub.Scalar", "index_fill_.int_Scalar",
             "masked_fill_.Scalar"]  # fmt: skip
    prog = f"names = {names!r}\nresult = [str(eval('torch.ops.aten.' + n)._schema) for n in names]"
    want = run_torch(prog)
    got = [ember.ops._lookup("aten." + n)._schema for n in names]
    assert got == want


def test_aten_index_and_norm_ops_values():
    rng = np.random.default_rng(7)
    x0 = rng.standard_normal((4, 3))
    x = ember.tensor(x0)
    i = ember.tensor([3, 0, 3])
    j = ember.tensor([2, 0])
    aten = ember.ops.aten
    np.testing.assert_array_equal(aten.index.Tensor(x, [None, j]).numpy(), x0[:, [2, 0]])
    np.testing.assert_array_equal(aten.index.Tensor(x, [i]).numpy(), x0[[3, 0, 3]])
    np.testing.assert_array_equal(aten.index.Tensor(x, [x > 0]).numpy(), x0[x0 > 0])
    want = x0.copy()
    np.add.at(want, ([3, 0, 3], slice(None)), np.ones((3, 3)))  # repeated rows accumulate
    np.testing.assert_allclose(aten.index_put.default(x, [i], ember.ones(3, 3, dtype=ember.float64), True).numpy(),
                               want, rtol=0, atol=1e-15)  # fmt: skip
    y = x.clone()
    out = aten.index_put_.default(y, [i[:2], j], ember.tensor([5.0, 6.0], dtype=ember.float64))
    want = x0.copy()
    want[[3, 0], [2, 0]] = [5.0, 6.0]
    assert out is y
    np.testing.assert_array_equal(y.numpy(), want)
    z = aten.new_zeros.default(x, [2, 5])
    assert z.dtype == ember.float64 and z.shape == (2, 5) and not z.numpy().any()
    np.testing.assert_allclose(aten.linalg_vector_norm.default(x, 3, [0]).numpy(),
                               (np.abs(x0) ** 3).sum(0) ** (1 / 3), rtol=1e-12)  # fmt: skip
    np.testing.assert_allclose(aten.linalg_vector_norm.default(x).numpy(), np.sqrt((x0**2).sum()), rtol=1e-12)
    np.testing.assert_array_equal(aten.clamp.default(x, None, 0.2).numpy(), np.minimum(x0, 0.2))
    np.testing.assert_array_equal(aten.clamp_min.default(x, -0.1).numpy(), np.maximum(x0, -0.1))
    np.testing.assert_allclose(aten.rsub.Scalar(x, 2.0, alpha=3).numpy(), 2.0 - 3 * x0, rtol=1e-15, atol=1e-15)


def test_setitem_of_a_number_under_a_mode_keeps_index_put_errors():
    # out of range, or a mask of another shape: index_put_'s IndexError, nothing written (no partial index_fill_)
    for index, message in (
        ((slice(None), ember.tensor([0, 4])), "index 4 is out of bounds for dimension 1"),
        (ember.tensor([True, False]), r"The shape of the mask \[2\] at index 0 does not match"),
    ):
        t = ember.zeros(3, 4)
        with Recorder() as rec, pytest.raises(IndexError, match=message):
            t[index] = 1.0
        assert rec.log == ["aten.index_put_.default"]
        assert not t.numpy().any()
    t = ember.zeros(3, 4)
    with Recorder() as rec:
        t[ember.tensor([[2], [0]])] = True  # a 2-d index is flattened; True is written as 1, as PyTorch's index_fill_
    assert rec.log == ["aten.view.default", "aten.index_fill_.int_Scalar"]  # PyTorch's list
    np.testing.assert_array_equal(t.numpy(), [[1] * 4, [0] * 4, [1] * 4])


def test_aten_nll_loss2d_ops_values():
    rng = np.random.default_rng(8)
    x0 = rng.standard_normal((2, 3, 2, 3))
    t0 = rng.integers(0, 3, (2, 2, 3))
    t0[1, 0, 2] = -100
    w0 = np.array([0.5, 2.0, 1.5])
    x, t, w = ember.tensor(x0), ember.tensor(t0), ember.tensor(w0)
    aten = ember.ops.aten
    valid = t0 != -100
    safe = np.where(valid, t0, 0)
    picked = np.take_along_axis(x0, safe[:, None], 1)[:, 0]
    wt = np.where(valid, w0[safe], 0.0)
    for reduction, want in ((0, -picked * wt), (1, (-picked * wt).sum() / wt.sum()), (2, (-picked * wt).sum())):
        out, total = aten.nll_loss2d_forward.default(x, t, w, reduction, -100)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
        g0 = rng.standard_normal(want.shape) if reduction == 0 else np.array(1.7)
        g = aten.nll_loss2d_backward.default(ember.tensor(g0), x, t, w, reduction, -100, total).numpy()
        # d loss / d x: -weight at each target, divided by the total weight for the mean
        ref = np.zeros_like(x0)
        coef = -wt * g0 / (wt.sum() if reduction == 1 else 1.0)
        np.put_along_axis(ref, safe[:, None], coef[:, None], 1)
        np.testing.assert_allclose(g, ref, rtol=1e-12, atol=1e-15)
    with pytest.raises(RuntimeError, match="nll_loss2d_forward: expected a 4-d input"):
        aten.nll_loss2d_forward.default(x[0], t[0], None, 1, -100)


def test_wrapper_subclass_runs_indexing_norm_and_4d_cross_entropy():
    _Wrapper = _wrapper_class()
    rng = np.random.default_rng(9)
    x0, z0 = rng.standard_normal((5, 3)), rng.standard_normal((2, 3, 2, 2))
    t = ember.tensor(rng.integers(0, 3, (2, 2, 2)))
    i = ember.tensor([4, 1, 1])
    F = ember.nn.functional

    def step(x, z, tt, idx):
        a = (x[idx] * 2).sum() + x[:, idx[1:]].sum() + F.normalize(x, dim=1).sum() + x.clamp(-0.5, 0.5).sum()
        b = F.cross_entropy(z, tt) + ember.linalg.vector_norm(z, 3)
        y = (a + b) * 1.0
        y.backward()
        buf = x.detach().clone()
        buf[idx] = x.detach()[:3] * 0 + 1
        return y, buf

    plain = [ember.tensor(x0, requires_grad=True), ember.tensor(z0, requires_grad=True)]
    wrapped = [_Wrapper(ember.tensor(x0), requires_grad=True), _Wrapper(ember.tensor(z0), requires_grad=True)]
    want, want_buf = step(*plain, t, i)
    _Wrapper.seen.clear()
    got, got_buf = step(*wrapped, _Wrapper(t), _Wrapper(i))
    assert isinstance(got, _Wrapper) and isinstance(got_buf, _Wrapper)
    np.testing.assert_allclose(got.elem.numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_array_equal(got_buf.elem.numpy(), want_buf.numpy())
    for w, p in zip(wrapped, plain):
        np.testing.assert_allclose(w.grad.elem.numpy(), p.grad.numpy(), rtol=1e-10, atol=1e-12)
    for op in ["index.Tensor", "new_zeros.default", "index_put.default", "index_put_.default",
               "linalg_vector_norm.default", "clamp_min.default", "clamp.default", "nll_loss2d_forward.default",
               "nll_loss2d_backward.default"]:  # fmt: skip
        assert "aten." + op in _Wrapper.seen, op


FOLD_PROGRAM = (
    STEP_RECORDER
    + """
F = torch.nn.functional
x = torch.randn(2, 5, 4, dtype=torch.float64)
w, b = torch.randn(3, 4, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
wg = w.clone().requires_grad_()
cases = {
    "linear": lambda: F.linear(x, w, b), "linear_no_bias": lambda: F.linear(x, w),
    "linear_strided": lambda: F.linear(x.transpose(0, 1), w, b), "matmul": lambda: torch.matmul(x, w.t()),
    "linear_strided_grad": lambda: F.linear(x.transpose(0, 1), wg, b),
    "linear_rows_strided": lambda: F.linear(x[:, :, ::2], w[:, :2], b),
    "matmul_4d": lambda: x.reshape(2, 5, 2, 2).transpose(2, 3).reshape(2, 5, 4).unsqueeze(0) @ w.t(),
}
result = {}
for k, f in cases.items():
    with Rec() as r:
        out = f()
    result[k] = [r.log, (out - f()).abs().max().item()]
"""
)

FOLD_WANT = {
    "linear": ["aten.view.default", "aten.t.default", "aten.addmm.default", "aten._unsafe_view.default"],
    "linear_no_bias": ["aten.t.default", "aten.view.default", "aten.mm.default", "aten._unsafe_view.default"],
    "linear_strided": ["aten.transpose.int", "aten.t.default", "aten.expand.default", "aten.view.default",
                       "aten.expand.default", "aten.view.default", "aten.bmm.default", "aten._unsafe_view.default",
                       "aten.add.Tensor"],
    "linear_strided_grad": ["aten.transpose.int", "aten.t.default", "aten.clone.default", "aten._unsafe_view.default",
                            "aten.mm.default", "aten._unsafe_view.default", "aten.add.Tensor"],
    "matmul": ["aten.t.default", "aten.view.default", "aten.mm.default", "aten._unsafe_view.default"],
    "linear_rows_strided": ["aten.slice.Tensor", "aten.slice.Tensor", "aten.t.default", "aten.view.default",
                            "aten.mm.default", "aten._unsafe_view.default", "aten.add.Tensor"],
    "matmul_4d": ["aten.view.default", "aten.transpose.int", "aten.clone.default", "aten._unsafe_view.default",
                  "aten.unsqueeze.default", "aten.t.default", "aten.view.default", "aten.mm.default",
                  "aten._unsafe_view.default"],
}  # fmt: skip


def test_linear_and_matmul_of_batched_inputs_fold_into_mm_as_pytorch():
    _assert_cases_reach_modes(FOLD_PROGRAM, FOLD_WANT)


@needs_torch
def test_linear_and_matmul_folds_match_pytorch():
    assert _pytorch_case_ops(FOLD_PROGRAM) == FOLD_WANT


DETACH_PROGRAM = (
    STEP_RECORDER
    + """
x = torch.tensor([1.0, -2.0])
with Rec() as r:
    a = x.detach()
    b = torch.detach(x)
result = [r.log, a.tolist(), b.tolist()]
"""
)


def test_detach_called_from_python_reaches_modes():
    assert _run_ember(DETACH_PROGRAM) == [["aten.detach.default"] * 2, [1.0, -2.0], [1.0, -2.0]]
    W = _wrapper_class()
    d = W(ember.tensor([3.0]), requires_grad=True).detach()
    assert isinstance(d, W) and not d.requires_grad and d.elem.tolist() == [3.0]


@needs_torch
def test_detach_matches_pytorch():
    assert _run_torch(DETACH_PROGRAM) == _run_ember(DETACH_PROGRAM)
