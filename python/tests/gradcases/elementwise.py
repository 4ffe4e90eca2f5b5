"""Gradient cases of the elementwise ops (binary, unary, ternary) and conversions."""

import ember

from . import Case, make

CASES = []


def add(op, fn, inputs, **kw):
    CASES.append(Case(op, fn, inputs, **kw))


# binary, with broadcasting and non-contiguous operands
add("add", lambda a, b: ember.add(a, b, alpha=2.5), lambda: (make(3, 4, noncontig=True), make(4)))
add("sub", lambda a, b: ember.sub(a, b), lambda: (make(3, 1), make(1, 4, noncontig=True)))
add("rsub", lambda a: ember.rsub(a, 2.0), lambda: (make(3),))
add("mul", lambda a, b: a * b, lambda: (make(2, 3, noncontig=True), make(2, 1)))
add("mul", lambda a: a * 3.0, lambda: (make(4),), id="mul_scalar")
add("div", lambda a, b: a / b, lambda: (make(2, 3), make(3, low=0.5, high=2.0)))
add("div", lambda a: 2.0 / a, lambda: (make(3, low=0.5, high=2.0),), id="rdiv_scalar")
add("pow", lambda a, b: a**b, lambda: (make(2, 3, low=0.5, high=2.0), make(2, 3)))
add("pow", lambda a: a**3, lambda: (make(4),), id="pow_scalar")
add("pow", lambda b: 2.0**b, lambda: (make(4),), id="pow_scalar_base")
add("atan2", ember.atan2, lambda: (make(3, 2), make(3, 2, low=0.5)))
add("maximum", ember.maximum, lambda: (make(5, seed=1), make(5, seed=2)))
add("minimum", ember.minimum, lambda: (make(5, seed=1), make(1, seed=2)))
add("fmax", ember.fmax, lambda: (make(5, seed=3), make(5, seed=4)))
add("fmin", ember.fmin, lambda: (make(5, seed=3), make(5, seed=4)))
add("hypot", ember.hypot, lambda: (make(4, low=0.5), make(4, low=0.5)))
add("remainder", lambda a, b: ember.remainder(a, b), lambda: (make(4, low=0.1, high=0.9), make(4, low=1.0, high=2.0)))
add("fmod", lambda a, b: ember.fmod(a, b), lambda: (make(4, low=0.1, high=0.9), make(4, low=1.0, high=2.0)))
add("copysign", ember.copysign, lambda: (make(4, away_from=0), make(4, away_from=0)))
add("floor_divide", lambda a, b: ember.floor_divide(a, b) + a, lambda: (make(3, away_from=0), make(3, low=1, high=2)))

# unary
for name, lo, hi, kink in [
    ("neg", -2, 2, None),
    ("abs", -2, 2, 0),
    ("square", -2, 2, None),
    ("relu", -2, 2, 0),
    ("reciprocal", 0.5, 2, None),
    ("sqrt", 0.5, 2, None),
    ("rsqrt", 0.5, 2, None),
    ("exp", -2, 2, None),
    ("exp2", -2, 2, None),
    ("expm1", -2, 2, None),
    ("log", 0.5, 2, None),
    ("log2", 0.5, 2, None),
    ("log10", 0.5, 2, None),
    ("log1p", -0.5, 2, None),
    ("sin", -2, 2, None),
    ("cos", -2, 2, None),
    ("tan", -1, 1, None),
    ("asin", -0.8, 0.8, None),
    ("acos", -0.8, 0.8, None),
    ("atan", -2, 2, None),
    ("sinh", -2, 2, None),
    ("cosh", -2, 2, None),
    ("tanh", -2, 2, None),
    ("asinh", -2, 2, None),
    ("acosh", 1.2, 3, None),
    ("atanh", -0.8, 0.8, None),
    ("sigmoid", -2, 2, None),
    ("erf", -2, 2, None),
    ("erfc", -2, 2, None),
    ("erfinv", -0.8, 0.8, None),
    ("frac", 0.1, 0.9, None),
    ("logit", 0.1, 0.9, None),
]:
    add(
        name,
        getattr(ember, name),
        lambda lo=lo, hi=hi, kink=kink: (make(3, 2, low=lo, high=hi, noncontig=True, away_from=kink),),
    )
for name in ["sign", "floor", "ceil", "round", "trunc", "fix"]:
    add(name, lambda a, f=getattr(ember, name): f(a) * a, lambda: (make(5, low=0.1, high=0.4),))
add("clamp", lambda a: ember.clamp(a, -1.0, 1.0), lambda: (make(6, away_from=[-1, 1]),))
add(
    "clamp",
    lambda a, lo, hi: ember.clamp(a, lo, hi),
    lambda: (make(6, seed=5), make(6, seed=6, low=-3, high=-0.5), make(6, seed=7, low=0.5, high=3)),
    id="clamp_tensor",
)
add("clamp_min", lambda a: ember.clamp_min(a, 0.5), lambda: (make(6, away_from=0.5),))
add("clamp_max", lambda a: ember.clamp_max(a, 0.5), lambda: (make(6, away_from=0.5),))
add("nan_to_num", ember.nan_to_num, lambda: (make(4),))
add("gelu", lambda a: ember.nn.functional.gelu(a), lambda: (make(5),))
add("gelu", lambda a: ember.nn.functional.gelu(a, approximate="tanh"), lambda: (make(5),), id="gelu_tanh")
add("silu", lambda a: ember.nn.functional.silu(a), lambda: (make(5),))
add("mish", lambda a: ember.nn.functional.mish(a), lambda: (make(5),))
add(
    "softplus",
    lambda a: ember.nn.functional.softplus(a, beta=2.0, threshold=3.0),
    lambda: (make(6, low=-3, high=3, away_from=1.5),),
)

# ternary
add("where", lambda a, b: ember.where(a > 0, a, b), lambda: (make(3, 4, away_from=0), make(4)))
add("lerp", lambda a, b, w: ember.lerp(a, b, w), lambda: (make(3), make(3), make(3)))
add("addcmul", lambda a, b, c: ember.addcmul(a, b, c, value=0.5), lambda: (make(2, 3), make(3), make(2, 1)))
add("addcdiv", lambda a, b, c: ember.addcdiv(a, b, c, value=0.5), lambda: (make(3), make(3), make(3, low=0.5)))

# copies and conversions
add("clone", ember.clone, lambda: (make(2, 3, noncontig=True),))
add("contiguous", lambda a: a.contiguous(), lambda: (make(2, 3, noncontig=True),))
add("to", lambda a: a.to(ember.float32).to(ember.float64), lambda: (make(3),), eps=1e-3, atol=1e-3)
add("copy_", lambda a: ember.zeros(2, 3, dtype=ember.float64).copy_(a), lambda: (make(3),))
