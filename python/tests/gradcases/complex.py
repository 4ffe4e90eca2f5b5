"""Gradient cases of the complex views and helpers (ops/complex.h): complex inputs and outputs are checked as their
real pairs (gradcheck's complex mode, Note [Complex gradients]). gradgradcheck is not run on them."""

import ember

from . import Case, make

CASES = []


def add(op, fn, inputs):
    CASES.append(Case(op, fn, inputs, gradgrad=False))


def cmake(*shape, noncontig=False):
    """A complex128 leaf with parts uniform in [-2, 2) (a transposed layout with noncontig)."""
    re, im = make(*shape, requires_grad=False), make(*shape, requires_grad=False, seed=1)
    z = ember.complex(re, im)
    if noncontig and z.dim() >= 2:
        z = z.transpose(0, 1).contiguous().transpose(0, 1)
    return z.requires_grad_()


add("view_as_real", lambda z: ember.view_as_real(z) * 2, lambda: (cmake(2, 3, noncontig=True),))
add("view_as_complex", lambda x: ember.view_as_complex(x) * (1 - 2j), lambda: (make(3, 2),))
add("real", lambda z: ember.real(z) * 3, lambda: (cmake(4),))
add("imag", lambda z: ember.imag(z) ** 2, lambda: (cmake(2, 2, noncontig=True),))
add("complex", lambda a, b: ember.complex(a, b), lambda: (make(3, 1), make(4)))
add("polar", lambda r, t: ember.polar(r, t), lambda: (make(3, low=0.5), make(3)))
add("conj", lambda z: ember.conj(z) * (1 + 2j), lambda: (cmake(3),))
add("conj_physical", lambda z: ember.conj_physical(z), lambda: (cmake(2, 3, noncontig=True),))
add("resolve_conj", lambda z: ember.resolve_conj(z) * 2, lambda: (cmake(3),))
add("angle", lambda z: ember.angle(z), lambda: (cmake(5),))
