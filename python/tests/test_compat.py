"""Small PyTorch idioms that programs rely on: the legacy constructor, formatting, .T, `in`."""

import numpy as np
import pytest
from conftest import to_np

import ember


def test_legacy_constructor_sizes_data_and_empty():
    assert ember.Tensor(2, 3).shape == (2, 3) and ember.Tensor(2, 3).dtype == ember.float32
    assert ember.Tensor(ember.Size([4])).shape == (4,)
    assert ember.Tensor().shape == (0,)
    np.testing.assert_array_equal(to_np(ember.Tensor([1, 2])), np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(to_np(ember.Tensor((2, 3))), np.array([2.0, 3.0], np.float32))  # a tuple is data
    base = ember.ones(3)
    view = ember.Tensor(base)
    view[0] = 5
    assert base[0].item() == 5  # shares memory, as torch.Tensor(tensor) does
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        ember.Tensor([1, 2], dtype=ember.int64)


def test_format_of_0d_tensors_formats_the_value():
    x = ember.tensor(3.14159)
    assert f"{x:.2f}" == "3.14"
    assert f"{ember.tensor(7):>4d}" == "   7"
    assert f"{ember.tensor([1.0, 2.0])}" == "tensor([1., 2.])"
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{ember.tensor([1.0, 2.0]):.2f}"


def test_T_reverses_dims_and_contains_compares_values():
    a = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(to_np(ember.tensor(a).T), a.T)
    assert 3 in ember.arange(5) and 7 not in ember.arange(5)
    assert ember.tensor(2) in ember.tensor([[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="only supports Tensor or scalar"):
        "a" in ember.arange(3)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int64, ember.bool, ember.bfloat16])
def test_pickle_and_deepcopy_round_trip(dtype):
    import copy
    import pickle

    x = ember.arange(12).view(3, 4).t().to(dtype)  # non-contiguous on purpose
    for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert y.dtype is dtype and y.shape == x.shape and y.data_ptr() != x.data_ptr()
        assert ember.equal(y, x)
    w = pickle.loads(pickle.dumps(ember.ones(2, requires_grad=True)))
    assert w.requires_grad and w.is_leaf
    with pytest.raises(ValueError, match="do not hold"):
        ember._C._rebuild_tensor(b"abc", "float32", (2,), "cpu", False)


def test_legacy_new_method():
    x = ember.ones(2, dtype=ember.float64)
    u = x.new(3, 4)
    assert u.shape == (3, 4) and u.dtype == ember.float64 and u.device == x.device
    d = x.new([1, 2])
    assert d.dtype == ember.float64
    np.testing.assert_array_equal(to_np(d), [1.0, 2.0])
    assert x.new().shape == (0,)
    assert x.new(ember.Size([2, 1])).shape == (2, 1)
    a = x.new(x)
    a[0] = 7.0
    assert x[0].item() == 7.0  # aliases, as PyTorch's
    with pytest.raises(
        TypeError, match="new\\(\\): expected a tensor of dtype float64 on cpu \\(as self\\), got float32"
    ):
        x.new(ember.ones(2))
