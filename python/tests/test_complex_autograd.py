"""Autograd through complex tensors with PyTorch's convention (Note [Complex gradients] in docs/dtypes.md): gradcheck
on complex inputs (finite differences of the real pairs), gradients of real losses against PyTorch (subprocess, skipped
without it) and closed forms, and a LLaMA-style rotary embedding against its real-arithmetic formulation."""

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
RNG = np.random.default_rng(7)


def crandn(*shape):
    return ember.tensor(RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape), dtype=ember.complex128)


# name -> a function of complex tensors written the same way in ember and torch (`m` is the module)
FUNCS = {
    "mul": "lambda m, a, b: a * b",
    "div": "lambda m, a, b: a / b",
    "add_alpha": "lambda m, a, b: m.add(a, b, alpha=2 - 1j)",
    "sub": "lambda m, a, b: a - 3j * b",
    "exp": "lambda m, a, b: m.exp(a) * b",
    "log": "lambda m, a, b: m.log(a) + b",
    "sqrt": "lambda m, a, b: m.sqrt(a) * b",
    "rsqrt": "lambda m, a, b: m.rsqrt(a) + b",
    "reciprocal": "lambda m, a, b: m.reciprocal(a) * b",
    "sin_cos": "lambda m, a, b: m.sin(a) * m.cos(b)",
    "tan": "lambda m, a, b: m.tan(a) + b",
    "sinh_cosh": "lambda m, a, b: m.sinh(a) * m.cosh(b)",
    "tanh": "lambda m, a, b: m.tanh(a) * b",
    "sigmoid": "lambda m, a, b: m.sigmoid(a) + b",
    "pow_real": "lambda m, a, b: a ** 2.5 + b ** 2",
    "square_neg": "lambda m, a, b: m.square(a) - b",
    "abs": "lambda m, a, b: m.abs(a) * b",
    "angle": "lambda m, a, b: m.angle(a) * b",
    "sgn": "lambda m, a, b: m.sgn(a) * b",
    "real_imag": "lambda m, a, b: a.real * b + a.imag",
    "conj": "lambda m, a, b: a.conj() * b",
    "view_as_real": "lambda m, a, b: m.view_as_complex(m.view_as_real(a) * 2) * b",
    "sum_mean": "lambda m, a, b: (a * b).sum(0) + a.mean()",
    "prod": "lambda m, a, b: (a * b).reshape(2, 3).prod(1)",
    "cumsum": "lambda m, a, b: m.cumsum(a * b, 0)",
    "matmul": "lambda m, a, b: a.reshape(2, 3) @ b.reshape(3, 2)",
    "vdot_dot": "lambda m, a, b: m.vdot(a, b) + m.dot(a, b)",
    "where": "lambda m, a, b: m.where(a.real > 0, a, b)",
    "broadcast": "lambda m, a, b: a.reshape(6, 1) * b",
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_gradcheck(name):
    f = eval(FUNCS[name])
    a = crandn(6).requires_grad_()
    b = crandn(6).requires_grad_()
    assert gradcheck(lambda x, y: f(ember, x, y), (a, b))


@needs_torch
def test_gradients_match_pytorch():
    a = RNG.standard_normal((2, 6)).tolist()
    b = RNG.standard_normal((2, 6)).tolist()
    w = RNG.standard_normal((2, 6)).tolist()
    code = f"""
        import json, torch
        F = {FUNCS!r}
        A, B, W = {a!r}, {b!r}, {w!r}
        r = {{}}
        for name, src in F.items():
            f = eval(src)
            x = torch.complex(torch.tensor(A[0], dtype=torch.float64), torch.tensor(A[1], dtype=torch.float64))
            y = torch.complex(torch.tensor(B[0], dtype=torch.float64), torch.tensor(B[1], dtype=torch.float64))
            x.requires_grad_(); y.requires_grad_()
            out = f(torch, x, y).reshape(-1)
            wt = torch.complex(torch.tensor(W[0], dtype=torch.float64), torch.tensor(W[1], dtype=torch.float64))
            # a real loss of the complex result: sum |out|^2 and the real part of a weighted sum
            loss = (out.abs() ** 2).sum() + (out * wt.repeat(8)[: out.numel()]).real.sum()
            loss.backward()
            r[name] = [x.grad.real.tolist(), x.grad.imag.tolist(), y.grad.real.tolist(), y.grad.imag.tolist()]
        print(json.dumps(r))
    """
    out = subprocess.run([TORCH_PY, "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    want = json.loads(out.stdout)
    for name, src in FUNCS.items():
        f = eval(src)
        x = ember.complex(ember.tensor(a[0], dtype=ember.float64), ember.tensor(a[1], dtype=ember.float64))
        y = ember.complex(ember.tensor(b[0], dtype=ember.float64), ember.tensor(b[1], dtype=ember.float64))
        x.requires_grad_()
        y.requires_grad_()
        o = f(ember, x, y).reshape(-1)
        wt = ember.complex(ember.tensor(w[0], dtype=ember.float64), ember.tensor(w[1], dtype=ember.float64))
        loss = (o.abs() ** 2).sum() + (o * wt.repeat(8)[: o.numel()]).real.sum()
        loss.backward()
        got = [x.grad.real.tolist(), x.grad.imag.tolist(), y.grad.real.tolist(), y.grad.imag.tolist()]
        np.testing.assert_allclose(np.array(got), np.array(want[name]), rtol=1e-10, atol=1e-10, err_msg=name)


def test_closed_forms():
    # |z|^2 = z conj(z): the gradient is 2 z (dL/dx + i dL/dy)
    z = ember.tensor([1 + 1j, 2 - 3j], dtype=ember.complex128, requires_grad=True)
    (z * z.conj()).real.sum().backward()
    assert z.grad.tolist() == [2 + 2j, 4 - 6j]
    # Re(c z) for a constant c: d/dx = Re(c), d/dy = -Im(c), so the gradient is conj(c)
    z = ember.tensor([0.5 - 1j], dtype=ember.complex128, requires_grad=True)
    ((2 + 3j) * z).real.sum().backward()
    assert z.grad.tolist() == [2 - 3j]
    # a real leaf feeding a complex computation gets the real part
    x = ember.tensor([1.5], dtype=ember.float64, requires_grad=True)
    (x * (1 + 2j)).imag.sum().backward()
    assert x.grad.tolist() == [2.0] and x.grad.dtype == ember.float64
    # complex(re, im) and polar
    re = ember.tensor([3.0], dtype=ember.float64, requires_grad=True)
    im = ember.tensor([4.0], dtype=ember.float64, requires_grad=True)
    ember.abs(ember.complex(re, im)).sum().backward()
    assert re.grad.tolist() == [0.6] and im.grad.tolist() == [0.8]
    r = ember.tensor([2.0], dtype=ember.float64, requires_grad=True)
    th = ember.tensor([0.3], dtype=ember.float64, requires_grad=True)
    ember.polar(r, th).imag.sum().backward()  # r sin(th)
    np.testing.assert_allclose([r.grad.item(), th.grad.item()], [np.sin(0.3), 2 * np.cos(0.3)], rtol=1e-14)
    assert gradcheck(lambda a, b: ember.polar(a, b), (r.detach().requires_grad_(), th.detach().requires_grad_()))


# ---- rotary embeddings, LLaMA's way (complex) and the real-arithmetic way ----------------------------------------


def rope_complex(x, freqs_cis):
    xc = ember.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return ember.view_as_real(xc * freqs_cis).flatten(-2)


def rope_real(x, cos, sin):
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return ember.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], -1).flatten(-2)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_rotary_embedding_llama_way_matches_real(dtype):
    seq, heads, dim = 5, 2, 8
    inv = 1.0 / (10000 ** (ember.arange(0, dim, 2, dtype=dtype) / dim))
    angles = ember.outer(ember.arange(seq, dtype=dtype), inv)  # [seq, dim/2]
    freqs_cis = ember.polar(ember.ones_like(angles), angles).reshape(seq, 1, dim // 2)
    x = ember.tensor(RNG.standard_normal((3, seq, heads, dim)), dtype=dtype, requires_grad=True)
    y1 = rope_complex(x, freqs_cis)
    g = ember.tensor(RNG.standard_normal(y1.shape), dtype=dtype)
    (y1 * g).sum().backward()
    g1 = x.grad.clone()
    x.grad = None
    cos, sin = ember.cos(angles).reshape(seq, 1, -1), ember.sin(angles).reshape(seq, 1, -1)
    y2 = rope_real(x, cos, sin)
    (y2 * g).sum().backward()
    tol = 1e-6 if dtype == ember.float32 else 1e-13
    np.testing.assert_allclose(y1.detach().numpy(), y2.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(g1.numpy(), x.grad.numpy(), rtol=tol, atol=tol)
    assert y1.dtype == dtype


# ---- in-place writes through the parts (real views of a complex tensor) of a tensor with history -----------------

INPLACE = """
w = lib.tensor([[1 + 1j, 2 - 1j], [0.5j, 3]], dtype=lib.complex128, requires_grad=True)
z = w * (1 + 2j)
z.real[0].add_(z.imag[1])
lib.view_as_real(z)[1, 0, 1] = 7.0
r = z.t().imag
loss = (z * z.conj()).real.sum() + (r * r).sum()
loss.backward()
result = [[v.real, v.imag] for v in w.grad.flatten().tolist()]
"""


def test_inplace_on_parts_closed_form():
    w = ember.tensor([1 + 1j, 2 - 1j], dtype=ember.complex128, requires_grad=True)
    z = w * 1
    z.imag.mul_(3)  # z = x + 3iy: |z|^2 = x^2 + 9y^2, so the gradient is 2x + 18iy
    (z * z.conj()).real.sum().backward()
    assert w.grad.tolist() == [2 + 18j, 4 - 18j]


@needs_torch
def test_inplace_on_parts_matches_pytorch():
    code = "import json, torch\nlib = torch\n" + INPLACE + "print(json.dumps(result))\n"
    out = subprocess.run([TORCH_PY, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    ns = {"lib": ember}
    exec(INPLACE, ns)
    np.testing.assert_allclose(ns["result"], json.loads(out.stdout), rtol=1e-12)
