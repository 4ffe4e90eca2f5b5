"""The plumbing of the Python surface (Note [Python surface], docs/architecture.md): the top-level forms of Tensor
methods (ember._derived), the Tensor methods written in Python (ember._tensor, attached there only), the keyword forms
of the Python-defined top-level functions, and the stubs of ember._C (Note [Stubs] in scripts/stubgen)."""

import ast
import importlib.machinery
import importlib.util
import inspect
import io
import os
import pickle

import numpy as np
import pytest
from conftest import assert_equal, to_np

import ember

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _rand(rng, *shape):
    return ember.tensor(rng.standard_normal(shape).astype(np.float32))


# ---- top-level in-place functions -----------------------------------------------------------------------------------


def test_inplace_functions_take_input_as_pytorchs_do(rng):
    # torch.relu_(input=x), torch.abs_(input=x): the first parameter is `input`, by position or by keyword, and the
    # result is the tensor itself, changed.
    a = rng.standard_normal(5).astype(np.float32)
    for name, ref in [
        ("abs_", np.abs),
        ("relu_", lambda v: np.maximum(v, 0)),
        ("exp_", np.exp),
        ("neg_", np.negative),
        ("sigmoid_", lambda v: 1 / (1 + np.exp(-v))),
    ]:
        x = ember.tensor(a)
        assert getattr(ember, name)(input=x) is x, name
        np.testing.assert_allclose(to_np(x), ref(a), rtol=1e-6, err_msg=name)
    x = ember.tensor(a)
    assert ember.xlogy_(x, other=ember.full((5,), 2.0)) is x  # a binary one (the binary table binds it)
    np.testing.assert_allclose(to_np(x), a * np.log(2.0), rtol=1e-6)
    assert not hasattr(ember, "add_")  # PyTorch has no functional add_
    for name in ember._derived.__all__:
        if name.endswith("_"):
            assert next(iter(inspect.signature(getattr(ember, name)).parameters)) == "input", name


def test_inplace_functions_with_keywords_match_the_methods(rng):
    m, v, y = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(3)
    t = ember.tensor(y)
    assert ember.addmv_(input=t, mat=ember.tensor(m), vec=ember.tensor(v), beta=2.0, alpha=0.5) is t
    np.testing.assert_allclose(to_np(t), 2 * y + 0.5 * m @ v, rtol=1e-12)
    b1, b2, c = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5)), rng.standard_normal((3, 5))
    t = ember.tensor(c)
    ember.addbmm_(t, batch1=ember.tensor(b1), batch2=ember.tensor(b2), beta=0.5)
    np.testing.assert_allclose(to_np(t), 0.5 * c + (b1 @ b2).sum(0), rtol=1e-12)
    x = ember.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    assert_equal(ember.clamp_(ember.tensor(to_np(x)), min=-1.0, max=2.0), np.clip(to_np(x), -1, 2))
    assert_equal(ember.clamp_min_(ember.tensor(to_np(x)), min=0.0), np.maximum(to_np(x), 0))
    assert_equal(ember.tril_(ember.tensor(to_np(x)), diagonal=0), np.tril(to_np(x)))
    assert_equal(ember.cumsum_(ember.tensor(to_np(x)), dim=1), np.cumsum(to_np(x), 1))
    assert_equal(ember.transpose_(ember.tensor(to_np(x)), dim0=0, dim1=1), to_np(x).T)
    assert_equal(ember.unsqueeze_(ember.tensor(to_np(x)), dim=1), to_np(x)[:, None])
    assert_equal(ember.squeeze_(ember.zeros(2, 1, 3), dim=1), np.zeros((2, 3)))
    assert_equal(
        ember.index_add_(ember.zeros(3), 0, ember.tensor([0, 2, 0]), ember.tensor([1.0, 2.0, 3.0]), alpha=2),
        [8.0, 0.0, 4.0],
    )
    assert_equal(ember.scatter_(ember.zeros(3), 0, ember.tensor([2, 0]), ember.tensor([5.0, 7.0])), [7.0, 0.0, 5.0])
    assert_equal(ember.masked_fill_(ember.zeros(3), ember.tensor([True, False, True]), 4.0), [4.0, 0.0, 4.0])
    assert_equal(ember.round_(ember.tensor([1.234, 5.678]), decimals=1), np.float32([1.2, 5.7]))
    assert_equal(ember.nan_to_num_(ember.tensor([float("nan"), 1.0]), nan=3.0), [3.0, 1.0])
    assert_equal(ember.fill_(input=ember.zeros(2), value=9.0), [9.0, 9.0])
    assert_equal(ember.zero_(input=ember.ones(2)), [0.0, 0.0])
    assert_equal(ember.as_strided_(ember.arange(6.0), size=(2, 2), stride=(1, 2)), [[0.0, 2.0], [1.0, 3.0]])
    w = ember.ones(2, requires_grad=True) * 3
    assert ember.detach_(input=w) is w and not w.requires_grad and w.grad_fn is None
    assert ember.get_device(ember.zeros(1)) == -1
    d = ember.detach(input=ember.ones(1, requires_grad=True))
    assert not d.requires_grad
    ember.manual_seed(0)
    n = ember.normal_(ember.empty(10000), mean=3.0, std=0.5)
    assert abs(n.mean().item() - 3.0) < 0.03 and abs(n.std().item() - 0.5) < 0.03


def test_inplace_functions_raise_pytorchs_errors():
    with pytest.raises(TypeError):
        ember.addmv_(ember.ones(2), ember.eye(2))  # vec missing
    with pytest.raises(RuntimeError):
        ember.logit_(ember.tensor([1, 2]))  # an integer tensor cannot hold the result


# ---- *_copy functions ------------------------------------------------------------------------------------------------


def test_copy_functions_take_pytorchs_keywords():
    base = ember.arange(6.0).reshape(2, 3)
    a = to_np(base)
    cases = [
        (ember.view_copy(base, size=(3, 2)), a.reshape(3, 2)),
        (ember.permute_copy(base, dims=(1, 0)), a.T),
        (ember.transpose_copy(input=base, dim0=0, dim1=1), a.T),
        (ember.expand_copy(base, size=(2, 2, 3), implicit=True), np.broadcast_to(a, (2, 2, 3))),
        (ember.unsqueeze_copy(base, dim=0), a[None]),
        (ember.squeeze_copy(base.unsqueeze(0), dim=0), a),
        (ember.select_copy(base, dim=1, index=2), a[:, 2]),
        (ember.diagonal_copy(base, offset=1), np.diagonal(a, 1)),
        (ember.as_strided_copy(base, size=(2, 2), stride=(1, 2), storage_offset=1), [[1.0, 3.0], [2.0, 4.0]]),
        (ember.unfold_copy(base, dimension=1, size=2, step=1), np.stack([a[:, 0:2], a[:, 1:3]], 1)),
        (ember.slice_copy(base, dim=1, start=1, end=3), a[:, 1:3]),
        (ember.t_copy(base), a.T),
        (ember.alias_copy(base), a),
        (ember.detach_copy(base), a),
    ]
    for result, expected in cases:
        assert result.is_contiguous()
        assert_equal(result, np.asarray(expected))
        result.fill_(-1)
    assert base.min().item() == 0  # none of them aliased base
    pieces = ember.split_copy(base, split_size=1, dim=1)
    assert [p.tolist() for p in pieces] == [a[:, i : i + 1].tolist() for i in range(3)]
    pieces = ember.split_with_sizes_copy(base, split_sizes=[1, 2], dim=1)
    assert [p.tolist() for p in pieces] == [a[:, :1].tolist(), a[:, 1:].tolist()]
    assert [p.tolist() for p in ember.unbind_copy(base, dim=1)] == a.T.tolist()


# ---- Tensor methods written in Python --------------------------------------------------------------------------------


def _tensor_attribute_assignments(path):
    """(line, text) of each `Tensor.x = ...` / `setattr(Tensor, ...)` in a source file."""
    with open(path) as f:
        tree = ast.parse(f.read())

    def is_tensor(node):
        return (isinstance(node, ast.Name) and node.id == "Tensor") or (
            isinstance(node, ast.Attribute) and node.attr == "Tensor"
        )

    found = []
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        for t in targets:
            if isinstance(t, ast.Attribute) and is_tensor(t.value) and t.attr != "__module__":
                found.append((node.lineno, ast.unparse(t)))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and is_tensor(node.args[0])
        ):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_tensor_methods_written_in_python_are_attached_in_one_place():
    package = os.path.join(ROOT, "python", "ember")
    elsewhere = []
    for folder, _, files in os.walk(package):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and path != os.path.join(package, "_tensor.py"):
                elsewhere += [
                    "%s:%d: %s" % (os.path.relpath(path, package), line, text)
                    for line, text in _tensor_attribute_assignments(path)
                ]
    assert not elsewhere, "Tensor attributes assigned outside ember/_tensor.py:\n" + "\n".join(elsewhere)

    def written_in_python(f):  # a function, or one that ember.overrides wrapped (docs/extending.md)
        return inspect.isfunction(getattr(f, "__wrapped__", f))

    python_defined = {
        name
        for name, value in vars(ember.Tensor).items()
        if written_in_python(value)
        or isinstance(value, classmethod)
        or isinstance(value, property)
        and written_in_python(value.fget)
    }
    assert python_defined == set(ember._tensor._METHODS)


def test_tensor_methods_written_in_python_have_pytorchs_signatures():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward(gradient=None, retain_graph=False, create_graph=False, inputs=[x])
    assert x.grad.tolist() == [2.0, 4.0]
    assert list(inspect.signature(ember.Tensor.backward).parameters) == [
        "self",
        "gradient",
        "retain_graph",
        "create_graph",
        "inputs",
    ]
    y = ember.tensor([1.0, 2.0])
    assert y.type() == "ember.FloatTensor"
    assert y.type(dtype=ember.float64).dtype == ember.float64
    assert y.type("torch.LongTensor", non_blocking=False).dtype == ember.int64
    with pytest.raises(TypeError, match="unexpected keyword"):
        y.type(ember.float64, blocking=True)
    assert y.histogram(bins=2, range=(0.0, 2.0)).hist.tolist() == [0.0, 2.0]
    assert y.conj() is y and y.resolve_conj() is y and not y.is_conj() and y.isreal().all().item()
    assert_equal(ember.tensor([-1.0, 2.0]).angle(), np.float32([np.pi, 0.0]))
    p = ember.tensor([0.25, 0.5])
    assert p.logit_(eps=None) is p
    np.testing.assert_allclose(to_np(p), np.log([1 / 3, 1.0]), rtol=1e-6)
    assert y.real is y
    with pytest.raises(TypeError, match="imag"):  # PyTorch 2.15's type
        y.imag
    # pickled by reference to where they are defined
    assert pickle.loads(pickle.dumps(ember.Tensor.backward)) is ember.Tensor.backward
    assert pickle.loads(pickle.dumps(ember.histogram)) is ember.histogram


# ---- keyword forms of the Python-defined top-level functions ---------------------------------------------------------


def test_python_defined_functions_take_pytorchs_keywords():
    a = np.array([1.0, 2.0], dtype=np.float32)
    t = ember.asarray(obj=a, requires_grad=None)
    assert not t.requires_grad and t.tolist() == [1.0, 2.0]
    assert ember.asarray(a, requires_grad=True).requires_grad

    def f(v):
        return v

    assert ember.compile(model=f, name="f", recompile_limit=4, isolate_recompiles=True, dynamic_shapes=None) is f
    assert ember.compile(backend=None, name="g")(f) is f
    buf = io.BytesIO()
    ember.save(obj={"w": ember.ones(2)}, f=buf, pickle_protocol=2, _disable_byteorder_record=False)
    buf.seek(0)
    assert ember.load(f=buf, map_location="cpu", weights_only=True)["w"].tolist() == [1.0, 1.0]
    assert ember.histogram(input=ember.tensor([0.5, 1.5]), bins=2, range=(0.0, 2.0)).hist.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError):
        ember.typename(obj=ember.ones(1))  # positional-only, as PyTorch's
    assert ember.typename(ember.ones(1, dtype=ember.int64)) == "ember.LongTensor"
    saved = ember._utils._interop_threads[0]
    try:
        ember._utils._interop_threads[0] = None
        ember.set_num_interop_threads(int=3)
        assert ember.get_num_interop_threads() == 3
        with pytest.raises(RuntimeError, match="cannot set number of interop threads"):
            ember.set_num_interop_threads(2)
    finally:
        ember._utils._interop_threads[0] = saved
    assert ember.scalar_tensor(s=2, dtype=ember.int64).tolist() == 2
    assert ember.conj_physical(input=ember.ones(1)).tolist() == [1.0]
    assert ember.nuclear_norm(input=ember.eye(2), keepdim=True).tolist() == [[2.0]]


def test_python_defined_classes_are_documented():
    for cls in (ember.Size, ember.finfo, ember.iinfo, ember.layout, ember.memory_format, ember.FloatTensor):
        assert cls.__dict__.get("__doc__"), cls
    assert ember.FloatTensor(2).dtype == ember.float32
    assert ember.return_types.max.__doc__.startswith("The named tuple that :func:`ember.max` returns")


# ---- stubs -----------------------------------------------------------------------------------------------------------


def _stub_folder():
    return os.path.join(os.path.dirname(ember._C.__file__), "_C")


def _stub(name="__init__"):
    path = os.path.join(_stub_folder(), name + ".pyi")
    assert os.path.isfile(path), "no stub %s: is the package built with EMBER_STUBS (scripts/dev-build)?" % path
    with open(path) as f:
        return ast.parse(f.read())


def _functions(body):
    return {n.name: n for n in body if isinstance(n, ast.FunctionDef)}


def _parameters(fn):
    a = fn.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def test_stubs_are_shipped_beside_the_extension():
    assert os.path.isfile(os.path.join(os.path.dirname(ember._C.__file__), "py.typed"))
    names = {n[: -len(".pyi")] for n in os.listdir(_stub_folder()) if n.endswith(".pyi")}
    assert {"__init__", "_nn", "_linalg"} <= names


def test_stubs_have_the_signatures_of_the_bindings():
    root = _stub()
    classes = {n.name: n for n in root.body if isinstance(n, ast.ClassDef)}
    assert {"Tensor", "dtype", "device", "Generator"} <= set(classes)  # written here, not imported from ember
    functions = _functions(root.body)
    assert _parameters(functions["flatten"]) == ["input", "start_dim", "end_dim"]
    methods = _functions(classes["Tensor"].body)
    # the methods written in Python (ember._tensor) are in the class too
    assert _parameters(methods["backward"]) == ["self", "gradient", "retain_graph", "create_graph", "inputs"]
    assert {"type", "conj", "histogram", "logit_"} <= set(methods)
    nn = _functions(_stub("_nn").body)
    assert _parameters(nn["cross_entropy"])[:3] == ["input", "target", "weight"]
    # the submodules name the public types as ember's: ember.Tensor, or Tensor imported from ember (an nb::sig's)
    text = ast.unparse(nn["cross_entropy"])
    source = ast.unparse(_stub("_nn"))
    assert "ember._C.Tensor" not in source
    assert "ember.Tensor" in text or ("Tensor" in text and "from ember import Tensor" in source)


def _load_stubgen():
    loader = importlib.machinery.SourceFileLoader("_ember_stubgen", os.path.join(ROOT, "scripts", "stubgen"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_every_name_in_the_stubs_resolves():
    # A type checker must resolve every annotation: an nb::sig that names a type the stub neither defines nor
    # imports (scripts/stubgen's _IMPORTS) is an error, as is a builtin shadowed by a name of the module.
    stubgen = _load_stubgen()
    for name in sorted(os.listdir(_stub_folder())):
        if name.endswith(".pyi"):
            tree = _stub(name[: -len(".pyi")])
            assert not stubgen._undefined_names(tree), name
            shadowed = stubgen._defined_names(tree) & {"bool", "int", "float"}
            bare = {
                n.id
                for ann in stubgen._annotations(tree)
                for n in ast.walk(ann)
                if isinstance(n, ast.Name) and n.id in shadowed
            }
            assert not bare, (name, bare)


def test_import_does_not_load_numpy():
    # NumPy is loaded on use (gradcheck, from_numpy, .numpy()), not by `import ember`: it costs import time, and
    # NumPy's bundled OpenBLAS starts threads that spin beside ember's on small machines
    import subprocess
    import sys

    code = "import sys, ember; print('numpy' in sys.modules, (ember.ones(3) * 2).sum().item())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["False", "6.0"]
