"""Property tests: broadcasting, promotion and reductions agree with NumPy on random shapes and layouts."""

import numpy as np
import pytest
from conftest import to_np
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


def shapes_that_broadcast(draw):
    ndim = draw(st.integers(0, 4))
    base = [draw(st.integers(0, 4)) for _ in range(ndim)]
    a = [s if draw(st.booleans()) else 1 for s in base]
    b = [s if draw(st.booleans()) else 1 for s in base]
    # Drop leading dims of one side so ranks differ too.
    return a[draw(st.integers(0, ndim)) :], b


@st.composite
def broadcast_pair(draw):
    a, b = shapes_that_broadcast(draw)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.standard_normal(a).astype(np.float32), rng.standard_normal(b).astype(np.float32)


def make(arr, transpose):
    """An ember tensor with arr's values, optionally stored transposed (non-contiguous)."""
    if transpose and arr.ndim >= 2:
        return ember.tensor(np.ascontiguousarray(arr.swapaxes(0, 1))).transpose(0, 1)
    return ember.tensor(arr)


@settings(max_examples=150, deadline=None)
@given(broadcast_pair(), st.booleans(), st.booleans(), st.sampled_from(["add", "sub", "mul", "maximum", "lt"]))
def test_binary_ops_broadcast_like_numpy(pair, ta, tb, op):
    a, b = pair
    x, y = make(a, ta), make(b, tb)
    got = getattr(ember, op)(x, y)
    ref = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum, "lt": np.less}[op](a, b)
    assert tuple(got.shape) == ref.shape
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-6)


@settings(max_examples=100, deadline=None)
@given(broadcast_pair(), st.booleans())
def test_broadcast_errors_match_numpy(pair, flip):
    a, b = pair
    if flip and a.ndim:
        a = np.concatenate([a, a[..., :1]], axis=-1)  # usually breaks broadcasting
    try:
        ref = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        with pytest.raises(RuntimeError, match="must match the size of tensor b"):
            ember.tensor(a) + ember.tensor(b)
        return
    assert tuple((ember.tensor(a) + ember.tensor(b)).shape) == ref


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
def test_sum_over_random_dims_of_permuted_tensors(shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = rng.standard_normal(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    dims = tuple(sorted(set(data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape))))))
    keepdim = data.draw(st.booleans())
    x = ember.tensor(a).permute(*perm)
    got = x.sum(dims, keepdim=keepdim)
    ref = np.transpose(a, perm).sum(axis=dims, keepdims=keepdim)
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-10, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(list(range(10))), st.sampled_from(list(range(10))), st.sampled_from(["int", "float", "bool"]))
def test_scalar_promotion_is_weak(i, j, kind):
    dtypes = [
        ember.bool,
        ember.uint8,
        ember.int8,
        ember.int16,
        ember.int32,
        ember.int64,
        ember.float16,
        ember.bfloat16,
        ember.float32,
        ember.float64,
    ]
    t = ember.ones(2, dtype=dtypes[i])
    scalar = {"int": 3, "float": 2.5, "bool": True}[kind]
    got = (t * scalar).dtype if dtypes[i] is not ember.bool or kind != "bool" else (t & scalar).dtype
    if kind == "float":
        expected = dtypes[i] if dtypes[i].is_floating_point else ember.get_default_dtype()
    elif kind == "int":
        expected = ember.int64 if dtypes[i] is ember.bool else dtypes[i]
    else:
        expected = dtypes[i]
    assert got == expected
    assert ember.promote_types(dtypes[i], dtypes[j]) == ember.promote_types(dtypes[j], dtypes[i])
