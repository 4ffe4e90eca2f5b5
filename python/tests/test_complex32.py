"""complex32 (ember.chalf, issue 23): where PyTorch 2.15's CPU has ComplexHalf and where it refuses it. Values are
checked against NumPy through float16 pairs (complex32 is (re, im) float16, computed in complex64 and rounded once),
closed forms, and the reference PyTorch (/opt/torch2/py, in a subprocess; skipped without it)."""

import io
import json
import os
import subprocess
import textwrap
import warnings

import numpy as np
import pytest

import ember

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")

C = ember.complex32


def run_torch(code):
    """Runs `code` under the reference PyTorch and returns what it printed, parsed as JSON."""
    out = subprocess.run([TORCH_PY, "-W", "ignore", "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def parts(t):
    """A complex32 tensor's (re, im) pairs as a float16 NumPy array (NumPy has no complex32)."""
    return ember.view_as_real(t.resolve_conj()).numpy()


def chalf_of(z):
    """NumPy's reference for a complex32 tensor holding the complex numbers z: each part rounded to float16."""
    z = np.asarray(z, dtype=np.complex128)
    with np.errstate(over="ignore"):  # beyond float16's range is inf, as the cast in ember
        return np.stack([z.real.astype(np.float16), z.imag.astype(np.float16)], axis=-1)


def rounded(z):
    """z (complex64 arithmetic) rounded to complex32, as complex128 values."""
    p = chalf_of(z).astype(np.float64)
    return p[..., 0] + 1j * p[..., 1]


X = [1 + 2j, 3 - 4j, -0.5 + 0.25j]
Y = [2 + 1j, 1 + 1j, 1 - 1j]


def xy():
    return ember.tensor(X, dtype=C), ember.tensor(Y, dtype=C)


# ---- the dtype -------------------------------------------------------------------------------------------------------


def test_dtype_object():
    assert ember.chalf is ember.complex32 and repr(C) == "ember.complex32"
    assert C.is_complex and not C.is_floating_point and C.is_signed and C.itemsize == 4
    assert C.to_real() is ember.float16 and ember.float16.to_complex() is C and C.to_complex() is C
    assert ember.bfloat16.to_complex() is ember.complex64  # ember has no bcomplex32 (PyTorch 2.15 has)
    x = ember.zeros(3, dtype=C)
    assert x.element_size() == 4 and x.itemsize == 4 and x.nbytes == 12 and x.dtype is C
    assert x.is_complex() and ember.is_complex(x) and not x.is_floating_point()
    fi = ember.finfo(C)  # a complex dtype's finfo is its parts'
    assert fi.bits == 16 and fi.max == 65504.0 and fi.eps == 2.0**-10 and fi.dtype == "float16"
    with pytest.raises(TypeError, match="iinfo"):
        ember.iinfo(C)
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        ember.set_default_dtype(C)


def test_promotion_closed_forms():
    p = ember.promote_types
    assert p(C, ember.float16) is C and p(C, ember.bool) is C and p(C, ember.uint8) is C and p(C, ember.int64) is C
    assert p(C, ember.float32) is ember.complex64 and p(C, ember.bfloat16) is ember.complex64
    assert p(C, ember.complex64) is ember.complex64
    assert p(C, ember.float64) is ember.complex128 and p(C, ember.complex128) is ember.complex128
    assert p(ember.float16, ember.complex64) is ember.complex64
    h = ember.ones(2, dtype=ember.float16)
    assert (h * 1j).dtype is C and ember.result_type(h, 1j) is C  # float16 with a complex number
    assert ember.result_type(h, ember.tensor(1j)) is C  # a 0-d complex64 below a float16 tensor
    assert ember.result_type(ember.ones(1, dtype=ember.int32), ember.tensor(1j, dtype=C)) is C
    assert ember.result_type(ember.ones(1), ember.tensor(1j, dtype=C)) is ember.complex64
    x, _ = xy()
    assert (x + 1.0).dtype is C and (x * 1j).dtype is C and (x - ember.tensor(1.0, dtype=ember.float64)).dtype is C
    assert (x + ember.ones(3)).dtype is ember.complex64 and (x + h[:1]).dtype is C
    assert ember.can_cast(ember.float16, C) and ember.can_cast(ember.complex64, C) and not ember.can_cast(C, ember.half)


# ---- creation and conversions ----------------------------------------------------------------------------------------


def test_creation():
    assert parts(ember.zeros(2, dtype=C)).tolist() == [[0, 0], [0, 0]]
    assert parts(ember.ones(2, dtype=C)).tolist() == [[1, 0], [1, 0]]
    assert parts(ember.full((2,), 1 + 2j, dtype=C)).tolist() == [[1, 2], [1, 2]]
    assert parts(ember.full((1,), 1.5, dtype=C)).tolist() == [[1.5, 0]]
    assert ember.empty(2, 3, dtype=C).shape == (2, 3)
    assert ember.empty_strided((2, 2), (1, 2), dtype=C).stride() == (1, 2)
    x, _ = xy()
    assert ember.zeros_like(x).dtype is C and ember.empty_like(x).dtype is C and parts(ember.ones_like(x))[:, 0].all()
    assert parts(ember.full_like(x, 2j)).tolist() == [[0, 2]] * 3
    assert parts(ember.full_like(ember.ones(2), 1j, dtype=C)).tolist() == [[0, 1]] * 2
    assert x.new_zeros(2).dtype is C and parts(x.new_ones(1)).tolist() == [[1, 0]]
    assert parts(x.new_full((1,), 3j)).tolist() == [[0, 3]] and x.new_tensor([1j]).dtype is C
    np.testing.assert_array_equal(parts(x), chalf_of(X))
    assert parts(ember.tensor(0.5 + 1j, dtype=C)).tolist() == [0.5, 1.0]
    assert parts(ember.tensor([1e5j], dtype=C)).tolist() == [[0, np.inf]]  # rounds to inf, as PyTorch
    np.testing.assert_array_equal(parts(ember.tensor(np.array([1j, 2]), dtype=C)), chalf_of([1j, 2]))
    assert ember.tensor([x[0], x[1]]).dtype is C and ember.tensor(x[0]).dtype is C
    # A fill holds each part in float16's range (PyTorch's checked conversion); inf is fine.
    for f in (lambda: ember.full((1,), 7e4, dtype=C), lambda: ember.ones(1, dtype=C).fill_(1 + 7e4j)):
        with pytest.raises(RuntimeError, match=r"value cannot be converted to type c10::complex<c10::Half> without"):
            f()
    assert parts(ember.full((1,), float("inf"), dtype=C)).tolist() == [[np.inf, 0]]


def test_conversions_round_each_part_once():
    rng = np.random.default_rng(0)
    z = (rng.standard_normal(64) * 100 + 1j * rng.standard_normal(64)).astype(np.complex64)
    z[:3] = [1e5 + 1j, np.nan - 2j, 1 / 3 + 2j / 3]
    src = ember.from_numpy(z)
    np.testing.assert_array_equal(parts(src.to(C)), chalf_of(z.astype(np.complex128)))
    np.testing.assert_array_equal(parts(src.cdouble().chalf()), chalf_of(z.astype(np.complex128)))
    h = ember.tensor([1.5, -2.0, 65504.0], dtype=ember.float16)
    assert parts(h.to(C)).tolist() == [[1.5, 0], [-2, 0], [65504, 0]]
    assert parts(ember.tensor([1, 2]).chalf()).tolist() == [[1, 0], [2, 0]]
    assert parts(ember.tensor([True, False]).to(C)).tolist() == [[1, 0], [0, 0]]
    assert parts(ember.tensor([1.5], dtype=ember.bfloat16).to(C)).tolist() == [[1.5, 0]]
    x, _ = xy()
    assert x.cfloat().tolist() == X and x.to(ember.complex128).tolist() == X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real discards the imaginary parts (PyTorch warns too)
        assert x.to(ember.float16).tolist() == [1.0, 3.0, -0.5] and x.float().tolist() == [1.0, 3.0, -0.5]
        assert x.to(ember.int32).tolist() == [1, 3, 0]
        assert x.to(ember.bool).tolist() == [True, True, True]
    e = ember.empty(3, dtype=C)
    e.copy_(ember.tensor([1 + 1j, 2, 3j]))
    assert e.tolist() == [1 + 1j, 2, 3j]
    assert ember.empty(3, dtype=ember.complex64).copy_(x).tolist() == X
    assert x.tolist() == X and x[0].item() == 1 + 2j and complex(x[1]) == 3 - 4j
    assert float(ember.tensor(1, dtype=C)) == 1.0 and bool(ember.tensor(1j, dtype=C))


def test_views_and_parts():
    x, _ = xy()
    r = ember.view_as_real(x)
    assert r.dtype is ember.float16 and r.shape == (3, 2) and r.data_ptr() == x.data_ptr()
    h = ember.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=ember.float16)
    c = ember.view_as_complex(h)
    assert c.dtype is C and c.tolist() == [1 + 2j, 3 - 4j] and c.data_ptr() == h.data_ptr()
    with pytest.raises(NotImplementedError, match="view_as_complex is only supported for half, float and double"):
        ember.view_as_complex(ember.ones(1, 2, dtype=ember.bfloat16))
    assert x.real.dtype is ember.float16 and x.real.tolist() == [1, 3, -0.5] and x.imag.tolist() == [2, -4, 0.25]
    y = x.clone()
    y.real.fill_(7)
    y.imag[0] = 5
    assert y.tolist() == [7 + 5j, 7 - 4j, 7 + 0.25j]
    assert x.view(ember.float16).shape == (6,) and ember.zeros(4, dtype=ember.float16).view(C).shape == (2,)
    assert ember.zeros(2).view(C).dtype is C
    m = ember.stack([x, *xy()[1:]])
    assert m.t().tolist() == [[X[i], Y[i]] for i in range(3)] and m.mT.is_contiguous() is False
    assert m.t().contiguous().tolist() == m.t().tolist() and m.reshape(3, 2).tolist() == [X[:2], [X[2], Y[0]], Y[1:]]
    cx = ember.complex(ember.tensor([1.0, 2.0], dtype=ember.float16), ember.tensor([0.5, -1.0], dtype=ember.float16))
    assert cx.dtype is C and cx.tolist() == [1 + 0.5j, 2 - 1j]
    p = ember.polar(ember.tensor([2.0], dtype=ember.float16), ember.tensor([0.5], dtype=ember.float16))
    ref = np.float16(2.0) * np.array([np.cos(np.float16(0.5)).astype(np.float16), np.sin(np.float16(0.5))], np.float16)
    assert p.dtype is C and parts(p).tolist() == [ref.tolist()]
    with pytest.raises(NotImplementedError, match="Expected both inputs to be Half, Float or Double tensors"):
        ember.complex(ember.ones(1, dtype=ember.bfloat16), ember.ones(1, dtype=ember.bfloat16))
    with pytest.raises(RuntimeError, match="Expected object of scalar type Half but got scalar type Float"):
        ember.complex(ember.ones(1, dtype=ember.float16), ember.ones(1))


def test_conj_bit():
    x, y = xy()
    c = x.conj()
    assert c.is_conj() and c.dtype is C and c.data_ptr() == x.data_ptr()
    conj = [z.conjugate() for z in X]
    assert c.tolist() == conj and c.resolve_conj().tolist() == conj and not c.resolve_conj().is_conj()
    assert x.conj_physical().tolist() == conj and not c.clone().is_conj() and c.detach().is_conj()
    assert (c + y).tolist() == [a + b for a, b in zip(conj, Y)]
    assert ember.cat([c, y]).tolist() == conj + Y and c[ember.tensor([0])].tolist() == conj[:1]
    w = x.clone()
    w.conj_physical_()
    assert w.tolist() == conj
    w = x.clone()
    v = w.conj()
    v.mul_(2)  # writes through conjugated
    assert w.tolist() == [2 * z for z in X]
    v[0] = 1 + 1j
    assert w[0].item() == 1 - 1j
    with pytest.raises(RuntimeError, match="view_as_real doesn't work on unresolved conjugated tensors"):
        ember.view_as_real(c)
    m = ember.stack([x, y])
    assert m.mH.tolist() == [[X[i].conjugate(), Y[i].conjugate()] for i in range(3)] and m.adjoint().is_conj()


# ---- the ops PyTorch has for complex32 -------------------------------------------------------------------------------


def test_shape_and_indexing_ops():
    x, y = xy()
    m = ember.stack([x, y])
    assert ember.cat([x, y]).tolist() == X + Y and m.tolist() == [X, Y]
    assert ember.cat([x, ember.ones(1, dtype=ember.float16)]).dtype is C
    assert ember.cat([x, y.cfloat()]).dtype is ember.complex64
    assert ember.vstack([x, y]).tolist() == [X, Y] and ember.hstack([x, y]).tolist() == X + Y
    assert x[1].item() == X[1] and x[ember.tensor([2, 0])].tolist() == [X[2], X[0]]
    assert x[ember.tensor([True, False, True])].tolist() == [X[0], X[2]] and x[1:].tolist() == X[1:]
    w = x.clone()
    w[0] = 5j
    w[ember.tensor([2])] = ember.tensor(7j)
    w[1:2] = ember.tensor([1.0], dtype=ember.float16)
    assert w.tolist() == [5j, 1, 7j]
    assert x.clone().zero_().tolist() == [0j] * 3 and x.clone().fill_(1 + 1j).tolist() == [1 + 1j] * 3
    assert x.clone().fill_(ember.tensor(1j)).tolist() == [1j] * 3
    mask = ember.tensor([True, False, True])
    assert ember.where(mask, x, y).tolist() == [X[0], Y[1], X[2]] and ember.where(mask, x, 0).tolist()[1] == 0
    assert ember.where(mask, x, ember.ones(3, dtype=ember.float16)).dtype is C
    assert x.masked_fill(mask, 1j).tolist() == [1j, X[1], 1j] and x.masked_select(mask).tolist() == [X[0], X[2]]
    assert x.index_select(0, ember.tensor([2, 0])).tolist() == [X[2], X[0]] and x.narrow(0, 1, 2).tolist() == X[1:]
    assert x.index_fill(0, ember.tensor([0]), 9j).tolist() == [9j] + X[1:]
    assert x.index_copy(0, ember.tensor([0]), y[:1]).tolist() == Y[:1] + X[1:]
    acc = x.clone().index_put_((ember.tensor([0, 0]),), ember.ones(2, dtype=C), accumulate=True)
    assert acc.tolist() == [X[0] + 2] + X[1:]
    assert x.clone().index_add_(0, ember.tensor([0]), y[:1]).tolist() == [X[0] + Y[0]] + X[1:]
    for dt in (C, ember.complex64):  # complex accumulation adds the (re, im) pairs, through conjugate views too
        z = ember.zeros(2, 3, dtype=dt)
        z.conj().index_put_((ember.tensor([1, 1]),), ember.tensor(1 + 2j, dtype=dt), accumulate=True)
        z.index_add_(-1, ember.tensor([2, 2]), ember.ones(2, 2, dtype=dt), alpha=1j)
        assert z.tolist() == [[0, 0, 2j], [2 - 4j, 2 - 4j, 2 - 4j + 2j]]
    assert m.tril().tolist() == [[X[0], 0, 0], [Y[0], Y[1], 0]] and m.triu().tolist()[1][0] == 0
    assert x.diag().diagonal().tolist() == X and ember.diag_embed(x).shape == (3, 3)
    assert x.roll(1).tolist() == [X[2]] + X[:2] and x.repeat(2).tolist() == X * 2 and x.tile(2).tolist() == X * 2
    assert m.flip(0).tolist() == [Y, X] and m.flipud().tolist() == [Y, X]
    assert x[:1].expand(3).tolist() == [X[0]] * 3 and x.unfold(0, 2, 1).tolist() == [X[:2], X[1:]]
    assert x.repeat_interleave(2).tolist() == [X[0], X[0], X[1], X[1], X[2], X[2]]
    assert [t.tolist() for t in x.split([1, 2])] == [X[:1], X[1:]] and len(x.unbind()) == 3
    assert ember.nn.functional.pad(x, (1, 1)).tolist() == [0] + X + [0]
    assert ember.nn.functional.pad(x, (1, 1), value=2.0).tolist() == [2] + X + [2]
    assert x.nonzero().tolist() == [[0], [1], [2]] and x.any().item() and m.all(1).tolist() == [True, True]
    assert ember.zeros(2, dtype=C).count_nonzero().item() == 0 and ember.isreal(x).tolist() == [False] * 3
    cl = ember.zeros(1, 2, 2, 3, dtype=C).clone(memory_format=ember.channels_last)
    assert cl.stride() == (12, 1, 6, 2)
    assert ember.empty(0, dtype=C).sum().item() == 0  # no kernel needed


def test_arithmetic_against_numpy():
    rng = np.random.default_rng(1)
    a = chalf_of(rng.standard_normal(50) * 4 + 1j * rng.standard_normal(50))
    b = chalf_of(rng.standard_normal(50) + 1j * rng.standard_normal(50) * 8)
    za, zb = a[:, 0].astype(np.complex64) + 1j * a[:, 1], b[:, 0].astype(np.complex64) + 1j * b[:, 1]
    ta = ember.view_as_complex(ember.from_numpy(a.copy()))
    tb = ember.view_as_complex(ember.from_numpy(b.copy()))
    # The float16 parts are exact in float32: sums and differences round once, products of parts are exact.
    np.testing.assert_array_equal(parts(ta + tb), chalf_of(za + zb))
    np.testing.assert_array_equal(parts(ta - tb), chalf_of(za - zb))
    np.testing.assert_array_equal(parts(-ta), chalf_of(-za))
    np.testing.assert_allclose(parts(ta * tb).astype(np.float32), chalf_of(za * zb).astype(np.float32), rtol=1e-3)
    np.testing.assert_array_equal(parts(ta * 2), chalf_of(za * 2))
    np.testing.assert_array_equal(parts(ta * 1j), chalf_of(za * 1j))
    np.testing.assert_array_equal(parts(1 - ta), chalf_of(1 - za))
    np.testing.assert_array_equal(ember.abs(ta).numpy(), np.abs(za).astype(np.float16))
    assert ember.abs(ta).dtype is ember.float16
    sgn = parts(ta.sgn())
    np.testing.assert_allclose(sgn.astype(np.float32), chalf_of(za / np.abs(za)).astype(np.float32), atol=1e-3)
    # Numbers and alpha round to complex32 first, as PyTorch casts them to the common dtype.
    assert parts(ember.tensor([1.0], dtype=C) + 0.1).tolist() == chalf_of([1 + float(np.float16(0.1))]).tolist()
    np.testing.assert_array_equal(parts(ember.add(ta, tb, alpha=2)), chalf_of(za + 2 * zb))
    w = ta.clone()
    w.add_(tb)
    w.mul_(2j)
    np.testing.assert_array_equal(parts(w), chalf_of(rounded(za + zb) * 2j))
    mixed = ta * ember.ones(50, dtype=ember.float16)
    assert mixed.dtype is C and parts(mixed).tolist() == a.tolist()
    assert (ta * ember.ones(50, dtype=ember.int32)).dtype is C and (ta * ember.ones(50)).dtype is ember.complex64


def test_einsum_without_contraction_is_a_broadcast_product():
    # PyTorch's einsum multiplies (no GEMM) when nothing is contracted, so complex32 runs there; a contraction is a
    # bmm, which complex32 has not (refused as PyTorch's).
    ta, tb = xy()
    za, zb = np.array(X, dtype=np.complex64), np.array(Y, dtype=np.complex64)
    np.testing.assert_allclose(
        parts(ember.einsum("i,i->i", ta, tb)).astype(np.float32), chalf_of(za * zb).astype(np.float32), rtol=1e-3
    )
    outer = ember.einsum("i,j->ij", ta, tb)
    assert outer.dtype is C and outer.shape == (3, 3)
    np.testing.assert_allclose(
        parts(outer).astype(np.float32), chalf_of(np.outer(za, zb)).astype(np.float32), rtol=1e-3
    )
    with pytest.raises(NotImplementedError, match="ComplexHalf"):
        ember.einsum("i,i->", ta, tb)
    # The same path for every dtype, with its gradient: batched elementwise and outer products against NumPy.
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5))
    x = ember.tensor(a, requires_grad=True)
    y = ember.tensor(b, requires_grad=True)
    out = ember.einsum("bij,bk->bkji", x, y)
    np.testing.assert_allclose(out.detach().numpy(), np.einsum("bij,bk->bkji", a, b), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(b.sum(1)[:, None, None], a.shape), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), np.broadcast_to(a.sum((1, 2))[:, None], b.shape), rtol=1e-12)


def test_var_std_of_complex():
    # PyTorch's definition: the mean of |x - mean|^2 (a real result); complex32 computes in complex64, rounds once.
    rng = np.random.default_rng(4)
    z = chalf_of(rng.standard_normal((3, 5)) * 3 + 1j * rng.standard_normal((3, 5)))
    zc = z[..., 0].astype(np.complex128) + 1j * z[..., 1]
    t = ember.view_as_complex(ember.from_numpy(z.copy()))
    for dims, corr in ((None, 1), (1, 0), (0, 1)):
        kw = {} if dims is None else {"dim": dims}
        ref = (np.abs(zc - zc.mean(axis=dims, keepdims=True)) ** 2).sum(axis=dims) / (
            (zc.size if dims is None else zc.shape[dims]) - corr
        )
        v = t.var(correction=corr, **kw)
        assert v.dtype is ember.float16
        # within a float16 rounding of the exact value (float32 sums in another order may round the other way)
        np.testing.assert_allclose(v.numpy().astype(np.float64), ref, rtol=2**-10)
        np.testing.assert_allclose(t.std(correction=corr, **kw).numpy().astype(np.float64), np.sqrt(ref), rtol=2**-10)
    v, m = ember.var_mean(t, 1)
    assert m.dtype is C and parts(m).tolist() == chalf_of(zc.mean(axis=1)).tolist()
    w = ember.tensor(zc, dtype=ember.complex128, requires_grad=True)
    np.testing.assert_allclose(w.var().item(), (np.abs(zc - zc.mean()) ** 2).sum() / (zc.size - 1), rtol=1e-12)
    assert ember.autograd.gradcheck(lambda a: a.var(1), (w,)) and ember.autograd.gradcheck(lambda a: a.std(), (w,))


def test_addcmul_of_complex():
    x, y = xy()
    assert ember.addcmul(x, x, y).tolist() == [1 + 7j, 10 - 5j, -0.75 + 1j]  # PyTorch's values
    zx, zy = np.array(X, np.complex64), np.array(Y, np.complex64)
    np.testing.assert_array_equal(
        ember.addcmul(x.cfloat(), x.cfloat(), y.cfloat(), value=0.5j).numpy(), zx + 0.5j * zx * zy
    )
    w = x.cdouble()
    w.addcmul_(y.cdouble(), y.cdouble(), value=2)
    assert w.tolist() == [a + 2 * b * b for a, b in zip(X, Y)]
    z = ember.tensor([1 + 1j, 2 - 1j], dtype=ember.complex128, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.addcmul(t, t, t.conj(), value=1j), (z,))


def test_comparisons_and_predicates():
    x, y = xy()
    assert (x == y).tolist() == [False] * 3 and (x == x).tolist() == [True] * 3 and (x != y).tolist() == [True] * 3
    assert (x == (1 + 2j)).tolist() == [True, False, False] and (x == y.cfloat()).dtype is ember.bool
    assert (x == ember.ones(3, dtype=ember.float16)).tolist() == [False] * 3
    z = ember.tensor([float("nan") + 1j, complex(float("inf"), 0), 1j], dtype=C)
    assert ember.isnan(z).tolist() == [True, False, False] and ember.isinf(z).tolist() == [False, True, False]
    assert ember.isfinite(z).tolist() == [False, False, True]
    assert ember.isclose(x, y, atol=3).tolist() == [True, False, True] and ember.allclose(x, x)
    assert not ember.allclose(x, y, rtol=2)


def test_printing():
    x, y = xy()
    assert repr(x) == ("tensor([ 1.0000+2.0000j,  3.0000-4.0000j, -0.5000+0.2500j],\n       dtype=ember.complex32)")
    assert repr(ember.stack([x, y])) == (
        "tensor([[ 1.0000+2.0000j,  3.0000-4.0000j, -0.5000+0.2500j],\n"
        "        [ 2.0000+1.0000j,  1.0000+1.0000j,  1.0000-1.0000j]],\n       dtype=ember.complex32)"
    )
    assert repr(x.conj()) == (
        "tensor([ 1.0000-2.0000j,  3.0000+4.0000j, -0.5000-0.2500j],\n       dtype=ember.complex32)"
    )
    assert repr(ember.tensor(0.5 + 1j, dtype=C)) == "tensor(0.5000+1.j, dtype=ember.complex32)"
    assert repr(ember.tensor([1000 + 1j, 1j], dtype=C)) == "tensor([1000.+1.j,    0.+1.j], dtype=ember.complex32)"
    assert repr(ember.empty(0, dtype=C)) == "tensor([], dtype=ember.complex32)"
    assert repr(ember.tensor([float("nan") + 1j, 1j], dtype=C)) == "tensor([nan+1.j, 0.+1.j], dtype=ember.complex32)"


def test_random_sampling_draws_complex64_and_rounds():
    for draw in (ember.randn, ember.rand):
        ember.manual_seed(3)
        h = draw(40, dtype=C)
        ember.manual_seed(3)
        f = draw(40, dtype=ember.complex64)
        assert h.dtype is C
        np.testing.assert_array_equal(parts(h), chalf_of(f.numpy().astype(np.complex128)))
    g = ember.Generator().manual_seed(5)
    e = ember.empty(40, dtype=C).normal_(1, 2, generator=g)
    g.manual_seed(5)
    ref = ember.empty(40, dtype=ember.complex64).normal_(1, 2, generator=g)
    np.testing.assert_array_equal(parts(e), chalf_of(ref.numpy().astype(np.complex128)))
    ember.manual_seed(3)
    assert ember.randn_like(h).dtype is C and ember.empty(4, dtype=C).uniform_().dtype is C
    with pytest.raises(RuntimeError, match="check_random_bounds handles only integral, floating-point and boolean"):
        ember.empty(2, dtype=C).random_(0, 3)


def test_autograd():
    x, y = xy()
    a = x.clone().requires_grad_()
    ember.view_as_real(a * y).sum().backward()
    assert a.grad.dtype is C and a.grad.tolist() == [3 + 1j, 2, 2j]  # (1 + 1j) * conj(y), PyTorch's
    a = x.clone().requires_grad_()
    ember.view_as_real(a + y).sum().backward()
    assert a.grad.tolist() == [1 + 1j] * 3
    a = x.clone().requires_grad_()
    a.abs().sum().backward()  # sgn(a), rounded: PyTorch gives these float16 values
    np.testing.assert_array_equal(parts(a.grad), chalf_of(rounded(np.array(X) / np.abs(np.array(X)))))


# ---- interop and checkpoints -----------------------------------------------------------------------------------------


def test_numpy_and_dlpack():
    x, _ = xy()
    for f in (x.numpy, lambda: np.asarray(x), lambda: x.numpy(force=True)):
        with pytest.raises(TypeError, match="Got unsupported ScalarType ComplexHalf"):
            f()
    d = ember.from_dlpack(x)
    assert d.dtype is C and d.data_ptr() == x.data_ptr() and d.tolist() == X
    cap = ember.utils.dlpack.to_dlpack(x)
    assert ember.utils.dlpack.from_dlpack(cap).tolist() == X


def test_save_load_and_safetensors(tmp_path):
    x, y = xy()
    buf = io.BytesIO()
    ember.save({"x": x, "c": y.conj()}, buf)
    back = ember.load(io.BytesIO(buf.getvalue()))
    assert back["x"].dtype is C and back["x"].tolist() == X
    assert back["c"].is_conj() and back["c"].tolist() == [z.conjugate() for z in Y]
    # PyTorch has no ComplexHalfStorage: torch.save writes the bytes as an UntypedStorage and _rebuild_tensor_v3
    import zipfile

    pkl = zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("archive/data.pkl")
    assert b"_rebuild_tensor_v3" in pkl and b"complex32" in pkl and b"UntypedStorage" in pkl
    assert x.untyped_storage().nbytes() == 12
    from ember import safetensors as st

    with pytest.raises(TypeError, match="safetensors: no code for dtype complex32"):
        st.save_file({"x": x}, str(tmp_path / "x.safetensors"))


@needs_torch
def test_checkpoints_with_pytorch(tmp_path):
    x, y = xy()
    ember.save({"x": x, "c": y.conj()}, tmp_path / "e.pt")
    got = run_torch(
        f"""
        import json, torch
        d = torch.load({str(tmp_path / "e.pt")!r})
        x = torch.tensor([0.5 - 1j, 2j, 65504 + 1e-3j], dtype=torch.complex32)
        torch.save({{"x": x, "v": x[1:]}}, {str(tmp_path / "t.pt")!r})
        print(json.dumps([str(d["x"].dtype), [[z.real, z.imag] for z in d["x"].tolist()], d["c"].is_conj(),
                          [[z.real, z.imag] for z in d["c"].tolist()]]))
        """
    )
    assert got == ["torch.complex32", [[z.real, z.imag] for z in X], True, [[z.real, -z.imag] for z in Y]]
    t = ember.load(tmp_path / "t.pt")
    assert t["x"].dtype is C and t["x"].tolist() == [0.5 - 1j, 2j, 65504 + float(np.float16(1e-3)) * 1j]
    assert t["v"].tolist() == t["x"].tolist()[1:] and t["v"].untyped_storage().nbytes() == 12


# ---- what PyTorch refuses --------------------------------------------------------------------------------------------

M = ember.ones(2, 3, dtype=C)
V = ember.ones(3, dtype=C)
IDX = ember.zeros(1, 1, dtype=ember.int64)

# (name, call, exception type, message): the call is ember code, and PyTorch's with "ember." read as "torch."; the
# type and message are PyTorch 2.15's (test_refusals_match_pytorch).
REFUSED = [
    ("div", "V / V", NotImplementedError, "\"div_cpu\" not implemented for 'ComplexHalf'"),
    ("div_number", "V / 2", NotImplementedError, "\"div_cpu\" not implemented for 'ComplexHalf'"),
    ("pow", "V**2", NotImplementedError, "\"pow\" not implemented for 'ComplexHalf'"),
    ("square", "V.square()", NotImplementedError, "\"pow\" not implemented for 'ComplexHalf'"),
    ("exp", "V.exp()", NotImplementedError, "\"exp_vml_cpu\" not implemented for 'ComplexHalf'"),
    ("exp2", "V.exp2()", NotImplementedError, "\"exp2\" not implemented for 'ComplexHalf'"),
    ("sqrt", "V.sqrt()", NotImplementedError, "\"sqrt_vml_cpu\" not implemented for 'ComplexHalf'"),
    ("log", "V.log()", NotImplementedError, "\"log_vml_cpu\" not implemented for 'ComplexHalf'"),
    ("tanh", "V.tanh()", NotImplementedError, "\"tanh_vml_cpu\" not implemented for 'ComplexHalf'"),
    ("sinh", "V.sinh()", NotImplementedError, "\"sinh_cpu\" not implemented for 'ComplexHalf'"),
    ("sigmoid", "V.sigmoid()", NotImplementedError, "\"sigmoid_cpu\" not implemented for 'ComplexHalf'"),
    ("reciprocal", "V.reciprocal()", NotImplementedError, '"reciprocal_cpu" not implemented'),
    ("logical_not", "V.logical_not()", NotImplementedError, '"logical_not_cpu" not implemented'),
    ("angle", "V.angle()", NotImplementedError, "\"angle_cpu\" not implemented for 'ComplexHalf'"),
    ("lt", "V < V", NotImplementedError, "\"lt_cpu\" not implemented for 'ComplexHalf'"),
    ("atan2", "ember.atan2(V, V)", NotImplementedError, '"atan2_cpu" not implemented'),
    ("logical_and", "ember.logical_and(V, V)", NotImplementedError, '"logical_and_cpu" not implemented'),
    ("sign", "V.sign()", NotImplementedError, "torch.sign is not intended to support complex numbers"),
    ("floor", "V.floor()", NotImplementedError, "floor is not supported for complex inputs"),
    ("clamp", "V.relu()", NotImplementedError, "clamp is not supported for complex types"),
    ("sum", "V.sum()", NotImplementedError, "\"sum_cpu\" not implemented for 'ComplexHalf'"),
    ("sum_dim", "M.sum(0)", NotImplementedError, "\"sum_cpu\" not implemented for 'ComplexHalf'"),
    ("mean", "M.mean()", NotImplementedError, "\"sum_cpu\" not implemented for 'ComplexHalf'"),
    ("sum_dtype", "ember.ones(2).sum(dtype=C)", NotImplementedError, '"sum_cpu" not implemented'),
    ("prod", "V.prod()", NotImplementedError, "\"prod_out_cpu\" not implemented for 'ComplexHalf'"),
    ("cumsum", "V.cumsum(0)", NotImplementedError, "\"cumsum_out_cpu\" not implemented for 'ComplexHalf'"),
    ("cumprod", "V.cumprod(0)", NotImplementedError, '"cumprod_out_cpu" not implemented'),
    ("matmul", "M @ M.t()", NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'ComplexHalf'"),
    ("mv", "ember.mv(M, V)", NotImplementedError, "\"addmv_impl_cpu\" not implemented for 'ComplexHalf'"),
    ("bmm", "ember.bmm(M[None], M.t()[None])", NotImplementedError, '"bmm" not implemented'),
    ("dot", "ember.dot(V, V)", NotImplementedError, "\"dot\" not implemented for 'ComplexHalf'"),
    ("vdot", "ember.vdot(V, V)", NotImplementedError, "\"vdot\" not implemented for 'ComplexHalf'"),
    ("arange", "ember.arange(3, dtype=C)", NotImplementedError, '"arange_cpu" not implemented'),
    ("linspace", "ember.linspace(0, 1, 3, dtype=C)", NotImplementedError, '"linspace_cpu" not implemented'),
    ("eye", "ember.eye(2, dtype=C)", NotImplementedError, "\"eye\" not implemented for 'ComplexHalf'"),
    ("flip", "V.flip(0)", NotImplementedError, "\"flip_cpu\" not implemented for 'ComplexHalf'"),
    ("fliplr", "M.fliplr()", NotImplementedError, "\"flip_cpu\" not implemented for 'ComplexHalf'"),
    ("gather", "M.gather(0, IDX)", NotImplementedError, '"scatter_gather_tensor_cpu" not implemented'),
    ("scatter", "M.scatter(0, IDX, M)", NotImplementedError, '"scatter_gather_tensor_cpu" not implemented'),
    ("scatter_value", "M.scatter(0, IDX, 1j)", NotImplementedError, '"scatter_gather_scalar_cpu" not implemented'),
    ("scatter_add", "M.scatter_add(0, IDX, M)", NotImplementedError, '"scatter_gather_tensor_cpu" not implemented'),
    ("scatter_reduce", "M.scatter_reduce(0, IDX, M, 'sum')", NotImplementedError, '"scatter_gather_tensor_cpu" not'),
    ("lerp", "ember.lerp(V, V, 0.5)", NotImplementedError, '"lerp_kernel_scalar" not implemented'),
    ("addcdiv", "ember.addcdiv(V, V, V)", NotImplementedError, '"addcdiv_cpu_out" not implemented'),
    ("take", "V.take(ember.tensor([0]))", NotImplementedError, '"take_cpu" not implemented'),
    ("put_", "V.clone().put_(ember.tensor([0]), V[:1])", NotImplementedError, '"take_put_cpu" not implemented'),
    ("masked_scatter", "V.masked_scatter(V.real > 0, V)", NotImplementedError, '"masked_scatter" not impl'),
    ("equal", "ember.equal(V, V)", NotImplementedError, "\"equal_notnan_cpu\" not implemented for 'ComplexHalf'"),
    ("trace", "M[:, :2].trace()", NotImplementedError, "\"trace\" not implemented for 'ComplexHalf'"),
    ("max", "V.max()", NotImplementedError, "\"max_all\" not implemented for 'ComplexHalf'"),
    ("abs_", "V.clone().abs_()", RuntimeError, "In-place abs is not supported for complex tensors."),
    ("sort", "V.sort()", TypeError, "Sort does not support complex dtypes on CPU"),
    ("numpy", "V.numpy()", TypeError, "Got unsupported ScalarType ComplexHalf"),
    ("randint", "ember.randint(0, 3, (2,), dtype=C)", RuntimeError, "check_random_bounds handles only"),
]


@pytest.mark.parametrize("name, call, exc, message", REFUSED, ids=[r[0] for r in REFUSED])
def test_refusals(name, call, exc, message):
    with pytest.raises(exc) as e:
        eval(call, {"ember": ember, "C": C, "M": M, "V": V, "IDX": IDX})
    assert message in str(e.value)


@needs_torch
def test_refusals_match_pytorch():
    """The messages above are PyTorch's: each call, written for torch, raises the same type and message there."""
    calls = {name: call.replace("ember.", "torch.") for name, call, _, _ in REFUSED}
    got = run_torch(
        f"""
        import json, torch
        C = torch.complex32
        M = torch.ones(2, 3, dtype=C)
        V = torch.ones(3, dtype=C)
        IDX = torch.zeros(1, 1, dtype=torch.int64)
        r = {{}}
        for name, src in {calls!r}.items():
            try:
                eval(src)
                r[name] = ["ok", ""]
            except Exception as e:
                r[name] = [type(e).__name__, str(e)]
        print(json.dumps(r))
        """
    )
    for name, call, exc, message in REFUSED:
        assert got[name][0] == exc.__name__ and message in got[name][1], (name, got[name])


@needs_torch
def test_values_match_pytorch():
    got = run_torch(
        f"""
        import json, torch
        C = torch.complex32
        x = torch.tensor({X!r}, dtype=C)
        y = torch.tensor({Y!r}, dtype=C)
        def p(t):
            return torch.view_as_real(t.resolve_conj()).float().tolist()
        r = dict(add=p(x + y), sub=p(x - y), mul=p(x * y), neg=p(-x), abs=x.abs().float().tolist(), sgn=p(x.sgn()),
                 alpha=p(torch.add(x, y, alpha=0.1)), number=p(x * (0.1 + 0.3j)), half=p(torch.ones(3).half() * 1j),
                 eq=(x == y).tolist(), isclose=torch.isclose(x, y, atol=3).tolist(), repr=repr(x * 1j))
        print(json.dumps(r))
        """
    )
    x, y = xy()

    def p(t):
        return ember.view_as_real(t.resolve_conj()).float().tolist()

    assert p(x + y) == got["add"] and p(x - y) == got["sub"] and p(x * y) == got["mul"] and p(-x) == got["neg"]
    assert x.abs().float().tolist() == got["abs"] and p(x.sgn()) == got["sgn"]
    assert p(ember.add(x, y, alpha=0.1)) == got["alpha"] and p(x * (0.1 + 0.3j)) == got["number"]
    assert p(ember.ones(3).half() * 1j) == got["half"] and (x == y).tolist() == got["eq"]
    assert ember.isclose(x, y, atol=3).tolist() == got["isclose"]
    assert repr(x * 1j) == got["repr"].replace("torch.", "ember.")
