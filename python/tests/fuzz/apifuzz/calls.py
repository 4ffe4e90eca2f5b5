"""One call: the target, its positional and keyword argument specs (and `self` for Tensor's methods), rendered as
source, simplified for minimization; and the generator that picks the arguments from each parameter's annotation,
name and default.

Most arguments of a call are sane (tensors of one shared shape, valid dims, the default), so that the call gets past
its first checks; one to three are hostile (a huge or negative size, NaN, a zero-size or non-contiguous tensor, a
wrong dtype or type, an alias of another argument), which is where the bugs are.
"""

import inspect

from . import values as V
from .values import Seq, Src, Tensor, lit

# Parameter names (PyTorch's) that say what a parameter holds when its annotation does not.
TENSOR_NAMES = {
    "input", "other", "tensor", "x", "y", "x1", "x2", "weight", "bias", "target", "mat", "mat1", "mat2", "vec", "vec1",
    "vec2", "A", "B", "b", "query", "key", "value", "attn_mask", "grad_output", "src", "values", "boundaries",
    "sorted_sequence", "condition", "exponent", "end", "running_mean", "running_var", "hx", "h_0", "c_0", "anchor",
    "positive", "negative", "log_probs", "targets", "input1", "input2", "theta", "grid", "batch1", "batch2", "elements",
    "test_elements", "tau", "LU", "pivots", "t", "q", "k", "v", "source", "mask", "self", "tensor1", "tensor2", "var",
    "weights", "p", "probs", "logits", "offsets", "per_sample_weights", "input_lengths", "target_lengths", "lengths",
}  # fmt: skip
INDEX_NAMES = {
    "index",
    "indices",
    "target",
    "targets",
    "offsets",
    "pivots",
    "input_lengths",
    "target_lengths",
    "lengths",
}
BOOL_TENSOR_NAMES = {"mask", "condition", "attn_mask", "key_padding_mask"}
TENSORS_NAMES = {"tensors", "inputs", "operands", "seq", "sequences", "args", "outputs", "grad_outputs", "arrays"}
INTS_NAMES = {
    "size", "shape", "kernel_size", "stride", "padding", "dilation", "output_size", "output_padding",
    "normalized_shape", "dims", "sizes", "split_size_or_sections", "repeats", "pad", "perm", "permutation", "s",
    "source_dims", "destination_dims", "dim_size", "output_ratio", "scale_factor", "unflattened_size", "tensor_split",
}  # fmt: skip
INT_NAMES = {
    "dim", "n", "k", "diagonal", "offset", "groups", "num_classes", "steps", "num_samples", "dim0", "dim1", "dim2",
    "start_dim", "end_dim", "chunks", "sections", "upscale_factor", "downscale_factor", "max_norm", "padding_idx",
    "ignore_index", "blank", "min", "max", "bins", "minlength", "start", "step", "high", "low", "row", "col",
    "decimals", "upper", "batch_first", "num_heads", "axis", "source", "destination", "divisor_override", "ndim",
}  # fmt: skip
FLOAT_NAMES = {
    "p",
    "eps",
    "alpha",
    "beta",
    "value",
    "momentum",
    "negative_slope",
    "lambd",
    "margin",
    "threshold",
    "min_val",
    "max_val",
    "scale",
    "rtol",
    "atol",
    "tol",
    "delta",
    "label_smoothing",
    "norm_type",
    "ord",
}
STR_CHOICES = {
    "reduction": ["mean", "sum", "none", "batchmean"],
    "mode": ["nearest", "bilinear", "bicubic", "linear", "trilinear", "area", "constant", "reflect", "replicate",
             "circular", "fan_in", "reduced", "complete", "r", "sum", "mean", "max", "nearest-exact"],
    "padding_mode": ["zeros", "border", "reflection"],
    "rounding_mode": ["floor", "trunc", None],
    "approximate": ["none", "tanh"],
    "side": ["left", "right"],
    "norm": ["ortho", "forward", "backward"],
    "indexing": ["ij", "xy"],
    "interpolation": ["linear", "lower", "higher", "midpoint", "nearest"],
    "UPLO": ["L", "U"],
    "driver": ["gelsy", "gelsd", "gelss", "gels"],
    "padding": ["same", "valid"],
    "nonlinearity": ["tanh", "relu"],
    "equation": ["ij,jk->ik", "ii->i", "i,i->", "...ij->...ji", "bij,bjk->bik"],
}  # fmt: skip
DTYPES_ALL = V.DTYPES
# More elements than an int32 counts, in a dim short enough that splitting it into pieces (unbind, chunk) stays cheap.
HUGE_SHAPE = (2**16, 2**15 + 1)


def _kind(p):
    """What a parameter holds: tensor, tensors, index, mask, ints, int, float, bool, dtype, str, device, generator,
    out, callable, any."""
    a = p.annotation.lower()
    name = p.name
    d = p.default
    if name == "out":
        return "out"
    if a == "index key":
        return "key"
    if name in BOOL_TENSOR_NAMES and ("tensor" in a or not a):
        return "mask"
    if name in INDEX_NAMES and ("tensor" in a or not a):
        return "index"
    if "generator" in a or name == "generator":
        return "generator"
    if "dtype" in a or name == "dtype":
        return "dtype"
    if "device" in a or name == "device":
        return "device"
    if "callable" in a or name in ("fn", "func", "function", "hook", "closure"):
        return "callable"
    if "sequence[tensor" in a or "tuple[tensor" in a or name in TENSORS_NAMES:
        return "tensors"
    if "layout" in a:
        return "layout"
    if "memory_format" in a or name == "memory_format":
        return "memory_format"
    if "tensor" in a:
        return "tensor"
    if ("sequence[int]" in a or "list[int]" in a or "tuple[int" in a or "size" in a) or name in INTS_NAMES:
        return "ints"
    if a.startswith("bool") or isinstance(d, bool):
        return "bool"
    if a.startswith("int") or isinstance(d, int) or (not a and name in INT_NAMES):
        return "int"
    if a.startswith("float") or isinstance(d, float) or (not a and name in FLOAT_NAMES):
        return "float"
    if a.startswith("str") or isinstance(d, str) or name in STR_CHOICES:
        return "str"
    if a.startswith("number"):
        return "number"
    if name in TENSOR_NAMES:
        return "tensor"
    if name in INT_NAMES:
        return "int"
    if name in FLOAT_NAMES:
        return "float"
    return "any"


# Factories whose integer argument is the number of elements they make.
SIZED_FACTORIES = ("linspace", "logspace", "randperm")


def _int_at_least(spec, n):
    """Whether `spec` is an integer literal of at least n."""
    if not isinstance(spec, Src):
        return False
    try:
        return int(spec.src) >= n
    except ValueError:
        return False


class Call:
    """A call of target with `self_spec` (Tensor's methods), positional `args` and keyword `kwargs` specs. `use`: the
    result is used after the call (repr of each tensor in it, backward when it requires grad) so that a bad view or
    graph is touched within the call it came from."""

    def __init__(self, target, self_spec, args, kwargs, use=True):
        self.target = target
        self.self_spec = self_spec
        self.args = list(args)
        self.kwargs = dict(kwargs)
        self.use = use

    def huge(self):
        """Whether a tensor argument has 2**31 elements or 2**20 along a dimension, a factory is asked for 2**30
        elements (logspace(1.0, 0, 2**31 - 1, dtype=int8) computes 2 GiB: 32 s here, and about 20 s in PyTorch 2.15),
        or the call is a Laguerre polynomial (whose cost is linear in its degree, as PyTorch's: Note [Polynomials of
        large degree]): a call that may take long without hanging."""
        if "laguerre_polynomial" in self.target.path:
            return True
        specs = [self.self_spec] + self.args + list(self.kwargs.values())
        if self.target.path.rsplit(".", 1)[-1] in SIZED_FACTORIES and any(_int_at_least(s, 2**30) for s in specs):
            return True
        tensors = [t for t in specs if isinstance(t, Tensor)]
        tensors += [t for s in specs if isinstance(s, Seq) for t in s.tensors()]
        # 2**20 or more along one dimension: a call may return that many tensors (unbind, split), each one printed
        return any(t.numel() >= 2**31 or max(t.shape, default=0) >= 2**20 for t in tensors)

    def source(self):
        """(setup, call) source: the setup builds the arguments; the call makes the call (and uses its result)."""
        ctx = V.Context()
        head = self.target.path
        if self.self_spec is not None:
            head = "%s.%s" % (self.self_spec.render(ctx), self.target.name)
        parts = [a.render(ctx) for a in self.args]
        parts += ["%s=%s" % (k, v.render(ctx)) for k, v in self.kwargs.items()]
        call = "r = %s(%s)" % (head, ", ".join(parts))
        if self.use:
            call += "\nuse(r)"
        return "\n".join(ctx.lines), call

    def reproducer(self, seed):
        setup, call = self.source()
        lines = ["import ember", ""] + ([USE_SOURCE] if self.use else []) + ["ember.manual_seed(%d)" % seed]
        if setup:
            lines.append(setup)
        lines.append(call)
        return "\n".join(lines) + "\n"

    def simpler(self):
        """Variants one step simpler, most promising first."""
        if self.use:
            yield Call(self.target, self.self_spec, self.args, self.kwargs, use=False)
        for k in list(self.kwargs):
            kw = dict(self.kwargs)
            del kw[k]
            yield Call(self.target, self.self_spec, self.args, kw, self.use)
        for i in reversed(range(len(self.args))):
            yield Call(self.target, self.self_spec, self.args[:i] + self.args[i + 1 :], self.kwargs, self.use)
        if self.self_spec is not None:
            for s in self.self_spec.simpler():
                yield Call(self.target, s, self.args, self.kwargs, self.use)
        for i, a in enumerate(self.args):
            for s in a.simpler():
                yield Call(self.target, self.self_spec, self.args[:i] + [s] + self.args[i + 1 :], self.kwargs, self.use)
        for k, a in self.kwargs.items():
            for s in a.simpler():
                yield Call(self.target, self.self_spec, self.args, {**self.kwargs, k: s}, self.use)


# What `use(r)` does; the worker defines the same function (worker.py execs this source).
# Backward runs through the first 8 tensors only: each output of unbind(65536 elements) backpropagates a whole-size
# gradient, so all of them would be quadratic (as in PyTorch), a slow call rather than a finding.
USE_SOURCE = """def use(r):
    for i, t in enumerate(r if isinstance(r, (tuple, list)) else (r,)):
        if isinstance(t, ember.Tensor):
            repr(t)
            if i < 8 and t.requires_grad and t.is_floating_point() and t.numel() <= 2**20:
                t.sum().backward()
"""


class Generator:
    """Makes the arguments of one call from a random.Random."""

    def __init__(self, rng):
        self.rng = rng
        self.shape = rng.choice(V.BASE_SHAPES)
        self.dtype = rng.choice(["float32"] * 6 + ["float64", "float16", "bfloat16", "int64", "int32", "bool"])
        self.tensors = []  # made so far in this call: candidates for aliasing

    def call(self, target):
        rng = self.rng
        params = rng.choice(target.overloads)
        self_spec = self.sane_tensor() if target.method else None
        if params is None:  # nothing known: a few values of any kind
            args = [self.value("any", None, hostile=rng.random() < 0.5) for _ in range(rng.randint(0, 3))]
            return Call(target, self_spec, args, {})
        n_hostile = rng.choice([0, 1, 1, 1, 2, 2, 3])
        hostile = set(rng.sample(range(len(params)), min(n_hostile, len(params)))) if params else set()
        if self_spec is not None and rng.random() < 0.25:
            self_spec = self.hostile_tensor()
        args, kwargs = [], {}
        keyword_only = False
        for i, p in enumerate(params):
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                if rng.random() < 0.5:
                    args.extend(self.value(_kind(p), p, i in hostile) for _ in range(rng.randint(1, 3)))
                keyword_only = True
                continue
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                if i in hostile:
                    kwargs[rng.choice(["foo", "out", "dim", "dtype"])] = self.value("any", p, True)
                continue
            if p.has_default and i not in hostile and rng.random() < 0.6:
                keyword_only = True  # skipped: later ones by keyword
                continue
            v = self.value(_kind(p), p, i in hostile)
            if p.kind is inspect.Parameter.KEYWORD_ONLY or keyword_only or (p.has_default and rng.random() < 0.5):
                kwargs[p.name] = v
                keyword_only = True
            else:
                args.append(v)
        if rng.random() < 0.03:  # one argument too many
            args.append(self.value("any", None, True))
        return Call(target, self_spec, args, kwargs)

    # -- values --

    def sane_tensor(self, dtype=None):
        t = Tensor(self.shape, dtype or self.dtype, grad=self.rng.random() < 0.2)
        self.tensors.append(t)
        return t

    def hostile_tensor(self):
        rng = self.rng
        r = rng.random()
        if r < 0.15 and self.tensors:
            return rng.choice(self.tensors)  # the same tensor again
        shape = self.shape
        if r < 0.45:
            shape = rng.choice(V.ODD_SHAPES)
        elif r < 0.55:
            shape = self.shape[1:] or (1,)
        elif r < 0.57:
            shape = HUGE_SHAPE
        dtype = rng.choice(DTYPES_ALL)
        fill = rng.choice(["randn", "randn", "zeros", "ones", "nan", "inf", "index"])
        view = rng.choice(["none", "none", "T", "step", "expand", "offset", "strided0"])
        if shape == HUGE_SHAPE:
            view = "strided0"  # over 2**31 elements viewing one: int32 index overflow without 8 GiB
        t = Tensor(shape, dtype, fill, view, grad=rng.random() < 0.3, hi=rng.choice([3, 100, 2**31]))
        self.tensors.append(t)
        return t

    def value(self, kind, p, hostile):
        rng = self.rng
        if hostile and rng.random() < 0.15:
            return Src(rng.choice(V.WRONG))
        f = getattr(self, "_" + kind)
        return f(p, hostile)

    def _tensor(self, p, hostile):
        return self.hostile_tensor() if hostile else self.sane_tensor()

    def _index(self, p, hostile):
        if hostile:
            return self.hostile_tensor() if self.rng.random() < 0.5 else self._indices(hostile=True)
        return self._indices(hostile=False)

    def _indices(self, hostile):
        rng = self.rng
        n = max(self.shape) if self.shape else 1
        shape = self.shape if rng.random() < 0.5 else (rng.randint(1, 4),)
        hi = n if not hostile else rng.choice([n + 1, 2**31, 2**62])
        t = Tensor(shape, "int64" if not hostile or rng.random() < 0.7 else "int32", "index", hi=hi)
        self.tensors.append(t)
        return t

    def _mask(self, p, hostile):
        if hostile:
            return self.hostile_tensor()
        t = Tensor(self.shape, "bool")
        self.tensors.append(t)
        return t

    def _tensors(self, p, hostile):
        rng = self.rng
        n = rng.randint(0, 4) if hostile else rng.randint(1, 3)
        items = [self._tensor(p, hostile and rng.random() < 0.5) for _ in range(n)]
        return Seq(items, rng.choice(["list", "tuple"]))

    def _out(self, p, hostile):
        rng = self.rng
        if not hostile:
            return Src("None")
        if self.tensors and rng.random() < 0.5:
            return rng.choice(self.tensors)  # out= aliasing an input
        return self.hostile_tensor()

    def _int(self, p, hostile):
        rng = self.rng
        name = p.name if p else ""
        nd = len(self.shape)
        if not hostile:
            if name.startswith("dim") or name in ("axis", "source", "destination", "start_dim", "end_dim"):
                return lit(rng.randint(-nd, nd - 1) if nd else 0)
            if p is not None and isinstance(p.default, int) and not isinstance(p.default, bool) and rng.random() < 0.5:
                return lit(p.default)
            return lit(rng.choice([0, 1, 2, 3]))
        r = rng.random()
        if r < 0.5:
            return lit(rng.choice(V.HUGE_INTS))
        if r < 0.8:
            return lit(rng.choice(V.SMALL_INTS + [nd, -nd - 1, 100]))
        return lit(rng.choice([1.5, True, float("nan"), -0.0]))

    def _ints(self, p, hostile):
        rng = self.rng
        if not hostile:
            choice = rng.random()
            if choice < 0.4:
                return Seq([lit(d) for d in self.shape], rng.choice(["list", "tuple"]))
            if choice < 0.6:
                return lit(rng.choice([1, 2, 3]))
            return Seq([lit(rng.choice([1, 2])) for _ in range(rng.randint(1, 3))], "tuple")
        r = rng.random()
        if r < 0.3:
            return Seq([lit(rng.choice(V.HUGE_INTS)) for _ in range(rng.randint(1, 4))], rng.choice(["list", "tuple"]))
        if r < 0.5:
            return lit(rng.choice(V.HUGE_INTS + [-1, 0]))
        if r < 0.7:
            items = [lit(rng.choice(V.SMALL_INTS)) for _ in range(rng.randint(0, 5))]
            return Seq(items, rng.choice(["list", "tuple"]))
        if r < 0.8:
            return Seq([lit(1)] * rng.choice([9, 17, 65, 300]), "list")
        if r < 0.9:
            return Seq([Seq([lit(1), lit(2)]), lit(3)])
        return Seq([lit(d) for d in reversed(self.shape)] + [lit(0)], "list")

    def _bool(self, p, hostile):
        if hostile:
            return Src(self.rng.choice(["2", "None", "'True'", "ember.tensor([True, False])", "float('nan')"]))
        return lit(self.rng.random() < 0.5)

    def _float(self, p, hostile):
        rng = self.rng
        if hostile:
            return lit(rng.choice(V.ODD_FLOATS + [2**63, -(2**63), 2**64]))
        if p is not None and isinstance(p.default, float) and rng.random() < 0.5:
            return lit(p.default)
        return lit(rng.choice([0.5, 1.0, 2.0, 1e-5, 0.1, 3]))

    def _dtype(self, p, hostile):
        rng = self.rng
        if hostile and rng.random() < 0.3:
            return Src(rng.choice(["5", "'float32'", "float", "int", "bool", "ember.Tensor"]))
        return Src("ember." + rng.choice(DTYPES_ALL))

    def _str(self, p, hostile):
        rng = self.rng
        choices = STR_CHOICES.get(p.name if p else "", [])
        if p is not None and isinstance(p.default, str):
            choices = choices + [p.default]
        if hostile or not choices:
            return lit(rng.choice(V.ODD_STRS + choices))
        return lit(rng.choice(choices))

    def _device(self, p, hostile):
        if hostile:
            return lit(self.rng.choice(["cuda", "cuda:0", "meta", "xla", "cpu:1", "cpu:-1", "", 0, -1]))
        return lit("cpu")

    def _generator(self, p, hostile):
        if hostile:
            return Src(self.rng.choice(["ember.Generator()", "'gen'", "0"]))
        return Src(self.rng.choice(["None", "ember.Generator().manual_seed(3)"]))

    def _callable(self, p, hostile):
        if hostile:
            return Src(self.rng.choice(["None", "1", "lambda *a: int('x')", "ember.add", "lambda *a: (a, a)"]))
        return Src(self.rng.choice(["ember.sin", "lambda x, *a: x * 2", "ember.sum"]))

    def _number(self, p, hostile):
        if self.rng.random() < 0.5:
            return self._int(p, hostile)
        return self._float(p, hostile)

    def _layout(self, p, hostile):
        return Src("ember.strided" if not hostile else self.rng.choice(["ember.float32", "1", "'strided'"]))

    def _memory_format(self, p, hostile):
        formats = ["ember.contiguous_format", "ember.preserve_format", "ember.channels_last", "ember.channels_last_3d"]
        return Src(self.rng.choice(formats if not hostile else formats + ["1", "ember.strided"]))

    def _key(self, p, hostile):
        """An indexing key: a tuple of ints, slices, None, ..., lists and index or mask tensors (or just one)."""
        rng = self.rng
        nd = len(self.shape)
        items = []
        for _ in range(rng.randint(1, nd + 2 if hostile else max(1, nd))):
            r = rng.random()
            if r < 0.3:
                items.append(lit(rng.choice(V.HUGE_INTS + V.SMALL_INTS) if hostile else rng.randint(-1, 1)))
            elif r < 0.55:
                pool = [None, 0, 1, -1, 2, 3] + (V.HUGE_INTS + [-(2**63)] if hostile else [])
                a, b = rng.choice(pool), rng.choice(pool)
                step = rng.choice([None, 1, 2, -1, 0, 2**63 - 1, 3] if hostile else [None, 1, 2])
                items.append(Src("slice(%r, %r, %r)" % (a, b, step)))
            elif r < 0.65:
                items.append(Src(rng.choice(["None", "..."])))
            elif r < 0.75:
                items.append(Seq([lit(rng.choice([0, 1, -1, 2] + (V.HUGE_INTS if hostile else []))) for _ in range(3)]))
            elif r < 0.9:
                items.append(self._indices(hostile))
            else:
                items.append(self._mask(p, hostile))
        if len(items) == 1 and rng.random() < 0.5:
            return items[0]
        return Seq(items, "tuple")

    def _any(self, p, hostile):
        rng = self.rng
        if p is not None and p.has_default and not hostile:
            try:
                return Src(_default_src(p.default))
            except ValueError:
                pass
        kind = rng.choice(["tensor", "tensor", "int", "float", "ints", "bool", "str"])
        return getattr(self, "_" + kind)(p, hostile)


def _default_src(d):
    if d is None or isinstance(d, (bool, int, str)):
        return repr(d)
    if isinstance(d, float):
        return V._float_src(d)
    raise ValueError("no source for %r" % (d,))
