"""Operator schemas (``ns::name.overload(Tensor x, *, Tensor(a!) out) -> Tensor(a!)``): a checking parser with the
messages of PyTorch's schema parser, ``FunctionSchema`` (what ``OpOverload._schema`` is: the schema's text, with
``name``, ``overload_name``, ``arguments`` and ``returns``), and the binding of a call's arguments to a schema.

Note [schema objects]: ``FunctionSchema`` is a ``str`` subclass, so code that compares or prints ``op._schema`` as
text keeps working, while code written for PyTorch's ``torch.FunctionSchema`` reads its fields.
"""

import re

import ember

__all__ = ["Argument", "FunctionSchema", "SchemaError", "bind", "parse"]

# Base types a schema may name (PyTorch's list, less the JIT-only ones).
_BASE_TYPES = frozenset(
    "Tensor int float bool str Scalar SymInt SymFloat SymBool ScalarType Device Layout MemoryFormat Generator "
    "Storage Dimname complex Stream Any QScheme GraphModule".split()
)

_TOKEN = re.compile(
    r"\s*(?:(?P<arrow>->)|(?P<ns>::)|(?P<number>-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))"
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<string>'[^']*'|\"[^\"]*\")|(?P<punct>[()\[\],*=.?!|]))"
)


SchemaError = RuntimeError  # a schema string that does not parse: PyTorch raises RuntimeError with the place marked


class _Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind, text, pos):
        self.kind, self.text, self.pos = kind, text, pos

    def show(self):
        return self.text if self.kind == "punct" else self.kind


def _tokenize(text):
    toks, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            toks.append(_Tok("eof", "", pos))
            return toks
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise SchemaError(_here(text, pos, 1, "unexpected character '%s'" % text[pos]))
        kind = m.lastgroup
        start = m.start(kind)
        toks.append(_Tok(kind, m.group(kind), start))
        pos = m.end()


def _here(text, pos, width, msg):
    return "%s here:\n%s\n%s%s <--- HERE\n" % (msg, text, " " * pos, "~" * max(width, 1))


class AliasInfo:
    """``(a!)``: the alias set(s) of an argument and whether the op writes to it."""

    __slots__ = ("before_set", "after_set", "is_write", "_sets", "_wildcard_after")

    def __init__(self, sets, is_write, wildcard_after=False):
        self._sets, self._wildcard_after = list(sets), wildcard_after
        self.before_set = set(sets)
        self.after_set = {"*"} if wildcard_after else set(sets)
        self.is_write = is_write

    def __repr__(self):
        return "(%s%s%s)" % (
            "|".join(self._sets),
            "!" if self.is_write else "",
            " -> *" if self._wildcard_after else "",
        )


class Argument:
    """One argument (or return) of a schema: ``name``, ``type`` (its text: ``Tensor``, ``int[]``, ``Tensor?``),
    ``default_value``, ``has_default_value()``, ``kwarg_only``, ``alias_info``."""

    __slots__ = (
        "name",
        "type",
        "default_value",
        "_has_default",
        "_default_text",
        "kwarg_only",
        "alias_info",
        "_alias_at",
    )

    def __init__(
        self, name, type_, alias_info=None, default=None, has_default=False, default_text="", kwarg_only=False
    ):
        self.name, self.type, self.alias_info = name, type_, alias_info
        self.default_value, self._has_default, self._default_text = default, has_default, default_text
        self.kwarg_only = kwarg_only
        self._alias_at = None  # where the text put the alias annotation: after the base type or after a suffix

    def has_default_value(self):
        return self._has_default

    @property
    def is_out(self):
        return self.kwarg_only and self.alias_info is not None and self.alias_info.is_write

    def _type_text(self):
        if self.alias_info is None:
            return self.type
        at = self._alias_at if self._alias_at is not None else len(self.type.split("[")[0].rstrip("?"))
        return self.type[:at] + repr(self.alias_info) + self.type[at:]

    def __str__(self):
        text = self._type_text()
        if self.name:
            text += " " + self.name
        if self._has_default:
            text += "=" + self._default_text
        return text

    __repr__ = __str__


class FunctionSchema(str):
    """An operator's schema: the text (a str), and PyTorch's fields (Note [schema objects])."""

    def __new__(cls, text):
        parsed = parse(text)
        obj = super().__new__(cls, parsed._canonical())
        obj.name = parsed.name
        obj.overload_name = parsed.overload_name
        obj.arguments = parsed.arguments
        obj.returns = parsed.returns
        return obj

    @property
    def is_mutable(self):
        return any(a.alias_info is not None and a.alias_info.is_write for a in self.arguments)

    def __reduce__(self):
        return (FunctionSchema, (str(self),))


class _Parsed:
    def __init__(self, ns, name, overload, arguments, returns):
        self.ns, self.short_name, self.overload_name = ns, name, overload
        self.name = (ns + "::" if ns else "") + name
        self.arguments, self.returns = arguments, returns

    def _canonical(self):
        args, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(a))
        if len(self.returns) == 1:  # one return, named or not, prints without parentheses
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        name = self.name + ("." + self.overload_name if self.overload_name else "")
        return "%s(%s) -> %s" % (name, ", ".join(args), rets)


class _Parser:
    def __init__(self, text):
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0

    @property
    def cur(self):
        return self.toks[self.i]

    def fail(self, expected, tok=None):
        tok = tok or self.cur
        if tok.kind == "eof":
            raise SchemaError("expected %s but found 'eof' here:\n%s" % (expected, self.text))
        width = len(tok.text) if tok.text else 1
        raise SchemaError(_here(self.text, tok.pos, width, "expected %s but found '%s'" % (expected, tok.show())))

    def next(self):
        tok = self.cur
        self.i += 1
        return tok

    def is_(self, text):
        return self.cur.kind == "punct" and self.cur.text == text

    def accept(self, text):
        if self.is_(text):
            return self.next()
        return None

    def expect(self, text):
        if not self.is_(text):
            self.fail(text)
        return self.next()

    def expect_kind(self, kind):
        if self.cur.kind != kind:
            self.fail(kind)
        return self.next()

    # schema := [ns '::'] name ['.' overload] '(' args ')' '->' returns
    def schema(self):
        ns = ""
        name = self.expect_kind("ident").text
        if self.cur.kind == "ns":
            self.next()
            ns, name = name, self.expect_kind("ident").text
        overload = ""
        if self.accept("."):
            overload = self.expect_kind("ident").text
        if not self.is_("("):
            self.fail("(" if self.cur.kind == "eof" else "eof")  # a bare name parses; anything else after it not
        return _Parsed(ns, name, overload, *self.signature())

    def signature(self):
        """Only ``(args) -> returns``: what ember.library.define takes after the qualified name."""
        args = self.arguments()
        if self.cur.kind != "arrow":
            self.fail("->")
        self.next()
        returns = self.returns()
        if self.cur.kind != "eof":
            self.fail("eof")
        return args, returns

    def arguments(self):
        self.expect("(")
        args, kwarg_only = [], False
        if not self.accept(")"):
            while True:
                if self.accept("*"):
                    kwarg_only = True
                else:
                    args.append(self.argument(kwarg_only))
                if self.accept(")"):
                    break
                if not self.is_(","):
                    self.fail(")")
                self.next()
        return args

    def returns(self):
        if self.is_("("):
            self.next()
            rets = []
            if not self.accept(")"):
                while True:
                    rets.append(self.argument(False, is_return=True))
                    if self.accept(")"):
                        break
                    self.expect(",")
            return rets
        return [self.argument(False, is_return=True)]

    def argument(self, kwarg_only, is_return=False):
        type_tok = self.cur
        if type_tok.kind != "ident":
            self.fail("ident")
        self.next()
        if type_tok.text not in _BASE_TYPES:
            raise SchemaError(
                "\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, float, bool, "
                "Scalar; for a full list, please see "
                "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func :\n"
                + _here(self.text, type_tok.pos, len(type_tok.text), "")[len(" here:\n") :]
            )
        alias, alias_at = None, None
        if self.is_("("):
            alias, alias_at = self.alias(), len(type_tok.text)
        suffix = ""
        while True:
            if self.accept("?"):
                suffix += "?"
            elif self.accept("["):
                size = self.next().text if self.cur.kind == "number" else ""
                self.expect("]")
                suffix += "[%s]" % size
            else:
                break
        if alias is None and self.is_("("):
            alias, alias_at = self.alias(), len(type_tok.text) + len(suffix)
        type_ = type_tok.text + suffix
        name = ""
        if self.cur.kind == "ident":
            name = self.next().text
        elif not is_return:
            self.fail("ident")
        default, has_default, text = None, False, ""
        if not is_return and self.accept("="):
            default, text = self.default(type_)
            has_default = True
        arg = Argument(name, type_, alias, default, has_default, text, kwarg_only)
        arg._alias_at = alias_at
        return arg

    def alias_set(self):
        return "*" if self.accept("*") else self.expect_kind("ident").text

    def alias(self):
        self.expect("(")
        sets = [self.alias_set()]
        while self.accept("|"):
            sets.append(self.alias_set())
        write = bool(self.accept("!"))
        wildcard = False
        if self.cur.kind == "arrow":
            self.next()
            self.expect("*")
            wildcard = True
        self.expect(")")
        return AliasInfo(sets, write, wildcard)

    def default(self, type_):
        """A default value. As PyTorch's parser, only a Tensor's is checked (it must be None)."""
        tok = self.cur
        base = type_.rstrip("?")
        if tok.kind == "ident" and tok.text == "None":
            self.next()
            return None, "None"
        if base.endswith("]"):
            return self.list_default(base)
        if base in ("Tensor", "Generator", "Storage"):
            self.fail("None")
        if tok.kind == "number":
            self.next()
            value = int(tok.text) if re.fullmatch(r"-?\d+", tok.text) else float(tok.text)
            return value, tok.text
        if tok.kind == "string":
            self.next()
            return tok.text[1:-1], '"%s"' % tok.text[1:-1]
        if tok.kind == "ident":  # True/False, or an enum value: contiguous_format, long, Mean
            self.next()
            return {"True": True, "False": False}.get(tok.text, tok.text), tok.text
        self.fail("a default value")

    def list_default(self, base):
        elem = base[: base.index("[")]
        if self.cur.kind == "number" and elem in ("int", "SymInt"):  # int[2] x=1 (broadcast to the size)
            tok = self.next()
            return int(tok.text), tok.text
        self.expect("[")
        values = []
        if not self.accept("]"):
            while True:
                tok = self.cur
                if tok.kind == "number":
                    values.append(int(tok.text) if re.fullmatch(r"-?\d+", tok.text) else float(tok.text))
                elif tok.kind == "ident" and tok.text in ("True", "False"):
                    values.append(tok.text == "True")
                else:
                    self.fail("number")
                self.next()
                if self.accept("]"):
                    break
                self.expect(",")
        return values, "[" + ", ".join(str(v) for v in values) + "]"


def parse(text):
    """Parses a full schema (``[ns::]name[.overload](args) -> returns``); raises RuntimeError (SchemaError) with
    PyTorch's message on a bad one."""
    if not isinstance(text, str):
        raise TypeError("schema must be a str, got %s" % type(text).__name__)
    return _Parser(text).schema()


def parse_signature(text):
    """Parses ``(args) -> returns`` alone: [arguments], [returns]."""
    return _Parser(text).signature()


# ---- binding a call to a schema ------------------------------------------------------------------------------------


def _fits(value, type_):
    """Whether a Python value is acceptable for an argument of schema type `type_` (for overload resolution)."""
    if type_.endswith("?"):
        return value is None or _fits(value, type_[:-1])
    if type_.endswith("]"):
        elem = type_[: type_.rindex("[")]
        if isinstance(value, (list, tuple, ember.Size)):
            return all(_fits(v, elem) for v in value)
        return elem in ("int", "SymInt") and _fits(value, elem)  # int[2] takes one int
    if type_ == "Tensor":  # or a tensor-like: an fx Proxy while tracing
        return isinstance(value, ember.Tensor) or hasattr(type(value), "__torch_function__")
    if type_ in ("int", "SymInt"):
        return isinstance(value, int) and not isinstance(value, bool)
    if type_ in ("float", "SymFloat"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_ in ("bool", "SymBool"):
        return isinstance(value, bool)
    if type_ == "Scalar":
        return isinstance(value, (int, float, bool, complex))
    if type_ == "complex":
        return isinstance(value, (int, float, complex)) and not isinstance(value, bool)
    if type_ == "str":
        return isinstance(value, str)
    if type_ == "ScalarType":
        return isinstance(value, ember.dtype)
    if type_ == "Device":
        return isinstance(value, (ember.device, str, int))
    return True


def _type_name(value):
    if isinstance(value, ember.Tensor):
        return "Tensor"
    if isinstance(value, (list, tuple)):
        return "List[%s]" % (_type_name(value[0]) if value else "Any")
    return type(value).__name__


BindError = RuntimeError  # arguments that do not fit a schema: PyTorch's RuntimeError


def bind(schema, args, kwargs):
    """The call's values in schema order (defaults filled in), or BindError with PyTorch's message."""
    params = schema.arguments
    qual = schema.name
    positional = [p for p in params if not p.kwarg_only]
    if len(args) > len(positional):
        raise BindError(
            "%s() expected at most %d argument(s) but received %d argument(s). Declaration: %s"
            % (qual, len(positional), len(args), schema)
        )
    names = {p.name for p in params}
    for k in kwargs:
        if k not in names:
            raise BindError("Unknown keyword argument '%s' for operator '%s'. Schema: %s" % (k, qual, schema))
    values = []
    for i, p in enumerate(params):
        if not p.kwarg_only and i < len(args):
            if p.name in kwargs:
                raise BindError("%s() got multiple values for argument '%s'. Declaration: %s" % (qual, p.name, schema))
            v, where = args[i], "Position: %d\n" % i
        elif p.name in kwargs:
            v, where = kwargs[p.name], ""
        elif p.has_default_value():
            values.append(p.default_value)
            continue
        else:
            raise BindError("%s() is missing value for argument '%s'. Declaration: %s" % (qual, p.name, schema))
        if not _fits(v, p.type):
            raise BindError(
                "%s() Expected a value of type '%s' for argument '%s' but instead found type '%s'.\n%sValue: %r\n"
                "Declaration: %s" % (qual, p.type, p.name, _type_name(v), where, v, schema)
            )
        values.append(v)
    return values


def split(schema, values):
    """Values in schema order -> (args, kwargs) as PyTorch calls a Python kernel: keyword-only arguments by name,
    and those left at their defaults (trailing positional ones, keyword-only ones) not passed."""
    from ._ops import _same_default

    args, kwargs, pos = [], {}, []
    for p, v in zip(schema.arguments, values):
        if p.kwarg_only:
            if not (p.has_default_value() and _same_default(v, p.default_value)):
                kwargs[p.name] = v
        else:
            args.append(v)
            pos.append(p)
    n = len(args)
    while n and pos[n - 1].has_default_value() and _same_default(args[n - 1], pos[n - 1].default_value):
        n -= 1
    return tuple(args[:n]), kwargs
