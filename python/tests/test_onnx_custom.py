"""ember.onnx's extension points: register_custom_op_symbolic (custom ops of ember.library and functions the exporter
does not know, written with g.op), custom_opsets, and dynamic_shapes with ember.export.Dim; exported models run in
onnxruntime with ember's outputs (1e-5), also at other sizes along the dynamic axes."""

import io

import numpy as np
import pytest
from both_libraries import needs_torch, run_ember, run_torch

import ember
import ember.nn as nn
from ember.export import Dim
from ember.library import Library, custom_op
from ember.onnx import OnnxExporterError, UnsupportedOperatorError
from ember.onnx import register_custom_op_symbolic as register
from ember.onnx import unregister_custom_op_symbolic as unregister
from ember.onnx.symbolic_helper import parse_args

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _export(model, args, **kw):
    f = io.BytesIO()
    ember.onnx.export(model, args, f, **kw)
    proto = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto, f.getvalue()


def _check_runs(data, model, feeds):
    """onnxruntime's outputs equal ember's for each {input name: tensor} of `feeds`."""
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for feed in feeds:
        got = sess.run(None, {k: v.numpy() for k, v in feed.items()})
        with ember.no_grad():
            want = model(*feed.values())
        want = want if isinstance(want, tuple) else (want,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == tuple(w.shape)
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-5)


@custom_op("emonnx::scaled_tanh", mutates_args=())
def scaled_tanh(x: ember.Tensor, alpha: float = 2.0) -> ember.Tensor:
    return ember.tanh(x) * alpha


class _TanhNet(nn.Module):
    def __init__(self, alpha=None):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.alpha = alpha

    def forward(self, x):
        h = self.lin(x)
        y = ember.ops.emonnx.scaled_tanh(h) if self.alpha is None else ember.ops.emonnx.scaled_tanh(h, self.alpha)
        return y + 1


def test_custom_op_exports_through_a_symbolic_to_standard_ops():
    ember.manual_seed(0)
    model = _TanhNet(0.75).eval()
    x = ember.randn(2, 4)
    with pytest.raises(UnsupportedOperatorError, match="'emonnx::scaled_tanh' to ONNX opset version 20"):
        ember.onnx.export(model, (x,), None)
    seen = []

    def symbolic(g, x, alpha):
        seen.append((type(x).__name__, x.type().sizes(), x.type().scalarType(), alpha))
        return g.op("Mul", g.op("Tanh", x), g.op("Constant", value_t=ember.tensor(alpha)))

    register("emonnx::scaled_tanh", symbolic, 13)
    try:
        proto, data = _export(model, (x,), input_names=["x"], dynamic_axes={"x": {0: "batch"}})
        assert seen == [("Value", [2, 3], "Float", 0.75)]
        assert [n.op_type for n in proto.graph.node] == ["Gemm", "Tanh", "Constant", "Mul", "Add", "Identity"]
        _check_runs(data, model, [{"x": x}, {"x": ember.randn(7, 4)}])
        # the default of an argument the program left out reaches the symbolic
        model2 = _TanhNet().eval()
        seen.clear()
        _, data2 = _export(model2, (x,), input_names=["x"])
        assert seen[0][3] == 2.0
        _check_runs(data2, model2, [{"x": x}])
    finally:
        unregister("emonnx::scaled_tanh", 13)
    with pytest.raises(UnsupportedOperatorError):
        ember.onnx.export(model, (x,), None)


def test_custom_domain_and_custom_opsets():
    model = _TanhNet(1.5).eval()
    x = ember.randn(2, 4)

    def symbolic(g, x, alpha):
        return g.op("custom_domain::ScaledTanh", x, alpha_f=alpha, modes_s=["a", "b"], axes_i=[0, 1])

    register("emonnx::scaled_tanh", symbolic, 13)
    try:
        proto, _ = _export(model, (x,), custom_opsets={"custom_domain": 2})
        node = [n for n in proto.graph.node if n.domain == "custom_domain"]
        assert len(node) == 1 and node[0].op_type == "ScaledTanh"
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node[0].attribute}
        assert attrs == {"alpha": pytest.approx(1.5), "modes": [b"a", b"b"], "axes": [0, 1]}
        assert {(o.domain, o.version) for o in proto.opset_import} == {("", 20), ("custom_domain", 2)}
        proto, _ = _export(model, (x,))  # a domain without custom_opsets: version 1
        assert {(o.domain, o.version) for o in proto.opset_import} == {("", 20), ("custom_domain", 1)}
        with pytest.raises(TypeError, match="custom_opsets must be a dict"):
            ember.onnx.export(model, (x,), None, custom_opsets={"custom_domain": "2"})
        with pytest.raises(ValueError, match="set the ONNX opset with opset_version"):
            ember.onnx.export(model, (x,), None, custom_opsets={"": 18})
    finally:
        unregister("emonnx::scaled_tanh", 13)


def test_symbolic_for_a_function_the_exporter_does_not_know_and_opset_versions():
    class Net(nn.Module):
        def forward(self, x):
            return ember.logcumsumexp(x, 1) - x.logcumsumexp(dim=0)

    model = Net()
    x = ember.randn(3, 5)
    with pytest.raises(UnsupportedOperatorError, match="logcumsumexp"):
        ember.onnx.export(model, (x,), None)

    @parse_args("v", "i")
    def logcumsumexp(g, x, dim):
        m = g.op("ReduceMax", x, keepdims_i=1)  # all axes: one shift keeps exp in range
        e = g.op("Exp", g.op("Sub", x, m))
        return g.op("Add", g.op("Log", g.op("CumSum", e, g.op("Constant", value_t=ember.tensor(dim)))), m)

    register("::logcumsumexp", logcumsumexp, 18)  # "::name" is "aten::name"
    try:
        with pytest.raises(UnsupportedOperatorError, match="opset version 17"):
            ember.onnx.export(model, (x,), None, opset_version=17)  # registered from 18 on
        _, data = _export(model, (x,), input_names=["x"], dynamic_axes={"x": [0, 1]}, opset_version=18)
        _check_runs(data, model, [{"x": x}, {"x": ember.randn(6, 2)}])
    finally:
        unregister("aten::logcumsumexp", 18)


def test_user_symbolic_overrides_a_built_in_converter():
    class Net(nn.Module):
        def forward(self, x):
            return ember.relu(x)

    register("aten::relu", lambda g, x, inplace=False: g.op("Softplus", x), 13)
    try:
        proto, data = _export(Net(), (ember.randn(4),), input_names=["x"])
        assert [n.op_type for n in proto.graph.node] == ["Softplus", "Identity"]
        sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        x = np.array([-1.0, 0.0, 2.0, 0.5], np.float32)
        np.testing.assert_allclose(sess.run(None, {"x": x})[0], np.log1p(np.exp(x)), rtol=1e-6)
    finally:
        unregister("aten::relu", 13)
    proto, _ = _export(Net(), (ember.randn(4),))
    assert [n.op_type for n in proto.graph.node] == ["Relu", "Identity"]


def test_library_defined_op_with_overloads_and_two_outputs():
    lib = Library("emonnx_lib", "DEF")
    try:
        lib.define("minmax(Tensor x, int dim=-1) -> (Tensor, Tensor)")
        lib.impl("minmax", lambda x, dim=-1: (x.amin(dim), x.amax(dim)), "CompositeExplicitAutograd")

        class Net(nn.Module):
            def forward(self, x):
                lo, hi = ember.ops.emonnx_lib.minmax(x, 1)
                return hi - lo

        def symbolic(g, x, dim):
            axes = g.op("Constant", value_t=ember.tensor([dim]))
            return g.op("ReduceMin", x, axes, keepdims_i=0), g.op("ReduceMax", x, axes, keepdims_i=0)

        register("emonnx_lib::minmax", symbolic, 18)
        model = Net()
        x = ember.randn(3, 4)
        _, data = _export(model, (x,), input_names=["x"], dynamic_axes={"x": {0: "n"}})
        _check_runs(data, model, [{"x": x}, {"x": ember.randn(5, 4)}])
        register("emonnx_lib::minmax", lambda g, x, dim: g.op("ReduceMin", x), 18)  # one value for two outputs
        with pytest.raises(OnnxExporterError, match="the op has 2 output"):
            ember.onnx.export(model, (x,), None)
        register("emonnx_lib::minmax", lambda g, x, dim: None, 18)
        with pytest.raises(OnnxExporterError, match="returned None"):
            ember.onnx.export(model, (x,), None)
        unregister("emonnx_lib::minmax", 18)
    finally:
        lib._destroy()


def test_register_errors():
    with pytest.raises(OnnxExporterError, match="The symbolic name must match the format domain::name"):
        register("noname", lambda g, x: x, 13)
    with pytest.raises(OnnxExporterError, match="Failed to register operator my lib::x"):
        register("my lib::x", lambda g, x: x, 13)
    with pytest.raises(ValueError, match="onnx domain cannot be modified"):
        register("onnx::Relu", lambda g, x: x, 13)
    with pytest.raises(TypeError, match="symbolic_fn must be callable"):
        register("emonnx::scaled_tanh", None, 13)
    unregister("emonnx::never_registered", 13)  # nothing to remove: no error, as torch.onnx

    model = _TanhNet(1.0)
    register("emonnx::scaled_tanh", lambda g, x, alpha: g.op("Mul", x, x, alpha=alpha), 13)
    try:
        with pytest.raises(ValueError, match="Invalid attribute specifier 'alpha' names must be suffixed with type"):
            ember.onnx.export(model, (ember.randn(2, 4),), None)
    finally:
        unregister("emonnx::scaled_tanh", 13)


@needs_torch
def test_register_errors_match_torch():
    program = """
result = []
for name in ["noname", "my lib::x", "onnx::Relu", "a::1b"]:
    try:
        torch.onnx.register_custom_op_symbolic(name, lambda g, x: x, 13)
        result.append("no error")
    except Exception as e:
        result.append([type(e).__name__, str(e)])
"""
    ours = run_ember(program)
    theirs = run_torch(program)
    for a, b in zip(ours, theirs):  # ember's OnnxExporterError is torch.onnx.errors.OnnxExporterError
        assert a == b


# ---- dynamic_shapes ------------------------------------------------------------------------------------------------


class _TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x, pair):
        a, b = pair
        h = self.lin(x).view(x.size(0), -1)
        return h.sum(1, keepdim=True) * a.mean() + b.sum(), a.t() @ b


def test_dynamic_shapes_runs_at_other_sizes():
    ember.manual_seed(0)
    model = _TwoInputs().eval()
    batch = Dim("batch", min=1, max=64)
    n = Dim("n")
    x, a, b = ember.randn(2, 4), ember.randn(3, 5), ember.randn(3, 6)
    proto, data = _export(
        model,
        (x, (a, b)),
        input_names=["x", "a", "b"],
        dynamic_shapes={"x": {0: batch}, "pair": ((n, Dim.AUTO), [n, "cols"])},
    )
    shapes = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in proto.graph.input}
    assert shapes == {"x": ["batch", 4], "a": ["n", "a_dim_1"], "b": ["n", "cols"]}
    feeds = [{"x": x, "a": a, "b": b}, {"x": ember.randn(9, 4), "a": ember.randn(2, 7), "b": ember.randn(2, 3)}]
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for feed in feeds:
        got = sess.run(None, {k: v.numpy() for k, v in feed.items()})
        want = model(feed["x"], (feed["a"], feed["b"]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-5, atol=1e-5)
    # as a tuple in forward's order, with None for a static input
    proto, data = _export(model, (x, (a, b)), input_names=["x", "a", "b"], dynamic_shapes=({0: "B"}, None))
    assert [d.dim_param for d in proto.graph.input[0].type.tensor_type.shape.dim] == ["B", ""]
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    got = sess.run(None, {"x": np.ones((5, 4), np.float32), "a": a.numpy(), "b": b.numpy()})[0]
    want = model(ember.ones(5, 4), (a, b))[0]
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "spec, exc, match",
    [
        ({"y": {0: "b"}, "pair": None}, RuntimeError, r"its top-level keys must be the arg names \['x', 'pair'\]"),
        (({0: "b"},), RuntimeError, "`inputs` has 2 elements, but `dynamic_shapes` has 1 elements"),
        ({"x": {2: "b"}, "pair": None}, RuntimeError, "Dynamic shape axis 2 specified at `dynamic_shapes\\['x'\\]`"),
        ({"x": ["b"], "pair": None}, RuntimeError, r"to have the same length as the actual tensor shape \[2, 4\]"),
        ({"x": {0: 2.5}, "pair": None}, RuntimeError, "Unexpected dimension mapped to index 0"),
        ({"x": {0: 3}, "pair": None}, RuntimeError, r"shape\[0\] to be equal to 3, but got 2"),
        ({"x": {0: Dim("big", min=5)}, "pair": None}, RuntimeError, r"Constraints violated \(big\)"),
        ({"x": None, "pair": ({0: "p"}, {0: "p"}, None)}, RuntimeError, "mismatch between the structure"),
        ("x", AssertionError, "expected dynamic_shapes to be dict, tuple, or list"),
    ],
)
def test_dynamic_shapes_errors(spec, exc, match):
    x, a, b = ember.randn(2, 4), ember.randn(3, 5), ember.randn(3, 6)
    with pytest.raises(exc, match=match):
        ember.onnx.export(_TwoInputs(), (x, (a, b)), None, dynamic_shapes=spec)


def test_dynamic_shapes_one_dim_for_axes_of_different_sizes_and_with_dynamic_axes():
    x, a, b = ember.randn(2, 4), ember.randn(3, 5), ember.randn(3, 6)
    d = Dim("d")
    with pytest.raises(RuntimeError, match=r"Dim\('d', min=0\) names axes of different sizes: 2 at"):
        ember.onnx.export(_TwoInputs(), (x, (a, b)), None, dynamic_shapes={"x": {0: d}, "pair": ({0: d}, None)})
    with pytest.raises(ValueError, match="give dynamic_shapes or dynamic_axes, not both"):
        ember.onnx.export(
            _TwoInputs(), (x, (a, b)), None, dynamic_shapes={"x": {0: d}, "pair": None}, dynamic_axes={"x": [0]}
        )


def test_dim_api():
    from ember.export import dims

    assert repr(Dim("batch", min=2, max=64)) == "Dim('batch', max=64)"
    assert repr(Dim("d")) == "Dim('d', min=0)" and Dim("d").min == 0
    assert repr(Dim("x", min=3)) == "Dim('x', min=3)" and repr(Dim("x", min=1, max=8)) == "Dim('x', min=1, max=8)"
    assert [d.__name__ for d in dims("a", "b", max=10)] == ["a", "b"] and dims("a", max=10)[0].max == 10
    assert repr(Dim.AUTO) == "DimHint(AUTO)" and Dim.DYNAMIC != Dim.STATIC
    with pytest.raises(AssertionError, match="Cannot create Dim with inconsistent min=5, max=2"):
        Dim("q", min=5, max=2)
    with pytest.raises(AssertionError, match="Cannot create Dim with inconsistent min=None, max=0"):
        Dim("q", max=0)
    with pytest.raises(AssertionError, match="Dim name must be a valid identifier, got not valid"):
        Dim("not valid")


@needs_torch
def test_dim_matches_torch():
    program = """
Dim = torch.export.Dim
result = [repr(Dim("batch", min=2, max=64)), repr(Dim("d")), repr(Dim("x", min=3)), repr(Dim.AUTO),
          repr(Dim.DYNAMIC), Dim("a", min=4, max=9).min, Dim("a", max=9).max, Dim("b").__name__]
for kw in [dict(min=5, max=2), dict(max=0)]:
    try:
        Dim("q", **kw)
    except AssertionError as e:
        result.append(str(e))
"""
    assert run_ember(program) == run_torch(program)


def test_composite_implicit_custom_op_is_traced_through_unless_a_symbolic_exports_it():
    lib = Library("emonnx_comp", "DEF")
    try:
        lib.define("softsign2(Tensor x, float k=1.0) -> Tensor")
        lib.impl("softsign2", lambda x, k=1.0: x / (ember.abs(x) + k), "CompositeImplicitAutograd")

        class Net(nn.Module):
            def forward(self, x):
                return ember.ops.emonnx_comp.softsign2(x, 2.0) * 3

        model = Net()
        x = ember.randn(3, 4)
        proto, data = _export(model, (x,), input_names=["x"], dynamic_axes={"x": [0]})
        assert [n.op_type for n in proto.graph.node] == ["Abs", "Add", "Div", "Mul", "Identity"]  # its parts
        _check_runs(data, model, [{"x": x}, {"x": ember.randn(6, 4)}])
        register("emonnx_comp::softsign2", lambda g, x, k: g.op("Div", x, g.op("Add", g.op("Abs", x), k)), 13)
        proto, data = _export(model, (x,), input_names=["x"])
        assert [n.op_type for n in proto.graph.node] == ["Abs", "Add", "Div", "Mul", "Identity"]
        assert proto.graph.node[0].name.startswith("/softsign2/")  # now the symbolic's nodes
        _check_runs(data, model, [{"x": x}])
        unregister("emonnx_comp::softsign2", 13)
        # plain fx tracing keeps it one node, as PyTorch's symbolic_trace does
        assert "ember.ops.emonnx_comp.softsign2(x, 2.0)" in ember.fx.symbolic_trace(model).code
    finally:
        lib._destroy()
