"""ember.unravel_index against numpy.unravel_index (in range) and Python's // and % (out of range and negative
indices wrap, as PyTorch's), its shapes, dtypes and errors."""

import numpy as np
import pytest

import ember


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5), (4, 1, 6)])
def test_against_numpy(shape):
    n = int(np.prod(shape))
    idx = np.random.default_rng(len(shape)).integers(0, n, size=(3, 5))
    for dtype in (ember.int64, ember.int32, ember.uint8 if n < 256 else ember.int16):
        got = ember.unravel_index(ember.tensor(idx).to(dtype), shape)
        want = np.unravel_index(idx, shape)
        assert isinstance(got, tuple) and len(got) == len(shape)
        for g, w in zip(got, want):
            assert g.dtype == ember.int64 and g.shape == (3, 5)
            np.testing.assert_array_equal(g.numpy(), w)


def test_wraps_like_pytorch():
    idx = [-1, 100, 12, -13]
    rows, cols = ember.unravel_index(ember.tensor(idx), [3, 4])
    assert rows.tolist() == [(i // 4) % 3 for i in idx]
    assert cols.tolist() == [i % 4 for i in idx]
    (only,) = ember.unravel_index(ember.tensor(9), 5)  # an int shape, a 0-d index
    assert only.dim() == 0 and only.item() == 4
    assert ember.unravel_index(ember.tensor([1, 2]), ()) == ()


def test_errors():
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype, but got float32"):
        ember.unravel_index(ember.tensor([1.5]), (3,))
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
        ember.unravel_index(ember.tensor([True]), (3,))
    with pytest.raises(ValueError, match=r"'shape' cannot have negative values, but got \(-3,\)"):
        ember.unravel_index(ember.tensor([1]), (-3,))
    with pytest.raises(TypeError, match="expected 'shape' sequence to only contain ints, but got <class 'float'>"):
        ember.unravel_index(ember.tensor([1]), (2.0, 3))
    with pytest.raises(TypeError, match="expected 'shape' to be int or sequence of ints, but got <class 'float'>"):
        ember.unravel_index(ember.tensor([1]), 2.0)
    with pytest.raises(
        ValueError, match=r"'shape' cannot have zero dimensions when 'indices' is non-empty, but got \(4, 0\)"
    ):
        ember.unravel_index(ember.tensor([3]), (4, 0))
    assert [t.shape for t in ember.unravel_index(ember.zeros(0, dtype=ember.int64), (4, 0))] == [(0,), (0,)]
    with pytest.raises(RuntimeError, match="overflow"):
        ember.unravel_index(ember.tensor([1]), (2**40, 2**40, 2**40))
