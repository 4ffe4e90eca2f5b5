"""Gradient cases of the special functions (ember/ops/special.h): the gamma family, Bessel, the normal distribution,
the binary ones (with the operand PyTorch has no gradient for left without requires_grad), and the compositions."""

from special_functions import BINARY_ROWS, ROWS

import ember

from . import Case, make

CASES = []


def add(op, fn, inputs, **kw):
    CASES.append(Case(op, fn, inputs, **kw))


# unary, on non-contiguous inputs; the gamma family away from its poles, on both sides of 0 where defined there
add("lgamma", ember.lgamma, lambda: (make(3, 2, low=0.2, high=4.0, noncontig=True),))
add("lgamma", ember.lgamma, lambda: (make(4, low=-0.9, high=-0.1),), id="lgamma_negative")
add("digamma", ember.digamma, lambda: (make(3, 2, low=0.2, high=4.0, noncontig=True),))
add("digamma", ember.digamma, lambda: (make(4, low=-1.9, high=-1.1),), id="digamma_negative")
add("polygamma", lambda a: ember.polygamma(1, a), lambda: (make(3, 2, low=0.3, high=4.0, noncontig=True),))
add("polygamma", lambda a: ember.polygamma(2, a), lambda: (make(4, low=0.5, high=3.0),), id="polygamma_2")
add("polygamma", lambda a: ember.polygamma(3, a), lambda: (make(4, low=-0.8, high=-0.2),), id="polygamma_3_negative")
add("mvlgamma", lambda a: ember.mvlgamma(a, 3), lambda: (make(2, 3, low=1.5, high=4.0, noncontig=True),))
add("i0", ember.i0, lambda: (make(3, 2, low=-3, high=3, noncontig=True),))
add("i0", ember.i0, lambda: (make(3, low=26, high=30),), id="i0_asymptotic")
add("sinc", ember.sinc, lambda: (make(3, 2, low=-2, high=2, noncontig=True, away_from=0),))
add("deg2rad", ember.deg2rad, lambda: (make(3, 2, noncontig=True),))
add("rad2deg", ember.rad2deg, lambda: (make(3, 2, noncontig=True),))
add(
    "frexp",
    lambda a: ember.frexp(a)[0],
    lambda: (make(3, 2, low=-5, high=5, noncontig=True, away_from=[-4, -2, -1, 0, 1, 2, 4]),),
    gradgrad=False,
)  # the mantissa's derivative is piecewise constant
add("special.i0e", ember.special.i0e, lambda: (make(3, 2, low=-3, high=3, noncontig=True, away_from=0),))
add("special.i1", ember.special.i1, lambda: (make(3, 2, low=-3, high=3, noncontig=True),))
add("special.i1e", ember.special.i1e, lambda: (make(3, 2, low=-3, high=3, noncontig=True, away_from=0),))
add("special.erfcx", ember.special.erfcx, lambda: (make(3, 2, low=-2, high=6, noncontig=True),))
add("special.ndtr", ember.special.ndtr, lambda: (make(3, 2, low=-3, high=3, noncontig=True),))
add("special.ndtri", ember.special.ndtri, lambda: (make(3, 2, low=0.05, high=0.95, noncontig=True),))
add("special.log_ndtr", ember.special.log_ndtr, lambda: (make(3, 2, low=-8, high=3, noncontig=True),))
add("special.entr", ember.special.entr, lambda: (make(3, 2, low=0.2, high=3, noncontig=True),))

# the rows of special_functions.py that have a derivative
for _name, _row in ROWS.items():
    if _row.grad is not None:
        add("special." + _name, _row.fn, lambda r=_row: (make(3, 2, low=r.grad[0], high=r.grad[1], noncontig=True),))

# the rows of special_functions.py's binary table, each differentiable operand on its range (the other a constant)
for _name, _row in BINARY_ROWS.items():
    for _i, _has in enumerate(_row.grad):
        if _has:

            def _inputs(r=_row, i=_i):
                x = make(3, 1, low=r.x[0], high=r.x[1], requires_grad=i == 0, seed=11)
                y = make(1, 4, low=r.y[0], high=r.y[1], requires_grad=i == 1, seed=12)
                return (x, y)

            add("special." + _name, _row.fn, _inputs, id="special.%s_%s" % (_name, ("input", "other")[_i]))

# binary, with broadcasting; numbers on either side where PyTorch takes them
add("logaddexp", ember.logaddexp, lambda: (make(3, 4, noncontig=True), make(4)))
add("logaddexp2", ember.logaddexp2, lambda: (make(3, 1), make(1, 4)))
add("xlogy", ember.xlogy, lambda: (make(3, 4, noncontig=True), make(4, low=0.5, high=2.0)))
add("xlogy", lambda y: ember.xlogy(2.5, y), lambda: (make(4, low=0.5, high=2.0),), id="xlogy_scalar_self")
add("xlogy", lambda x: ember.xlogy(x, 3.0), lambda: (make(4),), id="xlogy_scalar_other")
add("special.xlog1py", ember.special.xlog1py, lambda: (make(3, 4), make(4, low=-0.5, high=2.0)))
add("ldexp", lambda a, b: ember.ldexp(a, b), lambda: (make(3, 4, noncontig=True), make(4)))
add("float_power", ember.float_power, lambda: (make(2, 3, low=0.5, high=2.0), make(2, 3)))
add("float_power", lambda a: ember.float_power(a, 2.5), lambda: (make(4, low=0.5, high=2.0),), id="float_power_scalar")
add(
    "igamma",
    lambda x: ember.igamma(ember.tensor([0.5, 1.5, 3.0, 7.0], dtype=ember.float64), x),
    lambda: (make(4, low=0.5, high=6.0),),
)
add(
    "igammac",
    lambda x: ember.igammac(ember.tensor([0.5, 1.5, 3.0, 7.0], dtype=ember.float64), x),
    lambda: (make(4, low=0.5, high=6.0),),
)
add(
    "special.zeta",
    lambda q: ember.special.zeta(ember.tensor([2.0, 3.5, 5.0], dtype=ember.float64), q),
    lambda: (make(2, 3, low=0.5, high=3.0),),
)
add("special.zeta", lambda q: ember.special.zeta(3.0, q), lambda: (make(3, low=0.5, high=3.0),), id="zeta_scalar")
