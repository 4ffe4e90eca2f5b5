"""Vector norms (ember/ops/sort.cpp, python/src/sort.cpp, python/ember/linalg.py): ember.linalg.vector_norm and
ember.norm against NumPy for ord/p = 0, 1, 2, inf, -inf, other positive and negative floats and 'fro', over all
dims, one dim and several, with keepdim, dtype=, out=, several dtypes and layouts, zero-size and 0-d inputs,
and the error paths. PyTorch 1.13's torch.norm is the legacy op (integer inputs need dtype=, an empty reduction is
0 for every p), while linalg.vector_norm checks more; the cases where they differ were recorded from it."""

import math

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, LAYOUTS, assert_equal, dtype_name, make_layout, random_array

import ember
import ember.linalg

INF = math.inf
NAN = math.nan
ORDS = [0, 1, 2, 3, 0.5, -1, -2.5, INF, -INF]
RTOL = {ember.float16: 2e-3, ember.bfloat16: 1e-2, ember.float32: 2e-6, ember.float64: 1e-13}


def with_zeros(rng, shape, dtype):
    """Random values with every fifth element zero (for ord <= 0)."""
    src = np.array(random_array(rng, shape, dtype), ndmin=0)
    if src.size:
        src.reshape(-1)[::5] = 0
    return src


def make(rng, shape, dtype, layout="contiguous"):
    return make_layout(rng, shape, dtype, layout, with_zeros)


def ref_norm(a, ord, axis=None, keepdims=False):
    """The vector norm in float64 over `axis` (None: all)."""
    x = np.abs(np.asarray(a, np.float64))
    if ord == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdims).astype(np.float64)
    if ord == INF:
        return np.max(x, axis=axis, keepdims=keepdims)
    if ord == -INF:
        return np.min(x, axis=axis, keepdims=keepdims)
    with np.errstate(divide="ignore"):
        return np.sum(x**ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def check(r, expected, dtype):
    assert r.dtype == dtype, (r.dtype, dtype)
    expected = np.asarray(expected, np.float64)
    assert tuple(r.shape) == expected.shape
    np.testing.assert_allclose(
        np.array(r.tolist(), np.float64).reshape(expected.shape), expected, rtol=RTOL[dtype], atol=0
    )


# ------------------------------------------------------------------------------------------ linalg.vector_norm


def test_linalg_is_a_module_with_vector_norm():
    assert ember.linalg.vector_norm is ember._C._linalg.vector_norm
    assert ember.linalg.vector_norm(ember.tensor([3.0, 4.0])).tolist() == 5.0


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("ord", ORDS, ids=str)
def test_vector_norm_matches_numpy(rng, ord, dtype, layout):
    x, a = make(rng, (3, 4, 5), dtype, layout)
    for dim in [None, 0, -1, (0, 2), (2, 1, 0), [1]]:
        axis = tuple(dim) if isinstance(dim, list) else dim
        for keepdim in (False, True):
            r = ember.linalg.vector_norm(x, ord, dim, keepdim)
            check(r, ref_norm(a, ord, axis, keepdim), dtype)
    check(ember.linalg.vector_norm(x, ord=ord, dim=()), ref_norm(a, ord), dtype)  # () means all dims


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16, ember.float32], ids=dtype_name)
def test_vector_norm_dtype_computes_in_that_dtype(rng, dtype):
    x, a = make(rng, (4, 6), dtype)
    r = ember.linalg.vector_norm(x, 2, 1, dtype=ember.float64)
    check(r, ref_norm(a, 2, 1), ember.float64)


def test_vector_norm_of_16_bit_floats_accumulates_in_float32():
    x = ember.ones(40000, dtype=ember.float16)  # a float16 sum would stop at 2048
    assert ember.linalg.vector_norm(x, 1).tolist() == 40000.0
    assert ember.linalg.vector_norm(ember.ones(2, 3, dtype=ember.bfloat16), 3).tolist() == 1.8203125  # PyTorch 1.13


def test_vector_norm_special_values_match_pytorch():
    # Recorded from PyTorch 1.13.
    assert ember.linalg.vector_norm(ember.tensor([0.0, 3.0, -4.0]), 0).tolist() == 2.0
    assert ember.linalg.vector_norm(ember.tensor([0.0, 3.0, 4.0]), -1).tolist() == 0.0
    assert ember.linalg.vector_norm(ember.tensor([0.0, 3.0, 4.0]), -2.5).tolist() == 0.0
    assert abs(ember.linalg.vector_norm(ember.tensor([0.0, 3.0, -4.0]), 0.5).tolist() - 13.9282) < 1e-4
    assert math.isnan(ember.linalg.vector_norm(ember.tensor([1.0, NAN]), INF).tolist())
    assert math.isnan(ember.linalg.vector_norm(ember.tensor([1.0, NAN]), -INF).tolist())
    assert ember.linalg.vector_norm(ember.tensor([1.0, NAN]), 0).tolist() == 2.0
    assert math.isnan(ember.linalg.vector_norm(ember.tensor([1.0, 2.0]), NAN).tolist())
    assert ember.linalg.vector_norm(ember.tensor(-3.0)).tolist() == 3.0
    assert ember.linalg.vector_norm(ember.tensor(3.0), dim=0, keepdim=True).shape == ()
    assert ember.linalg.vector_norm(ember.tensor([]), 0).tolist() == 0.0
    assert ember.linalg.vector_norm(ember.tensor([]), 2).tolist() == 0.0
    assert ember.linalg.vector_norm(ember.zeros(0, 3), INF, dim=1).shape == (0,)


def test_vector_norm_out():
    out = ember.zeros(())
    assert ember.linalg.vector_norm(ember.tensor([3.0, 4.0]), out=out) is out
    assert out.tolist() == 5.0
    with pytest.raises(
        RuntimeError,
        match=r"linalg.vector_norm\(\): out= has dtype float64 but the result has "
        "dtype float32",
    ):
        ember.linalg.vector_norm(ember.tensor([3.0, 4.0]), out=ember.zeros((), dtype=ember.float64))


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (
            lambda: ember.linalg.vector_norm(ember.tensor([1, 2])),
            RuntimeError,
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got int64",
        ),
        (
            lambda: ember.linalg.vector_norm(ember.tensor([True])),
            RuntimeError,
            "Expected a floating point or complex tensor as input. Got bool",
        ),
        (
            lambda: ember.linalg.vector_norm(ember.tensor([1.0]), dtype=ember.int64),
            RuntimeError,
            "linalg.vector_norm: dtype should be floating point or complex, but got int64",
        ),
        (
            lambda: ember.linalg.vector_norm(ember.tensor([1.0], dtype=ember.float64), dtype=ember.float32),
            RuntimeError,
            r"linalg.vector_norm: the dtype of the input \(float64\) should be convertible without narrowing to the "
            r"specified dtype \(float32\)",
        ),
        (
            lambda: ember.linalg.vector_norm(ember.tensor([]), INF),
            RuntimeError,
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an "
            "identity",
        ),
        (lambda: ember.linalg.vector_norm(ember.tensor([]), -INF), RuntimeError, "cannot compute the -inf norm"),
        (lambda: ember.linalg.vector_norm(ember.tensor([]), -1), RuntimeError, "cannot compute the -1 norm"),
        (
            lambda: ember.linalg.vector_norm(ember.zeros(0, 3), INF, dim=0),
            RuntimeError,
            "linalg.vector_norm cannot compute the inf norm on the dimension 0 because this dimension is empty",
        ),
        (
            lambda: ember.linalg.vector_norm(ember.ones(2, 3), dim=(0, 0)),
            RuntimeError,
            "dim 0 appears multiple times in the list of dims",
        ),
        (
            lambda: ember.linalg.vector_norm(ember.ones(2, 3), dim=2),
            IndexError,
            r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
        ),
        (lambda: ember.linalg.vector_norm(ember.ones(2), "fro"), TypeError, "incompatible function arguments"),
    ],
    ids=[
        "int",
        "bool",
        "int-dtype",
        "narrowing",
        "inf-empty",
        "-inf-empty",
        "negative-empty",
        "inf-empty-dim",
        "repeated-dim",
        "dim-range",
        "string-ord",
    ],
)
def test_vector_norm_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


# ------------------------------------------------------------------------------------------ norm


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("p", ORDS + ["fro", None], ids=str)
def test_norm_matches_numpy(rng, p, dtype):
    x, a = make(rng, (4, 3, 5), dtype, "transposed")
    order = 2 if p in ("fro", None) else p
    for dim in [None, 1, -1, (0, 2)]:
        for keepdim in (False, True):
            check(ember.norm(x, p, dim, keepdim), ref_norm(a, order, dim, keepdim), dtype)
            check(x.norm(p, dim, keepdim), ref_norm(a, order, dim, keepdim), dtype)
    check(ember.norm(x), ref_norm(a, 2), dtype)
    check(x.norm(), ref_norm(a, 2), dtype)


def test_norm_dtype_and_integer_inputs_match_pytorch(rng):
    # Recorded from PyTorch 1.13: integer inputs work with dtype=, which may narrow.
    assert_equal(ember.norm(ember.tensor([3, 4]), 2, dtype=ember.float32), np.array(5.0, np.float32), ember.float32)
    r = ember.norm(ember.tensor([3.0, 4.0], dtype=ember.float64), 2, dtype=ember.float32)
    assert r.dtype == ember.float32 and r.tolist() == 5.0
    r = ember.norm(ember.tensor([3.0, 4.0]), 2, dtype=ember.float16)
    assert r.dtype == ember.float16 and r.tolist() == 5.0
    r = ember.norm(ember.tensor([1.0, 2.0]), 2, dim=0, dtype=ember.float64)
    assert r.dtype == ember.float64
    assert ember.norm(ember.ones(2, 3, dtype=ember.bfloat16), "fro").tolist() == 2.453125


def test_norm_empty_reductions_are_zero_like_pytorch():
    # Recorded from PyTorch 1.13: the legacy norm gives 0 where linalg.vector_norm raises.
    for p in (INF, -INF, -1, 0, 2, "fro"):
        r = ember.norm(ember.tensor([]), p)
        assert r.tolist() == 0.0 and r.shape == ()
    assert ember.norm(ember.zeros(0, 2), INF, dim=0).tolist() == [0.0, 0.0]
    assert ember.norm(ember.ones(2, 3), "fro", keepdim=True).shape == (1, 1)
    assert ember.norm(ember.tensor(3.0), "fro").tolist() == 3.0
    assert ember.norm(ember.tensor(-3.0), 1, dim=0).tolist() == 3.0
    assert ember.norm(ember.ones(2, 2), "fro", dim=(0, 1)).tolist() == 2.0


def test_norm_out():
    out = ember.zeros(2)
    assert ember.norm(ember.ones(2, 3), 1, 1, out=out) is out
    assert out.tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (
            lambda: ember.norm(ember.tensor([3, 4])),
            RuntimeError,
            r"norm\(\): input dtype should be either floating point or complex. Got int64 instead.",
        ),
        (lambda: ember.norm(ember.tensor([True]), 2), RuntimeError, "Got bool instead"),
        (
            lambda: ember.norm(ember.tensor([3.0]), 2, dtype=ember.int64),
            RuntimeError,
            r"norm\(\): the desired output dtype should be either floating point or complex. Got int64 instead.",
        ),
        (
            lambda: ember.norm(ember.ones(2, 2), dtype=ember.float64),
            ValueError,
            "dtype argument is not supported in frobenius norm",
        ),
        (lambda: ember.norm(ember.ones(2, 2), "nuc"), NotImplementedError, r"norm\(\): p='nuc' \(the nuclear norm\)"),
        (
            lambda: ember.norm(ember.ones(2, 2), "foo"),
            RuntimeError,
            "norm\\(\\): only valid string values are 'fro' and 'nuc', found foo",
        ),
        (
            lambda: ember.norm(ember.ones(2, 2, 2), "fro", dim=(0, 1, 2)),
            RuntimeError,
            r"norm\(\): p='fro' expects at most 2 dims, but got 3",
        ),
        (
            lambda: ember.norm(ember.ones(2, 3), "fro", dim=(1, 1)),
            RuntimeError,
            r"norm\(\): Expected dims to be different, got \[1, 1\] instead",
        ),
        (lambda: ember.norm(ember.ones(2, 3), 2, dim=(1, 1)), RuntimeError, "dim 1 appears multiple times"),
        (lambda: ember.norm(ember.ones(2, 3), 2, dim=5), IndexError, "Dimension out of range"),
        (lambda: ember.norm(ember.ones(2, 3), "fro", dim=5), IndexError, "Dimension out of range"),
        (lambda: ember.norm(ember.ones(2), [1]), TypeError, r"norm\(\): expected a number, got list"),
    ],
    ids=[
        "int",
        "bool",
        "int-dtype",
        "fro-dtype",
        "nuc",
        "bad-string",
        "fro-3-dims",
        "fro-repeated",
        "repeated",
        "dim-range",
        "fro-dim-range",
        "list-p",
    ],
)
def test_norm_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()
