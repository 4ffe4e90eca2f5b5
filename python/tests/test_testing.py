"""ember.testing: assert_close's semantics and messages (the ones torch.testing.assert_close 1.13 prints, recorded
here as literals), assert_allclose, make_tensor."""

import math

import numpy as np
import pytest

import ember
from ember.testing import assert_allclose, assert_close, make_tensor


def fails(exc, actual, expected, **kw):
    with pytest.raises(exc) as info:
        assert_close(actual, expected, **kw)
    return str(info.value)


def test_close_inputs_pass():
    assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 1e-6]))
    assert_close(ember.tensor([1.0, float("inf")]), ember.tensor([1.0, float("inf")]))
    assert_close(ember.tensor([float("nan")]), ember.tensor([float("nan")]), equal_nan=True)
    assert_close(1.0, 1.0 + 1e-9)
    assert_close(np.ones(3), np.ones(3))
    assert_close((1, 2), [1, 2])
    assert_close({"a": ember.ones(2), "b": [1.0, None]}, {"b": [1.0, None], "a": ember.ones(2)})
    assert_close(ember.nn.Parameter(ember.ones(2)), ember.ones(2))
    assert_close(ember.ones(2, 2).t(), ember.ones(2, 2))  # strides are not compared by default
    assert_close(ember.ones(2), ember.ones(2, dtype=ember.float64), check_dtype=False)
    assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.1, 2.0]), rtol=0.1, atol=0)


def test_default_tolerances_per_dtype():
    # float32: rtol 1.3e-6, atol 1e-5; float64: 1e-7 both; float16: 1e-3, 1e-5; bfloat16: 1.6e-2, 1e-5.
    for dtype, rtol, atol in ((ember.float32, 1.3e-6, 1e-5), (ember.float64, 1e-7, 1e-7)):
        e = ember.tensor([1000.0], dtype=dtype)
        assert_close(e + (atol + rtol * 1000) * 0.9, e)
        fails(AssertionError, e + (atol + rtol * 1000) * 1.5, e)
    e = ember.tensor([2.0], dtype=ember.bfloat16)
    assert_close(ember.tensor([2.0 + 2.0**-6], dtype=ember.bfloat16), e)  # within 1.6e-2 * 2
    fails(AssertionError, ember.tensor([2.0 + 2.0**-4], dtype=ember.bfloat16), e)
    e = ember.tensor([1.0], dtype=ember.float16)
    assert_close(ember.tensor([1.0 + 2.0**-10], dtype=ember.float16), e)
    fails(AssertionError, ember.tensor([1.0 + 2.0**-8], dtype=ember.float16), e)
    fails(AssertionError, ember.tensor([1, 2]), ember.tensor([1, 3]))  # integers: exact


def test_tensor_mismatch_message():
    msg = fails(AssertionError, ember.tensor([1.0, 2, 3]), ember.tensor([1.0, 2.5, 3]))
    assert msg == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)"
    )
    msg = fails(AssertionError, ember.tensor([[1.0, 2], [3, 4]]), ember.tensor([[1.0, 2.1], [3, 4.5]]))
    assert "Mismatched elements: 2 / 4 (50.0%)" in msg
    assert "Greatest absolute difference: 0.5 at index (1, 1) (up to 1e-05 allowed)" in msg
    assert "Greatest relative difference: 0.1111111111111111 at index (1, 1)" in msg
    msg = fails(AssertionError, ember.tensor([1, 2, 3]), ember.tensor([1, 2, 4]))
    assert msg == (
        "Tensor-likes are not equal!\n\n"
        "Mismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 1 at index (2,)\n"
        "Greatest relative difference: 0.25 at index (2,)"
    )
    msg = fails(AssertionError, ember.ones(2), ember.zeros(2))
    assert "Greatest relative difference: inf at index (0,)" in msg


def test_scalar_and_number_messages():
    assert fails(AssertionError, ember.tensor(float("nan")), ember.tensor(float("nan"))) == (
        "Scalars are not close!\n\nAbsolute difference: nan (up to 1e-05 allowed)\n"
        "Relative difference: nan (up to 1.3e-06 allowed)"
    )
    assert fails(AssertionError, 1, 2) == "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: 0.5"
    assert fails(AssertionError, 1, 1.0) == "The (d)types do not match: <class 'int'> != <class 'float'>."
    assert_close(1, 1.0, check_dtype=False)
    assert fails(AssertionError, ember.tensor(True), ember.tensor(False)) == (
        "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: inf"
    )
    assert fails(AssertionError, True, False) == "Booleans mismatch: True is not False"
    assert fails(AssertionError, None, 1) == "None mismatch: None is not 1"


def test_attribute_mismatches():
    assert fails(AssertionError, ember.ones(3), ember.ones(3, dtype=ember.float64)) == (
        "The values for attribute 'dtype' do not match: ember.float32 != ember.float64."
    )
    assert fails(AssertionError, ember.ones(3), ember.ones(3, 1)) == (
        "The values for attribute 'shape' do not match: ember.Size([3]) != ember.Size([3, 1])."
    )
    assert fails(AssertionError, ember.ones(2, 2).t(), ember.ones(2, 2), check_stride=True) == (
        "The values for attribute 'stride()' do not match: (1, 2) != (2, 1)."
    )


def test_containers_name_the_failing_item():
    msg = fails(AssertionError, [ember.ones(2), ember.zeros(2)], [ember.ones(2), ember.ones(2)])
    assert msg.endswith("\n\nThe failure occurred for item [1]")
    msg = fails(AssertionError, {"a": [1.0, 2.0]}, {"a": [1.0, 3.0]})
    assert msg.endswith("The failure occurred for item ['a'][1]")
    assert fails(AssertionError, {"a": 1}, {"a": 1, "b": 2}) == (
        "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
        "Additional keys in the actual mapping: []"
    )
    assert fails(AssertionError, (1, 2), (1, 2, 3)) == "The length of the sequences mismatch: 2 != 3"


def test_msg_replaces_or_extends_the_message():
    assert fails(AssertionError, ember.ones(2), ember.zeros(2), msg="custom") == "custom"
    assert fails(AssertionError, ember.ones(2), ember.zeros(2), msg=lambda m: "X" + m).startswith(
        "XTensor-likes are not close!"
    )


def test_unsupported_and_bad_arguments():
    assert fails(TypeError, ember.ones(3), np.ones(3)) == (
        "No comparison pair was able to handle inputs of type <class 'ember.Tensor'> and <class 'numpy.ndarray'>."
    )
    fails(TypeError, ember.ones(2), "a")
    assert fails(ValueError, ember.ones(2), ember.ones(2), rtol=1e-3) == (
        "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."
    )
    assert "got no rtol" in fails(ValueError, ember.ones(2), ember.ones(2), atol=1e-3)
    msg = fails(AssertionError, np.ones(3), np.zeros(3))  # NumPy arrays compare as tensors (float64 tolerances)
    assert "(up to 1e-07 allowed)" in msg


def test_noncontiguous_and_zero_size():
    a = ember.arange(12.0).reshape(3, 4)[:, ::2]
    assert_close(a, ember.tensor(a.numpy().copy()))
    assert_close(ember.zeros(0, 3), ember.zeros(0, 3))
    msg = fails(AssertionError, a, ember.tensor(a.numpy() + np.array([[0, 0], [0, 1], [0, 0]], dtype=np.float32)))
    assert "at index (1, 1)" in msg


def test_assert_allclose():
    with pytest.warns(FutureWarning):
        assert_allclose(ember.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-5])  # rtol 1e-4 for float32
    with pytest.warns(FutureWarning):
        assert_allclose(ember.tensor([float("nan")]), [float("nan")])  # equal_nan by default
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="not close"):
        assert_allclose(ember.tensor([1.0]), [1.1])
    with pytest.warns(FutureWarning):
        assert_allclose(ember.ones(2, dtype=ember.float64), ember.ones(2))  # dtypes need not match


@pytest.mark.parametrize(
    "dtype,lo,hi",
    [
        (ember.float32, -9, 9),
        (ember.float64, -9, 9),
        (ember.bfloat16, -9, 9),
        (ember.int64, -9, 9),
        (ember.int8, -9, 9),
        (ember.uint8, 0, 9),
        (ember.bool, 0, 1),
    ],
)
def test_make_tensor_ranges(dtype, lo, hi):
    t = make_tensor(200, 3, dtype=dtype, device="cpu")
    assert t.shape == (200, 3) and t.dtype == dtype
    v = t.float().numpy()
    assert v.min() >= lo and v.max() <= hi
    assert len(np.unique(v)) > 1


def test_make_tensor_options():
    t = make_tensor((4, 5), dtype=ember.float32, device="cpu", low=2, high=3, requires_grad=True, noncontiguous=True)
    assert not t.is_contiguous() and t.requires_grad and t.shape == (4, 5)
    assert t.detach().numpy().min() >= 2 and t.detach().numpy().max() <= 3
    z = make_tensor(1000, dtype=ember.int64, device="cpu", low=-1, high=1, exclude_zero=True)
    assert (z.numpy() != 0).all()
    f = make_tensor(10, dtype=ember.float32, device="cpu", low=0, high=0, exclude_zero=True)
    assert (f.numpy() == np.float32(ember.finfo(ember.float32).tiny)).all()
    assert make_tensor(dtype=ember.float32, device="cpu").shape == ()
    assert make_tensor(2, 3, dtype=ember.float32, device="cpu", memory_format=ember.contiguous_format).is_contiguous()
    with pytest.raises(NotImplementedError, match="contiguous"):
        make_tensor(2, dtype=ember.float32, device="cpu", memory_format="channels_last")
    with pytest.raises(ValueError, match="requires_grad must be False for integral dtype"):
        make_tensor(2, dtype=ember.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match="low must be weakly less than high"):
        make_tensor(2, dtype=ember.float32, device="cpu", low=3, high=2)
    with pytest.raises(ValueError, match="one of low or high was NaN"):
        make_tensor(2, dtype=ember.float32, device="cpu", low=math.nan)
    # Bounds outside the dtype's range are clamped to it.
    h = make_tensor(100, dtype=ember.float16, device="cpu", low=-1e9, high=1e9)
    assert np.isfinite(h.float().numpy()).all()
