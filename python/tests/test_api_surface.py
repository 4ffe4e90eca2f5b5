"""The public surface (Note [Python surface], docs/architecture.md): every public callable of ember, Tensor,
nn.functional, linalg, special and fft has a signature with PyTorch's parameter names and defaults and a real
docstring. The walker is api_surface.py; PyTorch's names come from fixtures/torch_api.json."""
import inspect

import pytest

import api_surface
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
