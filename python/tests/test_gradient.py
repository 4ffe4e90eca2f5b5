"""ember.gradient against numpy.gradient: uniform spacing (one number, one per dim), sample coordinates, dims,
both edge orders, integer input; PyTorch's errors; autograd through it by finite differences."""

import numpy as np
import pytest

import ember


def as_tuple(r):
    return tuple(r) if isinstance(r, (list, tuple)) else (r,)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_uniform_spacing(edge_order):
    x = np.random.default_rng(edge_order).standard_normal((5, 7, 4))
    t = ember.tensor(x)
    for kw, np_args, np_kw in [
        ({}, (), {}),
        ({"spacing": 0.5}, (0.5,), {}),
        ({"spacing": [0.5, 2.0, 3.0]}, (0.5, 2.0, 3.0), {}),
        ({"dim": 1}, (), {"axis": 1}),
        ({"dim": [2, 0], "spacing": [1.5, 0.25]}, (1.5, 0.25), {"axis": (2, 0)}),
        ({"dim": -1, "spacing": 3}, (3,), {"axis": -1}),
    ]:
        got = ember.gradient(t, edge_order=edge_order, **kw)
        want = as_tuple(np.gradient(x, *np_args, edge_order=edge_order, **np_kw))
        assert isinstance(got, tuple) and len(got) == len(want), kw
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-12, err_msg=str(kw))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_sample_coordinates(edge_order):
    rng = np.random.default_rng(10 + edge_order)
    x = rng.standard_normal((6, 5))
    c0 = np.cumsum(rng.uniform(0.2, 1.0, 6))
    c1 = np.cumsum(rng.uniform(0.2, 1.0, 5))
    got = ember.gradient(ember.tensor(x), spacing=[ember.tensor(c0), ember.tensor(c1)], edge_order=edge_order)
    want = np.gradient(x, c0, c1, edge_order=edge_order)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-11, atol=1e-11)
    (g1,) = ember.gradient(ember.tensor(x), spacing=(ember.tensor(c1),), dim=1, edge_order=edge_order)
    np.testing.assert_allclose(g1.numpy(), np.gradient(x, c1, axis=1, edge_order=edge_order), rtol=1e-11, atol=1e-11)


def test_integer_input_and_float32():
    (g,) = ember.gradient(ember.tensor([1, 4, 9, 16]))
    assert g.dtype == ember.float32 and g.tolist() == [3.0, 4.0, 6.0, 7.0]
    x = np.arange(12, dtype=np.float32).reshape(3, 4) ** 2
    got = ember.gradient(ember.tensor(x), spacing=2.0)
    for g, w in zip(got, np.gradient(x, 2.0)):
        assert g.dtype == ember.float32
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-6)


def test_differentiable():
    x = ember.tensor(np.random.default_rng(0).standard_normal((5, 4)), requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.gradient(t, spacing=0.5, edge_order=2)[0], (x,))
    c = ember.tensor(np.cumsum(np.linspace(0.5, 1.5, 4)))
    assert ember.autograd.gradcheck(lambda t: ember.gradient(t, spacing=[c], dim=1)[0], (x,))


def test_errors():
    t = ember.ones(3, 4)
    with pytest.raises(RuntimeError, match="torch.gradient only supports edge_order=1 and edge_order=2."):
        ember.gradient(t, edge_order=3)
    with pytest.raises(RuntimeError, match="expected each dimension size to be at least edge_order\\+1"):
        ember.gradient(ember.ones(2, 4), edge_order=2)
    with pytest.raises(
        RuntimeError, match="a list of length equal to 'self.dim\\(\\) = 2', since dim argument was not"
    ):
        ember.gradient(t, spacing=[1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="spacing argument of length 2 and a dim argument of length 1"):
        ember.gradient(t, spacing=[1.0, 2.0], dim=[0])
    with pytest.raises(RuntimeError, match="does not support uint8 input"):
        ember.gradient(ember.ones(3, dtype=ember.uint8))
    with pytest.raises(RuntimeError, match="to have one dimension, but got an element with 2 dimensions"):
        ember.gradient(t, spacing=[ember.ones(3, 1), ember.ones(4)])
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.gradient(t, dim=2)
