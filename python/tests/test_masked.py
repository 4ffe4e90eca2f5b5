"""ember.masked against NumPy references written here (masked-out elements replaced by each op's identity, counts of
masked-in elements) and against PyTorch 2.15's torch.masked when it is installed: every function, dims, keepdim,
broadcast masks, fully masked rows, integer inputs, and the errors."""

import json
import os
import subprocess

import numpy as np
import pytest

import ember
from ember import masked

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")

X = np.array([[1.0, -2.0, 3.0, 0.5], [4.0, 5.0, -6.0, 2.0], [0.25, 7.0, 1.5, -1.0]])
M = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])


def t(a):
    return ember.tensor(a)


def test_reductions_against_numpy():
    x, m = t(X), t(M)
    filled = lambda v: np.where(M, X, v)  # noqa: E731
    for dim in (0, 1, (0, 1), None):
        axis = dim
        np.testing.assert_allclose(masked.sum(x, dim, mask=m).numpy(), filled(0).sum(axis=axis))
        np.testing.assert_allclose(masked.prod(x, dim, mask=m).numpy(), filled(1).prod(axis=axis))
        np.testing.assert_allclose(masked.amax(x, dim, mask=m).numpy(), filled(-np.inf).max(axis=axis))
        np.testing.assert_allclose(masked.amin(x, dim, mask=m).numpy(), filled(np.inf).min(axis=axis))
        count = M.sum(axis=axis)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = filled(0).sum(axis=axis) / count
            np.testing.assert_allclose(masked.mean(x, dim, mask=m).numpy(), mean)
            dev = np.where(M, X - np.expand_dims(mean, axis) if axis is not None else X - mean, 0)
            var = (dev**2).sum(axis=axis) / np.maximum(count - 1, 0)
        np.testing.assert_allclose(masked.var(x, dim, mask=m).numpy(), var)
        np.testing.assert_allclose(masked.std(x, dim, mask=m).numpy(), np.sqrt(var))
        np.testing.assert_allclose(masked.norm(x, 2.0, dim, mask=m).numpy(), np.sqrt((filled(0) ** 2).sum(axis=axis)))
        with np.errstate(divide="ignore"):
            lse = np.log(np.exp(filled(-np.inf)).sum(axis=axis))
        np.testing.assert_allclose(masked.logsumexp(x, dim, mask=m).numpy(), lse)
    assert masked.sum(x, 1, keepdim=True, mask=m).shape == (3, 1)
    np.testing.assert_array_equal(masked.argmax(x, 1, mask=m).numpy(), np.argmax(filled(-np.inf), 1))
    np.testing.assert_array_equal(masked.argmin(x, 1, mask=m).numpy(), np.argmin(filled(np.inf), 1))
    assert masked.argmax(x, 1, mask=m).dtype == ember.float64  # the input's dtype, as PyTorch's


def test_normalizations_against_numpy():
    x, m = t(X), t(M)
    e = np.exp(np.where(M, X, -np.inf))
    with np.errstate(invalid="ignore"):
        soft = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(masked.softmax(x, 1, mask=m).numpy(), soft)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(masked.log_softmax(x, 1, mask=m).numpy()[0], np.log(soft[0]))
    e2 = np.exp(-np.where(M, X, np.inf))
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(masked.softmin(x, 1, mask=m).numpy(), e2 / e2.sum(1, keepdims=True))
    np.testing.assert_allclose(masked.cumsum(x, 1, mask=m).numpy(), np.cumsum(np.where(M, X, 0), 1))
    np.testing.assert_allclose(masked.cumprod(x, 1, mask=m).numpy(), np.cumprod(np.where(M, X, 1), 1))
    nrm = np.maximum(np.sqrt((np.where(M, X, 0) ** 2).sum(1, keepdims=True)), 1e-12)
    np.testing.assert_allclose(masked.normalize(x, 2.0, 1, mask=m).numpy(), np.where(M, X, 0) / nrm)
    y = X[::-1].copy()
    got = masked.logaddexp(x, t(y), input_mask=m, other_mask=t(~M))
    np.testing.assert_allclose(got.numpy(), np.logaddexp(np.where(M, X, -np.inf), np.where(~M, y, -np.inf)))


def test_broadcast_mask_integers_and_no_mask():
    x = ember.tensor([[1, 2, 3], [4, 5, 6]], dtype=ember.int32)
    row = ember.tensor([True, False, True])
    s = masked.sum(x, 1, mask=row)
    assert s.dtype == ember.int64 and s.tolist() == [4, 10]
    assert masked.amax(x, 1, mask=ember.tensor([[False] * 3, [True] * 3])).tolist() == [-(2**31), 6]
    assert masked.sum(x).item() == 21 and masked.prod(x, 0).tolist() == [4, 10, 18]
    np.testing.assert_allclose(masked.mean(t(X), 1).numpy(), X.mean(1))


def test_errors():
    x = t(X)
    with pytest.raises(IndexError, match="mask dimensionality higher than of the input"):
        masked.sum(x, 0, mask=ember.ones(1, 3, 4, dtype=ember.bool))
    with pytest.raises(ValueError, match="mean\\(\\): Could not infer output dtype. Input dtype must be either"):
        masked.mean(ember.ones(3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="dim=1 appears multiple times"):
        masked.sum(x, (1, 1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        masked.amax(x, 2)


@needs_torch
def test_against_pytorch():
    calls = [
        ("sum", "(x, 1, mask=m)"),
        ("prod", "(x, 0, mask=m)"),
        ("amax", "(x, 1, mask=m)"),
        ("amin", "(x, None, mask=m)"),
        ("argmax", "(x, 1, mask=m)"),
        ("argmin", "(x, 0, mask=m)"),
        ("mean", "(x, 1, keepdim=True, mask=m)"),
        ("var", "(x, 1, correction=0, mask=m)"),
        ("std", "(x, (0, 1), mask=m)"),
        ("norm", "(x, 3.0, 1, mask=m)"),
        ("logsumexp", "(x, 1, mask=m)"),
        ("softmax", "(x, 1, mask=m)"),
        ("log_softmax", "(x, 0, mask=m)"),
        ("softmin", "(x, 1, mask=m)"),
        ("normalize", "(x, 1.0, 1, mask=m)"),
        ("cumsum", "(x, 1, mask=m)"),
        ("cumprod", "(x, 0, mask=m)"),
        ("logaddexp", "(x, x.flip(0), input_mask=m, other_mask=m.flip(1))"),
    ]
    script = (
        "import json, math, torch\n"
        f"x = torch.tensor({X.tolist()}, dtype=torch.float64)\nm = torch.tensor({M.tolist()})\n"
        "clean = lambda v: [None if isinstance(a, float) and math.isnan(a) else a for a in v]\n"
        f"calls = {calls!r}\n"
        "print(json.dumps({n: clean(eval('torch.masked.' + n + a).flatten().tolist()) for n, a in calls}))\n"
    )
    out = subprocess.run([TORCH_PY, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    theirs = json.loads(out.stdout.strip().splitlines()[-1])
    x, m = t(X), t(M)
    for name, args in calls:
        got = eval("masked." + name + args, {"masked": masked, "x": x, "m": m}).flatten().tolist()  # noqa: S307
        want = [np.nan if v is None else v for v in theirs[name]]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=name)
