"""inspect.signature for ember's C++ functions (Note [Signatures of C++ functions]).

nanobind describes each function it binds in `__nb_signature__`: per overload the text of a Python `def` line (the
binding's `nb::sig`, or one nanobind renders from the C++ types and `nb::arg`s, with defaults as `\\N` references
into a tuple of the default objects) and its docstring. `inspect` does not read that attribute, so python/src/main.cpp
puts a `__signature__` property built by this module on nanobind's three function types: the signature is parsed
when someone asks for it, and a call costs nothing more.
"""

import ast
import inspect
import keyword
import re

_DEFAULT_REF = re.compile(r"\\(\d+)")
# A parameter named after a Python keyword (PyTorch's `random_(from, to)`) can only be passed positionally or through
# **{...}; inspect requires identifiers, so it is shown with a trailing underscore.
_KEYWORD_PARAM = re.compile(r"([(,]\s*)(%s)(?=\s*[:=,)])" % "|".join(keyword.kwlist))
_KINDS = inspect.Parameter


class _Source:
    """A default or annotation shown as the source text of the signature (`ember.strided`, `Tensor | None`)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _annotation(node, text):
    if node is None:
        return inspect.Parameter.empty
    return _Source(ast.get_source_segment(text, node))


def _default(node, text, defaults):
    if isinstance(node, ast.Name) and node.id.startswith("_nb_default_"):
        return defaults[int(node.id[len("_nb_default_") :])]
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _Source(ast.get_source_segment(text, node))


def parse(def_line, defaults=None):
    """The inspect.Signature of one `def name(...) -> T` line of `__nb_signature__`."""
    text = _DEFAULT_REF.sub(lambda m: "_nb_default_" + m.group(1), def_line)
    text = re.sub(r"^def\s*\(", "def _(", text)  # an unnamed function renders as "def (...)"
    text = _KEYWORD_PARAM.sub(r"\1\2_", text)
    fn = ast.parse(text + ": pass").body[0]
    a = fn.args
    params = []
    positional = a.posonlyargs + a.args
    pos_defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(positional, pos_defaults)):
        kind = _KINDS.POSITIONAL_ONLY if i < len(a.posonlyargs) else _KINDS.POSITIONAL_OR_KEYWORD
        default = inspect.Parameter.empty if d is None else _default(d, text, defaults)
        params.append(inspect.Parameter(arg.arg, kind, default=default, annotation=_annotation(arg.annotation, text)))
    if a.vararg:
        params.append(
            inspect.Parameter(a.vararg.arg, _KINDS.VAR_POSITIONAL, annotation=_annotation(a.vararg.annotation, text))
        )
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        default = inspect.Parameter.empty if d is None else _default(d, text, defaults)
        params.append(
            inspect.Parameter(
                arg.arg, _KINDS.KEYWORD_ONLY, default=default, annotation=_annotation(arg.annotation, text)
            )
        )
    if a.kwarg:
        params.append(
            inspect.Parameter(a.kwarg.arg, _KINDS.VAR_KEYWORD, annotation=_annotation(a.kwarg.annotation, text))
        )
    returns = _annotation(fn.returns, text)
    return inspect.Signature(params, return_annotation=returns, __validate_parameters__=False)


def function_signature(f):
    """The signature of a nanobind function: its first overload's (the bindings list the general form first)."""
    def_line, _, defaults = f.__nb_signature__[0]
    return parse(def_line, defaults)


def bound_signature(m):
    """The signature of a bound method (`x.add`): the function's without `self`."""
    sig = function_signature(m.__func__)
    return sig.replace(parameters=list(sig.parameters.values())[1:])
