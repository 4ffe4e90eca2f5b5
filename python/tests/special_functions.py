"""The special functions added by the recipe of docs/architecture.md ("Adding an op"): one row each, the test entry of
the four places an op touches; ROWS the unary ones, BINARY_ROWS the binary ones. test_special.py checks the values
against scipy (float64 and float32, edges, integer inputs), gradcases/special.py runs gradcheck and gradgradcheck on
the gradient range, and test_cuda_ops.py compares the devices (the same formula runs on both: ember/backend/math/)."""

from typing import Callable, NamedTuple, Optional, Tuple

import scipy.special as sp

import ember

SP = ember.special


class Row(NamedTuple):
    fn: Callable  # the ember function
    ref: Callable  # its float64 reference (scipy)
    values: Tuple[float, float]  # the range of the value tests
    rtol: float  # float64 tolerances: |got - ref| <= atol + rtol |ref|
    atol: float
    grad: Optional[Tuple[float, float]]  # gradcheck's range; None: backward raises (no derivative, as PyTorch)
    rtol32: float = 1.2e-7  # float32: computed in double and rounded once, or in float (the i0 family)


ROWS = {
    "bessel_j0": Row(SP.bessel_j0, sp.j0, (-40, 60), 1e-13, 1e-14, (-6, 6)),
    "bessel_j1": Row(SP.bessel_j1, sp.j1, (-40, 60), 1e-13, 1e-14, (-6, 6)),
    "bessel_y0": Row(SP.bessel_y0, sp.y0, (0.01, 60), 1e-13, 1e-14, (0.5, 8)),
    "bessel_y1": Row(SP.bessel_y1, sp.y1, (0.01, 60), 1e-13, 1e-14, (0.5, 8)),
    "modified_bessel_i0": Row(SP.modified_bessel_i0, sp.i0, (-40, 40), 1e-14, 0, (-3, 3), rtol32=3e-6),
    "modified_bessel_i1": Row(SP.modified_bessel_i1, sp.i1, (-40, 40), 1e-14, 0, (-3, 3), rtol32=3e-6),
    "modified_bessel_k0": Row(SP.modified_bessel_k0, sp.k0, (1e-3, 650), 1e-13, 0, (0.3, 6)),
    "modified_bessel_k1": Row(SP.modified_bessel_k1, sp.k1, (1e-3, 650), 1e-13, 0, (0.3, 6)),
    "scaled_modified_bessel_k0": Row(SP.scaled_modified_bessel_k0, sp.k0e, (1e-3, 1000), 1e-13, 0, (0.3, 6)),
    "scaled_modified_bessel_k1": Row(SP.scaled_modified_bessel_k1, sp.k1e, (1e-3, 1000), 1e-13, 0, (0.3, 6)),
    "spherical_bessel_j0": Row(
        SP.spherical_bessel_j0, lambda x: sp.spherical_jn(0, x), (-50, 50), 1e-13, 1e-16, (-6, 6)
    ),
    "airy_ai": Row(SP.airy_ai, lambda x: sp.airy(x)[0], (-15, 15), 1e-12, 1e-14, None),
}


class BinaryRow(NamedTuple):
    fn: Callable  # the ember function of (input, other)
    ref: Callable  # its float64 reference (scipy)
    x: Tuple[float, float]  # the range of input's values
    y: Tuple[float, float]  # the range of other's values
    rtol: float  # float64 tolerances: |got - ref| <= atol + rtol |ref|
    atol: float
    grad: Tuple[bool, bool]  # whether input and other have a derivative (gradcheck on the ranges); for the
    # other one backward raises, as PyTorch has none
    integers: bool = True  # integer inputs compute in the default float dtype (else they raise, as PyTorch)
    rtol32: float = 2e-6  # float32: computed in float


BINARY_ROWS = {
    "xlogy": BinaryRow(SP.xlogy, sp.xlogy, (-3, 3), (0.05, 20), 1e-14, 0, (True, True)),
    "xlog1py": BinaryRow(SP.xlog1py, sp.xlog1py, (-3, 3), (-0.95, 20), 1e-14, 0, (True, True)),
    "zeta": BinaryRow(SP.zeta, sp.zeta, (1.1, 20), (0.05, 50), 1e-12, 0, (False, True), rtol32=2e-5),
    "gammainc": BinaryRow(
        SP.gammainc, sp.gammainc, (0.05, 30), (0.0, 60), 1e-12, 1e-300, (False, True), integers=False, rtol32=1e-4
    ),
    "gammaincc": BinaryRow(
        SP.gammaincc, sp.gammaincc, (0.05, 30), (0.0, 60), 1e-12, 1e-300, (False, True), integers=False, rtol32=1e-4
    ),
}
