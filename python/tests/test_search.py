"""searchsorted, bucketize and isin (ember/ops/search.cpp, backend/cpu/search.cpp) against NumPy: 1-d and batched
sequences, left/right sides, sorter, out_int32, Python numbers, every dtype, non-contiguous/zero-size/0-d inputs,
NaNs (ordered as PyTorch's negated comparisons order them), and the error paths with PyTorch 1.13's exception types.
"""

import numpy as np
import pytest
from conftest import LAYOUTS, assert_equal, from_np, make_layout, to_np

import ember

NAN = float("nan")


def np_searchsorted(seq, values, right=False, sorter=None):
    """NumPy's searchsorted per row: seq (..., n), values (..., m) with the same leading dims, or a 1-d seq."""
    side = "right" if right else "left"
    seq, values = np.asarray(seq), np.asarray(values)
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side, sorter=sorter)
    out = np.empty(values.shape, np.int64)
    for pos in np.ndindex(seq.shape[:-1]):
        out[pos] = np.searchsorted(seq[pos], values[pos], side=side, sorter=None if sorter is None else sorter[pos])
    return out


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize(
    "dtype",
    [
        ember.float32,
        ember.float64,
        ember.int64,
        ember.int32,
        ember.int16,
        ember.int8,
        ember.uint8,
        ember.float16,
        ember.bfloat16,
    ],
)
def test_searchsorted_1d_against_numpy(rng, dtype, right):
    seq = np.sort(rng.integers(0, 20, 15)).astype(np.float64)  # ties on purpose
    values = rng.integers(0 if dtype is ember.uint8 else -2, 23, (4, 6)).astype(np.float64)
    r = ember.searchsorted(from_np(seq, dtype), from_np(values, dtype), right=right)
    assert_equal(r, np_searchsorted(seq, values, right), ember.int64)
    side = ember.searchsorted(from_np(seq, dtype), from_np(values, dtype), side="right" if right else "left")
    assert_equal(side, np_searchsorted(seq, values, right))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_searchsorted_batched_layouts(rng, layout):
    seq, seq_np = make_layout(rng, (3, 9), ember.float64, "contiguous")
    seq = ember.sort(seq, -1)[0]
    seq_np = np.sort(seq_np, -1)
    values, values_np = make_layout(rng, (3, 7), ember.float64, layout)
    for right in (False, True):
        assert_equal(ember.searchsorted(seq, values, right=right), np_searchsorted(seq_np, values_np, right))
    # a non-contiguous sequence
    big = ember.sort(from_np(rng.standard_normal((9, 3))), 0)[0]
    assert_equal(ember.searchsorted(big.t(), values), np_searchsorted(to_np(big).T, values_np))


def test_searchsorted_more_dims_and_broadcast_shapes(rng):
    seq = np.sort(rng.standard_normal((2, 3, 5)), -1)
    values = rng.standard_normal((2, 3, 4))
    assert_equal(ember.searchsorted(from_np(seq), from_np(values)), np_searchsorted(seq, values))
    # 1-d sequence, values of any shape
    s = np.sort(rng.standard_normal(6))
    v = rng.standard_normal((2, 3, 4))
    assert_equal(ember.searchsorted(from_np(s), from_np(v)), np.searchsorted(s, v))


def test_searchsorted_sorter(rng):
    seq = rng.permutation(10).astype(np.float64) * 1.5
    sorter = np.argsort(seq)
    values = rng.uniform(-1, 16, 12)
    for right in (False, True):
        r = ember.searchsorted(from_np(seq), from_np(values), right=right, sorter=from_np(sorter))
        assert_equal(r, np_searchsorted(seq, values, right, sorter))
    # batched
    seq2 = np.stack([rng.permutation(5), rng.permutation(5)]).astype(np.float64)
    sorter2 = np.argsort(seq2, -1)
    v2 = rng.uniform(-1, 5, (2, 3))
    r = ember.searchsorted(from_np(seq2), from_np(v2), sorter=from_np(sorter2))
    assert_equal(r, np_searchsorted(np.take_along_axis(seq2, sorter2, -1), v2))


def test_searchsorted_out_int32_scalar_and_promotion():
    seq = ember.tensor([1, 2, 3], dtype=ember.int32)
    r = ember.searchsorted(seq, ember.tensor([2]), out_int32=True)
    assert_equal(r, [1], ember.int32)
    r = ember.searchsorted(ember.tensor([1.0, 2.0, 3.0, 5.0]), 3)
    assert r.shape == () and r.item() == 2 and r.dtype is ember.int64
    assert ember.searchsorted(ember.tensor([1, 2, 3]), 2.5).item() == 2  # int sequence, float value: promoted
    assert_equal(ember.searchsorted(ember.tensor([1, 2, 3]), ember.tensor([1.5, 2.5])), [1, 2])
    assert_equal(ember.searchsorted(ember.tensor([1.0, 2.0]), ember.tensor([1], dtype=ember.int8), right=True), [1])
    assert ember.searchsorted(ember.tensor([1.0, 2.0]), ember.tensor(1.5)).shape == ()


def test_searchsorted_nan_and_empty():
    # NaN values go past the end; the negated comparisons are PyTorch's (tensor([[0, 1, 3], [3, 4, 4]]) in 1.13).
    s = ember.tensor([1.0, 2.0, 3.0, 5.0])
    v = ember.tensor([[0.0, 2.0, 4.0], [5.0, 6.0, NAN]])
    assert_equal(ember.searchsorted(s, v), [[0, 1, 3], [3, 4, 4]])
    assert_equal(ember.searchsorted(s, v, right=True), [[0, 2, 3], [4, 4, 4]])
    assert_equal(ember.searchsorted(ember.tensor([]), ember.tensor([2.5])), [0])
    assert ember.searchsorted(ember.rand(3).sort()[0], ember.rand(2, 0)).shape == (2, 0)
    assert ember.searchsorted(ember.zeros(2, 0), ember.rand(2, 3)).tolist() == [[0] * 3] * 2


def test_searchsorted_out_and_no_grad():
    out = ember.empty(3, dtype=ember.int64)
    r = ember.searchsorted(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 1.5, 3.0]), out=out)
    assert r is out and out.tolist() == [0, 1, 2]
    s = ember.tensor([1.0, 2.0], requires_grad=True)
    assert not ember.searchsorted(s, ember.tensor([1.0])).requires_grad


def test_searchsorted_errors():
    s = ember.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        ember.searchsorted(s, s, right=True, side="left")
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right' but got middle"):
        ember.searchsorted(s, s, side="middle")
    with pytest.raises(RuntimeError, match=r"first N-1 dimensions.*\[2, 3\].*\[3, 3\]"):
        ember.searchsorted(ember.rand(2, 3), ember.rand(3, 3))
    with pytest.raises(RuntimeError, match=r"first N-1 dimensions.*\[2, 2, 3\]"):
        ember.searchsorted(ember.rand(2, 3), ember.rand(2, 2, 3))
    with pytest.raises(RuntimeError, match="input value can be a scalar only when boundaries tensor dimension is 1"):
        ember.searchsorted(ember.rand(2, 3), 3)
    with pytest.raises(RuntimeError, match="boundaries tensor should have positive dimension"):
        ember.searchsorted(ember.tensor(2.0), ember.tensor([2.5]))
    with pytest.raises(RuntimeError, match="sorter must be a tensor of long dtype but got dtype"):
        ember.searchsorted(s, s, sorter=ember.tensor([1.0, 2, 0]))
    with pytest.raises(RuntimeError, match=r"boundary and sorter must have the same size.*\[3\].*\[2\]"):
        ember.searchsorted(s, s, sorter=ember.tensor([1, 2]))
    with pytest.raises(IndexError, match="sorter index out of range"):  # PyTorch reads out of bounds here
        ember.searchsorted(s, s, sorter=ember.tensor([1, 2, 5]))
    with pytest.raises(RuntimeError, match="searchsorted.*Bool"):
        ember.searchsorted(ember.tensor([True, False]), ember.tensor([True]))
    with pytest.raises(TypeError, match="searchsorted"):
        ember.searchsorted(s, "a")


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_against_numpy(rng, right):
    b = np.array([1.0, 3.0, 5.0, 7.0, 9.0])
    x = rng.integers(0, 11, (3, 4)).astype(np.float64)
    assert_equal(
        ember.bucketize(from_np(x), from_np(b), right=right), np.searchsorted(b, x, "right" if right else "left")
    )
    # PyTorch's values: tensor([[0, 2], [1, 4]]) and 2
    assert_equal(ember.bucketize(ember.tensor([[1, 5], [3, 9]]), ember.tensor([1, 3, 5, 7, 9])), [[0, 2], [1, 4]])
    assert ember.bucketize(3, ember.tensor([1, 3, 5]), right=True).item() == 2
    r = ember.bucketize(from_np(x).t(), from_np(b), out_int32=True)
    assert_equal(r, np.searchsorted(b, x.T), ember.int32)


def test_bucketize_errors():
    with pytest.raises(RuntimeError, match=r"boundaries tensor must be 1 dimension, but got dim\(2\)"):
        ember.bucketize(ember.tensor([1]), ember.tensor([[1, 3]]))


@pytest.mark.parametrize("n_test", [3, 50])  # few test elements: pairwise; many: sort and search
@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.uint8, ember.float32, ember.float64, ember.float16])
def test_isin_against_numpy(rng, dtype, n_test):
    e = rng.integers(0, 30, (5, 7)).astype(np.float64)
    t = rng.integers(0, 30, n_test).astype(np.float64)
    for invert in (False, True):
        r = ember.isin(from_np(e, dtype), from_np(t, dtype), invert=invert)
        assert_equal(r, np.isin(e, t, invert=invert), ember.bool)
        r = ember.isin(from_np(e, dtype).t(), from_np(t, dtype), assume_unique=True, invert=invert)
        assert_equal(r, np.isin(e.T, t, invert=invert))


@pytest.mark.parametrize("n_test", [2, 60])
def test_isin_nan_inf(n_test):
    inf = float("inf")
    test = [NAN, 1.0] + [2.0] * (n_test - 2)
    e = ember.tensor([1.0, NAN, inf, -inf, 2.0, 3.0])
    assert ember.isin(e, ember.tensor(test)).tolist() == [True, False, False, False, n_test > 2, False]
    assert ember.isin(e, ember.tensor(test + [inf])).tolist() == [True, False, True, False, n_test > 2, False]
    assert ember.isin(e, ember.tensor(test + [-inf])).tolist() == [True, False, False, True, n_test > 2, False]


def test_isin_scalars_promotion_and_empty():
    assert ember.isin(2, ember.tensor([2, 5])).item() is True
    assert ember.isin(ember.tensor([[1, 2], [3, 4]]), 3).tolist() == [[False, False], [True, False]]
    assert ember.isin(ember.tensor([1, 2, 3]), ember.tensor([2.0, 5.0])).tolist() == [False, True, False]
    assert ember.isin(ember.tensor([1.5, 2.0]), ember.tensor([2, 5])).tolist() == [False, True]
    assert ember.isin(ember.tensor([1, 2]), ember.tensor([], dtype=ember.int64)).tolist() == [False, False]
    assert ember.isin(ember.tensor([1, 2]), ember.tensor([], dtype=ember.int64), invert=True).tolist() == [True, True]
    assert ember.isin(ember.zeros(0, 3), ember.tensor([1.0])).shape == (0, 3)
    big = ember.arange(1000)
    assert ember.isin(big, ember.tensor([3, 999, 1000])).nonzero().flatten().tolist() == [3, 999]


def test_isin_errors():
    with pytest.raises(TypeError, match="isin"):
        ember.isin(2, 3)
    with pytest.raises(RuntimeError, match="Unsupported input type encountered for isin"):
        ember.isin(ember.tensor([True, False]), ember.tensor([True]))
