"""ember.library: Library.define with named overloads, schema parsing and its errors, overload resolution,
infer_schema and opcheck; compared with PyTorch where it is installed."""

import numpy as np
import pytest
from both_libraries import needs_torch, run_ember, run_torch

import ember
from ember._opcheck import OpCheckError
from ember.library import Library, custom_op, infer_schema, opcheck, register_autograd

# The same program under ember and PyTorch: overloads, schemas, calls and the errors' messages.
OVERLOADS_PROGRAM = """
Library = torch.library.Library

result = {}
lib = Library("emlibtest", "DEF")
result["names"] = [
    lib.define("foo(Tensor x) -> Tensor"),
    lib.define("foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"),
    lib.define("foo.Scalar(Tensor x, Scalar s=2) -> Tensor"),
    lib.define("emlibtest::bar(Tensor x, int[] dims=[0, 1], str mode='a', float? eps=None) -> (Tensor, Tensor)"),
]
lib.impl("foo", lambda x: x * 2, "CPU")
lib.impl("foo.Scalar", lambda x, s=2: x * s + 1, "CPU")


def foo_out(x, *, out):
    out.copy_(x - 1)
    return out


lib.impl("foo.out", foo_out, "CPU")
p = torch.ops.emlibtest.foo
result["overloads"] = p.overloads()
result["schemas"] = [str(getattr(p, o)._schema) for o in p.overloads()] + [str(torch.ops.emlibtest.bar.default._schema)]
s = p.out._schema
result["fields"] = [s.name, s.overload_name, [a.name for a in s.arguments], [a.kwarg_only for a in s.arguments],
                    [str(a.type) for a in s.arguments], [a.alias_info is not None and a.alias_info.is_write
                    for a in s.arguments], len(s.returns)]
result["op_names"] = [p.default.name(), p.out.name(), p.Scalar.name()]
result["packet_schemas"] = {k: str(v) for k, v in p._schemas.items()}
x = torch.tensor([1.0, 2.0])
out = torch.zeros(2)
r = p(x, out=out)
result["calls"] = [p(x).tolist(), p(x, 3).tolist(), p(x, s=0.5).tolist(), r.tolist(), out.tolist(), r is out,
                   p.Scalar(x, 2).tolist(), p.default(x).tolist()]
errors = {}
for bad in ["foo(Tensor x) -> Tensor", "foo.out(Tensor y) -> Tensor", "bar(Tensor x -> Tensor", "bar(Tens x) -> Tensor",
            "baz Tensor", "bar2(Tensor x=1) -> Tensor", "foo.out.x(Tensor x) -> Tensor", "(Tensor x) -> Tensor",
            "f(Tensor x) ->", "f(int x='a') -> Tensor", "other::q(Tensor x) -> Tensor"]:
    try:
        lib.define(bad)
        errors[bad] = "no error"
    except Exception as e:
        errors[bad] = [type(e).__name__, str(e).split(" Duplicate registration")[0].split("(Error occurred")[0]]
for name, call in [("str", lambda: p("a")), ("missing", lambda: torch.ops.emlibtest.bar()),
                   ("overload", lambda: p.nope)]:
    try:
        call()
        errors[name] = "no error"
    except Exception as e:
        errors[name] = [type(e).__name__, "\\n".join(str(e).splitlines()[:5])]
result["errors"] = errors
lib._destroy()
try:
    lib.define("z(Tensor x) -> Tensor")
except AssertionError as e:
    result["destroyed"] = str(e)
result["gone"] = hasattr(torch.ops.emlibtest, "foo")
"""


def test_overloads_run_and_resolve():
    r = run_ember(OVERLOADS_PROGRAM)
    assert r["names"] == ["foo", "foo", "foo", "emlibtest::bar"]
    assert r["overloads"] == ["default", "out", "Scalar"]
    assert r["schemas"][1] == "emlibtest::foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"
    assert r["fields"] == ["emlibtest::foo", "out", ["x", "out"], [False, True], ["Tensor", "Tensor"], [False, True], 1]
    assert r["op_names"] == ["emlibtest::foo", "emlibtest::foo.out", "emlibtest::foo.Scalar"]
    assert r["packet_schemas"] == {
        "": "emlibtest::foo(Tensor x) -> Tensor",
        "out": "emlibtest::foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
        "Scalar": "emlibtest::foo.Scalar(Tensor x, Scalar s=2) -> Tensor",
    }
    # x*2, x*3+1, x*0.5+1, out=x-1 (returned and written), Scalar's default s=2, default
    assert r["calls"] == [[2, 4], [4, 7], [1.5, 2], [0, 1], [0, 1], True, [3, 5], [2, 4]]
    errs = r["errors"]
    assert errs["foo(Tensor x) -> Tensor"][1].startswith(
        "Tried to register an operator (emlibtest::foo(Tensor x) -> Tensor) with the same name and overload name"
    )
    assert errs["bar(Tensor x -> Tensor"] == [
        "RuntimeError",
        "expected ) but found 'arrow' here:\nbar(Tensor x -> Tensor\n             ~~ <--- HERE\n",
    ]
    assert "unknown type specifier" in errs["bar(Tens x) -> Tensor"][1]
    assert errs["bar2(Tensor x=1) -> Tensor"][1].startswith("expected None but found 'number' here")
    assert errs["other::q(Tensor x) -> Tensor"][1].startswith("Explicitly provided namespace (other)")
    assert errs["overload"] == ["AttributeError", "The underlying op of 'emlibtest.foo' has no overload name 'nope'"]
    assert errs["missing"][1].startswith("emlibtest::bar() is missing value for argument 'x'")
    assert errs["str"][1].startswith("Overloaded torch operator invoked from Python failed to match any schema")
    assert r["destroyed"] == "Library object has been destroyed" and r["gone"] is False


@needs_torch
def test_overloads_match_pytorch():
    assert run_ember(OVERLOADS_PROGRAM) == run_torch(OVERLOADS_PROGRAM)


def test_overload_kernels_meta_and_autograd():
    lib = Library("emlib_ovl", "DEF")
    try:
        lib.define("scale(Tensor x, float s) -> Tensor")
        lib.define("scale.Tensor(Tensor x, Tensor s) -> Tensor")
        lib.impl("scale", lambda x, s: x * s, "CompositeExplicitAutograd")
        lib.impl("scale.Tensor", lambda x, s: x * s + 100, "CPU")
        lib.impl("scale.Tensor", lambda x, s: ember.empty_like(x), "Meta")
        p = ember.ops.emlib_ovl.scale
        x = ember.tensor([1.0, -2.0])
        np.testing.assert_allclose(p(x, 3.0).numpy(), [3.0, -6.0])
        np.testing.assert_allclose(p(x, ember.tensor([2.0, 1.0])).numpy(), [102.0, 98.0])
        assert p.Tensor(ember.empty(5, device="meta"), ember.empty(5, device="meta")).shape == (5,)
        with pytest.raises(NotImplementedError, match="emlib_ovl::scale: There was no fake impl"):
            p(ember.empty(2, device="meta"), 1.0)

        def setup(ctx, inputs, output):
            ctx.s = inputs[1]

        register_autograd("emlib_ovl::scale", lambda ctx, g: (g * ctx.s, None), setup_context=setup)
        w = ember.tensor([1.0, 2.0], requires_grad=True)
        p(w, 4.0).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), [4.0, 4.0])
        with pytest.raises(RuntimeError, match="no autograd formula was registered"):
            p(w, ember.ones(2)).sum().backward()  # the Tensor overload has none
        with pytest.raises(ValueError, match="several overloads"):
            register_autograd(p, lambda ctx, g: g)
    finally:
        lib._destroy()


def test_impl_before_define_and_module_level_define():
    lib = Library("emlib_frag", "FRAGMENT")
    try:
        lib.impl("late", lambda x: x + 10, "CPU")  # registered when the op is defined
        lib.define("late(Tensor x) -> Tensor")
        np.testing.assert_allclose(ember.ops.emlib_frag.late(ember.zeros(2)).numpy(), [10.0, 10.0])
        ember.library.define("emlib_frag::twice.int", "(Tensor x, int n) -> Tensor", lib=lib)
        ember.library.impl("emlib_frag::twice.int", "cpu", lambda x, n: x * n)
        assert ember.ops.emlib_frag.twice.overloads() == ["int"]
        np.testing.assert_allclose(ember.ops.emlib_frag.twice(ember.ones(2), 5).numpy(), [5.0, 5.0])
        with pytest.raises(RuntimeError, match="with the same name and overload name multiple times"):
            ember.library.define("emlib_frag::twice.int", "(Tensor x, int n) -> Tensor")
        with pytest.raises(ValueError, match='of the form "namespace::name"'):
            ember.library.define("nonamespace", "(Tensor x) -> Tensor")
        with pytest.raises(RuntimeError, match="expected ident but found 'eof'"):
            ember.library.define("emlib_frag::g", "(Tensor x) ->")
        with pytest.raises(RuntimeError, match="Invalid alias_analysis type PURE"):
            lib.define("h(Tensor x) -> Tensor", alias_analysis="PURE")
        with pytest.raises(RuntimeError, match="expected at most 2 argument"):
            ember.ops.emlib_frag.twice(ember.ones(2), 5, 6)
        with pytest.raises(RuntimeError, match="Unknown keyword argument 'k'"):
            ember.ops.emlib_frag.twice(ember.ones(2), k=5)
    finally:
        lib._destroy()
    assert not hasattr(ember.ops.emlib_frag, "twice")


def test_schema_object_fields():
    lib = Library("emlib_schema", "DEF")
    try:
        lib.define("f(Tensor(a) x, Tensor[] ys, int[2] k=1, bool b=True, *, Tensor(b!)? o=None) -> Tensor(a)")
        s = ember.ops.emlib_schema.f.default._schema
        assert (
            s
            == "emlib_schema::f(Tensor(a) x, Tensor[] ys, int[2] k=1, bool b=True, *, Tensor(b!)? o=None) -> Tensor(a)"
        )
        assert s.overload_name == "" and s.is_mutable
        args = s.arguments
        assert [a.type for a in args] == ["Tensor", "Tensor[]", "int[2]", "bool", "Tensor?"]
        assert [a.default_value for a in args] == [None, None, 1, True, None]
        assert [a.has_default_value() for a in args] == [False, False, True, True, True]
        assert args[0].alias_info.before_set == {"a"} and not args[0].alias_info.is_write
        assert args[4].alias_info.is_write and args[4].kwarg_only
        assert s.returns[0].alias_info.before_set == {"a"}
    finally:
        lib._destroy()
    # ember's own ops carry the fields too
    add = ember.ops.aten.add.Tensor._schema
    assert add.name == "aten::add" and add.overload_name == "Tensor" and add.arguments[2].name == "alpha"


def test_infer_schema_matches_pytorch_rules():
    from typing import Optional

    def f(x: ember.Tensor, y: Optional[ember.Tensor] = None, n: int = 2, s: float = 1.0, *, flag: bool = False,
          mode: str = "a") -> ember.Tensor: ...  # fmt: skip

    assert infer_schema(f, mutates_args=()) == (
        '(Tensor x, Tensor? y=None, SymInt n=2, float s=1.0, *, bool flag=False, str mode="a") -> Tensor'
    )
    assert infer_schema(f, mutates_args=("x", "y"), op_name="g").startswith("g(Tensor(a0!) x, Tensor(a1!)? y=None")
    assert infer_schema(f, mutates_args="unknown").startswith("(Tensor(a0!) x, Tensor(a1!)? y=None, SymInt n=2")

    def k(x: ember.Tensor, d: dict) -> list[ember.Tensor]: ...

    with pytest.raises(ValueError, match="Parameter d has unsupported type"):
        infer_schema(k, mutates_args=())
    with pytest.raises(ValueError, match=r"\{'q'\} in mutates_args were not found"):
        infer_schema(f, mutates_args=("q",))
    with pytest.raises(ValueError, match="Parameter x must have a type annotation"):
        infer_schema(lambda x: x, mutates_args=())

    def strings(x: "Tensor", n: "int", y: "Optional[torch.Tensor]" = None) -> "list[Tensor]": ...  # noqa: F821

    assert infer_schema(strings, mutates_args=()) == "(Tensor x, SymInt n, Tensor? y=None) -> Tensor[]"

    def bad_default(x: ember.Tensor, z: Optional[list[int]] = [1]) -> ember.Tensor: ...  # noqa: B006

    with pytest.raises(ValueError, match="unsupported default value type <class 'list'>"):
        infer_schema(bad_default, mutates_args=())


@needs_torch
def test_infer_schema_equals_pytorch():
    program = """
import typing
infer_schema = torch.library.infer_schema
def f(x: torch.Tensor, y: typing.Optional[torch.Tensor] = None, n: int = 2, s: float = 1.0, *, flag: bool = False,
      mode: str = "a", ns: typing.Optional[list[int]] = None) -> tuple[torch.Tensor, torch.Tensor]: ...
def g(xs: list[torch.Tensor], d: torch.dtype, dev: torch.device) -> list[torch.Tensor]: ...
def h(x: torch.Tensor) -> None: ...
result = [infer_schema(f, mutates_args=()), infer_schema(f, mutates_args=("y",), op_name="ff"),
          infer_schema(g, mutates_args=()), infer_schema(h, mutates_args="unknown")]
"""
    assert run_ember(program) == run_torch(program)


# ---- opcheck -------------------------------------------------------------------------------------------------------


@custom_op("emlib_oc::scaled_sin", mutates_args=())
def scaled_sin(x: ember.Tensor, s: float) -> ember.Tensor:
    return ember.from_numpy(np.sin(x.numpy()) * s)


@scaled_sin.register_fake
def _(x, s):
    return ember.empty_like(x)


def _sin_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
    ctx.s = inputs[1]


def _sin_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * x.cos() * ctx.s, None


register_autograd(scaled_sin, _sin_backward, setup_context=_sin_setup)


def test_opcheck_passes_a_correct_op():
    ember.manual_seed(0)
    x = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    result = opcheck(scaled_sin, (x, 2.0), test_utils="ALL")
    assert result == dict.fromkeys(
        ["test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_static",
         "test_aot_dispatch_dynamic"], "SUCCESS")  # fmt: skip
    assert opcheck(ember.ops.emlib_oc.scaled_sin, (x.detach(), 1.0), test_utils="test_faketensor") == {
        "test_faketensor": "SUCCESS"
    }


def test_opcheck_finds_undeclared_mutation_and_aliasing():
    @custom_op("emlib_oc::mutates", mutates_args=())
    def mutates(x: ember.Tensor) -> ember.Tensor:
        x.add_(1)
        return x.clone()

    @custom_op("emlib_oc::aliases", mutates_args=())
    def aliases(x: ember.Tensor) -> ember.Tensor:
        return x.view(-1)

    @custom_op("emlib_oc::declared", mutates_args=("x",))
    def declared(x: ember.Tensor) -> None:
        x.mul_(2)

    x = ember.ones(2, 2)
    r = opcheck(mutates, (x,), test_utils="test_schema", raise_exception=False)
    assert str(r["test_schema"]) == "Argument x is not defined as mutable but was mutated"
    assert float(x.sum()) == 4.0  # opcheck works on copies
    r = opcheck(aliases, (x,), test_utils="test_schema", raise_exception=False)
    assert str(r["test_schema"]) == "Argument x is not defined to alias output but was aliasing"
    assert opcheck(declared, (x,), test_utils="test_schema") == {"test_schema": "SUCCESS"}
    with pytest.raises(OpCheckError, match="test_schema failed with Argument x is not defined"):
        opcheck(mutates, (x,))


def test_opcheck_fake_kernel_and_autograd_registration():
    @custom_op("emlib_oc::rowsum", mutates_args=())
    def rowsum(x: ember.Tensor) -> ember.Tensor:
        return x.sum(1)

    rowsum.register_fake(lambda x: ember.empty_like(x))  # wrong: the output has one axis less
    r = opcheck(rowsum, (ember.ones(3, 2),), test_utils="test_faketensor", raise_exception=False)
    assert "mismatched tensor metadata for output[0]: sizes (3, 2) != (3,)" in str(r["test_faketensor"])

    @custom_op("emlib_oc::nofake", mutates_args=())
    def nofake(x: ember.Tensor) -> ember.Tensor:
        return x * 2

    r = opcheck(nofake, (ember.ones(2),), test_utils=["test_faketensor"], raise_exception=False)
    assert isinstance(r["test_faketensor"], NotImplementedError)

    class Cube(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    lib = Library("emlib_oc2", "DEF")
    try:
        lib.define("cube(Tensor x) -> Tensor")
        lib.impl("cube", Cube.apply, "CPU")  # autograd at a backend key: what the check is for
        x = ember.tensor([1.0, 2.0], requires_grad=True)
        r = opcheck(ember.ops.emlib_oc2.cube, (x,), test_utils="test_autograd_registration", raise_exception=False)
        assert "does not have an autograd kernel defined at an autograd key" in str(r["test_autograd_registration"])
        lib.impl("cube", Cube.apply, "Autograd")
        assert opcheck(ember.ops.emlib_oc2.cube, (x,), test_utils="test_autograd_registration") == {
            "test_autograd_registration": "SUCCESS"
        }
        r = opcheck(ember.ops.emlib_oc2.cube, (x.detach(),), test_utils="test_autograd_registration",
                    raise_exception=False)  # fmt: skip
        assert "no inputs have requires_grad=True" in str(r["test_autograd_registration"])
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: x.detach() * 2, "CPU")  # not differentiable, but not wired wrongly either
        assert opcheck(ember.ops.emlib_oc2.twice, (x,), test_utils="test_autograd_registration") == {
            "test_autograd_registration": "SUCCESS"
        }
        # custom_op registers an autograd kernel (raising without a formula), so the check passes, as in PyTorch
        assert opcheck(nofake, (x,), test_utils="test_autograd_registration") == {
            "test_autograd_registration": "SUCCESS"
        }
    finally:
        lib._destroy()


def test_opcheck_out_overload_and_argument_errors():
    lib = Library("emlib_oc3", "DEF")
    try:
        lib.define("inc.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")

        def inc_out(x, *, out):
            out.copy_(x + 1)
            return out

        lib.impl("inc.out", inc_out, "CPU")
        lib.impl("inc.out", lambda x, *, out: out, "Meta")
        x, out = ember.tensor([1.0, 5.0]), ember.zeros(2)
        utils = ["test_schema", "test_faketensor", "test_aot_dispatch_dynamic"]
        assert opcheck(ember.ops.emlib_oc3.inc.out, (x,), {"out": out}, test_utils=utils) == dict.fromkeys(
            utils, "SUCCESS"
        )
        assert out.tolist() == [0.0, 0.0]
        with pytest.raises(ValueError, match="expected test_utils to be subset of"):
            opcheck(ember.ops.emlib_oc3.inc.out, (x,), {"out": out}, test_utils="test_nothing")
        with pytest.raises(ValueError, match="if you specify one of rtol/atol, you must specify both"):
            opcheck(ember.ops.emlib_oc3.inc.out, (x,), {"out": out}, rtol=1e-3)
        with pytest.raises(ValueError, match="op must be instance of torch._ops.OpOverload"):
            opcheck(lambda x: x, (x,))
        lib.define("inc(Tensor x) -> Tensor")
        with pytest.raises(ValueError, match=r"Got the following overloads for emlib_oc3::inc: \['out', 'default'\]"):
            opcheck(ember.ops.emlib_oc3.inc, (x,))
    finally:
        lib._destroy()


def test_register_torch_dispatch_rule_replaces_the_mode_handler():
    from ember.utils._python_dispatch import TorchDispatchMode

    @custom_op("emlib_td::double", mutates_args=())
    def double(x: ember.Tensor) -> ember.Tensor:
        return x * 2

    class Logging(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.log.append(str(func))
            return func(*args, **(kwargs or {}))

    calls = []

    @ember.library.register_torch_dispatch("emlib_td::double", Logging)
    def _(mode, func, types, args, kwargs):
        calls.append((type(mode).__name__, str(func)))
        return args[0] * 3  # the rule's own result: not the kernel's

    x = ember.tensor([1.0, 2.0])
    with Logging() as m:
        y = double(x)
        z = ember.neg(x)
    np.testing.assert_allclose(y.numpy(), [3.0, 6.0])
    np.testing.assert_allclose(z.numpy(), [-1.0, -2.0])
    assert calls == [("Logging", "emlib_td.double.default")]
    assert m.log == ["aten.neg.default"]  # the rule ran instead of the handler, with the mode off, as a handler does
    np.testing.assert_allclose(double(x).numpy(), [2.0, 4.0])  # no mode: the kernel


def test_custom_ops_reach_torch_function_and_trace_as_one_node():
    @custom_op("emlib_tf::axpy", mutates_args=())
    def axpy(x: ember.Tensor, y: ember.Tensor, a: float = 2.0) -> ember.Tensor:
        return ember.from_numpy(x.numpy() * a + y.numpy())  # NumPy: not traceable, so it must stay one node

    class Net(ember.nn.Module):
        def forward(self, x, y):
            return ember.ops.emlib_tf.axpy(x, y, a=3.0) + ember.ops.emlib_tf.axpy.default(y, x)

    gm = ember.fx.symbolic_trace(Net())
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert targets[:2] == ["emlib_tf.axpy", "emlib_tf.axpy.default"]
    assert "ember.ops.emlib_tf.axpy(x, y, a = 3.0)" in gm.code
    x, y = ember.tensor([1.0, 2.0]), ember.tensor([10.0, 20.0])
    np.testing.assert_allclose(gm(x, y).numpy(), [13 + 21, 26 + 42])

    class Logged(ember.Tensor):
        log = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.log.append(str(func))
            return super().__torch_function__(func, types, args, kwargs)

    out = ember.ops.emlib_tf.axpy(x.as_subclass(Logged), y)
    assert Logged.log == ["emlib_tf.axpy"] and type(out) is Logged
    np.testing.assert_allclose(out.as_subclass(ember.Tensor).numpy(), [12.0, 24.0])


@needs_torch
def test_schema_parser_reads_and_prints_pytorchs_registered_schemas():
    from ember._function_schema import FunctionSchema

    schemas = run_torch("result = [str(s) for s in torch._C._jit_get_all_schemas()]")
    parsed = 0
    for text in schemas:
        try:
            schema = FunctionSchema(text)
        except RuntimeError as e:
            # TorchScript-only forms: varargs, type variables, Dict/Future/tuple/class types, escaped strings
            assert "unknown type specifier" in str(e) or "..." in text or "tVal" in text or "\\\\" in text, text
            continue
        assert str(schema) == text
        parsed += 1
    assert parsed > 0.9 * len(schemas)


OPCHECK_PROGRAM = """
custom_op, opcheck = torch.library.custom_op, torch.library.opcheck


@custom_op("emlib_occmp::good", mutates_args=())
def good(x: torch.Tensor, s: float) -> torch.Tensor:
    return x * s


good.register_fake(lambda x, s: torch.empty_like(x))
good.register_autograd(lambda ctx, g: (g * ctx.s, None), setup_context=lambda ctx, inputs, output: setattr(ctx, "s",
                       inputs[1]))


@custom_op("emlib_occmp::mutates", mutates_args=())
def mutates(x: torch.Tensor) -> torch.Tensor:
    x.add_(1)
    return x.clone()


mutates.register_fake(lambda x: torch.empty_like(x))


@custom_op("emlib_occmp::badfake", mutates_args=())
def badfake(x: torch.Tensor) -> torch.Tensor:
    return x.sum(0)


badfake.register_fake(lambda x: torch.empty_like(x))

lib = torch.library.Library("emlib_occmp2", "DEF")
lib.define("cube(Tensor x) -> Tensor")
lib.impl("cube", lambda x: x * x * x, "CPU")


def summary(r):
    return {k: v if v == "SUCCESS" else [isinstance(v, RuntimeError), isinstance(v, AssertionError)]
            for k, v in r.items()}


x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
utils = ["test_schema", "test_autograd_registration", "test_faketensor"]
two = ["test_schema", "test_faketensor"]
result = [summary(opcheck(good, (x, 2.0), test_utils=utils, raise_exception=False)),
          summary(opcheck(mutates, (x.detach(),), test_utils=two, raise_exception=False)),
          summary(opcheck(badfake, (x.detach(),), test_utils=two, raise_exception=False)),
          summary(opcheck(torch.ops.emlib_occmp2.cube.default, (x,), test_utils="test_autograd_registration",
                          raise_exception=False))]
"""


@needs_torch
def test_opcheck_verdicts_match_pytorch():
    ours = run_ember(OPCHECK_PROGRAM)
    assert ours == run_torch(OPCHECK_PROGRAM)
    assert ours[0] == dict.fromkeys(["test_schema", "test_autograd_registration", "test_faketensor"], "SUCCESS")
    assert ours[3] == {"test_autograd_registration": [False, True]}
