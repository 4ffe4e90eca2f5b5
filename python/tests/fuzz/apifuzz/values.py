"""Argument specs: what to pass, as data that renders to Python source (so a reproducer is exactly what ran) and
that can be simplified (so a reproducer can be shrunk).

A spec renders into a Context: tensors become statements `t0 = ...` (one per spec object, so passing one spec twice
aliases the same tensor, as `out=` equal to an input does) and the argument becomes an expression naming them.
"""

import math

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
FLOATS = {"float32", "float64", "float16", "bfloat16"}

# Ints that overflow something: int32, int64, the sizes that make byte counts wrap, negatives past -1.
HUGE_INTS = [2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**62, 2**63 - 1, -(2**63), 2**64, -(2**31), -(2**31) - 1, 10**30]
SMALL_INTS = [0, 1, -1, 2, -2, 3, 7, 64]
ODD_FLOATS = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e308, -1e308, 5e-324, 1e-30, -1.0, 2.0**63, 1e10, 0.5]
ODD_STRS = ["", "x", "\x00", "é" * 3, "a" * 1000, "none", "mean", "sum", "cpu", "cuda", "cuda:7", "meta", "-1"]
# Things of the wrong type for almost any parameter.
WRONG = [
    "None",
    "'s'",
    "object()",
    "[]",
    "{}",
    "1j",
    "b'x'",
    "ember.float32",
    "(1, 'a')",
    "[[1, 2], [3]]",
    "float('nan')",
    "2**64",
    "-1",
    "True",
    "ember.Size([2, 3])",
    "lambda *a, **k: None",
    "ember.device('cpu')",
    "slice(None)",
    "...",
]


def _float_src(v):
    if math.isnan(v):
        return "float('nan')"
    if math.isinf(v):
        return "float('inf')" if v > 0 else "float('-inf')"
    return repr(v)


class Context:
    """Collects the statements that build an argument list's tensors."""

    def __init__(self):
        self.lines = []
        self.names = {}

    def tensor_name(self, spec):
        key = id(spec)
        if key not in self.names:
            name = "t%d" % len(self.names)
            self.names[key] = name
            self.lines.append("%s = %s" % (name, spec.build()))
        return self.names[key]


class Spec:
    """A value to pass. render() gives its expression; simpler() the variants that minimization tries."""

    def render(self, ctx):
        raise NotImplementedError

    def simpler(self):
        return []


class Src(Spec):
    """A literal or any expression, as source."""

    def __init__(self, src):
        self.src = src

    def render(self, ctx):
        return self.src

    def simpler(self):
        out = []
        for s in ("0", "1", "None"):
            if s != self.src:
                out.append(Src(s))
        return out


def lit(v):
    if isinstance(v, float):
        return Src(_float_src(v))
    return Src(repr(v))


class Seq(Spec):
    """A list or tuple of specs."""

    def __init__(self, items, kind="list"):
        self.items = list(items)
        self.kind = kind

    def tensors(self):
        for i in self.items:
            if isinstance(i, Tensor):
                yield i
            elif isinstance(i, Seq):
                yield from i.tensors()

    def render(self, ctx):
        inner = ", ".join(i.render(ctx) for i in self.items)
        if self.kind == "tuple":
            return "(%s%s)" % (inner, "," if len(self.items) == 1 else "")
        return "[%s]" % inner

    def simpler(self):
        out = []
        if len(self.items) > 1:
            out.append(Seq(self.items[: len(self.items) // 2], self.kind))
        for i, item in enumerate(self.items):
            out.append(Seq(self.items[:i] + self.items[i + 1 :], self.kind))
            for s in item.simpler():
                out.append(Seq(self.items[:i] + [s] + self.items[i + 1 :], self.kind))
        return out


class Tensor(Spec):
    """A tensor: shape, dtype, how it is filled, how it is viewed (non-contiguous, expanded, offset), grad.

    fill: randn (randint for integers, a coin for bool), zeros, ones, nan, inf, index (0..hi-1 or beyond: `hi`).
    view: none, T (transposed), step (every other element of the last dim), expand (dim 0 broadcast from 1),
    offset (a slice starting at 1), strided0 (as_strided with a zero stride).
    """

    def __init__(self, shape, dtype="float32", fill="randn", view="none", grad=False, hi=3):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.fill = fill
        self.view = view
        self.grad = grad and dtype in FLOATS
        self.hi = hi

    def numel(self):
        return math.prod(self.shape)

    def _base_shape(self):
        s = list(self.shape)
        if self.view == "T" and len(s) >= 2:
            s[0], s[-1] = s[-1], s[0]
        elif self.view == "step" and s:
            s[-1] *= 2
        elif self.view == "expand" and s:
            s[0] = 1
        elif self.view == "offset" and s:
            s[0] += 1
        elif self.view == "strided0" and s:
            s = [1]
        return tuple(s)

    def build(self):
        shape = repr(self._base_shape())
        dt = "ember." + self.dtype
        if self.fill == "zeros":
            make = "ember.zeros(%s, dtype=%s)" % (shape, dt)
        elif self.fill == "ones":
            make = "ember.ones(%s, dtype=%s)" % (shape, dt)
        elif self.fill in ("nan", "inf") and self.dtype in FLOATS:
            make = "ember.full(%s, float(%r), dtype=%s)" % (shape, self.fill, dt)
        elif self.fill == "index" and self.dtype != "bool":
            make = "ember.randint(%d, %d, %s, dtype=%s)" % (0 if self.dtype == "uint8" else -1, self.hi, shape, dt)
        elif self.dtype == "bool":
            make = "(ember.rand(%s) < 0.5)" % shape
        elif self.dtype in FLOATS:
            make = "ember.randn(%s, dtype=%s)" % (shape, dt)
        else:
            make = "ember.randint(%d, 5, %s, dtype=%s)" % (0 if self.dtype == "uint8" else -4, shape, dt)
        if self.grad:
            make += ".requires_grad_()"
        n = len(self.shape)
        if self.view == "T" and n >= 2:
            make += ".transpose(0, %d)" % (n - 1)
        elif self.view == "step" and n:
            make += "[..., ::2]"
        elif self.view == "expand" and n:
            make += ".expand(%r)" % (self.shape,)
        elif self.view == "offset" and n:
            make += "[1:]"
        elif self.view == "strided0" and n:
            make += ".as_strided(%r, %r)" % (self.shape, (0,) * n)
        return make

    def render(self, ctx):
        return ctx.tensor_name(self)

    def _with(self, **kw):
        d = dict(shape=self.shape, dtype=self.dtype, fill=self.fill, view=self.view, grad=self.grad, hi=self.hi)
        d.update(kw)
        return Tensor(**d)

    def simpler(self):
        out = []
        if self.view != "none":
            out.append(self._with(view="none"))
        if self.grad:
            out.append(self._with(grad=False))
        if self.fill not in ("randn", "index"):
            out.append(self._with(fill="randn"))
        if self.dtype != "float32":
            out.append(self._with(dtype="float32"))
        if len(self.shape) > 1:
            out.append(self._with(shape=self.shape[1:]))
        for i, d in enumerate(self.shape):
            for smaller in (1, 2):
                if d > smaller:
                    out.append(self._with(shape=self.shape[:i] + (smaller,) + self.shape[i + 1 :]))
        return out


# Shapes a call's tensors share, so that most calls get past shape checks: matrices square and not, images for
# conv and pooling, sequences for RNNs and attention.
BASE_SHAPES = [(3,), (4, 4), (3, 4), (2, 3, 4), (2, 3, 5, 5), (1, 2, 6, 6), (2, 4, 4, 4), (5,), (2, 2), (4, 3, 2)]
ODD_SHAPES = [
    (0,),
    (),
    (3, 0),
    (0, 0),
    (1,) * 9,
    (2,) * 7,
    (1, 1, 1),
    (1,),
    (2**16,),
    (0, 2**20),
    (1,) * 25,
    (1, 0, 3),
]
