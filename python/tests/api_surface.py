"""Walks ember's public Python surface: every public callable of ember, Tensor, nn.functional, linalg, special and
fft, with whether inspect.signature gives its parameters and whether it has a real docstring, and checks parameter
names and defaults against PyTorch's (fixtures/torch_api.json, written by scripts/torch-api-reference).

test_api_surface.py asserts on it; `python python/tests/api_surface.py [-v]` prints the counts (and -v the gaps).
"""

import ast
import inspect
import json
import keyword
import os
import re
import sys
import types

import ember

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "torch_api.json")


def spaces():
    """(label, namespace) for each walked namespace; labels are those of the fixture."""
    out = [
        ("torch", ember),
        ("Tensor", ember.Tensor),
        ("nn.functional", ember.nn.functional),
        ("linalg", ember.linalg),
        ("special", ember.special),
    ]
    if hasattr(ember, "fft"):
        out.append(("fft", ember.fft))
    return out


def public_names(ns):
    if isinstance(ns, type):
        return sorted(n for n in dir(ns) if not n.startswith("_"))
    names = getattr(ns, "__all__", None)
    if names is None:
        names = [n for n in dir(ns) if not n.startswith("_")]
    return sorted(names)


def callables(ns):
    """(name, object) for the public callables of ns: functions, methods and classes, not modules or properties."""
    for name in public_names(ns):
        if isinstance(ns, type) and not callable(inspect.getattr_static(ns, name)):
            continue  # a property or a class attribute (Tensor.T, Tensor.is_leaf)
        try:
            obj = getattr(ns, name)
        except AttributeError:
            continue
        if isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        yield name, obj


_UNNAMED = re.compile(r"^arg\d+$")


def signature(obj):
    """inspect.signature(obj), or None when there is none or it says nothing: `(*args, **kwargs)`, or nanobind's
    `arg0, arg1` for a binding without parameter names."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = [p for p in sig.parameters.values() if p.name != "self"]
    kinds = [p.kind for p in params]
    if kinds == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
        return None
    if any(_UNNAMED.match(p.name) for p in params):
        return None
    return sig


def docstring(obj):
    """The callable's own documentation, without a signature line nanobind prepends; "" when it has none."""
    nb = getattr(obj, "__nb_signature__", None)
    if nb is not None:
        return next((d for _, d, _ in nb if d), "") or ""
    if isinstance(obj, type):
        return obj.__dict__.get("__doc__") or ""
    return inspect.getdoc(obj) or ""


_SIGNATURE_LINE = re.compile(r"^[\w.]+\(.*\)\s*(->.*)?$")


def doc_problem(doc):
    """Why a docstring is not a real one (None when it is): PyTorch's style is a first line that says what the callable
    does, as a sentence."""
    if not doc.strip():
        return "no docstring"
    first = doc.strip().splitlines()[0].strip()
    if _SIGNATURE_LINE.match(first):
        return "first line is a signature, not what it does: %r" % first
    if not first[0].isupper() and not first.startswith(("``", "`")):
        return "first line does not start a sentence: %r" % first
    return None


def accepted_names(obj, sig):
    """The parameter names a call may pass by keyword (over every nanobind overload), and whether **kwargs takes
    any name."""
    sigs = [sig]
    nb = getattr(obj, "__nb_signature__", None)
    if nb is not None and len(nb) > 1:
        from ember import _signatures

        sigs = [_signatures.parse(text, defaults) for text, _, defaults in nb]
    names, var_kw = set(), False
    for s in sigs:
        for p in s.parameters.values():
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                var_kw = True
            elif p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
                names.add(p.name)
    return names, var_kw


def _literal(text):
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False, None


def name_problems(label, name, obj, sig, reference):
    """Differences between ember's signature and PyTorch's documented overloads: a keyword PyTorch accepts that ember
    does not, a `**kwargs` where PyTorch has none, a default that differs."""
    overloads = reference.get(label, {}).get(name)
    if not overloads or sig is None:
        return []
    names, var_kw = accepted_names(obj, sig)
    torch_var_kw = any(p[1] == "**" for o in overloads for p in o)
    problems = []
    if var_kw and not torch_var_kw:
        problems.append("takes **kwargs where PyTorch names its parameters")
    params = sig.parameters
    for o in overloads:
        for pname, kind, default in o:
            if kind not in ("any", "kw") or pname in ("self",):
                continue
            if keyword.iskeyword(pname):  # inspect shows a parameter named `from` as `from_` (ember._signatures)
                pname += "_"
            if pname not in names and not var_kw:
                problems.append("does not accept PyTorch's keyword %r" % pname)
                continue
            if default is None or pname not in params:
                continue
            ok, value = _literal(default)
            mine = params[pname].default
            if mine is inspect.Parameter.empty:
                problems.append("%r has no default (PyTorch: %s)" % (pname, default))
            elif (
                ok
                and isinstance(mine, (type(None), bool, int, float, str))
                and not (mine == value and type(mine) is type(value) or mine is None and value is None)
            ):
                if (
                    isinstance(mine, (int, float))
                    and isinstance(value, (int, float))
                    and mine == value
                    and not isinstance(mine, bool)
                    and not isinstance(value, bool)
                ):
                    continue  # 1 and 1.0 both are PyTorch's "1"
                problems.append("%r defaults to %r (PyTorch: %s)" % (pname, mine, default))
    return sorted(set(problems))


def walk():
    """{label: [(name, has_signature, doc_problem or None, [name problems])]}."""
    with open(FIXTURE) as f:
        reference = json.load(f)
    out = {}
    for label, ns in spaces():
        rows = []
        for name, obj in callables(ns):
            sig = signature(obj)
            rows.append(
                (name, sig is not None, doc_problem(docstring(obj)), name_problems(label, name, obj, sig, reference))
            )
        out[label] = rows
    return out


def main():
    verbose = "-v" in sys.argv
    total = [0, 0, 0, 0]
    for label, rows in walk().items():
        c = [len(rows), sum(r[1] for r in rows), sum(r[2] is None for r in rows), sum(not r[3] for r in rows)]
        print("%-14s callables %5d  signature %5d  docstring %5d  PyTorch's names %5d" % (label, *c))
        total = [a + b for a, b in zip(total, c)]
        if verbose:
            for name, has_sig, doc, names in rows:
                if not has_sig or doc or names:
                    print(
                        "   %s: %s"
                        % (name, "; ".join(([] if has_sig else ["no signature"]) + ([doc] if doc else []) + names))
                    )
    print("%-14s callables %5d  signature %5d  docstring %5d  PyTorch's names %5d" % ("total", *total))


if __name__ == "__main__":
    main()
