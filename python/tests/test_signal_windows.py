"""ember.signal.windows: the eleven windows against their closed forms in NumPy (both sym settings, float32 and
float64, lengths 0..11), PyTorch's errors, requires_grad, and PyTorch 2.15's values when it is installed."""

import json
import os
import subprocess

import numpy as np
import pytest

import ember
from ember.signal import windows

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")

NUTTALL = [0.3635819, 0.4891775, 0.1365995, 0.0106411]


def cosine_sum(M, a, sym):
    N = M - 1 if sym else M
    n = np.arange(M)
    return sum((-1) ** i * c * np.cos(2 * np.pi * i * n / N) for i, c in enumerate(a))


def reference(name, M, sym, **kw):
    """The closed form of a window of M >= 2 points in float64."""
    n = np.arange(M, dtype=np.float64)
    N = M - 1 if sym else M
    half = (M - 1) / 2 if sym else M / 2
    if name == "hann":
        return cosine_sum(M, [0.5, 0.5], sym)
    if name == "hamming":
        return cosine_sum(M, [0.54, 0.46], sym)
    if name == "blackman":
        return cosine_sum(M, [0.42, 0.5, 0.08], sym)
    if name == "nuttall":
        return cosine_sum(M, NUTTALL, sym)
    if name == "general_cosine":
        return cosine_sum(M, kw["a"], sym)
    if name == "general_hamming":
        return cosine_sum(M, [kw["alpha"], 1 - kw["alpha"]], sym)
    if name == "bartlett":
        return 1 - np.abs(2 * n / N - 1)
    if name == "cosine":
        return np.sin(np.pi * (n + 0.5) / (M if sym else M + 1))
    if name == "exponential":
        c = kw.get("center") if kw.get("center") is not None else half
        return np.exp(-np.abs(n - c) / kw["tau"])
    if name == "gaussian":
        return np.exp(-((n - half) ** 2) / (2 * kw["std"] ** 2))
    if name == "kaiser":
        beta = kw["beta"]
        return np.i0(beta * np.sqrt(np.clip(1 - (2 * n / N - 1) ** 2, 0, None))) / np.i0(beta)
    raise AssertionError(name)


CASES = [
    ("hann", {}),
    ("hamming", {}),
    ("blackman", {}),
    ("nuttall", {}),
    ("bartlett", {}),
    ("cosine", {}),
    ("general_cosine", {"a": [0.46, 0.23, 0.31]}),
    ("general_hamming", {"alpha": 0.6}),
    ("exponential", {"tau": 2.5}),
    ("gaussian", {"std": 1.7}),
    ("kaiser", {"beta": 8.6}),
]


@pytest.mark.parametrize("name,kw", CASES)
@pytest.mark.parametrize("sym", [True, False])
def test_values_against_closed_forms(name, kw, sym):
    f = getattr(windows, name)
    for M in range(2, 12):
        want = reference(name, M, sym, **kw)
        got = f(M, sym=sym, dtype=ember.float64, **kw)
        assert got.dtype == ember.float64 and got.shape == (M,)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-14, err_msg=f"{name} M={M}")
        got32 = f(M, sym=sym, dtype=ember.float32, **kw)
        assert got32.dtype == ember.float32
        np.testing.assert_allclose(got32.numpy(), want, rtol=2e-6, atol=2e-7)
    assert f(0, sym=sym, **kw).shape == (0,)
    assert f(1, sym=sym, **kw).tolist() == [1.0]  # every window of one point (PyTorch's grids give 1 too)


def test_exponential_center_and_default_dtype():
    got = windows.exponential(6, center=1.5, tau=0.5, sym=False, dtype=ember.float64)
    np.testing.assert_allclose(got.numpy(), np.exp(-np.abs(np.arange(6) - 1.5) / 0.5), rtol=1e-13)
    assert windows.hann(4).dtype == ember.get_default_dtype()
    assert list(windows.__all__) == [
        "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
        "hann", "kaiser", "nuttall",
    ]  # fmt: skip


def test_requires_grad_records_the_formula():
    w = windows.gaussian(5, std=1.0, requires_grad=True, dtype=ember.float64)
    assert w.requires_grad and not w.is_leaf
    w.sum().backward()  # reaches the grid leaf without error
    leaf = windows.hann(1, requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf


def test_errors():
    with pytest.raises(ValueError, match="general_cosine requires non-negative window length, got M=-1"):
        windows.hann(-1)
    with pytest.raises(ValueError, match="kaiser requires non-negative window length, got M=-2"):
        windows.kaiser(-2)
    with pytest.raises(ValueError, match="blackman expects float32 or float64 dtypes, got: float16"):
        windows.blackman(4, dtype=ember.float16)
    with pytest.raises(ValueError, match="Tau must be positive, got: 0"):
        windows.exponential(4, tau=0.0)
    with pytest.raises(ValueError, match="Center must be None for symmetric windows"):
        windows.exponential(4, center=1.0)
    with pytest.raises(ValueError, match="Standard deviation must be positive, got: -1"):
        windows.gaussian(4, std=-1.0)
    with pytest.raises(ValueError, match="beta must be non-negative, got: -1"):
        windows.kaiser(4, beta=-1.0)
    with pytest.raises(ValueError, match="Coefficients cannot be empty"):
        windows.general_cosine(4, a=[])
    with pytest.raises(TypeError, match="Coefficients must be a list/tuple"):
        windows.general_cosine(4, a=3.0)
    with pytest.raises(ValueError, match="implemented for strided tensors only"):
        windows.bartlett(4, layout=object())


@needs_torch
def test_against_pytorch():
    script = (
        "import json, torch\nfrom torch.signal import windows as w\nout = {}\n"
        f"for name, kw in {CASES!r}:\n"
        "    for sym in (True, False):\n"
        "        for M in (1, 2, 7, 10):\n"
        "            out[f'{name} {sym} {M}'] = getattr(w, name)(M, sym=sym, dtype=torch.float64, **kw).tolist()\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([TORCH_PY, "-c", script], capture_output=True, text=True, check=True)
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, kw in CASES:
        for sym in (True, False):
            for M in (1, 2, 7, 10):
                got = getattr(windows, name)(M, sym=sym, dtype=ember.float64, **kw).tolist()
                np.testing.assert_allclose(got, theirs[f"{name} {sym} {M}"], rtol=1e-14, atol=1e-15, err_msg=name)
