"""Factory functions against NumPy and PyTorch 1.13's dtype rules: sizes, dtype inference, ranges,
*_like and new_*, ember.tensor, as_tensor, empty_strided, the default dtype and out=."""

import numpy as np
import pytest
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    assert_equal,
    bf16_round,
    contiguous_strides,
    dtype_name,
    from_np,
    np_dtype,
    to_np,
)

import ember

SIZE_FORMS = [
    ("varargs", lambda f, *a, **k: f(2, 3, **k)),
    ("tuple", lambda f, *a, **k: f((2, 3), **k)),
    ("list", lambda f, *a, **k: f([2, 3], **k)),
    ("Size", lambda f, *a, **k: f(ember.Size([2, 3]), **k)),
]


# ------------------------------------------------------------------------------- empty, zeros, ones, full


@pytest.mark.parametrize("form", [f for _, f in SIZE_FORMS], ids=[n for n, _ in SIZE_FORMS])
@pytest.mark.parametrize("name, value", [("zeros", 0), ("ones", 1), ("empty", None)])
def test_sizes_as_varargs_tuple_list_or_Size(form, name, value):
    t = form(getattr(ember, name))
    assert t.shape == (2, 3) and t.dtype is ember.float32 and t.is_contiguous()
    if value is not None:
        assert_equal(t, np.full((2, 3), value, np.float32))


@pytest.mark.parametrize("shape", [(), (0,), (4,), (2, 0, 3), (1, 2, 3, 4)], ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_zeros_ones_full_of_every_dtype(shape, dtype):
    assert_equal(ember.zeros(shape, dtype=dtype), np.zeros(shape, np_dtype(dtype)), dtype)
    assert_equal(ember.ones(shape, dtype=dtype), np.ones(shape, np_dtype(dtype)), dtype)
    assert_equal(ember.full(shape, 3, dtype=dtype), np.full(shape, 3).astype(np_dtype(dtype)), dtype)
    e = ember.empty(shape, dtype=dtype)
    assert e.shape == shape and e.dtype is dtype and e.stride() == contiguous_strides(shape)


@pytest.mark.parametrize(
    "value, dtype",
    [
        (True, ember.bool),
        (False, ember.bool),
        (7, ember.int64),
        (-2, ember.int64),
        (2.5, ember.float32),
    ],
    ids=repr,
)
def test_full_infers_its_dtype_from_the_fill_value(value, dtype):
    t = ember.full((2, 2), value)
    assert t.dtype is dtype
    assert_equal(t, np.full((2, 2), value).astype(np_dtype(dtype)))


def test_full_of_a_value_out_of_float32_range_raises():  # PyTorch 2.15 (test_hardening_sizes.py has the rules)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        ember.full((2, 2), 1e300)
    assert_equal(ember.full((2,), float("inf")), np.full(2, np.inf, np.float32))


def test_full_with_explicit_dtype_casts_the_value():
    assert_equal(ember.full((3,), 2.7, dtype=ember.int32), np.array([2, 2, 2], np.int32), ember.int32)
    assert_equal(ember.full([2], -1.5, dtype=ember.float16), np.full(2, -1.5, np.float16), ember.float16)
    assert_equal(ember.full((), 1, dtype=ember.bool), np.array(True), ember.bool)
    assert_equal(ember.full(ember.Size([1, 2]), 0.1, dtype=ember.bfloat16), bf16_round(np.full((1, 2), 0.1)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_factories_take_requires_grad(dtype):
    for t in (
        ember.zeros(2, dtype=dtype, requires_grad=True),
        ember.ones(2, dtype=dtype, requires_grad=True),
        ember.full((2,), 1.5, dtype=dtype, requires_grad=True),
        ember.empty(2, dtype=dtype, requires_grad=True),
        ember.arange(3.0, dtype=dtype, requires_grad=True),
        ember.eye(2, dtype=dtype, requires_grad=True),
        ember.linspace(0, 1, 3, dtype=dtype, requires_grad=True),
        ember.tensor([1.0], dtype=dtype, requires_grad=True),
    ):
        assert t.requires_grad and t.is_leaf and t.dtype is dtype
    assert not ember.zeros(2, dtype=dtype).requires_grad


# ----------------------------------------------------------------------------------------------- arange


@pytest.mark.parametrize(
    "args",
    [
        (5,),
        (0,),
        (2, 9),
        (2, 9, 3),
        (10, 0, -3),
        (-5, 5, 4),
        (3, 3),
        (0, -7, -1),
        (-(2**40), -(2**40) + 5),
    ],
    ids=str,
)
def test_integer_arange_matches_numpy(args):
    assert_equal(ember.arange(*args), np.arange(*args), ember.int64)


@pytest.mark.parametrize(
    "args",
    [
        (5.5,),
        (0.0, 1.0, 0.1),
        (-1, 1, 0.1),
        (0, 0.3, 0.1),
        (1, 0, -0.1),
        (0, 10, 0.7),
        (0.1, 0.4, 0.1),
        (1, 2.5, 0.5),
        (2.5, -2.5, -0.25),
        (0, 1, 1 / 3),
        (-3.0, 3),
        (1e-3, 1e-2, 1e-3),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [None, ember.float64], ids=["default", "float64"])
def test_float_arange_lengths_and_values_match_numpy(args, dtype):
    n = len(np.arange(*args, dtype=np.float64))  # the length is NumPy's: ceil((end - start) / step)
    start, step = (0.0, 1.0) if len(args) == 1 else (args[0], args[2] if len(args) == 3 else 1.0)
    # element i is start + i * step, computed in double (in the last bit NumPy's accumulation and a
    # fused multiply-add may differ, hence the tolerance)
    expected = start + np.arange(n, dtype=np.float64) * step
    t = ember.arange(*args, dtype=dtype) if dtype else ember.arange(*args)
    assert t.dtype is (dtype or ember.float32) and t.shape == (n,)
    tol = 1e-15 if dtype else 1e-7
    np.testing.assert_allclose(to_np(t), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "dtype", [ember.uint8, ember.int8, ember.int16, ember.int32, ember.float16, ember.bfloat16], ids=dtype_name
)
def test_arange_into_other_dtypes(dtype):
    expected = np.arange(3, 40, 4)
    if dtype is ember.bfloat16:
        expected = bf16_round(expected.astype(np.float32))
    assert_equal(ember.arange(3, 40, 4, dtype=dtype), expected.astype(np_dtype(dtype)), dtype)


def test_arange_dtype_inference_and_keywords():
    assert ember.arange(5).dtype is ember.int64
    assert ember.arange(5.0).dtype is ember.float32
    assert ember.arange(0, 5, 1.0).dtype is ember.float32
    assert ember.arange(ember.tensor(4)).dtype is ember.int64  # 0-d tensors count as their Python number
    assert_equal(ember.arange(ember.tensor(4)), np.arange(4))
    assert_equal(ember.arange(start=2, end=8, step=2), np.arange(2, 8, 2))
    assert_equal(ember.arange(end=3), np.arange(3))
    assert_equal(ember.arange(1, 4, dtype=ember.float64), np.arange(1.0, 4.0))


@pytest.mark.parametrize(
    "args, expected",
    [
        ((-0.5, 3), [0, 1, 2]),  # PyTorch computes int64 ranges on the truncated bounds
        ((1.9, 7.2, 2.9), [1, 3, 5]),
        ((-3.7, 4), [-3, -2, -1, 0, 1, 2, 3]),
    ],
    ids=str,
)
def test_int64_arange_of_float_bounds_uses_their_truncated_values(args, expected):
    assert_equal(ember.arange(*args, dtype=ember.int64), np.array(expected), ember.int64)


def test_integer_arange_with_a_step_that_truncates_to_zero_is_an_error():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 5, 0.5, dtype=ember.int64)


# ---------------------------------------------------------------------------------- linspace, logspace


@pytest.mark.parametrize(
    "start, end, steps",
    [
        (0, 1, 5),
        (-1, 1, 4),
        (1, -1, 7),
        (3, 3, 3),
        (0, 1, 1),
        (5, -2, 1),
        (0, 1, 0),
        (-10.5, 7.25, 100),
        (0, 1, 2),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16], ids=dtype_name)
def test_linspace_matches_numpy(start, end, steps, dtype):
    t = ember.linspace(start, end, steps, dtype=dtype)
    expected = np.linspace(start, end, steps)
    assert t.dtype is dtype and t.shape == (steps,)
    np.testing.assert_allclose(
        to_np(t), expected.astype(np_dtype(dtype)), rtol=1e-6 if dtype is not ember.float16 else 1e-3, atol=1e-6
    )
    if steps:  # the ends are exact
        assert to_np(t)[0] == np_dtype(dtype)(start) and to_np(t)[-1] == np_dtype(dtype)(end if steps > 1 else start)


def test_linspace_default_and_integer_dtypes():
    assert ember.linspace(0, 1, 3).dtype is ember.float32
    assert_equal(ember.linspace(0, 10, 4, dtype=ember.int64), np.linspace(0, 10, 4).astype(np.int64))
    assert_equal(ember.linspace(-5, 5, 6, dtype=ember.int32), np.linspace(-5, 5, 6).astype(np.int32))


@pytest.mark.parametrize(
    "start, end, steps, base",
    [
        (0, 2, 3, 10.0),
        (0, 3, 4, 2.0),
        (-2, 2, 5, 10.0),
        (1, 1, 1, 10.0),
        (2, 3, 1, 2.0),
        (0, 1, 0, 10.0),
        (0.5, 2.5, 6, 3.0),
        (-1, -3, 3, 0.5),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=dtype_name)
def test_logspace_matches_numpy(start, end, steps, base, dtype):
    t = ember.logspace(start, end, steps, base=base, dtype=dtype)
    assert t.dtype is dtype and t.shape == (steps,)
    np.testing.assert_allclose(to_np(t), np.logspace(start, end, steps, base=base), rtol=1e-6)


def test_logspace_base_defaults_to_10_and_is_positional():
    assert_equal(ember.logspace(0, 3, 4), np.array([1, 10, 100, 1000], np.float32))
    assert_equal(ember.logspace(0, 3, 4, 2), np.array([1, 2, 4, 8], np.float32))
    assert_equal(ember.logspace(0, 3, 4, base=2, dtype=ember.int64), np.array([1, 2, 4, 8]))


def test_logspace_with_zero_or_negative_base():
    assert_equal(ember.logspace(0, 2, 3, base=-2), np.array([1, -2, 4], np.float32))
    assert_equal(ember.logspace(0, 2, 3, base=0), np.array([1, 0, 0], np.float32))


# ------------------------------------------------------------------------------------------------------ eye


@pytest.mark.parametrize("n, m", [(3, None), (3, 2), (2, 5), (0, None), (0, 3), (4, 0), (1, 1)], ids=str)
@pytest.mark.parametrize("dtype", [None, ember.bool, ember.int32, ember.float64], ids=str)
def test_eye_matches_numpy(n, m, dtype):
    kwargs = {"dtype": dtype} if dtype else {}
    t = ember.eye(n, m, **kwargs) if m is not None else ember.eye(n, **kwargs)
    dtype = dtype or ember.float32
    assert_equal(t, np.eye(n, m, dtype=np_dtype(dtype)), dtype)
    assert t.is_contiguous()


# ------------------------------------------------------------------------------------------ *_like, new_*


@pytest.mark.parametrize("dtype", [ember.int8, ember.float16, ember.float64], ids=dtype_name)
def test_like_functions_default_to_the_input_dtype_and_take_overrides(dtype):
    x = ember.ones(2, 3, dtype=dtype)
    assert_equal(ember.zeros_like(x), np.zeros((2, 3), np_dtype(dtype)), dtype)
    assert_equal(ember.ones_like(x), np.ones((2, 3), np_dtype(dtype)), dtype)
    assert_equal(ember.full_like(x, 5), np.full((2, 3), 5, np_dtype(dtype)), dtype)
    e = ember.empty_like(x)
    assert e.shape == (2, 3) and e.dtype is dtype and e.data_ptr() != x.data_ptr()
    for f in (ember.zeros_like, ember.ones_like, ember.empty_like):
        r = f(x, dtype=ember.int16, device="cpu")
        assert r.dtype is ember.int16 and r.shape == (2, 3) and r.device == ember.device("cpu")
    assert_equal(ember.full_like(x, 3.7, dtype=ember.float64), np.full((2, 3), 3.7), ember.float64)
    assert_equal(ember.full_like(ember.zeros(2, dtype=ember.int32), 3.7), np.array([3, 3], np.int32))
    assert ember.zeros_like(x, dtype=ember.float32, requires_grad=True).requires_grad


def test_random_like_functions():
    x = ember.zeros(3, 4, dtype=ember.float64)
    for f in (ember.rand_like, ember.randn_like):
        r = f(x)
        assert r.shape == (3, 4) and r.dtype is ember.float64
        assert f(x, dtype=ember.float16).dtype is ember.float16
    r = ember.randint_like(x, 5)
    assert r.dtype is ember.float64 and set(to_np(r).ravel()) <= {0, 1, 2, 3, 4}
    r = ember.randint_like(ember.zeros(100, dtype=ember.int8), 3, 6)
    assert r.dtype is ember.int8 and set(to_np(r).ravel()) <= {3, 4, 5}


@pytest.mark.parametrize("dtype", [ember.int16, ember.float16, ember.float64], ids=dtype_name)
def test_new_functions_take_dtype_and_device_from_self(dtype):
    x = ember.ones(5, dtype=dtype)
    for r, expected in [
        (x.new_zeros(2, 3), np.zeros((2, 3))),
        (x.new_zeros((2, 3)), np.zeros((2, 3))),
        (x.new_ones([3]), np.ones(3)),
        (x.new_full((2,), 4), np.full(2, 4)),
        (x.new_tensor([[1, 2]]), np.array([[1, 2]])),
        (x.new_tensor(7), np.array(7)),
    ]:
        assert_equal(r, expected.astype(np_dtype(dtype)), dtype)
        assert r.device == x.device
    e = x.new_empty(4, 1)
    assert e.shape == (4, 1) and e.dtype is dtype
    assert_equal(x.new_full((2,), 2.5, dtype=ember.float64), np.full(2, 2.5), ember.float64)
    assert x.new_zeros(2, dtype=ember.bool).dtype is ember.bool
    assert x.new_empty((0,)).shape == (0,)
    assert x.new_ones(2, dtype=ember.float32, requires_grad=True).requires_grad


def test_new_tensor_casts_and_copies():
    x = ember.zeros(2, dtype=ember.int32)
    assert_equal(x.new_tensor([1.7, -2.5]), np.array([1, -2], np.int32), ember.int32)
    src = ember.tensor([1.5, 2.5])
    r = x.new_tensor(src)  # a copy in self's dtype
    assert_equal(r, np.array([1, 2], np.int32), ember.int32)
    r2 = src.new_tensor(src)
    assert r2.data_ptr() != src.data_ptr()
    assert_equal(r2, to_np(src))


# ---------------------------------------------------------------------------------------------- tensor()


@pytest.mark.parametrize(
    "data, dtype",
    [
        (3, ember.int64),
        (2.5, ember.float32),
        (True, ember.bool),
        ([1, 2, 3], ember.int64),
        ([1, 2.0], ember.float32),
        ([True, 1], ember.int64),
        ([True, 2.5], ember.float32),
        ([True, False], ember.bool),
        ([[1], [2.5]], ember.float32),
        ([], ember.float32),
        ([[], []], ember.float32),
        ((1, 2), ember.int64),
        ([(1, 2), [3, 4]], ember.int64),
        (((1.5,), (2,)), ember.float32),
        ([[[1, 2]], [[3, 4]]], ember.int64),
        (-(2**63), ember.int64),
    ],
    ids=repr,
)
def test_tensor_infers_shape_and_dtype_like_pytorch(data, dtype):
    t = ember.tensor(data)
    expected = np.array(data, dtype=np_dtype(dtype))
    assert_equal(t, expected, dtype)
    assert t.is_contiguous() and t.stride() == contiguous_strides(expected.shape)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_tensor_with_dtype_casts_the_data(dtype):
    data = [[0, 1.75], [-0.0, 3]] if dtype is not ember.uint8 else [[0, 1.75], [250, 3]]
    if dtype in INT_DTYPES + [ember.bool]:
        expected = np.array(data).astype(np_dtype(dtype))
    elif dtype is ember.bfloat16:
        expected = bf16_round(np.array(data, np.float32))
    else:
        expected = np.array(data, np_dtype(dtype))
    assert_equal(ember.tensor(data, dtype=dtype), expected, dtype)


@pytest.mark.parametrize(
    "elements, dtype",
    [
        (lambda: [ember.tensor(1.5), ember.tensor(2.0)], ember.float32),
        (lambda: [ember.tensor(1), 2.5], ember.float32),
        (lambda: [ember.tensor(1, dtype=ember.int8), ember.tensor(2, dtype=ember.int8)], ember.int8),
        (lambda: [ember.tensor(1.0, dtype=ember.float64), 2], ember.float64),
        (lambda: [ember.tensor(True), 2], ember.int64),
        (lambda: [[ember.tensor(1.5)], [ember.tensor(2)]], ember.float32),
        (lambda: [ember.tensor([7])], ember.int64),
    ],
    ids=["float", "int-with-float", "int8", "float64", "bool-with-int", "nested", "1-element-1d"],
)
def test_tensor_from_lists_of_one_element_tensors(elements, dtype):
    data = elements()
    t = ember.tensor(data)
    assert_equal(t, _numbers(data).astype(np_dtype(dtype)), dtype)


def _numbers(data):
    if isinstance(data, ember.Tensor):
        return np.array(data.item())
    if isinstance(data, list):
        return np.array([_numbers(d) for d in data])
    return np.array(data)


def test_tensor_from_a_tensor_copies_it():
    src = ember.arange(6).view(2, 3).t()
    t = ember.tensor(src)
    assert t.data_ptr() != src.data_ptr() and t.shape == (3, 2)
    assert_equal(t, np.arange(6).reshape(2, 3).T)
    t.fill_(0)
    assert src.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert_equal(ember.tensor(src, dtype=ember.float16), np.arange(6).reshape(2, 3).T.astype(np.float16))


def test_tensor_takes_requires_grad_and_device():
    t = ember.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert ember.tensor([1, 2], device="cpu").device == ember.device("cpu")
    assert ember.tensor([1], dtype=ember.float64, device=ember.device("cpu")).dtype is ember.float64


def test_tensor_from_numpy_arrays_through_the_sequence_protocol():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert_equal(ember.tensor(a.tolist()), a.astype(np.int64))
    assert_equal(ember.tensor(list(a[0])), a[0].astype(np.int64))


# ------------------------------------------------------------------------------------ as_tensor, strided


def test_as_tensor_shares_memory_with_a_tensor_of_the_same_dtype():
    x = ember.arange(4.0)
    a = ember.as_tensor(x)
    assert a.data_ptr() == x.data_ptr()
    a[0] = 9
    assert x[0].item() == 9
    b = ember.as_tensor(x, dtype=ember.float32, device="cpu")
    assert b.data_ptr() == x.data_ptr()
    c = ember.as_tensor(x, dtype=ember.float64)  # a different dtype needs a copy
    assert c.data_ptr() != x.data_ptr()
    assert_equal(c, np.array([9, 1, 2, 3], np.float64), ember.float64)


def test_as_tensor_of_python_data():
    assert_equal(ember.as_tensor([1, 2.5]), np.array([1, 2.5], np.float32), ember.float32)
    assert_equal(ember.as_tensor(3), np.array(3), ember.int64)
    assert_equal(ember.as_tensor([[1, 2]], dtype=ember.float64), np.array([[1.0, 2.0]]), ember.float64)


@pytest.mark.parametrize(
    "size, stride",
    [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((3, 4), (1, 3)), ((2, 2), (4, 1)), ((0, 3), (3, 1)), ((), ())],
    ids=str,
)
def test_empty_strided(size, stride):
    t = ember.empty_strided(size, stride)
    assert t.shape == size and t.stride() == stride and t.dtype is ember.float32
    assert t.is_contiguous() == (stride == contiguous_strides(size) or t.numel() <= 1)
    values = np.arange(int(np.prod(size)), dtype=np.float32).reshape(size)
    t.copy_(from_np(values))
    assert_equal(t, values)
    assert ember.empty_strided(size, stride, dtype=ember.int16).dtype is ember.int16


# ------------------------------------------------------------------------------------ default dtype


def test_set_default_dtype_changes_float_inference():
    assert ember.get_default_dtype() is ember.float32
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.get_default_dtype() is ember.float64
        assert ember.tensor([1.5]).dtype is ember.float64
        assert ember.tensor([1, 2]).dtype is ember.int64  # ints are unaffected
        assert ember.tensor([True, 1.5]).dtype is ember.float64
        assert ember.zeros(2).dtype is ember.float64 and ember.ones(2).dtype is ember.float64
        assert ember.empty(2).dtype is ember.float64
        assert ember.full((2,), 1.5).dtype is ember.float64 and ember.full((2,), 1).dtype is ember.int64
        assert ember.arange(1.5).dtype is ember.float64 and ember.arange(3).dtype is ember.int64
        assert ember.linspace(0, 1, 3).dtype is ember.float64 and ember.logspace(0, 1, 3).dtype is ember.float64
        assert ember.eye(2).dtype is ember.float64
        assert ember.rand(2).dtype is ember.float64 and ember.randn(2).dtype is ember.float64
        assert ember.result_type(ember.tensor([1]), 2.5) is ember.float64
        assert_equal(ember.tensor([0.1]), np.array([0.1]), ember.float64)  # not rounded through float32
    finally:
        ember.set_default_dtype(ember.float32)
    assert ember.tensor([1.5]).dtype is ember.float32


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=dtype_name)
def test_set_default_dtype_to_a_half_type(dtype):
    ember.set_default_dtype(dtype)
    try:
        assert ember.tensor([0.1]).dtype is dtype and ember.zeros(1).dtype is dtype
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("dtype", [ember.int64, ember.bool], ids=dtype_name)
def test_default_dtype_must_be_floating(dtype):
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        ember.set_default_dtype(dtype)
    assert ember.get_default_dtype() is ember.float32


# ------------------------------------------------------------------------------------------------- out=


def test_out_writes_into_and_returns_the_given_tensor():
    out = ember.full((2, 3), 7.0)
    r = ember.zeros(2, 3, out=out)
    assert r is out
    assert_equal(out, np.zeros((2, 3), np.float32))
    ember.ones((2, 3), out=out)
    assert_equal(out, np.ones((2, 3), np.float32))
    o = ember.empty(5, dtype=ember.int64)
    assert ember.arange(5, out=o) is o
    assert_equal(o, np.arange(5))
    f = ember.empty(4)
    assert ember.arange(0, 1, 0.25, out=f) is f
    assert_equal(f, np.arange(0, 1, 0.25, dtype=np.float32))
    e = ember.empty(3, 3)
    assert ember.eye(3, out=e) is e
    assert_equal(e, np.eye(3, dtype=np.float32))


def test_out_of_a_non_contiguous_tensor_writes_through():
    base = ember.zeros(3, 4, dtype=ember.int64)
    ember.arange(3, out=base[:, 1])
    assert_equal(base, np.array([[0, 0, 0, 0], [0, 1, 0, 0], [0, 2, 0, 0]]))


def test_out_without_dtype_takes_the_dtype_of_out():
    # PyTorch: with no dtype=, a factory computes in out's dtype
    o = ember.full((3,), 5, dtype=ember.int64)
    assert ember.zeros(3, out=o) is o
    assert_equal(o, np.zeros(3, np.int64), ember.int64)
    f = ember.zeros(3, dtype=ember.float32)
    assert ember.arange(3, out=f) is f
    assert_equal(f, np.arange(3, dtype=np.float32), ember.float32)
    d = ember.zeros(4, dtype=ember.float64)
    ember.arange(0, 0.4, 0.1, out=d)
    assert_equal(d, np.arange(0, 0.4, 0.1))  # computed in float64, not rounded through float32


def test_out_with_a_conflicting_dtype_is_an_error():
    with pytest.raises(RuntimeError, match="dtype"):
        ember.zeros(3, dtype=ember.float64, out=ember.zeros(3, dtype=ember.int64))


# ------------------------------------------------------------------- PyTorch's keyword forms (Note [Python surface])


@pytest.mark.parametrize("name, value", [("zeros", 0), ("ones", 1), ("empty", None)])
@pytest.mark.parametrize("size", [(2, 3), [2, 3], ember.Size([2, 3]), 4], ids=str)
def test_size_as_a_keyword(name, value, size):
    f = getattr(ember, name)
    t = f(size=size, dtype=ember.float64)
    shape = (size,) if isinstance(size, int) else tuple(size)
    assert t.shape == shape and t.dtype is ember.float64
    assert t.shape == f(size).shape
    if value is not None:
        assert_equal(t, np.full(shape, value, np.float64))


@pytest.mark.parametrize(
    "call",
    [
        lambda: ember.zeros(2, size=(3,)),
        lambda: ember.ones((2,), size=(2,)),
        lambda: ember.empty(1, size=1),
        lambda: ember.zeros(3).new_zeros(2, size=(2,)),
    ],
)
def test_size_given_twice_is_a_type_error(call):
    with pytest.raises(TypeError, match=r"got multiple values for argument 'size'"):
        call()


@pytest.mark.parametrize("name, value", [("new_zeros", 0), ("new_ones", 1), ("new_empty", None)])
def test_new_factories_take_size_by_keyword(name, value):
    x = ember.tensor([1, 2], dtype=ember.int32)
    for t in (getattr(x, name)(size=(2, 3)), getattr(x, name)((2, 3)), getattr(x, name)(2, 3)):
        assert t.shape == (2, 3) and t.dtype is ember.int32
        if value is not None:
            assert_equal(t, np.full((2, 3), value, np.int32))
    assert getattr(x, name)(size=[4], dtype=ember.float64).dtype is ember.float64


def test_keyword_forms_of_the_other_factories():
    x = ember.zeros(2, 2, dtype=ember.int16)
    assert_equal(x.new_full(size=(2,), fill_value=7), np.full(2, 7, np.int16))
    assert_equal(x.new_tensor(data=[1, 2]), np.array([1, 2], np.int16))
    assert_equal(ember.full(size=(2, 2), fill_value=1.5), np.full((2, 2), 1.5, np.float32))
    assert_equal(ember.full_like(input=x, fill_value=3), np.full((2, 2), 3, np.int16))
    assert_equal(ember.eye(n=2, m=3), np.eye(2, 3, dtype=np.float32))
    assert_equal(ember.linspace(start=0, end=1, steps=5), np.linspace(0, 1, 5, dtype=np.float32))
    assert_equal(ember.logspace(start=0, end=3, steps=4, base=2), np.logspace(0, 3, 4, base=2, dtype=np.float32))
    assert ember.empty_strided(size=(2, 3), stride=(1, 2)).stride() == (1, 2)
    assert_equal(ember.tensor(data=[[1, 2]]), np.array([[1, 2]]))
    assert_equal(ember.as_tensor(data=[1.5], dtype=ember.float64), np.array([1.5]))
    for name in ("empty_like", "zeros_like", "ones_like"):
        assert getattr(ember, name)(input=x).shape == (2, 2)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: ember.arange(end=5), np.arange(5)),
        (lambda: ember.arange(start=1, end=5), np.arange(1, 5)),
        (lambda: ember.arange(1, end=5), np.arange(1, 5)),
        (lambda: ember.arange(1, 9, step=3), np.arange(1, 9, 3)),
        (lambda: ember.arange(start=1.0, end=2.0, step=0.25), np.arange(1, 2, 0.25, dtype=np.float32)),
    ],
    ids=["end", "start-end", "start+end-kw", "step-kw", "floats"],
)
def test_arange_keyword_forms(call, expected):
    assert_equal(call(), expected)


def test_arange_value_given_twice_is_a_type_error():
    with pytest.raises(TypeError, match=r"arange\(\) got multiple values for argument 'start'"):
        ember.arange(1, 5, start=2)


def test_factory_signatures_are_pytorchs():
    import inspect

    p = inspect.signature(ember.zeros).parameters
    assert p["size"].kind is inspect.Parameter.VAR_POSITIONAL
    assert [n for n in p if p[n].kind is inspect.Parameter.KEYWORD_ONLY] == [
        "out",
        "dtype",
        "layout",
        "device",
        "requires_grad",
        "pin_memory",
    ]
    p = inspect.signature(ember.zeros(1).new_zeros).parameters
    assert list(p)[0] == "size" and p["dtype"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(ember.full).parameters)[:2] == ["size", "fill_value"]
    assert str(inspect.signature(ember.empty_like).parameters["memory_format"].default) == "ember.preserve_format"
