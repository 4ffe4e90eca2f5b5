"""Binary elementwise ops (ember/ops/binary.cpp, backend/cpu/binary*.cpp, python/src/binary.cpp): result
dtypes against tables recorded from PyTorch 1.13, values against NumPy, broadcasting, layouts, Python
operators, in-place forms, out=, aliasing, integer-division errors and multi-threaded runs."""

import functools
import math
import operator

import numpy as np
import pytest
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    assert_bits,
    assert_equal,
    bf16_round,
    dtype_name,
    from_np,
    np_dtype,
    random_array,
    to_np,
)

import ember

# ------------------------------------------------------------------------------------ PyTorch's tables
# Generated once with PyTorch 1.13 (`/usr/bin/python3`, torch.ones(2, dtype=a) op torch.ones(2, dtype=b)).
# One letter per result dtype (CODES below), 'E' where PyTorch raised. PAIR[op] holds 10 rows (the first
# operand's dtype, in ALL_DTYPES order) of 10 letters (the second operand's dtype).
# SCALAR[op] = (tensor op scalar, scalar op tensor), each three groups for the scalars True, 2 and 2.5
# of 10 letters (the tensor's dtype). ZERO_D[op]: a (2,) tensor of the row's dtype with a 0-d tensor of
# the column's dtype.
CODES = dict(zip("bBcsilhgfd", ALL_DTYPES))
CODE_OF = {v: k for k, v in CODES.items()}

PAIR = {
    "add": "bBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "sub": "EEEEEEEEEE EBssilhgfd Escsilhgfd Esssilhgfd Eiiiilhgfd Elllllhgfd Ehhhhhhffd Egggggfgfd Effffffffd Eddddddddd",
    "mul": "bBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "div": "ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "div_trunc": "EBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "div_floor": "EBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "floor_divide": "EBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "remainder": "EBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "fmod": "EBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "pow": "EBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "atan2": "ffffffEgfd ffffffEgfd ffffffEgfd ffffffEgfd ffffffEgfd ffffffEgfd EEEEEEEffd ggggggfgfd fffffffffd dddddddddd",
    "maximum": "bBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "minimum": "bBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "fmax": "bBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "fmin": "bBcsilhgfd BBssilhgfd cscsilhgfd ssssilhgfd iiiiilhgfd llllllhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "hypot": "EEEEEEEgfd EEEEEEEgfd EEEEEEEgfd EEEEEEEgfd EEEEEEEgfd EEEEEEEgfd EEEEEEEffd ggggggfgfd fffffffffd dddddddddd",
    "copysign": "ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd hhhhhhhffd ggggggfgfd fffffffffd dddddddddd",
    "bitwise_and": "bBcsilEEEE BBssilEEEE cscsilEEEE ssssilEEEE iiiiilEEEE llllllEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE",
    "bitwise_or": "bBcsilEEEE BBssilEEEE cscsilEEEE ssssilEEEE iiiiilEEEE llllllEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE",
    "bitwise_xor": "bBcsilEEEE BBssilEEEE cscsilEEEE ssssilEEEE iiiiilEEEE llllllEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE",
    "bitwise_left_shift": "EBcsilEEEE BBssilEEEE cscsilEEEE ssssilEEEE iiiiilEEEE llllllEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE",
    "bitwise_right_shift": "EBcsilEEEE BBssilEEEE cscsilEEEE ssssilEEEE iiiiilEEEE llllllEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE",
    "logical_and": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "logical_or": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "logical_xor": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "eq": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "ne": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "lt": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "le": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "gt": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "ge": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
}
SCALAR = {
    "add": ("bBcsilhgfd lBcsilhgfd ffffffhgfd", "bBcsilhgfd lBcsilhgfd ffffffhgfd"),
    "sub": ("EEEEEEEEEE EBcsilhgfd Efffffhgfd", "EEEEEEEEEE EBcsilhgfd Efffffhgfd"),
    "mul": ("bBcsilhgfd lBcsilhgfd ffffffhgfd", "bBcsilhgfd lBcsilhgfd ffffffhgfd"),
    "div": ("ffffffhgfd ffffffhgfd ffffffhgfd", "ffffffhgfd ffffffhgfd ffffffhgfd"),
    "div_trunc": ("EBcsilhgfd lBcsilhgfd ffffffhgfd", "EBcsilhgfd lBcsilhgfd ffffffhgfd"),
    "div_floor": ("EBcsilhgfd lBcsilhgfd ffffffhgfd", "EBcsilhgfd lBcsilhgfd ffffffhgfd"),
    "floor_divide": ("EBcsilhgfd lBcsilhgfd ffffffhgfd", "EBcsilhgfd lBcsilhgfd ffffffhgfd"),
    "remainder": ("EBcsilhgfd lBcsilhgfd ffffffhgfd", "EBcsilhgfd lBcsilhgfd ffffffhgfd"),
    "fmod": ("EBcsilhgfd lBcsilhgfd ffffffhgfd", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "pow": ("EBcsilhgfd lBcsilhgfd ffffffhgfd", "EBcsilhgfd lBcsilhgfd ffffffhgfd"),
    "atan2": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "maximum": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "minimum": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "fmax": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "fmin": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "hypot": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "copysign": ("ffffffhgfd ffffffhgfd ffffffhgfd", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "bitwise_and": ("bBcsilEEEE lBcsilEEEE EEEEEEEEEE", "bBcsilEEEE lBcsilEEEE EEEEEEEEEE"),
    "bitwise_or": ("bBcsilEEEE lBcsilEEEE EEEEEEEEEE", "bBcsilEEEE lBcsilEEEE EEEEEEEEEE"),
    "bitwise_xor": ("bBcsilEEEE lBcsilEEEE EEEEEEEEEE", "bBcsilEEEE lBcsilEEEE EEEEEEEEEE"),
    "bitwise_left_shift": ("EBcsilEEEE lBcsilEEEE EEEEEEEEEE", "EBcsilEEEE lBcsilEEEE EEEEEEEEEE"),
    "bitwise_right_shift": ("EBcsilEEEE lBcsilEEEE EEEEEEEEEE", "EBcsilEEEE lBcsilEEEE EEEEEEEEEE"),
    "logical_and": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "logical_or": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "logical_xor": ("EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "eq": ("bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "ne": ("bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "lt": ("bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "le": ("bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "gt": ("bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
    "ge": ("bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb", "EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE"),
}
ZERO_D = {
    "add": "bBcsilhgfd BBBBBBhgfd cccccchgfd sssssshgfd iiiiiihgfd llllllhgfd hhhhhhhhhh gggggggggg ffffffffff dddddddddd",
    "mul": "bBcsilhgfd BBBBBBhgfd cccccchgfd sssssshgfd iiiiiihgfd llllllhgfd hhhhhhhhhh gggggggggg ffffffffff dddddddddd",
    "div": "ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd ffffffhgfd hhhhhhhhhh gggggggggg ffffffffff dddddddddd",
    "maximum": "bBcsilhgfd BBBBBBhgfd cccccchgfd sssssshgfd iiiiiihgfd llllllhgfd hhhhhhhhhh gggggggggg ffffffffff dddddddddd",
    "eq": "bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb bbbbbbbbbb",
    "bitwise_and": "bBcsilEEEE BBBBBBEEEE ccccccEEEE ssssssEEEE iiiiiiEEEE llllllEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE EEEEEEEEEE",
    "remainder": "EBcsilhgfd BBBBBBhgfd cccccchgfd sssssshgfd iiiiiihgfd llllllhgfd hhhhhhhhhh gggggggggg ffffffffff dddddddddd",
    "atan2": "ffffffEgfd ffffffEgfd ffffffEgfd ffffffEgfd ffffffEgfd ffffffEgfd EEEEEEEEEE gggggggggg ffffffffff dddddddddd",
}

OPS = {
    "add": ember.add,
    "sub": ember.sub,
    "mul": ember.mul,
    "div": ember.div,
    "div_trunc": functools.partial(ember.div, rounding_mode="trunc"),
    "div_floor": functools.partial(ember.div, rounding_mode="floor"),
    "floor_divide": ember.floor_divide,
    "remainder": ember.remainder,
    "fmod": ember.fmod,
    "pow": ember.pow,
    "atan2": ember.atan2,
    "maximum": ember.maximum,
    "minimum": ember.minimum,
    "fmax": ember.fmax,
    "fmin": ember.fmin,
    "hypot": ember.hypot,
    "copysign": ember.copysign,
    "bitwise_and": ember.bitwise_and,
    "bitwise_or": ember.bitwise_or,
    "bitwise_xor": ember.bitwise_xor,
    "bitwise_left_shift": ember.bitwise_left_shift,
    "bitwise_right_shift": ember.bitwise_right_shift,
    "logical_and": ember.logical_and,
    "logical_or": ember.logical_or,
    "logical_xor": ember.logical_xor,
    "eq": ember.eq,
    "ne": ember.ne,
    "lt": ember.lt,
    "le": ember.le,
    "gt": ember.gt,
    "ge": ember.ge,
}
COMPARE = {"eq", "ne", "lt", "le", "gt", "ge"}
LOGICAL = {"logical_and", "logical_or", "logical_xor"}
FLOAT_RESULT = {"div", "atan2", "hypot", "copysign"}  # integer inputs compute in the default float dtype
INT_DIVISION = {"div_trunc", "div_floor", "floor_divide", "remainder", "fmod"}
TRANSCENDENTAL = {"pow", "atan2", "hypot"}  # libm results: compared with a few ulps of slack


def expected_codes(table_row):
    return table_row.split()


def kernel_gap(op, da, db):
    """The dtype ember gives where PyTorch 1.13's CPU build merely lacks a kernel (its error is
    "<op>_cpu" not implemented for '<dtype>', not a rule of the op), or None where ember must raise too.
    ember computes these by its general rules: atan2 on float16; hypot on integers (the default float
    dtype, like atan2); and the integer-division family and pow on two bools (in int64)."""
    p = ember.promote_types(da, db)
    if op in ("atan2", "hypot") and (p is ember.float16 or not p.is_floating_point):
        return p if p.is_floating_point else ember.float32
    if op in INT_DIVISION | {"div_trunc", "div_floor", "pow"} and da is db is ember.bool:
        return ember.int64
    return None


# ------------------------------------------------------------------------------------ NumPy references


def as_dtype(a, dtype):
    """a's values converted to ember `dtype` (as the kernels convert on load), held in the NumPy dtype
    that the kernel computes in: float32 for float16 and bfloat16 (Acc in backend/cpu/binary.h)."""
    a = np.asarray(a)
    if dtype is ember.bfloat16:
        return bf16_round(a.astype(np.float32))
    if dtype is ember.float16:
        return a.astype(np.float16).astype(np.float32)
    return a.astype(np_dtype(dtype))


def store(x, dtype):
    """A computed result rounded to ember `dtype`, in the NumPy dtype to_np gives for it."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if dtype is ember.bfloat16:
            return bf16_round(x.astype(np.float32))
        return x.astype(np_dtype(dtype))


def trunc_div(a, b):
    q = np.floor_divide(a, b)
    return np.where((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q)


NP_OPS = {
    "add": lambda a, b: np.logical_or(a, b) if a.dtype == bool else a + b,
    "sub": operator.sub,
    "mul": lambda a, b: np.logical_and(a, b) if a.dtype == bool else a * b,
    "div": np.true_divide,
    "div_trunc": lambda a, b: np.trunc(a / b) if a.dtype.kind == "f" else trunc_div(a, b),
    "div_floor": np.floor_divide,
    "floor_divide": np.floor_divide,
    "remainder": np.remainder,
    "fmod": np.fmod,
    "pow": np.power,
    "atan2": np.arctan2,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "fmax": np.fmax,
    "fmin": np.fmin,
    "hypot": np.hypot,
    "copysign": np.copysign,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "bitwise_left_shift": np.left_shift,
    "bitwise_right_shift": np.right_shift,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def reference(op, a, b, compute, result):
    """NumPy's answer for ember's op on values a and b (NumPy arrays or Python numbers), computed as the
    kernel does: operands converted to `compute`, the math in compute's accumulation type, the result
    rounded once to `result`."""
    x, y = as_dtype(a, compute), as_dtype(b, compute)
    with np.errstate(all="ignore"):
        r = NP_OPS[op](x, y)
    return store(r, result)


def assert_matches(t, expected, op=None):
    """Exact, except for libm functions (a few ulps of the result dtype)."""
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape
    got = to_np(t)
    if op in TRANSCENDENTAL and t.dtype.is_floating_point:
        rtol = {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 1e-6, ember.float64: 1e-14}[t.dtype]
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def operands(op, rng, shape_a, shape_b, da, db, compute):
    """Random inputs fit for op: no zero integer divisors, exponents 0..5 for integer pow, shift counts
    below 8 (within every integer width)."""
    a = random_array(rng, shape_a, da)
    b = random_array(rng, shape_b, db)
    integral = not compute.is_floating_point
    if op in INT_DIVISION and integral:
        b = np.where(b == 0, np.ones_like(b), b)
    if op == "pow" and integral:
        b = np.abs(b.astype(np.int64)) % 6 if db is not ember.bool else b
        b = b.astype(np_dtype(db))
    if op in ("bitwise_left_shift", "bitwise_right_shift"):
        b = (np.abs(b.astype(np.int64)) % 8).astype(np_dtype(db))
    return a, b


def compute_dtype(op, da, db):
    p = ember.promote_types(da, db)
    if op in FLOAT_RESULT and not p.is_floating_point:
        return ember.float32
    return p


# ------------------------------------------------------------------------------------ result dtypes


@pytest.mark.parametrize("op", sorted(PAIR))
def test_result_dtype_of_every_dtype_pair_matches_pytorch(op):
    rows = expected_codes(PAIR[op])
    for i, da in enumerate(ALL_DTYPES):
        for j, db in enumerate(ALL_DTYPES):
            code = rows[i][j]
            a, b = ember.ones(2, dtype=da), ember.ones(2, dtype=db)
            gap = kernel_gap(op, da, db) if code == "E" else None
            if code == "E" and gap is None:
                with pytest.raises(RuntimeError):
                    OPS[op](a, b)
                continue
            want = gap if gap is not None else CODES[code]
            got = OPS[op](a, b)
            assert got.dtype is want, (op, da, db, got.dtype, want)


@pytest.mark.parametrize("op", sorted(SCALAR))
def test_result_dtype_with_python_scalars_matches_pytorch(op):
    """Python numbers are weak: they only lift the category (int32 * 2.5 -> float32, float16 + 1.0 ->
    float16, uint8 + 1000 -> uint8). PyTorch's 'E' entries are either a rule (sub with a bool) or a
    signature PyTorch lacks (ember.maximum(t, 2), ember.fmod(2, t)): those are checked where they are a
    rule, and against the tensor-tensor promotion otherwise."""
    fwd, rev = SCALAR[op]
    for k, s in enumerate((True, 2, 2.5)):
        for i, d in enumerate(ALL_DTYPES):
            t = ember.ones(2, dtype=d)
            for code, call in ((fwd.split()[k][i], lambda: OPS[op](t, s)), (rev.split()[k][i], lambda: OPS[op](s, t))):
                if code != "E":
                    assert call().dtype is CODES[code], (op, d, s, code)
                elif op == "sub" or (
                    op in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")
                    and (d.is_floating_point or isinstance(s, float))
                ):
                    with pytest.raises(RuntimeError):
                        call()
                elif op in ("bitwise_left_shift", "bitwise_right_shift") and d is ember.bool and s is True:
                    with pytest.raises(RuntimeError):
                        call()


@pytest.mark.parametrize("op", sorted(ZERO_D))
def test_result_dtype_with_zero_dim_tensors_matches_pytorch(op):
    """A 0-d tensor only changes the result when it is of a higher category (int8 + tensor(1000) is
    int8; int32 + tensor(1.5, float64) is float64)."""
    rows = expected_codes(ZERO_D[op])
    for i, da in enumerate(ALL_DTYPES):
        for j, db in enumerate(ALL_DTYPES):
            code = rows[i][j]
            a, b = ember.ones(2, dtype=da), ember.ones((), dtype=db)
            if code == "E":
                if op == "atan2":  # float16: a kernel gap in PyTorch; ember computes in float16
                    assert OPS[op](a, b).dtype is ember.float16
                    continue
                if kernel_gap(op, da, db) is not None:
                    assert OPS[op](a, b).dtype is kernel_gap(op, da, db)
                    continue
                with pytest.raises(RuntimeError):
                    OPS[op](a, b)
                continue
            assert OPS[op](a, b).dtype is CODES[code], (op, da, db)
            assert OPS[op](b, a).dtype is CODES[code] or op in ("div", "atan2", "remainder"), (op, db, da)


def test_weak_scalar_examples_from_the_docs():
    assert (ember.ones(3, dtype=ember.int32) * 2.5).dtype is ember.float32
    assert (ember.ones(3, dtype=ember.float16) + 1.0).dtype is ember.float16
    r = ember.tensor([1, 2], dtype=ember.uint8) + 1000
    assert_equal(r, np.array([1, 2], np.uint8) + np.uint8(1000 % 256), dtype=ember.uint8)
    r = ember.tensor([1, 2], dtype=ember.int8) + ember.tensor(1000)
    assert_equal(r, np.array([1 + 1000 - 1024, 2 + 1000 - 1024], np.int8), dtype=ember.int8)
    assert (ember.ones(2, dtype=ember.int8) + ember.tensor(1.5, dtype=ember.float64)).dtype is ember.float64
    assert (ember.ones((), dtype=ember.int8) + ember.ones((), dtype=ember.int16)).dtype is ember.int16
    assert (ember.ones(2, dtype=ember.bool) + True).dtype is ember.bool
    assert (ember.ones(2, dtype=ember.bool) + 1).dtype is ember.int64
    # The default dtype decides what a float scalar lifts integers to.
    ember.set_default_dtype(ember.float64)
    assert (ember.ones(2, dtype=ember.int32) * 2.5).dtype is ember.float64
    assert (ember.ones(2, dtype=ember.int32) / 2).dtype is ember.float64
    assert (ember.ones(2, dtype=ember.float32) * 2.5).dtype is ember.float32


# ------------------------------------------------------------------------------------ values

VALUE_OPS = sorted(set(OPS) - {"sub"}) + ["sub"]


@pytest.mark.parametrize("op", VALUE_OPS)
def test_values_of_every_dtype_pair_match_numpy(op, rng):
    """Each supported dtype pair against NumPy computing in the same dtypes; (3, 1) with (4,) also
    broadcasts, and the mixed pairs take the kernels' casting-on-load path."""
    rows = expected_codes(PAIR[op])
    for i, da in enumerate(ALL_DTYPES):
        for j, db in enumerate(ALL_DTYPES):
            result = CODES.get(rows[i][j]) or kernel_gap(op, da, db)
            if result is None:
                continue
            compute = compute_dtype(op, da, db)
            if kernel_gap(op, da, db) is ember.int64:  # bool with bool in integer arithmetic
                compute = ember.int64
            a, b = operands(op, rng, (3, 1), (4,), da, db, compute)
            got = OPS[op](from_np(a, da), from_np(b, db))
            assert got.dtype is result
            assert_matches(got, reference(op, a, b, compute, result), op)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
@pytest.mark.parametrize(
    "op",
    [
        "add",
        "sub",
        "mul",
        "div",
        "div_trunc",
        "div_floor",
        "remainder",
        "fmod",
        "pow",
        "atan2",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "hypot",
        "copysign",
        "eq",
        "lt",
        "ge",
        "ne",
    ],
)
def test_special_float_values_match_numpy(op, dtype):
    """nan, +-inf and +-0 on both sides: IEEE results like NumPy's (inf/nan from division by zero,
    NaN propagating through maximum/minimum and ignored by fmax/fmin)."""
    vals = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -3.0]
    a = np.array([x for x in vals for _ in vals], np.float64)
    b = np.array([y for _ in vals for y in vals], np.float64)
    got = OPS[op](from_np(a, dtype), from_np(b, dtype))
    result = ember.bool if op in COMPARE else dtype
    exp = reference(op, a, b, dtype, result)
    assert_matches(got, exp, op)
    if op in ("div", "mul", "copysign", "div_trunc", "div_floor"):  # the sign of zero results too
        real = ~np.isnan(exp)
        np.testing.assert_array_equal(np.signbit(to_np(got))[real], np.signbit(exp)[real])


def test_division_by_zero_for_floats_gives_inf_and_nan_like_numpy():
    a = ember.tensor([1.0, -1.0, 0.0, 5.0])
    assert_equal(a / 0, np.array([np.inf, -np.inf, np.nan, np.inf], np.float32))
    assert_equal(a / -0.0, np.array([-np.inf, np.inf, np.nan, -np.inf], np.float32))
    assert_equal(ember.tensor([1, 0]) / 0, np.array([np.inf, np.nan], np.float32))  # integers: true division
    assert_equal(ember.div(a, 0, rounding_mode="floor"), np.array([np.inf, -np.inf, np.nan, np.inf], np.float32))
    assert_equal(ember.div(a, 0, rounding_mode="trunc"), np.array([np.inf, -np.inf, np.nan, np.inf], np.float32))
    assert_equal(a % 0, np.full(4, np.nan, np.float32))
    assert_equal(ember.fmod(a, 0.0), np.full(4, np.nan, np.float32))
    assert_equal(a // 0.0, np.array([np.inf, -np.inf, np.nan, np.inf], np.float32))


INT_ZERO_DIVISION = [
    lambda a, b: a // b,
    lambda a, b: a % b,
    lambda a, b: ember.fmod(a, b),
    lambda a, b: ember.div(a, b, rounding_mode="trunc"),
    lambda a, b: ember.div(a, b, rounding_mode="floor"),
    lambda a, b: ember.remainder(a, b),
    lambda a, b: ember.floor_divide(a, b),
]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_name)
@pytest.mark.parametrize(
    "fn", INT_ZERO_DIVISION, ids=["floordiv", "mod", "fmod", "trunc", "floor", "remainder", "floor_divide"]
)
def test_integer_division_by_zero_raises(fn, dtype):
    a = ember.tensor([5, 3, 0], dtype=dtype)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, ember.tensor([1, 0, 1], dtype=dtype))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, 0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, ember.zeros((), dtype=dtype))
    # Large enough to run in several threads: the error still comes back as an exception.
    big = ember.ones(100_000, dtype=dtype)
    divisor = ember.ones(100_000, dtype=dtype)
    divisor[77_777] = 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(big, divisor)


@pytest.mark.parametrize("dtype", [ember.int8, ember.int16, ember.int32, ember.int64], ids=dtype_name)
def test_int_min_divided_by_minus_one_wraps_and_does_not_crash(dtype):
    lo = int(np.iinfo(np_dtype(dtype)).min)
    a = ember.tensor([lo, lo, 7, -7], dtype=dtype)
    m1 = ember.tensor([-1, -1, -1, -1], dtype=dtype)
    assert_equal(a // m1, np.array([lo, lo, -7, 7], np_dtype(dtype)))
    assert_equal(a % m1, np.zeros(4, np_dtype(dtype)))
    assert_equal(ember.fmod(a, m1), np.zeros(4, np_dtype(dtype)))
    assert_equal(ember.div(a, m1, rounding_mode="trunc"), np.array([lo, lo, -7, 7], np_dtype(dtype)))
    assert_equal(ember.div(a, -1, rounding_mode="floor"), np.array([lo, lo, -7, 7], np_dtype(dtype)))
    assert_equal(a * -1, np.array([lo, lo, -7, 7], np_dtype(dtype)))


def test_remainder_and_floor_divide_sign_rules_match_python():
    pairs = [(a, b) for a in (-7, -6, -1, 0, 1, 6, 7) for b in (-3, -2, -1, 1, 2, 3)]
    a = ember.tensor([p[0] for p in pairs])
    b = ember.tensor([p[1] for p in pairs])
    assert_equal(a // b, np.array([x // y for x, y in pairs]))
    assert_equal(a % b, np.array([x % y for x, y in pairs]))
    assert_equal(ember.fmod(a, b), np.array([math.fmod(x, y) for x, y in pairs], np.int64))
    assert_equal(ember.div(a, b, rounding_mode="trunc"), np.array([int(x / y) for x, y in pairs]))
    fa = ember.tensor([float(p[0]) + 0.5 for p in pairs], dtype=ember.float64)
    fb = ember.tensor([float(p[1]) for p in pairs], dtype=ember.float64)
    assert_equal(fa // fb, np.array([(x + 0.5) // y for x, y in pairs]))
    assert_equal(fa % fb, np.array([(x + 0.5) % y for x, y in pairs]))
    assert_equal(ember.fmod(fa, fb), np.array([math.fmod(x + 0.5, y) for x, y in pairs]))
    # Python's results for floats that are not exact in binary.
    assert (ember.tensor([0.3], dtype=ember.float64) // 0.1).item() == 0.3 // 0.1 == 2.0
    assert (ember.tensor([0.3], dtype=ember.float64) % 0.1).item() == pytest.approx(0.3 % 0.1, abs=1e-17)
    assert (ember.tensor([-1e-20], dtype=ember.float64) % 1.0).item() == -1e-20 % 1.0 == 1.0
    assert (ember.tensor([5.0], dtype=ember.float64) % math.inf).item() == 5.0 % math.inf


def test_integer_pow():
    base = ember.tensor([-3, -2, -1, 0, 1, 2, 3])
    assert_equal(base**3, np.array([-27, -8, -1, 0, 1, 8, 27]))
    assert_equal(base**0, np.ones(7, np.int64))
    assert_equal(ember.pow(base, ember.tensor([0, 1, 2, 3, 4, 5, 6])), np.array([1, -2, 1, 0, 1, 32, 729]))
    assert_equal(ember.tensor([2], dtype=ember.uint8) ** 9, np.array([0], np.uint8))  # wraps like NumPy
    assert_equal(ember.tensor([3], dtype=ember.int8) ** 5, np.array([243 - 256], np.int8))
    assert_equal(ember.tensor([3]) ** 39, np.array([3], np.int64) ** 39)
    # A float exponent lifts integers to the default float dtype.
    assert_equal(ember.tensor([4, 9]) ** 0.5, np.array([2.0, 3.0], np.float32), dtype=ember.float32)
    assert_equal(2 ** ember.tensor([0, 3, 10]), np.array([1, 8, 1024]), dtype=ember.int64)
    assert_equal(2.0 ** ember.tensor([0, 3, -1]), np.array([1.0, 8.0, 0.5], np.float32), dtype=ember.float32)


def test_pow_of_integers_by_negative_integer_scalar_raises():
    for dtype in INT_DTYPES:
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            ember.tensor([2, 3], dtype=dtype) ** -1
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            ember.pow(ember.tensor([2, 3], dtype=dtype), -2)
    # floats, and float exponents, are fine
    assert_equal(ember.tensor([2.0, 4.0]) ** -1, np.array([0.5, 0.25], np.float32))
    assert_equal(ember.tensor([2, 4]) ** -1.0, np.array([0.5, 0.25], np.float32))
    # a tensor exponent follows PyTorch: 1 ** -n == 1, (-1) ** -n == +-1, others 0
    assert_equal(ember.tensor([1, -1, -1, 2, 0]) ** ember.tensor([-3, -3, -2, -1, 0]), np.array([1, -1, 1, 0, 1]))


@pytest.mark.parametrize("dtype", [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64], ids=dtype_name)
def test_shifts_by_the_bit_width_or_more(dtype):
    """Shifts by >= the width (or by a negative count) are defined: left gives 0, right gives the sign
    fill (0 or -1), as PyTorch does from 2.1 on (1.13 left them to the C shift and masked the count)."""
    bits = np.dtype(np_dtype(dtype)).itemsize * 8
    vals = [1, 5, 100] + ([] if dtype is ember.uint8 else [-1, -8])
    a = ember.tensor(vals, dtype=dtype)

    def wrap(v):  # Python int -> the dtype's two's complement value
        v &= (1 << bits) - 1
        return v - (1 << bits) if dtype is not ember.uint8 and v >= 1 << (bits - 1) else v

    for count in (bits - 1, bits, bits + 1, 2 * bits, 127 if dtype is not ember.uint8 else 255):
        c = ember.full((len(vals),), count, dtype=dtype)
        left = [wrap(v << count) if count < bits else 0 for v in vals]
        assert_equal(a << c, np.array(left, np_dtype(dtype)))
        assert_equal(
            a >> c,
            np.array(
                [v >> min(count, bits - 1) if count < bits else (-1 if v < 0 else 0) for v in vals], np_dtype(dtype)
            ),
        )
    # Python scalar counts go through the same kernels.
    assert_equal(a << bits, np.zeros(len(vals), np_dtype(dtype)))
    assert_equal(a >> bits, np.array([-1 if v < 0 else 0 for v in vals], np_dtype(dtype)))
    if dtype is not ember.uint8:
        assert_equal(a >> -1, np.array([-1 if v < 0 else 0 for v in vals], np_dtype(dtype)))
        assert_equal(a << -1, np.zeros(len(vals), np_dtype(dtype)))


def test_shifts_values_and_scalar_forms():
    a = ember.tensor([1, 3, -4, 100], dtype=ember.int16)
    assert_equal(a << 2, np.array([4, 12, -16, 400], np.int16), dtype=ember.int16)
    assert_equal(a >> 1, np.array([0, 1, -2, 50], np.int16), dtype=ember.int16)
    assert_equal(1 << ember.tensor([0, 3, 10]), np.array([1, 8, 1024]), dtype=ember.int64)
    assert_equal(1024 >> ember.tensor([0, 3, 10]), np.array([1024, 128, 1]), dtype=ember.int64)
    assert_equal(
        ember.tensor([1], dtype=ember.uint8) << ember.tensor([7], dtype=ember.uint8), np.array([128], np.uint8)
    )
    with pytest.raises(RuntimeError):
        ember.tensor([1.0]) << 1
    with pytest.raises(RuntimeError):
        ember.tensor([True]) << ember.tensor([True])


def test_maximum_minimum_propagate_nan_and_fmax_fmin_ignore_it():
    a = ember.tensor([1.0, math.nan, math.nan, -0.0, 3.0])
    b = ember.tensor([math.nan, 2.0, math.nan, 0.0, -math.inf])
    an, bn = to_np(a), to_np(b)
    assert_equal(ember.maximum(a, b), np.maximum(an, bn))
    assert_equal(ember.minimum(a, b), np.minimum(an, bn))
    assert_equal(ember.fmax(a, b), np.fmax(an, bn))
    assert_equal(ember.fmin(a, b), np.fmin(an, bn))
    assert_equal(ember.max(a, b), np.maximum(an, bn))  # max(input, other) is maximum
    assert_equal(ember.min(a, b), np.minimum(an, bn))


def test_hypot_atan2_copysign_values():
    a = ember.tensor([3.0, -5.0, 0.0, -0.0, 1e30])
    b = ember.tensor([4.0, 12.0, -1.0, 2.0, 1e30])
    an, bn = to_np(a), to_np(b)
    np.testing.assert_allclose(to_np(ember.hypot(a, b)), np.hypot(an, bn), rtol=1e-6)
    np.testing.assert_allclose(to_np(ember.atan2(a, b)), np.arctan2(an, bn), rtol=1e-6)
    np.testing.assert_allclose(to_np(ember.arctan2(a, b)), np.arctan2(an, bn), rtol=1e-6)
    assert_equal(ember.copysign(a, b), np.copysign(an, bn))
    assert_equal(
        ember.copysign(ember.tensor([1, 2, 3]), ember.tensor([-0.0, 0.0, -1.0])),
        np.array([-1.0, 2.0, -3.0], np.float32),
        dtype=ember.float32,
    )
    assert_equal(ember.copysign(ember.tensor([1.0, 2.0]), -1), np.array([-1.0, -2.0], np.float32))


# ------------------------------------------------------------------------------------ add/sub with alpha


@pytest.mark.parametrize("dtype", [ember.uint8, ember.int8, ember.int32, ember.int64], ids=dtype_name)
def test_add_and_sub_with_integer_alpha(dtype, rng):
    a, b = random_array(rng, (9,), dtype), random_array(rng, (9,), dtype)
    ta, tb = from_np(a, dtype), from_np(b, dtype)
    npd = np_dtype(dtype)
    for alpha in (2, -3, 0, 1, -1):
        with np.errstate(all="ignore"):
            assert_equal(ember.add(ta, tb, alpha=alpha), (a.astype(np.int64) + alpha * b.astype(np.int64)).astype(npd))
            assert_equal(ember.sub(ta, tb, alpha=alpha), (a.astype(np.int64) - alpha * b.astype(np.int64)).astype(npd))
    assert_equal(ta.add(tb, alpha=2), (a.astype(np.int64) + 2 * b.astype(np.int64)).astype(npd))
    t = ta.clone()
    t.sub_(tb, alpha=3)
    assert_equal(t, (a.astype(np.int64) - 3 * b.astype(np.int64)).astype(npd))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_add_and_sub_with_float_alpha(dtype, rng):
    a, b = random_array(rng, (9,), dtype), random_array(rng, (9,), dtype)
    ta, tb = from_np(a, dtype), from_np(b, dtype)
    rtol = {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 1e-6, ember.float64: 1e-14}[dtype]
    for alpha in (0.5, -2.25, 3):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        np.testing.assert_allclose(to_np(ember.add(ta, tb, alpha=alpha)), a64 + alpha * b64, rtol=rtol, atol=rtol * 40)
        np.testing.assert_allclose(to_np(ember.sub(ta, tb, alpha=alpha)), a64 - alpha * b64, rtol=rtol, atol=rtol * 40)
    # scalar other with alpha
    np.testing.assert_allclose(to_np(ember.add(ta, 2, alpha=1.5)), a.astype(np.float64) + 3, rtol=rtol, atol=rtol * 40)
    # rsub(input, other, alpha) = other - alpha * input
    np.testing.assert_allclose(
        to_np(ember.rsub(ta, 5, alpha=2)), 5 - 2 * a.astype(np.float64), rtol=rtol, atol=rtol * 40
    )
    np.testing.assert_allclose(to_np(ember.rsub(ta, tb)), b.astype(np.float64) - a, rtol=rtol, atol=rtol * 40)


def test_alpha_rules_match_pytorch():
    i = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating point"):
        ember.add(i, i, alpha=2.0)
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating point"):
        ember.add(i, 1, alpha=2.5)
    with pytest.raises(RuntimeError, match="For integral input tensors"):
        ember.add(ember.tensor([True]), ember.tensor([True]), alpha=1.0)
    # a float scalar makes the result float, so a float alpha is fine
    assert_equal(ember.add(i, 1.5, alpha=2.0), np.array([4.0, 5.0], np.float32))
    # Boolean alpha only for bool results
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        ember.add(i, i, alpha=True)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        ember.add(ember.tensor([1.0]), i, alpha=False)
    bt, bf = ember.tensor([True, False]), ember.tensor([True, True])
    assert_equal(ember.add(bt, bf, alpha=False), np.array([True, False]))  # a + False * b == a
    assert_equal(ember.add(bt, bf, alpha=True), np.array([True, True]))
    assert_equal(ember.add(bt, bf, alpha=2), np.array([True, True]))
    # uint8 with a negative alpha wraps as PyTorch does
    u = ember.tensor([1, 2], dtype=ember.uint8)
    assert_equal(ember.add(u, ember.tensor([1, 1], dtype=ember.uint8), alpha=-1), np.array([0, 1], np.uint8))
    assert_equal(ember.sub(u, ember.tensor([3, 1], dtype=ember.uint8), alpha=2), np.array([251, 0], np.uint8))


def test_sub_with_bool_raises_like_pytorch():
    b = ember.tensor([True, False])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors is not supported"):
        b - b
    for call in (
        lambda: b - ember.tensor([1, 2]),
        lambda: ember.tensor([1, 2]) - b,
        lambda: b - 1,
        lambda: 1 - b,
        lambda: ember.tensor([1.0]) - True,
        lambda: True - ember.tensor([1.0]),
        lambda: ember.sub(ember.tensor([1]), b),
        lambda: ember.rsub(b, 1),
        lambda: b.sub(1.5),
    ):
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
            call()
    t = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        t -= b
    with pytest.raises(RuntimeError, match="two bool tensors"):
        b.sub_(b)


# ------------------------------------------------------------------------------------ broadcasting and layouts


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 1), (1, 4)),
        ((2, 3, 4), (4,)),
        ((4,), (2, 3, 4)),
        ((2, 1, 4), (3, 1)),
        ((0, 4), (4,)),
        ((2, 0, 3), (1, 3)),
        ((0,), ()),
        ((), (5,)),
        ((), ()),
        ((1,), (0,)),
        ((5, 1, 1), (1, 1, 1)),
    ],
    ids=str,
)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "lt", "bitwise_xor"])
def test_broadcasting_matches_numpy(op, shapes, rng):
    sa, sb = shapes
    dt = ember.int32 if op == "bitwise_xor" else ember.float64
    a, b = random_array(rng, sa, dt), random_array(rng, sb, dt)
    got = OPS[op](from_np(a, dt), from_np(b, dt))
    result = ember.bool if op in COMPARE else dt
    assert got.dtype is result
    with np.errstate(all="ignore"):
        exp = NP_OPS[op](a, b)
    assert_matches(got, exp, op)
    assert got.is_contiguous()


@pytest.mark.parametrize(
    "op, dt",
    [(op, ember.float32) for op in ("sub", "div", "mul", "pow")] + [(op, ember.int64) for op in ("sub", "mul")],
    ids=str,
)
def test_a_per_channel_operand_on_either_side(op, dt, rng):
    # [N, C, H, W] with [1, C, 1, 1] (an SE block's scale) and with a 0-d tensor, on either side: the kernels read
    # the broadcast input once per run (stride 0), in runs with and without a vector tail (H * W = 49, 64, 1).
    for hw in (7, 8, 1):
        x = random_array(rng, (2, 5, hw, hw), dt)
        for other in (random_array(rng, (1, 5, 1, 1), dt), random_array(rng, (), dt)):
            for a, b in ((x, other), (other, x)):
                if op == "pow":
                    a, b = np.abs(a) + 0.5, np.clip(b, -2, 2)
                got = OPS[op](from_np(a, dt), from_np(b, dt))
                with np.errstate(all="ignore"):
                    assert_matches(got, NP_OPS[op](a, b), op)


@pytest.mark.parametrize("shapes", [((3,), (4,)), ((2, 3), (3, 2)), ((2, 3, 4), (2, 4)), ((0,), (2,))], ids=str)
def test_incompatible_shapes_raise(shapes):
    a, b = ember.ones(shapes[0]), ember.ones(shapes[1])
    with pytest.raises(RuntimeError, match="size"):
        a + b
    with pytest.raises(RuntimeError):
        ember.eq(a, b)


def layouts(rng, dtype):
    """(name, ember tensor, NumPy array) for non-contiguous layouts of a (4, 6) logical shape."""
    base = random_array(rng, (6, 4), dtype)
    yield "transposed", from_np(base, dtype).t(), base.T
    big = random_array(rng, (8, 12), dtype)
    yield "stepped", from_np(big, dtype)[::2, ::2], big[::2, ::2]
    yield "offset-slice", from_np(big, dtype)[2:6, 3:9], big[2:6, 3:9]
    row = random_array(rng, (6,), dtype)
    yield "expanded", from_np(row, dtype).expand(4, 6), np.broadcast_to(row, (4, 6))
    col = random_array(rng, (4, 1), dtype)
    yield "expanded-col", from_np(col, dtype).expand(4, 6), np.broadcast_to(col, (4, 6))
    cube = random_array(rng, (6, 2, 4), dtype)
    yield "selected", from_np(cube, dtype).permute(2, 1, 0)[:, 1, :], cube.transpose(2, 1, 0)[:, 1, :]


@pytest.mark.parametrize(
    "da,db",
    [
        (ember.float32, ember.float32),
        (ember.int16, ember.float64),
        (ember.float16, ember.bfloat16),
        (ember.uint8, ember.int8),
        (ember.int64, ember.int64),
    ],
    ids=str,
)
def test_non_contiguous_operands_match_numpy(da, db, rng):
    la = list(layouts(rng, da))
    lb = list(layouts(rng, db))
    result = ember.promote_types(da, db)
    for na, ta, a in la:
        for nb_, tb, b in lb:
            for op in ("add", "mul", "maximum", "gt"):
                got = OPS[op](ta, tb)
                res = ember.bool if op in COMPARE else result
                assert_matches(got, reference(op, a, b, result, res), op)
            assert_matches(ta - tb, reference("sub", a, b, result, result))


def test_transposed_output_follows_the_input_layout_values():
    a = ember.arange(12.0).reshape(3, 4).t()
    b = ember.arange(12.0).reshape(3, 4).t()
    exp = np.arange(12.0, dtype=np.float32).reshape(3, 4).T * 2
    assert_equal(a + b, exp)
    assert_equal(a + b.contiguous(), exp)
    assert_equal(a.contiguous() + b, exp)


# ------------------------------------------------------------------------------------ Python operators


def _np_floordiv(a, b):
    return np.floor_divide(a, b)


OPERATORS = [
    ("+", operator.add, np.add),
    ("-", operator.sub, np.subtract),
    ("*", operator.mul, np.multiply),
    ("/", operator.truediv, np.true_divide),
    ("//", operator.floordiv, _np_floordiv),
    ("%", operator.mod, np.remainder),
    ("**", operator.pow, np.power),
    ("&", operator.and_, np.bitwise_and),
    ("|", operator.or_, np.bitwise_or),
    ("^", operator.xor, np.bitwise_xor),
    ("<<", operator.lshift, np.left_shift),
    (">>", operator.rshift, np.right_shift),
    ("==", operator.eq, np.equal),
    ("!=", operator.ne, np.not_equal),
    ("<", operator.lt, np.less),
    ("<=", operator.le, np.less_equal),
    (">", operator.gt, np.greater),
    (">=", operator.ge, np.greater_equal),
]


@pytest.mark.parametrize("sym,fn,npfn", OPERATORS, ids=[o[0] for o in OPERATORS])
def test_python_operators_match_numpy(sym, fn, npfn):
    a_np = np.array([[5, 7, 12], [1, 3, 9]], np.int64)
    b_np = np.array([1, 2, 3], np.int64)
    a, b = from_np(a_np), from_np(b_np)
    with np.errstate(all="ignore"):
        exp = npfn(a_np, b_np)
        exp_s = npfn(a_np, 2)
        exp_r = npfn(2, a_np)
    if sym == "/":
        exp, exp_s, exp_r = exp.astype(np.float32), exp_s.astype(np.float32), exp_r.astype(np.float32)
    assert_equal(fn(a, b), exp)
    assert_equal(fn(a, 2), exp_s)  # tensor op number
    assert_equal(fn(2, a), exp_r)  # reflected: number op tensor
    if sym in ("+", "-", "*", "/", "**", "//", "%"):  # float operands
        fa = from_np(a_np.astype(np.float64))
        with np.errstate(all="ignore"):
            assert_equal(fn(fa, 2.5), npfn(a_np.astype(np.float64), 2.5))
            # number / tensor is PyTorch's tensor.reciprocal() * number (Tensor.__rtruediv__): its roundings
            want = 2.5 * (1.0 / a_np.astype(np.float64)) if sym == "/" else npfn(2.5, a_np.astype(np.float64))
            assert_equal(fn(2.5, fa), want)
            assert_equal(fn(fa, from_np(b_np)), npfn(a_np.astype(np.float64), b_np.astype(np.float64)))


def test_reflected_forms_with_floats():
    t = ember.tensor([1.0, 2.0, 4.0])
    assert_equal(2 - t, np.array([1.0, 0.0, -2.0], np.float32))
    assert_equal(2**t, np.array([2.0, 4.0, 16.0], np.float32))
    assert_equal(1 / t, np.array([1.0, 0.5, 0.25], np.float32))
    assert_equal(1 / ember.tensor([1, 2, 4]), np.array([1.0, 0.5, 0.25], np.float32), dtype=ember.float32)
    assert_equal(7 // t, np.array([7.0, 3.0, 1.0], np.float32))
    assert_equal(-7 % t, np.array([0.0, 1.0, 1.0], np.float32))
    assert_equal(True + t, np.array([2.0, 3.0, 5.0], np.float32))
    assert_equal(-t, np.array([-1.0, -2.0, -4.0], np.float32))
    assert_equal(ember.tensor(3.0) * t, np.array([3.0, 6.0, 12.0], np.float32))


def test_numpy_scalars_on_either_side_give_tensors():
    t = ember.tensor([1, 2])
    for r, exp in (
        (np.int64(3) - t, [2, 1]),
        (t - np.int64(3), [-2, -1]),
        (np.int32(2) * t, [2, 4]),
        (np.float64(2.5) * t, [2.5, 5.0]),
        (t * np.float64(2.5), [2.5, 5.0]),
        (np.float64(1.0) / t, [1.0, 0.5]),
        (np.int64(2) ** t, [2, 4]),
        (np.int64(1) == t, [True, False]),
    ):
        assert isinstance(r, ember.Tensor), type(r)
        assert r.tolist() == exp
    assert (np.float64(2.5) * t).dtype is ember.float32  # a NumPy float is a weak Python float


def test_operators_with_other_types_return_not_implemented():
    t = ember.tensor([1, 2])
    assert (t == None) is False  # noqa: E711 (Python falls back to identity)
    assert (t != None) is True  # noqa: E711
    assert (t == "a") is False
    with pytest.raises(TypeError):
        t + None
    with pytest.raises(TypeError):
        "a" * t
    with pytest.raises(TypeError):
        t < "x"


def test_method_forms_and_aliases():
    a, b = ember.tensor([4.0, 9.0]), ember.tensor([2.0, 3.0])
    assert_equal(a.add(b), np.array([6.0, 12.0], np.float32))
    assert_equal(a.subtract(b), np.array([2.0, 6.0], np.float32))
    assert_equal(ember.subtract(a, b, alpha=2), np.array([0.0, 3.0], np.float32))
    assert_equal(a.multiply(b), np.array([8.0, 27.0], np.float32))
    assert_equal(ember.divide(a, b), np.array([2.0, 3.0], np.float32))
    assert_equal(ember.true_divide(a, b), np.array([2.0, 3.0], np.float32))
    assert_equal(a.div(b, rounding_mode="floor"), np.array([2.0, 3.0], np.float32))
    assert_equal(a.not_equal(b), np.array([True, True]))
    assert_equal(ember.greater_equal(a, 9), np.array([False, True]))
    assert_equal(ember.less(a, 9), np.array([True, False]))
    assert_equal(a.less_equal(4), np.array([True, False]))
    assert_equal(a.greater(4), np.array([False, True]))
    assert_equal(a.pow(2), np.array([16.0, 81.0], np.float32))
    assert_equal(a.fmod(b), np.array([0.0, 0.0], np.float32))
    np.testing.assert_allclose(to_np(a.atan2(b)), np.arctan2([4.0, 9.0], [2.0, 3.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="rounding_mode"):
        ember.div(a, b, rounding_mode="round")


def test_logical_ops_on_any_dtypes():
    a = ember.tensor([0.0, 1.5, -2.0, 0.0, math.nan])
    b = ember.tensor([0, 0, 3, 7, 0])
    an, bn = to_np(a), to_np(b)
    assert_equal(ember.logical_and(a, b), np.logical_and(an, bn), dtype=ember.bool)
    assert_equal(ember.logical_or(a, b), np.logical_or(an, bn), dtype=ember.bool)
    assert_equal(ember.logical_xor(a, b), np.logical_xor(an, bn), dtype=ember.bool)
    assert_equal(a.logical_and(b), np.logical_and(an, bn))
    t = ember.tensor([1, 0, 2])
    t.logical_or_(ember.tensor([0, 0, 5]))  # in place keeps the dtype (values 0/1)
    assert_equal(t, np.array([1, 0, 1]), dtype=ember.int64)


def test_bitwise_ops_on_bools_and_signed():
    t, f = ember.tensor([True, True, False, False]), ember.tensor([True, False, True, False])
    assert_equal(t & f, np.array([True, False, False, False]), dtype=ember.bool)
    assert_equal(t | f, np.array([True, True, True, False]), dtype=ember.bool)
    assert_equal(t ^ f, np.array([False, True, True, False]), dtype=ember.bool)
    a = ember.tensor([-1, -128, 127, 5], dtype=ember.int8)
    b = ember.tensor([0x0F, 1, -1, 3], dtype=ember.int8)
    an, bn = to_np(a), to_np(b)
    assert_equal(a & b, an & bn)
    assert_equal(a | b, an | bn)
    assert_equal(a ^ b, an ^ bn)
    assert_equal(a & True, an & 1)
    with pytest.raises(RuntimeError, match="bitwise_and"):
        ember.tensor([1.0]) & 1
    with pytest.raises(RuntimeError):
        ember.tensor([1]) | 1.5


# ------------------------------------------------------------------------------------ in-place

INPLACE = [
    ("+=", operator.iadd, "add_", np.add),
    ("-=", operator.isub, "sub_", np.subtract),
    ("*=", operator.imul, "mul_", np.multiply),
    ("/=", operator.itruediv, "div_", np.true_divide),
    ("//=", operator.ifloordiv, "floor_divide_", np.floor_divide),
    ("%=", operator.imod, "remainder_", np.remainder),
    ("**=", operator.ipow, "pow_", np.power),
]


@pytest.mark.parametrize("sym,ifn,method,npfn", INPLACE, ids=[i[0] for i in INPLACE])
def test_inplace_operators_keep_identity_and_bump_version(sym, ifn, method, npfn):
    vals = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)
    other = np.array([2.0, -3.0, 1.5], np.float32)
    t = from_np(vals)
    ident, v0 = id(t), t._version
    t = ifn(t, from_np(other))
    assert id(t) == ident and t._version == v0 + 1
    with np.errstate(all="ignore"):
        exp = npfn(vals.astype(np.float64), other).astype(np.float32)
    np.testing.assert_allclose(to_np(t), exp, rtol=1e-6)
    u = from_np(vals)
    r = getattr(u, method)(2)
    assert r is u and u._version == 1
    with np.errstate(all="ignore"):
        assert_equal(u, npfn(vals.astype(np.float64), 2).astype(np.float32))


def test_inplace_methods_of_every_op():
    cases = [
        ("add_", "add"),
        ("sub_", "sub"),
        ("mul_", "mul"),
        ("div_", "div"),
        ("fmod_", "fmod"),
        ("remainder_", "remainder"),
        ("atan2_", "atan2"),
        ("hypot_", "hypot"),
        ("copysign_", "copysign"),
        ("pow_", "pow"),
        ("floor_divide_", "floor_divide"),
    ]
    a = np.array([1.5, -2.5, 3.25, 7.0], np.float64)
    b = np.array([0.5, 2.0, -1.5, 3.0], np.float64)
    for method, op in cases:
        t = from_np(a)
        out = getattr(t, method)(from_np(b))
        assert out is t and t._version == 1
        assert_matches(t, reference(op, a, b, ember.float64, ember.float64), op)
    ia = np.array([12, 5, -7], np.int32)
    ib = np.array([10, 3, 2], np.int32)
    for method, npfn in (
        ("bitwise_and_", np.bitwise_and),
        ("bitwise_or_", np.bitwise_or),
        ("bitwise_xor_", np.bitwise_xor),
        ("bitwise_left_shift_", np.left_shift),
        ("bitwise_right_shift_", np.right_shift),
    ):
        t = from_np(ia)
        assert getattr(t, method)(from_np(ib)) is t
        assert_equal(t, npfn(ia, ib), dtype=ember.int32)
    # comparisons in place keep self's dtype (1.0 / 0.0)
    for method, npfn in (
        ("eq_", np.equal),
        ("ne_", np.not_equal),
        ("lt_", np.less),
        ("le_", np.less_equal),
        ("gt_", np.greater),
        ("ge_", np.greater_equal),
    ):
        t = ember.tensor([1.0, 2.0, 3.0])
        assert getattr(t, method)(ember.tensor([1.0, 5.0, 2.0])) is t
        exp = npfn(np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 2.0])).astype(np.float32)
        assert_equal(t, exp, dtype=ember.float32)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.__iadd__(1.5),
        lambda t: t.add_(1.5),
        lambda t: t.div_(2),
        lambda t: t.mul_(0.5),
        lambda t: t.__itruediv__(2),
        lambda t: t.sub_(ember.tensor([1.0])),
        lambda t: t.pow_(0.5),
        lambda t: t.atan2_(t),
        lambda t: t.copysign_(t),
    ],
    ids=["iadd", "add_", "div_", "mul_", "itruediv", "sub_", "pow_", "atan2_", "copysign_"],
)
def test_inplace_with_uncastable_result_raises(call):
    t = ember.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        call(t)
    assert_equal(t, np.array([1, 2, 3]))  # untouched
    assert t._version == 0


def test_inplace_errors():
    t = ember.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t += 1.5
    b = ember.tensor([True, False])
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        b += 1
    i8 = ember.tensor([1], dtype=ember.int8)
    # in-place with broadcasting of self is not allowed
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        ember.zeros(3).add_(ember.ones(2, 3))
    # self with internal overlap
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(1).expand(3).add_(1)
    # a wider dtype into a narrower one of the same kind is fine (float64 into float32, int64 into int8)
    f = ember.tensor([1.0, 2.0])
    f += ember.tensor([0.5, 0.25], dtype=ember.float64)
    assert_equal(f, np.array([1.5, 2.25], np.float32), dtype=ember.float32)
    i8 += ember.tensor([300])
    assert_equal(i8, np.array([301 - 256], np.int8))
    u8 = ember.tensor([1], dtype=ember.uint8)
    u8.add_(ember.tensor([-3], dtype=ember.int8))  # computed in int16, stored back wrapping
    assert_equal(u8, np.array([254], np.uint8))


def test_inplace_into_a_view_writes_the_base():
    base = ember.zeros(3, 4)
    view = base[:, 1]
    view += ember.tensor([1.0, 2.0, 3.0])
    exp = np.zeros((3, 4), np.float32)
    exp[:, 1] = [1, 2, 3]
    assert_equal(base, exp)
    assert base._version == 1
    base.t().mul_(2)
    assert_equal(base, exp * 2)
    base[::2, ::2].sub_(1)
    exp = exp * 2
    exp[::2, ::2] -= 1
    assert_equal(base, exp)


# ------------------------------------------------------------------------------------ out=


def test_out_same_and_different_dtype():
    a, b = ember.tensor([1, 2, 3]), ember.tensor([4, 5, 6])
    out = ember.empty(3, dtype=ember.int64)
    r = ember.add(a, b, out=out)
    assert r is out and out._version == 1
    assert_equal(out, np.array([5, 7, 9]))
    outf = ember.zeros(3, dtype=ember.float64)
    assert ember.mul(a, b, out=outf) is outf
    assert_equal(outf, np.array([4.0, 10.0, 18.0]), dtype=ember.float64)
    outb = ember.zeros(3, dtype=ember.float32)
    ember.lt(a, 2, out=outb)  # bool result into float32
    assert_equal(outb, np.array([1.0, 0.0, 0.0], np.float32))
    out16 = ember.zeros(3, dtype=ember.float16)
    ember.div(a, b, out=out16)
    assert_equal(out16, (np.array([1, 2, 3]) / np.array([4, 5, 6])).astype(np.float16))
    outi8 = ember.zeros(3, dtype=ember.int8)
    ember.add(ember.tensor([100, 100, 100]), 100, out=outi8)  # int64 into int8: same kind, wraps
    assert_equal(outi8, np.array([200 - 256] * 3, np.int8))
    # non-contiguous out
    big = ember.zeros(3, 2)
    ember.sub(a, b, out=big[:, 1])
    assert_equal(big, np.array([[0, -3], [0, -3], [0, -3]], np.float32))
    # broadcast inputs into out of the broadcast shape
    o = ember.empty(2, 3)
    ember.add(ember.ones(2, 1), ember.tensor([1.0, 2.0, 3.0]), out=o)
    assert_equal(o, np.array([[2, 3, 4], [2, 3, 4]], np.float32))


def test_out_errors():
    a = ember.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[3\]"):
        ember.add(a, a, out=ember.empty(2))
    with pytest.raises(RuntimeError, match=r"doesn't match the broadcast shape"):
        ember.mul(a, 2, out=ember.empty(1, 3))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.add(a, a, out=ember.empty(3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Bool"):
        ember.add(a, a, out=ember.empty(3, dtype=ember.bool))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.div(ember.tensor([1, 2]), 2, out=ember.empty(2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.add(a, a, out=ember.empty(1).expand(3))


# ------------------------------------------------------------------------------------ aliasing


def test_self_aliasing():
    x = ember.tensor([1.0, 2.0, 3.0])
    x.add_(x)
    assert_equal(x, np.array([2.0, 4.0, 6.0], np.float32))
    x.mul_(x)
    assert_equal(x, np.array([4.0, 16.0, 36.0], np.float32))
    ember.sub(x, x, out=x)
    assert_equal(x, np.zeros(3, np.float32))


@pytest.mark.parametrize("n", [5, 1000, 70_000])
def test_overlapping_inplace_matches_numpy_on_copies(n):
    a_np = np.arange(n, dtype=np.float64) % 97
    a = from_np(a_np) if n < 2000 else ember.arange(n, dtype=ember.float64).remainder(97)
    a[1:].add_(a[:-1])
    exp = a_np.copy()
    exp[1:] = a_np[1:] + a_np[:-1]  # NumPy's answer on copies of the inputs
    assert_equal(a, exp)
    b = from_np(a_np) if n < 2000 else ember.arange(n, dtype=ember.float64).remainder(97)
    b[:-1].mul_(b[1:])
    exp = a_np.copy()
    exp[:-1] = a_np[:-1] * a_np[1:]
    assert_equal(b, exp)
    c = from_np(a_np) if n < 2000 else ember.arange(n, dtype=ember.float64).remainder(97)
    ember.sub(c[2:], c[:-2], out=c[:-2])
    exp = a_np.copy()
    exp[:-2] = a_np[2:] - a_np[:-2]
    assert_equal(c, exp)


def test_out_overlapping_a_transposed_input():
    m_np = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    m = from_np(m_np)
    m.add_(m.t())  # out is m, other input is its transpose: must read the old values
    assert_equal(m, m_np + m_np.T)
    m2 = from_np(m_np)
    ember.mul(m2.t(), 2, out=m2)
    assert_equal(m2, m_np.T * 2)


# ------------------------------------------------------------------------------------ threading


@pytest.mark.parametrize(
    "op", ["add", "sub", "mul", "div", "div_floor", "remainder", "pow", "maximum", "fmin", "atan2", "eq", "lt"]
)
def test_large_tensors_in_several_threads_match_numpy(op, four_threads):
    n = 100_003  # several grains of 32768, not a multiple of the block size
    x_np = (np.arange(n, dtype=np.float64) * 0.37) % 101 - 50
    y_np = (np.arange(n, dtype=np.float64) * 0.11) % 13 + 0.5
    x = ember.arange(n, dtype=ember.float64).mul(0.37).remainder(101).sub(50)
    y = ember.arange(n, dtype=ember.float64).mul(0.11).remainder(13).add(0.5)
    assert_equal(x, x_np)
    got = OPS[op](x, y)
    with np.errstate(all="ignore"):
        exp = NP_OPS[op](x_np, y_np)
    assert_matches(got, exp, op)
    # mixed dtypes and a transposed, non-contiguous operand (the blocked casting path)
    xt, xt_np = x[:99_900].reshape(333, 300).t(), x_np[:99_900].reshape(333, 300).T
    yf = ember.arange(300, dtype=ember.float32).reshape(300, 1).add(1)
    got = OPS[op](xt, yf)
    with np.errstate(all="ignore"):
        exp = NP_OPS[op](xt_np, np.arange(300, dtype=np.float64).reshape(300, 1) + 1)
    assert_matches(got, exp, op)


def test_large_integer_tensors_in_several_threads(four_threads):
    n = 131_072 + 17
    a_np = np.arange(n, dtype=np.int64) * 7919 % 1000 - 500
    b_np = np.arange(n, dtype=np.int64) % 17 + 1
    a = ember.arange(n).mul(7919).remainder(1000).sub(500)
    b = ember.arange(n).remainder(17).add(1)
    assert_equal(a // b, a_np // b_np)
    assert_equal(a % b, a_np % b_np)
    assert_equal(ember.fmod(a, b), np.fmod(a_np, b_np))
    a32 = a.to(ember.int32)
    assert_equal(a32 * b, (a_np.astype(np.int32) * b_np), dtype=ember.int64)
    assert_equal((a32 << 3) >> 2, (a_np.astype(np.int32) << 3) >> 2)


# ------------------------------------------------------------------------------------ the table's bindings
# The bindings generated from ember/ops/binary.def: PyTorch's parameter names (read from each function's signature)
# work as keywords and give the positional result and NumPy's; numbers are taken where PyTorch's overloads take them
# and refused with its TypeError elsewhere; the gradient nodes carry PyTorch 2.15's names.

import gc  # noqa: E402
import inspect  # noqa: E402

import scipy.special as sp  # noqa: E402

F64_REF = {  # name -> (NumPy/scipy reference, operand range)
    "add": (np.add, (0.5, 3)),
    "sub": (np.subtract, (0.5, 3)),
    "subtract": (np.subtract, (0.5, 3)),
    "mul": (np.multiply, (0.5, 3)),
    "multiply": (np.multiply, (0.5, 3)),
    "div": (np.divide, (0.5, 3)),
    "divide": (np.divide, (0.5, 3)),
    "true_divide": (np.divide, (0.5, 3)),
    "floor_divide": (np.floor_divide, (0.5, 3)),
    "remainder": (np.remainder, (0.5, 3)),
    "fmod": (np.fmod, (0.5, 3)),
    "pow": (np.power, (0.5, 3)),
    "atan2": (np.arctan2, (-3, 3)),
    "arctan2": (np.arctan2, (-3, 3)),
    "hypot": (np.hypot, (-3, 3)),
    "copysign": (np.copysign, (-3, 3)),
    "maximum": (np.maximum, (-3, 3)),
    "minimum": (np.minimum, (-3, 3)),
    "fmax": (np.fmax, (-3, 3)),
    "fmin": (np.fmin, (-3, 3)),
    "logical_and": (np.logical_and, (-1, 1)),
    "logical_or": (np.logical_or, (-1, 1)),
    "logical_xor": (np.logical_xor, (-1, 1)),
    "eq": (np.equal, (0, 3)),
    "ne": (np.not_equal, (0, 3)),
    "not_equal": (np.not_equal, (0, 3)),
    "lt": (np.less, (0, 3)),
    "less": (np.less, (0, 3)),
    "le": (np.less_equal, (0, 3)),
    "less_equal": (np.less_equal, (0, 3)),
    "gt": (np.greater, (0, 3)),
    "greater": (np.greater, (0, 3)),
    "ge": (np.greater_equal, (0, 3)),
    "greater_equal": (np.greater_equal, (0, 3)),
    "logaddexp": (np.logaddexp, (-3, 3)),
    "logaddexp2": (np.logaddexp2, (-3, 3)),
    "xlogy": (sp.xlogy, (0.5, 3)),
    "heaviside": (np.heaviside, (-1, 1)),
    "nextafter": (np.nextafter, (-3, 3)),
    "igamma": (sp.gammainc, (0.5, 3)),
    "igammac": (sp.gammaincc, (0.5, 3)),
}
INT_REF = {
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "bitwise_left_shift": np.left_shift,
    "bitwise_right_shift": np.right_shift,
    "gcd": np.gcd,
    "lcm": np.lcm,
}
SPECIAL_REF = {
    "xlogy": sp.xlogy,
    "xlog1py": sp.xlog1py,
    "zeta": sp.zeta,
    "gammainc": sp.gammainc,
    "gammaincc": sp.gammaincc,
}


def _params(fn):
    return [p for p in inspect.signature(fn).parameters if p not in ("self", "out")]


def _operands(name, rng):
    if name in INT_REF:
        return rng.integers(-20, 20, (3, 4)).astype(np.int64), rng.integers(0, 6, 4).astype(np.int64)
    lo, hi = F64_REF.get(name, (None, (1.2, 3)))[1]
    a = np.round(rng.uniform(lo, hi, (3, 4)), 1)  # rounded: comparisons see ties
    return a, np.round(rng.uniform(lo, hi, 4), 1)


@pytest.mark.parametrize("name", sorted(F64_REF) + sorted(INT_REF))
def test_keyword_forms_match_positional_and_numpy(name, rng):
    fn = getattr(ember, name)
    ref = F64_REF[name][0] if name in F64_REF else INT_REF[name]
    a, b = _operands(name, rng)
    ta, tb = from_np(a), from_np(b)
    p0, p1 = _params(fn)[:2]
    expected = ref(a, b)
    positional = fn(ta, tb)
    np.testing.assert_allclose(to_np(positional), expected, rtol=1e-12, atol=1e-300)
    for got in (fn(**{p0: ta, p1: tb}), fn(ta, **{p1: tb})):
        assert got.dtype is positional.dtype and got.tolist() == positional.tolist()
    out = ember.empty(positional.shape, dtype=positional.dtype)
    assert fn(**{p0: ta, p1: tb}, out=out) is out and out.tolist() == positional.tolist()
    # the method and, where PyTorch has it, the in-place method (into a copy of input's dtype)
    method = getattr(ember.Tensor, name, None)
    if method is not None:
        assert getattr(ta, name)(**{_params(method)[0]: tb}).tolist() == positional.tolist()
    if hasattr(ember.Tensor, name + "_"):
        x = ta.clone()
        assert getattr(x, name + "_")(**{_params(getattr(ember.Tensor, name + "_"))[0]: tb}) is x
        assert x.tolist() == positional.to(x.dtype).tolist()


@pytest.mark.parametrize("name", sorted(SPECIAL_REF))
def test_special_keyword_forms(name, rng):
    fn = getattr(ember.special, name)
    a, b = rng.uniform(1.2, 3, (3, 4)), rng.uniform(0.5, 3, 4)
    p0, p1 = _params(fn)
    assert (p0, p1) == ("input", "other")
    got = fn(**{p0: from_np(a), p1: from_np(b)})
    np.testing.assert_allclose(to_np(got), SPECIAL_REF[name](a, b), rtol=1e-12)
    out = ember.empty(3, 4, dtype=ember.float64)
    assert fn(from_np(a), other=from_np(b), out=out) is out and out.tolist() == got.tolist()


def test_keywords_alpha_rounding_mode_and_pow_self(rng):
    a, b = rng.uniform(-5, 5, (2, 3)), rng.uniform(0.5, 3, 3)
    ta, tb = from_np(a), from_np(b)
    np.testing.assert_allclose(to_np(ember.add(input=ta, other=tb, alpha=2.5)), a + 2.5 * b, rtol=1e-15)
    np.testing.assert_allclose(to_np(ember.sub(ta, other=3, alpha=2)), a - 6, rtol=1e-15)
    np.testing.assert_allclose(to_np(ta.sub(other=tb, alpha=-1)), a + b, rtol=1e-15)
    x = ta.clone()
    assert x.add_(other=tb, alpha=0.5) is x
    np.testing.assert_allclose(to_np(x), a + 0.5 * b, rtol=1e-15)
    np.testing.assert_allclose(to_np(ember.rsub(ta, other=tb, alpha=2)), b - 2 * a, rtol=1e-15)
    np.testing.assert_array_equal(to_np(ember.div(input=ta, other=tb, rounding_mode="floor")), np.floor_divide(a, b))
    np.testing.assert_array_equal(to_np(ember.divide(ta, tb, rounding_mode="trunc")), np.trunc(a / b))
    np.testing.assert_array_equal(to_np(ta.div(tb, rounding_mode=None)), a / b)
    y = ta.clone()
    y.div_(other=tb, rounding_mode="floor")
    np.testing.assert_array_equal(to_np(y), np.floor_divide(a, b))
    # pow's number base, named self as in PyTorch's pow(self: Number, exponent: Tensor)
    np.testing.assert_allclose(to_np(ember.pow(self=2, exponent=tb)), 2.0**b, rtol=1e-15)
    np.testing.assert_allclose(to_np(ember.pow(2, exponent=tb)), 2.0**b, rtol=1e-15)
    np.testing.assert_allclose(to_np(ember.pow(input=tb, exponent=3)), b**3, rtol=1e-15)
    np.testing.assert_allclose(to_np(tb.pow(exponent=0.5)), np.sqrt(b), rtol=1e-15)
    sig = inspect.signature(ember.div)
    assert sig.parameters["rounding_mode"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["rounding_mode"].default is None
    assert inspect.signature(ember.add).parameters["alpha"].default == 1
    assert list(inspect.signature(ember.true_divide).parameters) == ["input", "other", "out"]  # no rounding_mode
    with pytest.raises(TypeError):
        ember.true_divide(ta, tb, rounding_mode="floor")
    with pytest.raises(TypeError, match="rounding_mode"):
        ember.div(ta, tb, rounding_mode=1)
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor'"):
        ta.div_(tb, rounding_mode="round")
    with pytest.raises(TypeError):
        ember.add(ta, tb, 2)  # alpha is keyword-only, as PyTorch's


def test_functional_inplace_forms(rng):
    y = from_np(rng.uniform(0.5, 3, 4))
    x = from_np(np.array([0.0, 1.0, 2.0, -1.0]))
    expected = sp.xlogy(to_np(x), to_np(y))
    assert ember.xlogy_(input=x, other=y) is x
    np.testing.assert_allclose(to_np(x), expected, rtol=1e-15)
    n = ember.tensor([12, 18, -8])
    assert ember.gcd_(n, other=ember.tensor([8, 12, 6])) is n and n.tolist() == [4, 6, 2]
    assert ember.lcm_(input=n, other=ember.tensor([6, 4, 3])) is n and n.tolist() == [12, 12, 6]
    assert list(inspect.signature(ember.xlogy_).parameters) == ["input", "other"]


# numbers where PyTorch's overloads take them (binary.def's `numbers`): either side, the second only, neither
BOTH = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "floor_divide",
    "remainder",
    "pow",
    "bitwise_and",
    "bitwise_left_shift",
    "xlogy",
]
OTHER = ["fmod", "copysign", "eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "greater_equal"]
NEITHER = [
    "atan2",
    "arctan2",
    "hypot",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logaddexp",
    "logaddexp2",
    "heaviside",
    "gcd",
    "lcm",
    "nextafter",
    "igamma",
    "igammac",
]


@pytest.mark.parametrize("name", BOTH + OTHER + NEITHER)
def test_numbers_where_pytorch_takes_them(name):
    fn = getattr(ember, name)
    t = ember.tensor([1, 2]) if name in INT_REF else ember.tensor([1.0, 2.0])
    p0, p1 = _params(fn)[:2]

    def refused(param, pos, kind):
        return pytest.raises(
            TypeError, match=r"%s\(\): argument '%s' \(position %d\) must be Tensor, not %s" % (name, param, pos, kind)
        )

    if name in BOTH + OTHER:
        assert fn(t, 2).shape == (2,)
        assert getattr(t, name)(2).shape == (2,)
    else:
        with refused(p1, 2, "int"):
            fn(t, 2)
        with refused(p1, 1, "int"):
            getattr(t, name)(2)
    if name in BOTH:
        assert fn(2, t).shape == (2,)
    else:
        with refused(p0, 1, "int"):
            fn(2, t)
    with refused(p0, 1, "float"):
        fn(2.0, 3.0)  # two numbers: no overload takes them


def test_gradient_node_names_are_pytorchs():
    x = ember.tensor([1.5, 2.5], dtype=ember.float64, requires_grad=True)
    y = ember.tensor([2.0, 3.0], dtype=ember.float64, requires_grad=True)
    names = {
        "SubBackward0": [x - y, x - 2],
        "RsubBackward1": [2 - x, ember.rsub(x, 2)],
        "PowBackward0": [x**2],
        "PowBackward1": [x**y],
        "PowBackward2": [2**x],
        "RemainderBackward1": [x % y],
        "RemainderBackward0": [x % 2],
        "FmodBackward1": [ember.fmod(x, y)],
        "FmodBackward0": [ember.fmod(x, 2)],
        "CopysignBackward0": [ember.copysign(x, y)],
        "CopysignBackward1": [ember.copysign(x, -1)],
        "XlogyBackward0": [ember.xlogy(x, y)],
        "XlogyBackward1": [ember.xlogy(2, y)],
        "XlogyBackward2": [ember.xlogy(x, 2)],
        "SpecialXlog1PyBackward1": [ember.special.xlog1py(2, y)],
        "SpecialZetaBackward2": [ember.special.zeta(x, 2.0)],
        "DivBackward0": [x / y, ember.true_divide(x, 2)],
        "DivBackward2": [ember.div(x, y, rounding_mode="trunc"), x // y],
        "AddBackward0": [x + y, 2 + x],
        "MulBackward0": [x * y, 2 * x],
        "Atan2Backward0": [ember.atan2(x, y)],
        "MaximumBackward0": [ember.maximum(x, y)],
        "HypotBackward0": [ember.hypot(x, y)],
    }
    for name, results in names.items():
        for r in results:
            assert r.grad_fn.name() == name, (name, r.grad_fn.name())


MIB = 1 << 20


def _allocated():
    gc.collect()
    return ember._C._cpu_memory_stats()["allocated_bytes"]


def test_formulas_save_only_what_a_needed_gradient_reads():
    # binary_derivatives.def's reads: y = h * c with only h needing a gradient keeps c, not h; h ** c keeps h and c
    # (the exponent's gradient, which would read the result, is not needed), so the result is not kept either.
    x = ember.ones(MIB // 4, requires_grad=True)
    c = ember.full((MIB // 4,), 2.0)
    h = x * 3.0
    base = _allocated()
    y = h * c
    assert _allocated() - base >= MIB  # y
    del h
    assert _allocated() - base < MIB + 1024  # h's memory went: MulBackward0 saved only c
    p = (x + 0.0) ** c
    s = p.sum()
    before = _allocated()
    del p
    assert before - _allocated() >= MIB  # the result was not saved by PowBackward1
    s.backward()
    np.testing.assert_allclose(to_np(x.grad[:3]), [2.0] * 3)  # d/dx (x ** 2)
    y.sum().backward()
    np.testing.assert_allclose(to_np(x.grad[:3]), [2.0 + 6.0] * 3)  # and d/dx (3x * 2)


# Note [Vector binary functions]: contiguous float operands (or a 0-d one) take Sleef's vector functions, strided
# ones the scalar functors; both agree with float64 NumPy, and fmod and remainder bit for bit.
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_transcendental_binaries(dtype, rng):
    sp = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e30, -1e-30, 3.0, 7.5]
    a = np.array([x for x in sp for _ in sp] + list(rng.standard_normal(777) * 5), dtype)
    b = np.array([y for _ in sp for y in sp] + list(rng.standard_normal(777) * 3), dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)

    def views(x):  # contiguous, and a strided view of the same values
        return ember.from_numpy(x), ember.from_numpy(np.repeat(x, 2))[::2]

    (ta, sa), (tb, sb) = views(a), views(b)
    with np.errstate(all="ignore"):
        # fmod(1e30, -1e-30) in float32: Sleef's vector fmod gives NaN there (its x / y overflows); libm's value
        want_fmod = np.fmod(a, b)
        want_rem = np.where((want_fmod != 0) & ((b < 0) != (want_fmod < 0)), want_fmod + b, want_fmod)
        for got in (ember.fmod(ta, tb), ember.fmod(sa, sb)):
            assert_bits(got.numpy(), want_fmod)
        for got in (ember.remainder(ta, tb), ember.remainder(sa, sb)):
            assert_bits(got.numpy(), want_rem.astype(dtype))
        assert_bits(ember.fmod(ta, -1.5).numpy(), np.fmod(a, dtype(-1.5)))  # a 0-d operand on either side
        assert_bits(
            ember.remainder(ember.tensor(2.5, dtype=ta.dtype), tb).numpy(),
            ember.remainder(ember.full_like(sb, 2.5), sb).numpy(),
        )
        tol = 1.5 if dtype == np.float32 else 2.0  # ulps of the correctly rounded value
        for fn, ref in [(ember.atan2, np.arctan2), (ember.hypot, np.hypot)]:
            want = ref(a64, b64)
            for got in (fn(ta, tb).numpy(), fn(sa, sb).numpy()):
                finite = np.isfinite(want)
                assert (
                    np.array_equal(np.isnan(got), np.isnan(want))
                    and (got[~finite] == want[~finite].astype(dtype))[~np.isnan(want[~finite])].all()
                )
                err = np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]).astype(dtype))
                assert err.max() <= tol, (fn, err.max())
        # logaddexp: within a few ulps of float64's where the result is not a cancellation's small remainder
        want = np.logaddexp(a64, b64)
        for got in (ember.logaddexp(ta, tb).numpy(), ember.logaddexp(sa, sb).numpy()):
            assert np.array_equal(np.isnan(got), np.isnan(want))
            big = np.isfinite(want) & (np.abs(want) > 0.5)
            np.testing.assert_allclose(got[big], want[big], rtol=8 * np.finfo(dtype).eps)
            assert (got[np.isinf(want)] == want[np.isinf(want)]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_pow_special_values_and_accuracy(dtype, rng):
    # Note [Vector binary functions]: Sleef's pow follows C's special cases (NumPy's); values within 1 ulp
    sp = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -0.5, 2.5, -2.5, 3.0, -3.0, 1e30, 1e-30, -8.0]
    a = np.array([x for x in sp for _ in sp], dtype)
    b = np.array([y for _ in sp for y in sp], dtype)
    got = ember.pow(ember.from_numpy(a), ember.from_numpy(b)).numpy()
    with np.errstate(all="ignore"):
        want = np.power(a.astype(np.float64), b.astype(np.float64)).astype(dtype)  # (overflows to inf in float32)
        special = ~np.isfinite(want) | (want == 0) | (np.abs(want) == 1)
        assert_bits(got[special], want[special])
        err = np.abs(got[~special] - want[~special]) / np.spacing(np.abs(want[~special]))
        assert err.max() <= 1.0
        x = (np.abs(rng.standard_normal(3001)) * 3).astype(dtype)
        y = (rng.standard_normal(3001) * 4).astype(dtype)
        want = np.power(x.astype(np.float64), y.astype(np.float64))
        got = ember.pow(ember.from_numpy(x), ember.from_numpy(y)).numpy()
        finite = np.isfinite(want) & (want != 0)
        assert (np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]).astype(dtype))).max() <= 1.0
        got = ember.from_numpy(x).pow(2.5).numpy()  # a number exponent: the repeated operand
        want = np.power(x.astype(np.float64), 2.5)
        assert (np.abs(got - want) / np.spacing(np.abs(want).astype(dtype))).max() <= 1.0
        assert_bits(ember.from_numpy(x).pow(ember.full((3001,), 2.0, dtype=ember.from_numpy(x).dtype)).numpy(), x * x)


# Note [Pow by a number]: PyTorch computes these exponents without pow; so does ember, on every layout.
POW_FORMULAS = {
    0: lambda x: np.ones_like(x),
    1: lambda x: x.copy(),
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    0.5: np.sqrt,
    -0.5: lambda x: x.dtype.type(1) / np.sqrt(x),
    -1: lambda x: x.dtype.type(1) / x,
    -2: lambda x: x.dtype.type(1) / (x * x),
}


@pytest.mark.parametrize("exponent", list(POW_FORMULAS), ids=str)
@pytest.mark.parametrize("np_type", [np.float32, np.float64], ids=["float32", "float64"])
def test_pow_by_the_numbers_pytorch_special_cases(exponent, np_type, rng):
    specials = [0.0, -0.0, 1.0, -1.0, 2.5, -3.75, np.inf, -np.inf, np.nan, 1e-30, 1e30]
    a = np.concatenate([rng.standard_normal(2000) * 10, specials]).astype(np_type)
    with np.errstate(all="ignore"):
        expected = POW_FORMULAS[exponent](a)
        for got in (ember.tensor(a).pow(exponent), ember.tensor(a[::-1].copy()).flip(0).pow(exponent)):
            np.testing.assert_array_equal(got.numpy(), expected)
            np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(expected))
        t = ember.tensor(a)
        assert t.pow_(exponent) is t
        np.testing.assert_array_equal(t.numpy(), expected)
        out = ember.empty(len(a), dtype=t.dtype)
        assert ember.pow(ember.tensor(a), exponent, out=out) is out
        np.testing.assert_array_equal(out.numpy(), expected)
        # strided: every other element of a wider tensor
        wide = ember.tensor(np.repeat(a, 2))[::2]
        np.testing.assert_array_equal(wide.pow(exponent).numpy(), expected)


@pytest.mark.parametrize("exponent", [0, 1, 2, 3, 0.5, -0.5, -1, -2])
def test_pow_by_a_number_gradients_and_integer_bases(exponent, rng):
    a = rng.uniform(0.5, 2.0, (3, 4))
    x = ember.tensor(a).requires_grad_()
    y = x.pow(exponent)
    assert y.grad_fn.name() == "PowBackward0"
    y.backward(ember.ones(3, 4, dtype=ember.float64))
    np.testing.assert_allclose(x.grad.numpy(), exponent * a ** (exponent - 1) if exponent else np.zeros_like(a))
    i = ember.tensor([1, 4, 9])
    if isinstance(exponent, int) and exponent < 0:
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            i.pow(exponent)
        return
    r = i.pow(exponent)
    expected = np.array([1, 4, 9], np.float64) ** exponent
    assert r.dtype == (ember.int64 if isinstance(exponent, int) else ember.float32)
    np.testing.assert_allclose(r.numpy().astype(np.float64), expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int32, ember.float16], ids=dtype_name)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "atan2", "remainder", "maximum", "lt", "bitwise_xor"])
def test_operands_across_the_output_order_give_the_row_major_result(op, dtype, rng):
    # Note [Operands across the output's order] (backend/cpu/binary.cpp): above 4096 elements an operand whose
    # elements run across the output's order is first copied into the output's layout. Every combination of
    # transposed and row-major operands (and a transposed out=) gives the op's result on row-major copies, which the
    # tests above check against NumPy.
    if op == "bitwise_xor" and dtype.is_floating_point or op == "atan2" and dtype is ember.int32:
        pytest.skip("no such kernel")
    fn = OPS[op]
    a = from_np(rng.uniform(1, 9, (96, 80)), dtype)
    b = from_np(rng.uniform(1, 9, (96, 80)), dtype)
    at, bt = a.t().contiguous().t(), b.t().contiguous().t()  # the same values, column-major
    want = to_np(fn(a, b))
    for x, y in [(at, b), (a, bt), (at, bt)]:
        np.testing.assert_array_equal(to_np(fn(x, y)), want, err_msg=op)
    out = ember.empty(80, 96, dtype=fn(a, b).dtype).t()
    fn(a, bt, out=out)
    np.testing.assert_array_equal(to_np(out), want, err_msg=op)
    if op in ("add", "mul"):  # in place, reading self transposed: the operand is copied before any write
        s = from_np(rng.uniform(1, 9, (90, 90)), dtype)
        ref = to_np(fn(s, s.t().contiguous()))
        getattr(s, op + "_")(s.t())
        np.testing.assert_array_equal(to_np(s), ref, err_msg=op)
