"""The public surface (Note [Python surface], docs/architecture.md): every public callable of ember, Tensor,
nn.functional, linalg, special and fft has a signature with PyTorch's parameter names and defaults and a real
docstring. The walker is api_surface.py; PyTorch's names come from fixtures/torch_api.json."""

import inspect

import api_surface
import pytest

import ember

SURFACE = api_surface.walk()


@pytest.mark.parametrize("label", list(SURFACE))
def test_every_callable_has_a_signature(label):
    missing = [name for name, has_sig, _, _ in SURFACE[label] if not has_sig]
    assert not missing, "%s: no signature (none, (*args, **kwargs) or arg0-style) for %s" % (label, missing)


@pytest.mark.parametrize("label", list(SURFACE))
def test_every_callable_has_a_docstring(label):
    bad = ["%s (%s)" % (name, doc) for name, _, doc, _ in SURFACE[label] if doc]
    assert not bad, "%s: %d docstrings missing or not in PyTorch's style:\n%s" % (label, len(bad), "\n".join(bad))


@pytest.mark.parametrize("label", list(SURFACE))
def test_parameter_names_and_defaults_are_pytorchs(label):
    bad = ["%s: %s" % (name, "; ".join(p)) for name, _, _, p in SURFACE[label] if p]
    assert not bad, "%s: %d callables differ from PyTorch:\n%s" % (label, len(bad), "\n".join(bad))


def test_the_walker_sees_what_it_must():
    names = {label: {r[0] for r in rows} for label, rows in SURFACE.items()}
    assert {"add", "transpose", "zeros", "exp"} <= names["torch"]
    assert {"add", "add_", "transpose", "exp_"} <= names["Tensor"]
    assert {"conv2d", "relu", "softmax"} <= names["nn.functional"]
    assert {"norm", "solve"} <= names["linalg"] and {"erfcx", "ndtr"} <= names["special"]


def test_the_checks_can_fail():
    # A gap of each kind is reported: a function without a docstring or with a signature line as its first line,
    # unnamed parameters, and names and defaults that differ from PyTorch's.
    def undocumented(input, dim0, dim1):
        pass

    def sig_first(input):
        """sig_first(input) -> Tensor"""

    assert api_surface.doc_problem(api_surface.docstring(undocumented)) == "no docstring"
    assert "signature" in api_surface.doc_problem(api_surface.docstring(sig_first))
    ref = {"torch": {"f": [[["input", "any", None], ["dim", "any", "0"], ["out", "kw", "None"]]]}}

    def f(input, dim=1):
        """Does f."""

    problems = api_surface.name_problems("torch", "f", f, inspect.signature(f), ref)
    assert problems == ["'dim' defaults to 1 (PyTorch: 0)", "does not accept PyTorch's keyword 'out'"]
    assert api_surface.signature(lambda *args, **kwargs: None) is None


def test_signatures_of_cpp_functions_are_inspectable():
    # Note [Signatures of C++ functions]: nanobind functions, methods and bound methods have __signature__.
    sig = inspect.signature(ember.Tensor.dim)
    assert list(sig.parameters) == ["self"]
    assert list(inspect.signature(ember.ones(1).dim).parameters) == []
    sig = inspect.signature(ember.get_num_threads)
    assert list(sig.parameters) == [] and str(sig.return_annotation) == "int"


def _extension_modules(module):
    """ember._C and its submodules (_nn, _linalg, ...), however deep."""
    yield module
    for value in vars(module).values():
        if inspect.ismodule(value) and value.__name__.startswith(module.__name__ + "."):
            yield from _extension_modules(value)


def _public_names(module):
    return {name for name, value in vars(module).items() if not name.startswith("_") and not inspect.ismodule(value)}


@pytest.mark.parametrize(
    "module",
    [
        ember,
        ember.nn.functional,
        ember.linalg,
        ember.special,
        ember._derived,
        ember._real_complex,
        ember._norm_ops,
        *_extension_modules(ember._C),
    ],
    ids=lambda m: m.__name__,
)
def test_all_lists_exactly_the_public_names(module):
    # Note [Python surface]: a namespace's __all__ is its public names, each once; nothing public is left out of it
    # and nothing in it is missing from the module.
    names = module.__all__
    assert len(names) == len(set(names)), "listed twice: %s" % sorted({n for n in names if names.count(n) > 1})
    assert not sorted(_public_names(module) - set(names)), "public but not in __all__"
    assert not sorted(set(names) - set(vars(module))), "in __all__ but not defined"


def test_extension_modules_list_their_bindings():
    # Note [__all__ of the extension modules]: made in C++ for every submodule, sorted, without private names.
    C = ember._C
    assert {"Tensor", "dtype", "float32", "add", "transpose"} <= set(C.__all__)
    assert {"conv2d", "relu"} <= set(C._nn.__all__) and {"solve", "qr"} <= set(C._linalg.__all__)
    for module in _extension_modules(C):
        assert module.__all__ == sorted(module.__all__)
        assert not [n for n in module.__all__ if n.startswith("_")]


def test_each_name_is_defined_in_one_place():
    # A Python module that ember re-exports never redefines a name bound in C++ (which one would win would depend
    # on the order of the imports); likewise for nn.functional and linalg.
    for module in (ember._derived, ember._real_complex, ember._norm_ops, ember._tensor_types):
        assert not set(module.__all__) & set(ember._C.__all__), module.__name__
    assert not set(ember.nn.functional.__all__[len(ember._C._nn.__all__) :]) & set(ember._C._nn.__all__)
    assert not set(ember.linalg.__all__[len(ember._C._linalg.__all__) :]) & set(ember._C._linalg.__all__)
    # star-importing ember gives exactly its __all__
    namespace = {}
    exec("from ember import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(ember.__all__)
