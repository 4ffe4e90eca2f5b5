"""Ops on complex tensors against NumPy on random inputs (contiguous, non-contiguous, broadcast, zero-size, 0-d),
views of the parts, and PyTorch's errors for the ops it refuses for complex."""

import math

import numpy as np
import pytest

import ember

RNG = np.random.default_rng(23)
CDTYPES = [(ember.complex64, np.complex64, 2e-5), (ember.complex128, np.complex128, 1e-12)]


def crandn(*shape, dtype=np.complex128, scale=1.0):
    return ((RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)) * scale).astype(dtype)


def layouts(a):
    """(name, NumPy array, ember tensor) for a contiguous array, a transposed view and a strided slice."""
    yield "contiguous", a, ember.tensor(a)
    t = ember.tensor(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim)))  # a transposed view
    assert not t.is_contiguous()
    yield "transposed", a, t
    wide = np.repeat(a, 2, axis=-1)
    yield "strided", wide[..., ::2], ember.tensor(wide)[..., ::2]


def check(got, want, tol):
    got = got.resolve_conj().numpy() if isinstance(got, ember.Tensor) else np.asarray(got)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


UNARY = {
    "neg": np.negative,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": np.reciprocal,
    "square": np.square,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sgn": lambda x: np.where(x == 0, 0, x / np.where(x == 0, 1, np.abs(x))),
}


@pytest.mark.parametrize("dtype, np_dtype, tol", CDTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_numpy(name, dtype, np_dtype, tol):
    a = crandn(3, 5, dtype=np_dtype)
    for _, x, t in layouts(a):
        got = getattr(ember, name)(t)
        assert got.dtype == dtype
        check(got, UNARY[name](x).astype(np_dtype), tol * 10)
        check(getattr(t, name)(), UNARY[name](x).astype(np_dtype), tol * 10)
    assert getattr(ember, name)(ember.zeros(0, 3, dtype=dtype)).shape == (0, 3)
    z = ember.tensor(complex(a[0, 0]), dtype=dtype)  # 0-d
    check(getattr(ember, name)(z), UNARY[name](a[0, 0]).astype(np_dtype), tol * 10)


@pytest.mark.parametrize("dtype, np_dtype, tol", CDTYPES)
def test_abs_angle_predicates(dtype, np_dtype, tol):
    a = crandn(4, 3, dtype=np_dtype)
    a[0, 0] = complex(math.nan, 1)
    a[0, 1] = complex(math.inf, 0)
    a[0, 2] = 0
    for _, x, t in layouts(a):
        r = ember.abs(t)
        assert r.dtype == dtype.to_real()
        check(r, np.abs(x), tol)
        check(ember.angle(t), np.angle(x), tol)
        check(ember.isnan(t), np.isnan(x), 0)
        check(ember.isinf(t), np.isinf(x), 0)
        check(ember.isfinite(t), np.isfinite(x), 0)
        check(ember.isreal(t), np.isreal(x), 0)
        check(ember.logical_not(t), x == 0, 0)


@pytest.mark.parametrize("dtype, np_dtype, tol", CDTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
def test_binary_against_numpy(op, dtype, np_dtype, tol):
    f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power}[op]
    a, b = crandn(3, 4, dtype=np_dtype), crandn(3, 4, dtype=np_dtype)
    for (_, x, t), (_, y, u) in zip(layouts(a), layouts(b)):
        check(getattr(ember, op)(t, u), f(x, y), tol * 10)
    check(getattr(ember, op)(ember.tensor(a), ember.tensor(b[0])), f(a, b[0]), tol * 10)  # broadcast
    check(getattr(ember, op)(ember.tensor(a[:, :1]), ember.tensor(b[:1])), f(a[:, :1], b[:1]), tol * 10)
    check(getattr(ember, op)(ember.tensor(a), 0.5 - 2j), f(a, np_dtype(0.5 - 2j)), tol * 10)  # with a number
    if op != "pow":
        check(getattr(ember, op)(ember.tensor(a), 3), f(a, np_dtype(3)), tol * 10)
        real = RNG.standard_normal((3, 4)).astype(np_dtype(0).real.dtype)
        check(getattr(ember, op)(ember.tensor(real), ember.tensor(b)), f(real, b), tol * 10)  # real with complex
    assert getattr(ember, op)(ember.zeros(0, 4, dtype=dtype), ember.ones(4, dtype=dtype)).shape == (0, 4)


def test_operators_alpha_inplace_and_pow_exponents():
    a, b = crandn(5), crandn(5)
    t, u = ember.tensor(a), ember.tensor(b)
    check(t + u, a + b, 1e-12)
    check(t - u, a - b, 1e-12)
    check(t * u, a * b, 1e-12)
    check(t / u, a / b, 1e-12)
    check(-t, -a, 0)
    check(1j * t, 1j * a, 1e-12)
    check(2 / t, 2 / a, 1e-12)
    check(ember.add(t, u, alpha=2 - 1j), a + (2 - 1j) * b, 1e-12)
    check(ember.sub(t, u, alpha=0.5j), a - 0.5j * b, 1e-12)
    check(t**2, a**2, 1e-12)
    check(t**0.5, a**0.5, 1e-12)
    check(t**-1.5, a**-1.5, 1e-12)
    check(t ** (1 + 1j), a ** (1 + 1j), 1e-12)
    check(ember.tensor([0j]) ** 0, np.array([1 + 0j]), 0)
    c = t.clone()
    c *= u
    c += 1j
    check(c, a * b + 1j, 1e-12)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        ember.ones(5).add_(t)
    with pytest.raises(RuntimeError, match="alpha must not be a complex number"):
        ember.add(ember.ones(2), ember.ones(2), alpha=1j)


def test_comparisons_and_isclose():
    a = crandn(6)
    b = a.copy()
    b[::2] += 1e-3j
    t, u = ember.tensor(a), ember.tensor(b)
    check(t == u, a == b, 0)
    check(t != u, a != b, 0)
    check(ember.eq(t, complex(a[1])), a == a[1], 0)
    check(ember.isclose(t, u), np.isclose(a, b), 0)  # |a - b| <= atol + rtol |b| in both
    check(ember.isclose(t, u, rtol=0, atol=1e-2), np.isclose(a, b, rtol=0, atol=1e-2), 0)
    assert ember.allclose(t, t + 1e-9) and not ember.allclose(t, u)
    n = ember.tensor([complex(math.nan, 0)])
    assert not ember.isclose(n, n).item() and ember.isclose(n, n, equal_nan=True).item()


@pytest.mark.parametrize("dtype, np_dtype, tol", CDTYPES)
def test_reductions_and_scans(dtype, np_dtype, tol):
    a = crandn(4, 5, 3, dtype=np_dtype)
    for _, x, t in layouts(a):
        check(ember.sum(t), x.sum(), tol * 10)
        check(t.sum(1), x.sum(1), tol * 10)
        check(t.sum((0, 2), keepdim=True), x.sum((0, 2), keepdims=True), tol * 10)
        check(t.mean(-1), x.mean(-1), tol * 10)
        check(t.prod(1), x.prod(1), tol * 100)
        check(ember.prod(t[:2, :2]), x[:2, :2].prod(), tol * 100)
        check(ember.cumsum(t, 1), np.cumsum(x, 1), tol * 10)
        check(ember.cumsum(t, 0), np.cumsum(x, 0), tol * 10)
        assert t.sum(1).dtype == dtype and ember.cumsum(t, 2).dtype == dtype
    z = np.zeros((2, 3), np_dtype)
    z[0, 1] = 1j
    check(ember.tensor(z).any(1), z.any(1), 0)
    check(ember.tensor(z).all(0), z.all(0), 0)
    assert ember.count_nonzero(ember.tensor(z)).item() == 1
    assert ember.sum(ember.zeros(0, 3, dtype=dtype)).item() == 0j
    assert ember.cumsum(ember.tensor(1 + 1j, dtype=dtype), 0).item() == 1 + 1j


@pytest.mark.parametrize("dtype, np_dtype, tol", CDTYPES)
def test_products(dtype, np_dtype, tol):
    for m, k, n in [(3, 4, 5), (1, 7, 1), (20, 30, 40), (64, 32, 16)]:
        a, b = crandn(m, k, dtype=np_dtype), crandn(k, n, dtype=np_dtype)
        check(ember.mm(ember.tensor(a), ember.tensor(b)), a @ b, tol * k)
        check(ember.matmul(ember.tensor(a.T.copy()).t(), ember.tensor(b)), a @ b, tol * k)  # a transposed operand
        check(ember.tensor(a) @ ember.tensor(b[:, 0]), a @ b[:, 0], tol * k)  # matrix @ vector
    a, b = crandn(3, 4, 6, dtype=np_dtype), crandn(3, 6, 2, dtype=np_dtype)
    check(ember.bmm(ember.tensor(a), ember.tensor(b)), a @ b, tol * 10)
    check(ember.matmul(ember.tensor(a), ember.tensor(b[0])), a @ b[0], tol * 10)  # broadcast batch
    x, y = crandn(9, dtype=np_dtype), crandn(9, dtype=np_dtype)
    check(ember.dot(ember.tensor(x), ember.tensor(y)), np.dot(x, y), tol * 10)
    check(ember.vdot(ember.tensor(x), ember.tensor(y)), np.vdot(x, y), tol * 10)
    check(ember.mm(ember.zeros(0, 3, dtype=dtype), ember.zeros(3, 2, dtype=dtype)), np.zeros((0, 2)), 0)
    check(ember.mm(ember.ones(2, 0, dtype=dtype), ember.ones(0, 2, dtype=dtype)), np.zeros((2, 2)), 0)


def test_shape_ops_indexing_where_cat():
    a = crandn(3, 4)
    t = ember.tensor(a)
    check(t.t(), a.T, 0)
    check(t.reshape(2, 6), a.reshape(2, 6), 0)
    check(t.flatten(), a.flatten(), 0)
    check(t.flip(0), a[::-1], 0)
    check(t[1], a[1], 0)
    check(t[:, 1:3], a[:, 1:3], 0)
    check(t[ember.tensor([2, 0])], a[[2, 0]], 0)
    check(t[t.abs() > 1], a[np.abs(a) > 1], 0)
    check(ember.cat([t, t[:1]]), np.concatenate([a, a[:1]]), 0)
    check(ember.stack([t, t]), np.stack([a, a]), 0)
    check(t.unsqueeze(0).expand(2, 3, 4).contiguous(), np.broadcast_to(a, (2, 3, 4)), 0)
    check(ember.gather(t, 1, ember.tensor([[0], [3], [1]])), np.take_along_axis(a, np.array([[0], [3], [1]]), 1), 0)
    check(t.clone().index_select(1, ember.tensor([3, 0])), a[:, [3, 0]], 0)
    c = np.abs(a) > 1
    check(ember.where(ember.tensor(c), t, 0.5j), np.where(c, a, 0.5j), 0)
    check(ember.where(ember.tensor(c), t, ember.ones(4)), np.where(c, a, 1), 0)
    s = t.clone()
    s[0, 0] = 5 - 5j
    s[1] = ember.tensor(a[2])
    want = a.copy()
    want[0, 0] = 5 - 5j
    want[1] = a[2]
    check(s, want, 0)
    big = crandn(2, 3)  # complex128: 16-byte elements through the gather and scatter kernels
    tb = ember.tensor(big)
    check(tb[ember.tensor([1, 0, 1])], big[[1, 0, 1]], 0)
    sb = ember.zeros(2, 3, dtype=ember.complex128)
    sb[ember.tensor([1, 0])] = tb
    check(sb, big[[1, 0]], 0)  # sb[1] = big[0], sb[0] = big[1]


def test_views_of_the_parts():
    a = crandn(3, 2)
    t = ember.tensor(a)
    re, im = t.real, t.imag
    assert re.dtype == ember.float64 and re.stride() == (4, 2) and re.data_ptr() == t.data_ptr()
    check(re, a.real, 0)
    check(im, a.imag, 0)
    t.imag[0, 0] = 7.0  # writes through
    t.real = ember.zeros(3, 2, dtype=ember.float64)
    a.imag[0, 0] = 7.0
    a.real = 0
    check(t, a, 0)
    t.imag = 1.5
    a.imag = 1.5
    check(t, a, 0)
    r = ember.view_as_real(t)
    assert r.shape == (3, 2, 2) and r.stride() == (4, 2, 1)
    r[2, 1, 0] = -9
    assert t[2, 1].item() == complex(-9, 1.5)
    assert ember.view_as_complex(r).data_ptr() == t.data_ptr() and ember.view_as_complex(r).tolist() == t.tolist()
    tt = t.t()  # views of views: parts of a transposed tensor
    check(tt.imag, t.numpy().T.imag, 0)
    check(ember.real(ember.ones(2)), np.ones(2), 0)


def test_complex_polar_conj():
    re, im = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    z = ember.complex(ember.tensor(re), ember.tensor(im))  # broadcast
    assert z.dtype == ember.complex128
    check(z, re + 1j * im, 0)
    r, th = np.abs(RNG.standard_normal(4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    p = ember.polar(ember.tensor(r), ember.tensor(th))
    assert p.dtype == ember.complex64
    check(p, r * np.exp(1j * th), 1e-6)
    a = crandn(4)
    t = ember.tensor(a)
    c = t.conj()
    check(c, np.conj(a), 0)
    check(ember.conj_physical(t), np.conj(a), 0)
    assert c.is_conj() and ember.resolve_conj(t) is t and not ember.resolve_conj(c).is_conj()
    assert ember.conj(ember.ones(2)).tolist() == [1.0, 1.0]
    u = t.clone()
    u.conj_physical_()
    check(u, np.conj(a), 0)
    out = ember.empty(2, 3, dtype=ember.complex128)
    assert ember.complex(ember.tensor(re), ember.tensor(im), out=out) is out
    check(out, re + 1j * im, 0)


def test_conj_in_chains_of_views():
    # conj() is a lazy view (test_conj_bit.py): views of a conjugate and conjugates of views read the right values,
    # and later ops see them conjugated
    a = crandn(3, 4)
    t = ember.tensor(a)
    c = t.t()[1:].conj()
    check(c, np.conj(a.T[1:]), 0)
    check(c.imag, -a.T[1:].imag, 0)
    check(ember.view_as_real(c.resolve_conj()), np.stack([a.T[1:].real, -a.T[1:].imag], -1), 0)
    check(t.conj().t()[::2] @ t[:, :2], np.conj(a).T[::2] @ a[:, :2], 1e-12)
    check(t.conj().conj(), a, 0)
    check(ember.conj(t[:, 1]).sum(), np.conj(a[:, 1]).sum(), 1e-12)
    t.imag[0] = 0.0  # the conjugate taken earlier is a view of t: it sees the write
    b = a.copy()
    b.imag[0] = 0.0
    check(c, np.conj(b.T[1:]), 0)


def test_errors():
    z = ember.tensor([1j, 2])
    f = ember.zeros(3, 2)
    msgs = [
        (lambda: ember.view_as_complex(ember.zeros(3)), RuntimeError, "Tensor must have a last dimension of size 2"),
        (lambda: ember.view_as_complex(ember.zeros(3, 2, dtype=ember.int64)), NotImplementedError, "scalar type: Long"),
        (lambda: ember.view_as_complex(ember.zeros(2, 3)[:, 1:].t()), RuntimeError, "last dimension with stride 1"),
        (lambda: ember.view_as_complex(ember.zeros(6)[1:5].view(2, 2)), RuntimeError, "storage_offset divisible by 2"),
        (lambda: ember.view_as_complex(ember.zeros(3, 3)[:, :2]), RuntimeError, "stride divisible by 2"),
        (lambda: ember.view_as_complex(ember.zeros(())), RuntimeError, "one or more dimensions"),
        (lambda: ember.view_as_real(f), TypeError, "view_as_real is only supported for complex tensors"),
        (
            lambda: ember.complex(f, f.double()),
            RuntimeError,
            "Expected object of scalar type Float but got scalar type Double",
        ),
        (
            lambda: ember.complex(f.long(), f.long()),
            NotImplementedError,
            "Half, Float or Double tensors but got Long and Long",
        ),
        (lambda: ember.ones(2).imag, TypeError, "imag is not implemented for tensors with non-complex dtypes"),
        (lambda: z < z, NotImplementedError, "\"lt_cpu\" not implemented for 'ComplexFloat'"),
        (lambda: ember.sign(z), NotImplementedError, "torch.sgn instead"),
        (lambda: ember.floor(z), NotImplementedError, "floor is not supported for complex inputs"),
        (lambda: ember.relu(z), NotImplementedError, "clamp is not supported for complex types"),
        (lambda: z.max(), NotImplementedError, "\"max_all\" not implemented for 'ComplexFloat'"),
        (lambda: ember.maximum(z, z), NotImplementedError, "\"maximum_cpu\" not implemented for 'ComplexFloat'"),
        (lambda: ember.remainder(z, 2), NotImplementedError, "not implemented for 'ComplexFloat'"),
        (lambda: ember.sort(z), (NotImplementedError, TypeError), "ComplexFloat|complex"),
        (lambda: ember.erf(z), NotImplementedError, "not implemented for 'ComplexFloat'"),
        (lambda: ember.nansum(z), NotImplementedError, "nansum on CPU does not support complex inputs"),
    ]
    for fn, exc, msg in msgs:
        with pytest.raises(exc, match=msg):
            fn()
