"""The lazy conjugate bit (Note [The conjugate bit] in ember/ops/conj_bit.cpp): conj() is a view that later ops read
conjugated, in-place ops on it write through conjugated, and views of it keep the bit. References: NumPy."""

import os
import subprocess

import numpy as np
import pytest

import ember

RNG = np.random.default_rng(23)
TORCH_PY = "/opt/torch2/py"


def crandn(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def vals(t):
    return t.resolve_conj().numpy()


def check(t, ref, tol=0.0):
    got = vals(t)
    assert got.shape == np.shape(ref)
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def test_conj_is_a_view_with_the_bit():
    a = crandn(3)
    x = ember.tensor(a)
    y = x.conj()
    assert y.is_conj() and ember.is_conj(y) and not x.is_conj()
    assert y.data_ptr() == x.data_ptr()
    check(y, np.conj(a))
    z = y.conj()  # conj of a conjugate view: a view without the bit
    assert not z.is_conj() and z.data_ptr() == x.data_ptr()
    check(z, a)
    r = y.resolve_conj()
    assert not r.is_conj() and r.data_ptr() != x.data_ptr()
    check(r, np.conj(a))
    assert x.resolve_conj() is x
    f = ember.ones(2)
    assert f.conj() is f and not f.is_conj()


def test_views_of_a_conjugate_view_keep_the_bit():
    a = crandn(3, 4)
    y = ember.tensor(a).conj()
    chains = [
        (lambda t: t.t(), lambda v: v.T),
        (lambda t: t[1:, ::2], lambda v: v[1:, ::2]),
        (lambda t: t.t()[1:].unsqueeze(0), lambda v: v.T[1:][None]),
        (lambda t: t[:, 1].expand(2, 3), lambda v: np.broadcast_to(v[:, 1], (2, 3))),
        (lambda t: t.reshape(12).view(2, 6), lambda v: v.reshape(2, 6)),
        (lambda t: t.permute(1, 0).select(0, 2), lambda v: v.T[2]),
        (lambda t: t.diagonal(), lambda v: np.diagonal(v)),
        (lambda t: t.detach(), lambda v: v),
    ]
    for view, ref in chains:
        v = view(y)
        assert v.is_conj(), view
        check(v, ref(np.conj(a)))
        # conj of a view of the conjugate: the memory's values again, without the bit
        assert not v.conj().is_conj()
        check(v.conj(), ref(a))
    # a conjugate of a view, then views of that
    c = ember.tensor(a).t()[1:].conj()[::2]
    assert c.is_conj()
    check(c, np.conj(a.T[1:][::2]))


def test_ops_read_the_conjugate():
    a, b = crandn(3, 4), crandn(3, 4)
    x, w = ember.tensor(a), ember.tensor(b)
    y = x.conj()
    ca = np.conj(a)
    check(y + w, ca + b, 1e-12)
    check(w * y, b * ca, 1e-12)
    check(y * y, ca * ca, 1e-12)
    check(x * y, a * ca, 1e-12)  # the same memory read both ways
    check(y - 1j, ca - 1j, 1e-12)
    check(y.exp(), np.exp(ca), 1e-12)
    check(y.abs(), np.abs(a), 1e-12)
    check(y.t()[1:] / w.t()[1:], ca.T[1:] / b.T[1:], 1e-12)
    check(y.sum(), ca.sum(), 1e-12)
    check(y.sum(0), ca.sum(0), 1e-12)
    check(y.mean(1), ca.mean(1), 1e-12)
    check(y.prod(1), ca.prod(1), 1e-12)
    check(y.cumsum(1), ca.cumsum(1), 1e-12)
    check(ember.where(ember.tensor(a.real > 0), y, w), np.where(a.real > 0, ca, b), 0)
    check(ember.cat([y, w]), np.concatenate([ca, b]), 0)
    check(y.flip(0), ca[::-1], 0)
    check(y[ember.tensor([2, 0])], ca[[2, 0]], 0)
    check(y.to(ember.complex64), ca.astype(np.complex64), 1e-6)
    check(y.real, a.real, 0)
    check(y.imag, -a.imag, 0)
    check(y.angle(), np.angle(ca), 1e-12)
    assert ember.eq(y, ember.tensor(ca)).all().item()
    assert y[1, 2].item() == ca[1, 2]
    assert y.tolist() == ca.tolist()
    assert repr(y) == repr(ember.tensor(ca))


def test_matmul_with_conjugate_operands():
    a, b = crandn(3, 4), crandn(4, 2)
    x, w = ember.tensor(a), ember.tensor(b)
    check(x.conj() @ w, np.conj(a) @ b, 1e-12)
    check(x @ ember.tensor(np.conj(b)).conj(), a @ b, 1e-12)
    check(x.mH @ x, a.conj().T @ a, 1e-12)  # the conjugate transpose: conj of a transposed view
    check(x.conj().t() @ x, a.conj().T @ a, 1e-12)
    check(ember.vdot(x[0].conj(), x[1]), np.vdot(np.conj(a[0]), a[1]), 1e-12)
    check(ember.einsum("ij,jk->ik", x.conj(), w), np.conj(a) @ b, 1e-12)


def test_copies_resolve_as_pytorch():
    a = crandn(2, 3)
    y = ember.tensor(a).conj()
    # clone and to() make new tensors without the bit; contiguous() of a contiguous tensor is the tensor
    for t, bit in (
        (y.clone(), False),
        (y.contiguous(), True),
        (y.t().contiguous(), False),
        (y.to(ember.complex64), False),
        (y + 0, False),
        (ember.empty_like(y), False),
        (y.conj_physical(), False),
    ):
        assert t.is_conj() is bit
    check(y.clone(), np.conj(a))
    check(y.t().contiguous(), np.conj(a).T)
    check(y.conj_physical(), a)
    # copy_ between conjugate and plain tensors, both ways
    d = ember.zeros(2, 3, dtype=ember.complex128)
    d.copy_(y)
    assert not d.is_conj()
    check(d, np.conj(a))
    e = ember.zeros(2, 3, dtype=ember.complex128)
    e.conj().copy_(ember.tensor(a))  # writes the conjugates into e's memory
    check(e, np.conj(a))
    f = ember.zeros(3, dtype=ember.float64)
    f.copy_(y[0].real)
    check(f, a[0].real)


def test_inplace_ops_on_a_conjugate_view_write_through():
    a = crandn(2, 3)
    x = ember.tensor(a)
    y = x.conj()
    y.add_(1 + 2j)  # y's values become conj(a) + 1 + 2j, so x holds their conjugates
    check(x, a + 1 - 2j, 1e-12)
    assert y.is_conj()
    check(y, np.conj(a) + 1 + 2j, 1e-12)
    x = ember.tensor(a)
    y = x.conj()
    y.mul_(y)
    check(x, a * a, 1e-12)
    x = ember.tensor(a)
    x.add_(x.conj())  # reads the conjugate of the memory being written
    check(x, a + np.conj(a), 1e-12)
    x = ember.tensor(a)
    x.copy_(x.conj())
    check(x, np.conj(a))
    x = ember.tensor(a)
    y = x.conj()
    y[0, 1] = 5 + 5j
    y[1] = ember.tensor(a[0])
    ref = a.copy()
    ref[0, 1] = 5 - 5j
    ref[1] = np.conj(a[0])
    check(x, ref)
    x = ember.tensor(a)
    y = x.conj()
    y.t()[2].zero_()  # through a view of the conjugate view
    ref = a.copy()
    ref[:, 2] = 0
    check(x, ref)
    x = ember.tensor(a)
    y = x.conj()
    y.conj_physical_()  # conjugates y's values: x's memory becomes conj(a)
    assert y.is_conj()
    check(x, np.conj(a))
    x = ember.tensor(a)
    y = x.conj()
    y.imag = ember.tensor(a.real)  # y's imaginary parts: x's are their negatives
    check(x, a.real - 1j * a.real)
    y.real.fill_(2)
    check(x.real, np.full((2, 3), 2.0))
    out = ember.zeros(2, 3, dtype=ember.complex128)
    ember.mul(ember.tensor(a), 2, out=out.conj())
    check(out, np.conj(2 * a), 1e-12)


def test_numpy_and_view_as_real_refuse_as_pytorch():
    a = crandn(3)
    y = ember.tensor(a).conj()
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that has conjugate bit set"):
        y.numpy()
    with pytest.raises(RuntimeError, match="conjugate bit set"):
        np.asarray(y)
    np.testing.assert_array_equal(y.numpy(force=True), np.conj(a))
    with pytest.raises(RuntimeError, match="view_as_real doesn't work on unresolved conjugated tensors"):
        ember.view_as_real(y)
    np.testing.assert_array_equal(ember.view_as_real(y.resolve_conj()).numpy()[:, 1], -a.imag)
    with pytest.raises(BufferError, match="Can't export tensors with the conjugate bit set"):
        y.__dlpack__()
    np.testing.assert_array_equal(np.from_dlpack(y.resolve_conj()), np.conj(a))
    with pytest.raises(RuntimeError, match="_set_conj: only a complex tensor"):
        ember._C._set_conj(ember.ones(2), True)


@pytest.mark.parametrize("writer", ["save", "save_ember"])
def test_save_load_keeps_the_bit(writer, tmp_path):
    a = crandn(2, 3)
    x = ember.tensor(a)
    obj = {"x": x, "y": x.conj(), "v": x.conj().t()[1:]}
    path = str(tmp_path / "c.pt")
    (ember.save if writer == "save" else ember.serialization.save_ember)(obj, path)
    back = ember.load(path)
    assert not back["x"].is_conj() and back["y"].is_conj() and back["v"].is_conj()
    check(back["x"], a)
    check(back["y"], np.conj(a))
    check(back["v"], np.conj(a).T[1:])
    back["y"].add_(1)  # still views of one storage
    check(back["x"], a + 1, 1e-12)


@pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
def test_torch_reads_the_bit(tmp_path):
    a = crandn(3)
    path = str(tmp_path / "c.pt")
    ember.save({"y": ember.tensor(a).conj()}, path)
    code = f"import torch; y = torch.load({path!r})['y']; print(y.is_conj(), y.resolve_conj().tolist())"
    out = subprocess.run([TORCH_PY, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert out[0] == "True"
    np.testing.assert_array_equal(np.array(eval(out[1])), np.conj(a))
    # and ember reads PyTorch's
    path2 = str(tmp_path / "t.pt")
    code = f"import torch; torch.save(torch.tensor([1+2j, 3-4j]).conj(), {path2!r})"
    subprocess.run([TORCH_PY, "-c", code], check=True)
    t = ember.load(path2)
    assert t.is_conj() and t.tolist() == [1 - 2j, 3 + 4j]


def test_autograd_through_the_conjugate_view():
    a, b = crandn(3), crandn(3)
    x = ember.tensor(a, requires_grad=True)
    w = ember.tensor(b)
    y = x.conj()
    assert y.grad_fn.name() == "ConjBackward0"
    assert y.resolve_conj().grad_fn.name() == "CloneBackward0"
    # L = Re(sum(conj(x) * w)): dL/dx (PyTorch's convention, conj Wirtinger) = w
    (y * w).real.sum().backward()
    assert not x.grad.is_conj()
    np.testing.assert_allclose(x.grad.numpy(), b, rtol=1e-12)
    xd = ember.tensor(a, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: (t.conj() * w).exp(), (xd,))
    assert ember.autograd.gradcheck(lambda t: t.conj().t().sum(0), (ember.tensor(crandn(2, 3), requires_grad=True),))


def test_autograd_of_inplace_ops_on_a_conjugate_view():
    a, b = crandn(3), crandn(3)
    w = ember.tensor(b)

    def through_base(t):
        y = t * 1
        y.conj().mul_(w)  # y becomes y * conj(w)
        return y

    def through_view(t):
        y = t * 1
        z = y.conj()
        z.mul_(w)
        return z * 2  # the view's history after the in-place op

    def assign(t):
        y = t * 1
        y.conj()[1] = 2 + 1j
        return y * y

    x = ember.tensor(a, requires_grad=True)
    for fn in (through_base, through_view, assign):
        assert ember.autograd.gradcheck(fn, (x,))
    # the closed form: L = Re(sum(c * y * conj(w))) gives dL/dx = conj(c * conj(w)) = conj(c) * w
    c = crandn(3)
    through_base(x).mul(ember.tensor(c)).real.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.conj(c) * b, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_resolving_keeps_special_values(dtype):
    # complex64 resolves by flipping the imaginary parts' sign bits: the same bits as negating them
    a = np.array([complex(1, -0.0), complex(0.0, 0.0), complex(np.nan, np.inf), complex(2, -np.inf), 1e-40j], dtype)
    y = ember.tensor(a).conj()
    for got in (y.resolve_conj(), y.clone(), ember.empty(len(a), dtype=y.dtype).copy_(y), y[::2].contiguous()):
        want = np.conj(a)[: got.shape[0]] if got.shape[0] == len(a) else np.conj(a)[::2]
        r = got.numpy()
        np.testing.assert_array_equal(np.signbit(r.imag), np.signbit(want.imag))
        np.testing.assert_array_equal(r, want)
