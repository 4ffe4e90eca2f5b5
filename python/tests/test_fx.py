"""ember.fx: symbolic tracing, graphs, GraphModule's generated code, Interpreter/Transformer, the subgraph rewriter
and ShapeProp. Traced node lists are compared with PyTorch 2.15's torch.fx on the same model definitions."""

import math
import operator

import pytest
from both_libraries import needs_torch, run_ember, run_torch

import ember
import ember.nn.functional as F
from ember import fx

MODELS = """
fx = torch.fx
vision = torchvision

def norm(t):
    return t if isinstance(t, str) else t.__name__

def node_list(gm):
    return [[n.op, norm(n.target)] for n in gm.graph.nodes]

class Block(torch.nn.Module):
    def __init__(self, d=16, h=4):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(d)
        self.attn = torch.nn.MultiheadAttention(d, h, batch_first=True)
        self.ln2 = torch.nn.LayerNorm(d)
        self.ff1 = torch.nn.Linear(d, 4 * d)
        self.ff2 = torch.nn.Linear(4 * d, d)
        self.drop = torch.nn.Dropout(0.0)

    def forward(self, x):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        x = x + self.drop(a)
        y = self.ff2(torch.nn.functional.gelu(self.ff1(self.ln2(x))))
        return x + y * 0.5

class Leaf(torch.nn.Module):
    def forward(self, x):
        return x.relu() + 1

class WithLeaf(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.leaf = Leaf()
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("scale", torch.ones(4) * 2)

    def forward(self, x):
        y = self.leaf(self.lin(x))
        z = y.view(-1, 4).sum(dim=1, keepdim=True)
        return torch.cat([y * self.scale, z.expand(-1, 4)], dim=1).flatten(1) - x.shape[0]

class LeafTracer(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, Leaf) or super().is_leaf_module(m, qualname)

resnet = fx.symbolic_trace(vision.models.resnet18())
block = fx.symbolic_trace(Block())
with_leaf = WithLeaf()
leaf_gm = fx.GraphModule(with_leaf, LeafTracer().trace(with_leaf))
result = {
    "resnet": node_list(resnet),
    "block": node_list(block),
    "leaf": node_list(leaf_gm),
    "resnet_code": resnet.code,
    "leaf_code": leaf_gm.code,
}
"""


@pytest.fixture(scope="module")
def ours():
    return run_ember(MODELS)


def test_resnet18_nodes(ours):
    nodes = ours["resnet"]
    assert nodes[:5] == [
        ["placeholder", "x"],
        ["call_module", "conv1"],
        ["call_module", "bn1"],
        ["call_module", "relu"],
        ["call_module", "maxpool"],
    ]
    assert nodes[-4:] == [
        ["call_module", "avgpool"],
        ["call_function", "flatten"],
        ["call_module", "fc"],
        ["output", "output"],
    ]
    assert sum(1 for n in nodes if n == ["call_function", "add"]) == 8  # one residual add per block
    assert ["call_module", "layer2.0.downsample.0"] in nodes and len(nodes) == 71


def test_block_and_leaf_nodes(ours):
    assert ours["block"] == [
        ["placeholder", "x"],
        ["call_module", "ln1"],
        ["call_module", "attn"],
        ["call_function", "getitem"],
        ["call_function", "getitem"],
        ["call_module", "drop"],
        ["call_function", "add"],
        ["call_module", "ln2"],
        ["call_module", "ff1"],
        ["call_function", "gelu"],
        ["call_module", "ff2"],
        ["call_function", "mul"],
        ["call_function", "add"],
        ["output", "output"],
    ]
    assert ["call_module", "leaf"] in ours["leaf"] and ["get_attr", "scale"] in ours["leaf"]
    assert ["call_function", "getattr"] in ours["leaf"] and ["call_method", "expand"] in ours["leaf"]


@needs_torch
def test_node_lists_match_pytorch(ours):
    theirs = run_torch(MODELS, vision=True)
    for key in ("resnet", "block", "leaf"):
        assert ours[key] == theirs[key], key
    # the generated code reads as PyTorch's, with ember's names
    assert ours["resnet_code"].replace("ember.", "torch.") == theirs["resnet_code"]
    assert ours["leaf_code"].replace("ember.", "torch.") == theirs["leaf_code"]


def _models():
    ns = {"torch": ember, "torchvision": ember.vision, "__name__": "models"}
    exec(MODELS.split("resnet = fx.symbolic_trace")[0], ns)  # noqa: S102  (the classes only)
    return ns


def test_graph_modules_compute_what_the_modules_compute():
    ember.manual_seed(0)
    ns = _models()
    resnet = ember.vision.models.resnet18().eval()
    x = ember.randn(1, 3, 32, 32)
    gm = fx.symbolic_trace(resnet)
    assert ember.allclose(gm(x), resnet(x))
    block = ns["Block"]().eval()
    xb = ember.randn(2, 5, 16)
    assert ember.allclose(fx.symbolic_trace(block)(xb), block(xb), atol=1e-6)
    m = ns["WithLeaf"]()
    gm = fx.GraphModule(m, ns["LeafTracer"]().trace(m))
    xl = ember.randn(3, 4)
    assert ember.allclose(gm(xl), m(xl))
    assert gm.code.count("self.leaf(") == 1


def test_data_dependent_control_flow_is_a_trace_error():
    class Branch(ember.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x

    class Loop(ember.nn.Module):
        def forward(self, x):
            return [y for y in x]

    class Len(ember.nn.Module):
        def forward(self, x):
            return len(x)

    with pytest.raises(fx.TraceError, match="symbolically traced variables cannot be used as inputs to control flow"):
        fx.symbolic_trace(Branch())
    with pytest.raises(fx.TraceError, match="Proxy object cannot be iterated"):
        fx.symbolic_trace(Loop())
    with pytest.raises(RuntimeError, match="'len' is not supported in symbolic tracing by default"):
        fx.symbolic_trace(Len())


def test_proxy_operators_attributes_and_methods():
    def f(x, y):
        a = (x + y) * 2 - y / 3
        b = -(a**2) @ y.t()
        c = a.shape[0] + x.size(1)
        return b.relu().sum(dim=0), c, x[1:, 0], 1 - x

    gm = fx.symbolic_trace(f)
    ops = [(n.op, n.target if isinstance(n.target, str) else n.target.__name__) for n in gm.graph.nodes]
    assert ops == [
        ("placeholder", "x"),
        ("placeholder", "y"),
        ("call_function", "add"),
        ("call_function", "mul"),
        ("call_function", "truediv"),
        ("call_function", "sub"),
        ("call_function", "pow"),
        ("call_function", "neg"),
        ("call_method", "t"),
        ("call_function", "matmul"),
        ("call_function", "getattr"),
        ("call_function", "getitem"),
        ("call_method", "size"),
        ("call_function", "add"),
        ("call_method", "relu"),
        ("call_method", "sum"),
        ("call_function", "getitem"),
        ("call_function", "sub"),
        ("output", "output"),
    ]
    x, y = ember.randn(3, 3), ember.randn(3, 3)
    for got, want in zip(gm(x, y), f(x, y)):
        assert ember.allclose(got, want) if isinstance(want, ember.Tensor) else got == want


def test_generated_code_and_printing(capsys):
    class M(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = ember.nn.Linear(3, 3)

        def forward(self, x, k=2):
            return ember.relu(self.lin(x) * k) + self.lin.weight.sum()

    gm = fx.symbolic_trace(M())
    assert gm.code == (
        "\n\n\ndef forward(self, x, k = 2):\n"
        "    lin = self.lin(x);  x = None\n"
        "    mul = lin * k;  lin = k = None\n"
        "    relu = ember.relu(mul);  mul = None\n"
        "    lin_weight = self.lin.weight\n"
        "    sum_1 = lin_weight.sum();  lin_weight = None\n"
        "    add = relu + sum_1;  relu = sum_1 = None\n"
        "    return add\n    "
    )
    text = gm.print_readable(print_output=False)
    assert text.startswith("class M(ember.nn.Module):\n    def forward(self, x, k = 2):")
    gm.graph.print_tabular()
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert table[4].split()[:3] == ["call_module", "lin", "lin"]
    assert "%lin : [num_users=1] = call_module[target=lin](args = (%x,), kwargs = {})" in str(gm.graph)


def test_editing_a_graph():
    def f(x):
        return ember.relu(x) + 1

    gm = fx.symbolic_trace(f)
    relu = next(n for n in gm.graph.nodes if n.op == "call_function" and n.target is ember.relu)
    add = next(iter(relu.users))
    assert relu.args == (gm.graph.find_nodes(op="placeholder")[0],) and add.args[0] is relu
    with gm.graph.inserting_after(relu):
        neg = gm.graph.call_function(operator.neg, (relu,))
    relu.replace_all_uses_with(neg, delete_user_cb=lambda user: user is not neg)
    assert add.args[0] is neg and list(relu.users) == [neg]
    with gm.graph.inserting_before(add):
        dead = gm.graph.call_function(ember.exp, (neg,))
    dead.meta["note"] = "unused"
    gm.graph.lint()
    assert gm.graph.eliminate_dead_code() and dead not in list(gm.graph.nodes)
    gm.recompile()
    x = ember.tensor([-1.0, 2.0])
    assert gm(x).tolist() == [1.0, -1.0]
    with pytest.raises(RuntimeError, match="still had 1 users"):
        gm.graph.erase_node(relu)
    other = fx.Graph()
    stray = other.placeholder("z")
    add.args = (stray, 1)
    with pytest.raises(RuntimeError, match="does not belong to this Graph"):
        gm.graph.lint()


def test_wrap_and_autowrap():
    gm = fx.symbolic_trace(_uses_wrapped)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert _wrapped_helper in [getattr(t, "__wrapped__", t) for t in targets] or any(
        getattr(t, "__name__", "") == "_wrapped_helper" for t in targets
    )
    assert math.sqrt in targets  # math's functions are wrapped by default
    x = ember.tensor([4.0, 9.0])
    assert ember.allclose(gm(x, 16.0), _uses_wrapped(x, 16.0))
    # the code wraps them again (named after their qualified names), so that unpickling traces it the same way
    assert gm.code.startswith('\nember.fx._symbolic_trace.wrap("test_fx__wrapped_helper")\nember.fx._symbolic')
    assert "math_sqrt(y)" in gm.code
    import pickle

    gm2 = pickle.loads(pickle.dumps(gm))
    assert gm2.code == gm.code and ember.allclose(gm2(x, 16.0), _uses_wrapped(x, 16.0))

    class Tracer(fx.Tracer):
        pass

    g = Tracer(autowrap_functions=(plain_helper,)).trace(_uses_plain)
    assert [n.target for n in g.nodes if n.op == "call_function"] == [plain_helper]


def _wrapped_helper(x):
    return x * 2 if x.dim() == 1 else x  # would fail on a Proxy: control flow


fx.wrap("_wrapped_helper")


def _uses_wrapped(x, y):
    return _wrapped_helper(x) + math.sqrt(y)


def plain_helper(x):
    return x + 1


def _uses_plain(x):
    return plain_helper(x)


def test_interpreter_and_transformer():
    class M(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = ember.nn.Linear(2, 2)

        def forward(self, x):
            return ember.sigmoid(self.lin(x)).neg()

    m = M()
    gm = fx.symbolic_trace(m)
    x = ember.randn(4, 2)
    seen = []

    class Counting(fx.Interpreter):
        def run_node(self, n):
            seen.append(n.op)
            return super().run_node(n)

    assert ember.allclose(Counting(gm).run(x), m(x))
    assert seen == ["placeholder", "call_module", "call_function", "call_method", "output"]

    class SigmoidToTanh(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is ember.sigmoid:
                target = ember.tanh
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "neg":
                return args[0] * 3
            return super().call_method(target, args, kwargs)

    new = SigmoidToTanh(gm).transform()
    assert ember.allclose(new(x), ember.tanh(m.lin(x)) * 3)
    assert "ember.tanh" in new.code and "neg" not in new.code


def test_replace_pattern():
    def model(x, y):
        a = ember.relu(x) + y
        b = ember.relu(a) + y
        return b * ember.relu(y)

    def pattern(p, q):
        return ember.relu(p) + q

    def replacement(p, q):
        return ember.sigmoid(p) - q

    gm = fx.symbolic_trace(model)
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 2 and all(m.anchor.target is operator.add for m in matches)
    x, y = ember.randn(3), ember.randn(3)
    a = ember.sigmoid(x) - y
    assert ember.allclose(gm(x, y), (ember.sigmoid(a) - y) * ember.relu(y))
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"].count(ember.relu) == 1


def test_shape_prop():
    from ember.fx.passes.shape_prop import ShapeProp, TensorMetadata

    m = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3, stride=2), ember.nn.Flatten(), ember.nn.Linear(36, 5))
    gm = fx.symbolic_trace(m)
    out = ShapeProp(gm).propagate(ember.randn(2, 3, 7, 7))
    assert out.shape == (2, 5)
    meta = {n.name: n.meta["tensor_meta"] for n in gm.graph.nodes if "tensor_meta" in n.meta}
    assert isinstance(meta["_0"], TensorMetadata)
    assert tuple(meta["_0"].shape) == (2, 4, 3, 3) and meta["_0"].dtype is ember.float32
    assert tuple(meta["_1"].shape) == (2, 36) and meta["_1"].stride == (36, 1)
    assert tuple(meta["output"].shape) == (2, 5) and meta["output"].requires_grad


def test_to_folder(tmp_path):
    class M(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = ember.nn.Linear(3, 2)
            self.seq = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.Tanh())
            self.register_buffer("shift", ember.tensor([0.5, -0.5]))

        def forward(self, x):
            return F.relu(self.seq(self.lin(x))) + self.shift, math.sqrt(x.size(0))

    m = M()
    gm = fx.symbolic_trace(m)
    gm.to_folder(tmp_path / "pkg", "Saved")
    (tmp_path / "pkg").rename(tmp_path / "moved")  # the package finds its files beside itself
    import importlib.util

    spec = importlib.util.spec_from_file_location("saved_pkg_module", tmp_path / "moved" / "module.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = ember.randn(4, 3)
    got, want = mod.Saved()(x), m(x)
    assert ember.allclose(got[0], want[0]) and got[1] == want[1] == 2.0
    assert "from math import sqrt as math_sqrt" in (tmp_path / "moved" / "module.py").read_text()


def test_building_a_graph_by_hand():
    g = fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(ember.neg, (x,))
    b = g.call_method("exp", (x,))
    g.output((a, b))
    a.prepend(b)  # moves b before a
    assert [n.name for n in g.nodes] == ["x", "exp", "neg", "output"]
    x.append(a)
    assert [n.name for n in g.nodes] == ["x", "neg", "exp", "output"] and a.next is b and b.prev is a
    assert list(x.users) == [a, b] and a.all_input_nodes == [x]
    gm = fx.GraphModule(ember.nn.Module(), g, "Built")
    t = ember.tensor([0.0, 1.0])
    neg, exp = gm(t)
    assert neg.tolist() == [-0.0, -1.0] and ember.allclose(exp, ember.tensor([1.0, math.e]))
    assert type(gm).__name__ == "Built" and "exp = x.exp();  x = None" in gm.code
    with pytest.raises(RuntimeError, match="referenced nonexistent target"):
        fx.Interpreter(gm).fetch_attr("missing.weight")
    with pytest.raises(RuntimeError, match="referenced target lin.weight but that target was not provided"):
        g2 = fx.Graph()
        g2.output(g2.get_attr("lin.weight"))
        fx.GraphModule({}, g2)


def test_concrete_args_specialize_and_check():
    class M(ember.nn.Module):
        def forward(self, x, flag=True, y=None):
            if flag:
                x = x + 1
            if y is not None:
                x = x * y
            return x

    gm = fx.symbolic_trace(M(), concrete_args={"flag": True, "y": None})
    assert [n.name for n in gm.graph.nodes if n.op == "placeholder"] == ["x", "flag_1", "y_1"]
    x = ember.tensor([1.0, 2.0])
    assert gm(x).tolist() == [2.0, 3.0]
    with pytest.raises(AssertionError, match="flag has been specialized to have value True"):
        gm(x, False)
    with pytest.raises(AssertionError, match="y has been specialized to have value None"):
        gm(x, True, x)
    with pytest.raises(RuntimeError, match="Tracing expected 3 arguments but got 2 concrete arguments"):
        fx.symbolic_trace(M(), concrete_args=(fx.PH, True))


def _pytree_fn(d, t):
    return d["a"] + d["b"] * t[0], t[1]


def test_concrete_args_with_containers_of_placeholders():
    gm = fx.symbolic_trace(_pytree_fn, concrete_args={"d": {"a": fx.PH, "b": fx.PH}, "t": (fx.PH, fx.PH)})
    assert [n.name for n in gm.graph.nodes if n.op == "placeholder"] == ["d_1", "d_2", "t_1", "t_2"]
    assert "d_1, d_2, t_1, t_2, = fx_pytree.tree_flatten_spec([d, t], self._in_spec)" in gm.code
    assert "return pytree.tree_unflatten([add, t_2], self._out_spec)" in gm.code
    a, b, c, e = (ember.randn(3) for _ in range(4))
    out = gm({"a": a, "b": b}, (c, e))
    assert isinstance(out, tuple) and len(out) == 2
    assert ember.allclose(out[0], a + b * c) and out[1] is e
    # the Interpreter takes the containers too
    out2 = fx.Interpreter(gm).run({"a": a, "b": b}, (c, e))
    assert ember.allclose(out2[0], out[0])

    # Transformer and deepcopy keep the containers
    class SubForMul(fx.Transformer):
        def call_function(self, target, args, kwargs):
            return super().call_function(operator.sub if target is operator.mul else target, args, kwargs)

    t2 = SubForMul(gm).transform()
    assert ember.allclose(t2({"a": a, "b": b}, (c, e))[0], a + (b - c))
    import copy

    assert ember.allclose(copy.deepcopy(gm)({"a": a, "b": b}, (c, e))[0], out[0])
    # a constant leaf is specialized and checked
    gm2 = fx.symbolic_trace(_pytree_fn, concrete_args={"d": {"a": fx.PH, "b": 3.0}, "t": (fx.PH, 2)})
    assert ember.allclose(gm2({"a": a, "b": 3.0}, (c, 2))[0], a + 3.0 * c)
    with pytest.raises(AssertionError, match="d has been specialized to have value 3.0"):
        gm2({"a": a, "b": 4.0}, (c, 2))


@needs_torch
def test_concrete_args_code_matches_pytorch():
    src = """
def f(d, t):
    return d["a"] + d["b"] * t[0], t[1]
PH = torch.fx.PH
gm = torch.fx.symbolic_trace(f, concrete_args={"d": {"a": PH, "b": PH}, "t": (PH, PH)})
result = {"code": gm.code, "nodes": [[n.op, n.name] for n in gm.graph.nodes]}
"""
    assert run_ember(src) == run_torch(src)


class _PickleLeaf(ember.nn.Module):
    def forward(self, x):
        return x.relu() + 1


class _PickleModel(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.leaf = _PickleLeaf()
        self.lin = ember.nn.Linear(4, 4)
        self.register_buffer("scale", ember.ones(4) * 2)

    def forward(self, x):
        y = self.leaf(self.lin(x))
        return ember.cat([y * self.scale, F.relu(y)], dim=1).flatten(1) - x.shape[0]


class _PickleTracer(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, _PickleLeaf) or super().is_leaf_module(m, qualname)


@needs_torch
def test_wrapped_functions_in_code_match_pytorch():
    src = """
import math
gm = torch.fx.symbolic_trace(lambda x: math.sqrt(x.size(0)) * x + math.floor(2.5))
result = gm.code
"""
    assert run_ember(src).replace("ember.", "torch.") == run_torch(src)


VARARGS = """
class M(torch.nn.Module):
    def forward(self, x, *args, scale=2, **kwargs):
        return x * scale + args[0] + kwargs['b']
gm = torch.fx.symbolic_trace(M())
def f(a, *rest):
    return a + rest[1]
g2 = torch.fx.symbolic_trace(f)
o = torch.ones(2)
result = {"code": gm.code, "nodes": [[n.op, n.name, str(n.target)] for n in gm.graph.nodes], "code2": g2.code,
          "val": gm(o, 3, o * 2, b=o * 5).tolist(), "val2": g2(o, o, o * 4).tolist()}
"""


def test_varargs_and_keyword_only_parameters():
    ours = run_ember(VARARGS)
    assert [n[2] for n in ours["nodes"][:4]] == ["x", "scale", "*args", "**kwargs"]
    assert ours["code"].startswith("\n\n\ndef forward(self, x, scale = 2, *args, **kwargs):\n    _args = args\n")
    assert ours["val"] == [10.0, 10.0] and ours["val2"] == [5.0, 5.0]


@needs_torch
def test_varargs_match_pytorch():
    assert run_ember(VARARGS) == run_torch(VARARGS)


def test_graph_module_pickle_and_deepcopy():
    import copy
    import pickle

    ember.manual_seed(0)
    m = _PickleModel()
    gm = fx.GraphModule(m, _PickleTracer().trace(m))
    x = ember.randn(3, 4)
    want = gm(x)
    gm2 = pickle.loads(pickle.dumps(gm))
    assert type(gm2).__name__ == type(gm).__name__
    assert gm2.code == gm.code  # traced again from the saved code: the same graph
    assert ember.allclose(gm2(x), want)
    assert gm2.lin.weight is not gm.lin.weight and ember.equal(gm2.lin.weight, gm.lin.weight)
    gm3 = copy.deepcopy(gm)
    assert gm3.graph is not gm.graph and [n.name for n in gm3.graph.nodes] == [n.name for n in gm.graph.nodes]
    assert all(n.graph is gm3.graph for n in gm3.graph.nodes)
    assert ember.allclose(gm3(x), want) and gm3.lin.weight is not gm.lin.weight
    with ember.no_grad():
        gm3.lin.weight.zero_()
    assert ember.allclose(gm(x), want)  # the copy shares nothing
    gm4 = copy.copy(gm)
    assert gm4.lin is gm.lin and ember.allclose(gm4(x), want)
    # containers of placeholders survive pickling (as in torch.fx, the flattening is traced into getitem nodes)
    pt = fx.symbolic_trace(_pytree_fn, concrete_args={"d": {"a": fx.PH, "b": fx.PH}, "t": (fx.PH, fx.PH)})
    pt2 = pickle.loads(pickle.dumps(pt))
    a = ember.randn(2)
    assert ember.allclose(pt2({"a": a, "b": a}, (a, a))[0], a + a * a)


def test_pickling_a_graph_module_that_calls_a_local_function_fails_clearly():
    import pickle

    def local_fn(x):
        return x + 1

    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(local_fn, (x,)))
    gm = fx.GraphModule(ember.nn.Module(), g)
    with pytest.raises(pickle.PicklingError, match="local_fn"):
        pickle.dumps(gm)


def test_shape_prop_on_meta_tensors():
    from ember.fx.passes.shape_prop import ShapeProp

    with ember.device("meta"):
        m = ember.nn.Sequential(ember.nn.Linear(3, 5), ember.nn.ReLU(), ember.nn.Flatten(0))
    gm = fx.symbolic_trace(m)
    out = ShapeProp(gm).propagate(ember.empty(2, 3, device="meta"))
    assert out.is_meta
    metas = [n.meta["tensor_meta"] for n in gm.graph.nodes if n.op == "call_module"]
    assert [tuple(t.shape) for t in metas] == [(2, 5), (2, 5), (10,)]
    assert all(t.dtype == ember.float32 for t in metas)


def test_param_shapes_constant():
    class M(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = ember.nn.Parameter(ember.ones(3, 2))

        def forward(self, x):
            if self.w.shape[0] == 3 and self.w.dim() == 2:  # control flow on a parameter's shape
                return x @ self.w
            return x

    with pytest.raises(fx.TraceError):
        fx.symbolic_trace(M())
    m = M()
    tracer = fx.Tracer(param_shapes_constant=True)
    gm = fx.GraphModule(m, tracer.trace(m))
    assert [n.op for n in gm.graph.nodes] == ["placeholder", "get_attr", "call_function", "output"]
    x = ember.randn(4, 3)
    assert ember.allclose(gm(x), x @ m.w)
