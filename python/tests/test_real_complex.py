"""The complex-number helpers on real tensors (PyTorch's definitions for real dtypes), scalar_tensor, logit_ and the
has_* build flags. Complex tensors themselves: test_complex*.py."""

import math

import numpy as np
import pytest
from conftest import to_np

import ember

IDENTITY = ("conj", "resolve_conj", "resolve_neg", "real", "conj_physical")


@pytest.mark.parametrize("name", IDENTITY)
def test_identity_helpers_return_the_tensor(name):
    for t in (
        ember.tensor([1.0, -2.0]),
        ember.tensor([1, 2]),
        ember.ones(2, 3).t(),
        ember.tensor(3.0),
        ember.zeros(0, 2),
        ember.ones(2, requires_grad=True),
    ):
        assert getattr(ember, name)(t) is t
        if name != "real":
            assert getattr(t, name)() is t
    with pytest.raises(TypeError, match=name):
        getattr(ember, name)([1.0])


def test_conj_physical_inplace_and_out():
    t = ember.tensor([1.0, -2.0])
    assert t.conj_physical_() is t and ember.conj_physical_(t) is t
    out = ember.empty(0)
    assert ember.conj_physical(t, out=out) is out and out.tolist() == [1.0, -2.0]


def test_flags():
    t = ember.tensor([1.0, 2.0])
    for name in ("is_conj", "is_neg", "is_inference"):
        assert getattr(ember, name)(t) is False and getattr(t, name)() is False
    with ember.inference_mode():
        assert ember.ones(1).is_inference() is False  # no inference tensors in ember


def test_real_property_is_self_and_settable():
    t = ember.ones(3)
    assert t.real is t
    t.real.add_(1)
    assert t.tolist() == [2.0, 2.0, 2.0]
    t.real = ember.tensor([1.0, 2.0, 3.0])
    assert t.tolist() == [1.0, 2.0, 3.0]


def test_imag_raises():
    t = ember.ones(3)
    msg = "imag is not implemented for tensors with non-complex dtypes"
    with pytest.raises(TypeError, match=msg):  # PyTorch 2.15's type
        t.imag
    with pytest.raises(TypeError, match=msg):
        ember.imag(t)
    with pytest.raises(TypeError, match=msg):
        t.imag = ember.zeros(3)


def test_isreal():
    t = ember.tensor([[1.0, math.nan], [math.inf, -0.0]])
    r = ember.isreal(t)
    assert r.dtype == ember.bool and r.shape == (2, 2) and r.all().item()
    assert ember.isreal(ember.tensor([1, 2], dtype=ember.int8)).tolist() == [True, True]
    assert ember.isreal(ember.zeros(0, 3)).shape == (0, 3) and t.isreal().all().item()


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_angle_floats(dtype):
    vals = np.array([1.0, -2.0, 0.0, -0.0, np.nan, np.inf, -np.inf, -1e-30, 5.0], dtype=np.float64)
    x = ember.tensor(vals, dtype=dtype)
    a = ember.angle(x)
    assert a.dtype == dtype and a.shape == x.shape
    got = to_np(a.to(ember.float64))
    # closed form (np.angle(-0.0) is pi: atan2(+0, -0); PyTorch and ember give 0 for -0.0)
    expected = np.where(np.isnan(vals), np.nan, np.where(vals < 0, np.pi, 0.0))
    if dtype in (ember.float16, ember.bfloat16):
        expected = np.where(vals < 0, 3.140625, expected)  # pi rounded to 8 (bf16) or 11 (f16) bits
    if dtype == ember.float16:
        expected[7] = 0.0 if np.float16(-1e-30) == 0 else expected[7]  # -1e-30 underflows to -0.0
    if dtype == ember.bfloat16:
        expected = np.where(np.isnan(vals), np.nan, expected)
    np.testing.assert_allclose(
        got,
        expected.astype(np.float32) if dtype == ember.float32 else expected,
        rtol=1e-7 if dtype != ember.float32 else 1e-6,
    )


def test_angle_ints_bool_layouts_and_grad():
    assert ember.angle(ember.tensor([1, -1, 0])).tolist() == pytest.approx([0.0, math.pi, 0.0])
    assert ember.angle(ember.tensor([1, -1])).dtype == ember.float32
    assert ember.angle(ember.tensor([True, False])).tolist() == [0.0, 0.0]
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.angle(ember.tensor([-3], dtype=ember.int8)).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    base = ember.tensor([[1.0, -1.0, 2.0], [-3.0, 0.0, -0.5]])
    np.testing.assert_allclose(to_np(ember.angle(base.t())), np.where(to_np(base).T < 0, np.float32(math.pi), 0.0))
    assert ember.angle(ember.zeros(0, 4)).shape == (0, 4) and ember.angle(ember.tensor(-2.0)).item() == pytest.approx(
        math.pi
    )
    assert base.angle().tolist() == ember.angle(base).tolist()
    out = ember.empty(0)
    assert ember.angle(base, out=out) is out and out.shape == (2, 3)
    x = ember.tensor([1.0, -2.0, math.nan, math.inf, -math.inf, 0.0], dtype=ember.float64, requires_grad=True)
    y = ember.angle(x)
    assert y.requires_grad
    y.backward(ember.arange(6, dtype=ember.float64))
    assert x.grad.tolist() == [0.0] * 6
    assert ember.autograd.gradcheck(ember.angle, (ember.tensor([0.5, -1.5], dtype=ember.float64, requires_grad=True),))
    with ember.no_grad():
        assert not ember.angle(x).requires_grad


def test_get_device():
    assert ember.get_device(ember.ones(2)) == -1
    if ember.cuda.is_available():
        assert ember.get_device(ember.ones(2, device="cuda")) == 0


def test_scalar_tensor():
    t = ember.scalar_tensor(3)
    assert t.shape == () and t.dtype == ember.float32 and t.item() == 3.0
    assert ember.scalar_tensor(True).dtype == ember.float32 and ember.scalar_tensor(True).item() == 1.0
    assert ember.scalar_tensor(2, dtype=ember.int64).dtype == ember.int64
    assert ember.scalar_tensor(ember.tensor(2.5)).item() == 2.5
    r = ember.scalar_tensor(1.5, dtype=ember.float64, requires_grad=True)
    assert r.requires_grad and r.dtype == ember.float64 and r.is_leaf
    with pytest.raises(TypeError, match="must be Number, not Tensor"):
        ember.scalar_tensor(ember.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="scalar_tensor"):
        ember.scalar_tensor("x")


def test_logit_inplace():
    p = np.array([0.1, 0.5, 0.9, 0.0, 1.0])
    t = ember.tensor(p, dtype=ember.float64)
    assert ember.logit_(t) is t
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(to_np(t), np.log(p / (1 - p)), rtol=1e-12)
    t = ember.tensor(p, dtype=ember.float64)
    t.logit_(eps=0.2)
    q = np.clip(p, 0.2, 0.8)
    np.testing.assert_allclose(to_np(t), np.log(q / (1 - q)), rtol=1e-12)
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.tensor([1, 2]).logit_()


def test_build_flags():
    for name in (
        "has_cuda",
        "has_cudnn",
        "has_lapack",
        "has_mkl",
        "has_mkldnn",
        "has_openmp",
        "has_mps",
        "has_spectral",
    ):
        assert isinstance(getattr(ember, name), bool)
    assert ember.has_cuda == ember.backends.cuda.is_built() and ember.has_cudnn == ember.has_cuda
    assert ember.has_lapack and ember.has_mkldnn and not ember.has_mkl and not ember.has_mps
    assert ember.has_spectral and callable(ember.fft.fft)  # the FFTs exist (issue 23)
