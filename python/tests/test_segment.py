"""nonzero_static and segment_reduce (python/ember/_segment.py): values against NumPy, gradients by finite
differences, PyTorch's errors."""

import numpy as np
import pytest

import ember


def test_nonzero_static_pads_and_truncates():
    a = np.array([[1, 0, 2], [0, 3, 0]])
    t = ember.tensor(a)
    ref = np.argwhere(a)
    for size in (0, 2, 3, 5):
        got = ember.nonzero_static(t, size=size).numpy()
        want = np.concatenate([ref, np.full((max(size - len(ref), 0), 2), -1)])[:size]
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ember.nonzero_static(t, size=4, fill_value=9).numpy()[3], [9, 9])
    assert ember.nonzero_static(ember.tensor(5), size=2).shape == (2, 0)
    assert ember.nonzero_static(t, size=2).dtype == ember.int64
    with pytest.raises(RuntimeError, match="'size' must be an non-negative integer"):
        ember.nonzero_static(t, size=-1)


def np_segment(x, lengths, reduce, initial=None):
    out, at = [], 0
    for n in lengths:
        seg = x[at : at + n]
        at += n
        if reduce == "mean":
            if n == 0:
                out.append(np.full(x.shape[1:], np.nan if initial is None else initial))
            else:
                out.append((seg.sum(0) + (initial or 0)) / n)
            continue
        vals = list(seg) + ([np.full(x.shape[1:], initial)] if initial is not None else [])
        f, ident = {"sum": (np.sum, 0.0), "prod": (np.prod, 1.0), "max": (np.max, -np.inf), "min": (np.min, np.inf)}[
            reduce
        ]
        out.append(f(np.stack(vals), 0) if vals else np.full(x.shape[1:], ident))
    return np.stack(out)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 0.5])
def test_segment_reduce_against_numpy(reduce, initial):
    rng = np.random.default_rng(7)
    lengths = [2, 0, 3, 1]
    for shape in ((6,), (6, 3)):
        x = rng.standard_normal(shape)
        want = np_segment(x, lengths, reduce, initial)
        got = ember.segment_reduce(ember.tensor(x), reduce, lengths=ember.tensor(lengths), initial=initial)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
        offsets = ember.tensor(np.concatenate([[0], np.cumsum(lengths)]))
        got = ember.segment_reduce(ember.tensor(x), reduce, offsets=offsets, initial=initial)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce_gradient(reduce):
    rng = np.random.default_rng(8)
    x = ember.tensor(rng.standard_normal((6, 2)), requires_grad=True)  # distinct values: max/min are differentiable
    lengths = ember.tensor([2, 3, 1])
    assert ember.autograd.gradcheck(lambda t: ember.segment_reduce(t, reduce, lengths=lengths), (x,))


def test_segment_reduce_errors():
    d = ember.arange(6.0)
    cases = [
        (lambda: ember.segment_reduce(d, "sum"), "Either lengths or offsets must be defined"),
        (lambda: ember.segment_reduce(d, "foo", lengths=ember.tensor([6])), "reduction is not one of"),
        (lambda: ember.segment_reduce(d, "sum", lengths=ember.tensor([2, 2])), "sum to 4"),
        (lambda: ember.segment_reduce(d, "sum", lengths=ember.tensor([-1, 7])), "lengths contains negative value"),
        (
            lambda: ember.segment_reduce(d, "sum", lengths=ember.tensor([6]), indices=ember.tensor([0])),
            "indices based reduction is not supported",
        ),
        (
            lambda: ember.segment_reduce(d.reshape(3, 2), "sum", lengths=ember.tensor([1, 1]), axis=1),
            "Expected axis to be the last dimension of lengths",
        ),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    # unsafe skips the coverage check
    got = ember.segment_reduce(d, "sum", lengths=ember.tensor([2, 2]), unsafe=True)
    np.testing.assert_array_equal(got.numpy(), [1.0, 5.0])


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce_batched_lengths(reduce):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 6, 3))
    lengths = np.array([[1, 2, 3], [6, 0, 0]])
    want = np.stack([np_segment(x[b], lengths[b], reduce) for b in range(2)])
    got = ember.segment_reduce(ember.tensor(x), reduce, lengths=ember.tensor(lengths), axis=1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    offsets = np.concatenate([np.zeros((2, 1), np.int64), np.cumsum(lengths, 1)], 1)
    got = ember.segment_reduce(ember.tensor(x), reduce, offsets=ember.tensor(offsets), axis=1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    t = ember.tensor(x, requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda d: ember.segment_reduce(d, reduce, lengths=ember.tensor([[1, 2, 3], [4, 1, 1]]), axis=1), (t,)
    )
    # lengths whose batch dims do not match data's: an error (PyTorch 2.15 crashes)
    with pytest.raises(RuntimeError, match="do not match data"):
        ember.segment_reduce(ember.tensor(x), reduce, lengths=ember.tensor([[1, 2, 3]]), axis=1)
