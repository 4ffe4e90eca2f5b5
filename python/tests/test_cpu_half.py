"""bfloat16/float16 on the CPU: the vectorized float32 <-> 16-bit conversions (bit-identical to the scalar ones),
and the matrix products and convolutions that run in oneDNN's 16-bit kernels (float32 accumulation, one rounding):
against a float64 NumPy reference within 16-bit tolerance, and against the float32 computation rounded once."""

import numpy as np
import pytest

import ember
import ember.nn.functional as F

HALF = [ember.bfloat16, ember.float16]
BITS = {ember.bfloat16: ember.int16, ember.float16: ember.int16}
EPS = {ember.bfloat16: 2.0**-8, ember.float16: 2.0**-11}  # half an ulp at 1 (unit roundoff)


def scalar_convert(x, dtype):
    """x.to(dtype) through the scalar (half.h) conversion: a strided source takes the generic loop."""
    doubled = ember.stack([x, x], dim=1).reshape(-1)
    return doubled[::2].to(dtype)


# ---- conversions


@pytest.mark.parametrize("dtype", HALF)
def test_widen_all_16bit_values(dtype):
    bits = ember.arange(-(2**15), 2**15, dtype=ember.int32).to(ember.int16)
    h = bits.view(dtype)
    fast = h.float()
    slow = scalar_convert(h, ember.float32)
    assert np.array_equal(fast.view(ember.int32).numpy(), slow.view(ember.int32).numpy())
    if dtype == ember.float16:  # IEEE: NumPy agrees on every value (NaN payloads included)
        ref = bits.numpy().view(np.float16).astype(np.float32)
        assert np.array_equal(fast.numpy().view(np.uint32), ref.view(np.uint32))
    else:
        ref = (bits.numpy().astype(np.uint16).astype(np.uint32) << 16).view(np.float32)
        assert np.array_equal(fast.numpy().view(np.uint32), ref.view(np.uint32))


def float32_cases():
    rng = np.random.default_rng(0)
    u = rng.integers(0, 2**32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    # every float16/bfloat16 rounding boundary: halfway points, one bit either side, across the exponent range
    edges = []
    for e in range(0, 256):
        for mant in (
            0,
            1,
            0x7FFF,
            0x8000,
            0x8001,
            0xFFFF,
            0x17FFF,
            0x18000,
            0x18001,
            0xFFF,
            0x1000,
            0x1001,
            0x2FFF,
            0x3000,
            0x3001,
            0x7FFFFF,
            0x400000,
        ):
            edges.append((e << 23) | mant)
    edges = np.array(edges, dtype=np.uint32)
    edges = np.concatenate([edges, edges | np.uint32(0x80000000)])
    special = np.array(
        [
            0x7F800000,
            0xFF800000,
            0x7FC00000,
            0xFFC00000,
            0x7F800001,
            0xFFBFFFFF,
            0x7FFFFFFF,
            0x477FF000,
            0x477FEFFF,
            0x477FE000,
            0x38800000,
            0x387FFFFF,
            0x33000000,
            0x33000001,
            0x32FFFFFF,
            0x7F7FFFFF,
            0x00000001,
            0x007FFFFF,
        ],
        dtype=np.uint32,
    )
    return np.concatenate([u, edges, special]).view(np.float32)


@pytest.mark.parametrize("dtype", HALF)
def test_narrow_matches_scalar(dtype):
    x = ember.from_numpy(float32_cases())
    fast = x.to(dtype).view(ember.int16).numpy()
    slow = scalar_convert(x, dtype).view(ember.int16).numpy()
    assert np.array_equal(fast, slow)
    if dtype == ember.float16:  # IEEE round to nearest even; NaNs: half.h's canonical quiet NaN with the sign
        xs = x.numpy()
        ok = ~np.isnan(xs)  # (overflow to inf is the expected rounding)
        with np.errstate(over="ignore"):
            assert np.array_equal(fast[ok], xs[ok].astype(np.float16).view(np.int16))


@pytest.mark.parametrize("dtype", HALF)
def test_convert_layouts(dtype):
    x = ember.randn(37, 41) * 100
    ref = scalar_convert(x.reshape(-1), dtype).reshape(37, 41).float()
    assert ember.equal(x.to(dtype).float(), ref)
    assert ember.equal(x.t().to(dtype).float(), ref.t())  # transposed source
    assert ember.equal(x[:, 3:20].to(dtype).float(), ref[:, 3:20])  # rows with gaps
    out = ember.empty(37, 41, dtype=dtype)
    out.copy_(x)
    assert ember.equal(out.float(), ref)
    assert x[:0].to(dtype).shape == (0, 41)
    # mixed-dtype arithmetic loads 16-bit operands through the same conversions
    h = x.to(dtype)
    assert ember.equal(h + x, (h.float() + x))


# ---- matrix products


def rounded(t, dtype):
    return t.to(dtype).float()


def check_product(got, ref32, ref64, dtype, k):
    """got (16-bit) against the float32 computation rounded once (a couple of ulps: float32 summation order) and the
    float64 reference (16-bit tolerance)."""
    assert got.dtype == dtype
    g = got.float().numpy().astype(np.float64)
    r32 = ref32.numpy().astype(np.float64)
    scale = np.abs(r32).max() if r32.size else 1.0
    assert np.abs(g - r32).max(initial=0) <= 2 * 2 * EPS[dtype] * max(scale, 1e-30)
    assert np.abs(g - ref64).max(initial=0) <= (2 * EPS[dtype] * np.sqrt(max(k, 1)) + 1e-6) * max(scale, 1.0)


def half_inputs(dtype, *shapes, seed=0):
    ember.manual_seed(seed)
    return [ember.randn(*s).to(dtype) for s in shapes]


def np64(t):
    return t.detach().float().numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("m,k,n", [(64, 128, 96), (3, 300, 5), (1, 200, 70), (70, 200, 1), (4, 5, 6), (33, 1, 17)])
def test_mm(dtype, m, k, n):
    a, b = half_inputs(dtype, (m, k), (k, n))
    check_product(ember.mm(a, b), rounded(a.float() @ b.float(), dtype), np64(a) @ np64(b), dtype, k)
    # transposed and strided operands
    at, bt = a.t().contiguous().t(), b.t().contiguous().t()
    check_product(at @ bt, rounded(a.float() @ b.float(), dtype), np64(a) @ np64(b), dtype, k)
    a2 = ember.cat([a, a], dim=1)[:, ::2]
    check_product(a2 @ b, rounded(a2.float() @ b.float(), dtype), np64(a2) @ np64(b), dtype, k)


@pytest.mark.parametrize("dtype", HALF)
def test_bmm_matmul_broadcast(dtype):
    a, b, w = half_inputs(dtype, (6, 40, 50), (6, 50, 30), (50, 30))
    check_product(ember.bmm(a, b), rounded(ember.bmm(a.float(), b.float()), dtype), np64(a) @ np64(b), dtype, 50)
    check_product(a @ w, rounded(a.float() @ w.float(), dtype), np64(a) @ np64(w), dtype, 50)  # folded rows
    at = a.transpose(1, 2).contiguous().transpose(1, 2)
    check_product(ember.bmm(at, b), rounded(ember.bmm(a.float(), b.float()), dtype), np64(a) @ np64(b), dtype, 50)
    x, y = half_inputs(dtype, (4, 1, 40, 50), (3, 50, 30), seed=1)  # broadcast batch dims
    check_product(x @ y, rounded(x.float() @ y.float(), dtype), np64(x) @ np64(y), dtype, 50)
    v = half_inputs(dtype, (50,), seed=2)[0]
    check_product(a @ v, rounded(a.float() @ v.float(), dtype), np64(a) @ np64(v), dtype, 50)
    check_product(v @ w, rounded(v.float() @ w.float(), dtype), np64(v) @ np64(w), dtype, 50)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("alpha,beta", [(1, 1), (0.5, 2.0), (1.7, 0), (1, 0.3)])
def test_addmm_baddbmm(dtype, alpha, beta):
    c, a, b = half_inputs(dtype, (48, 40), (48, 64), (64, 40))
    ref = np64(c) * beta + alpha * (np64(a) @ np64(b))
    got = ember.addmm(c, a, b, beta=beta, alpha=alpha)
    check_product(
        got, rounded(ember.addmm(c.float(), a.float(), b.float(), beta=beta, alpha=alpha), dtype), ref, dtype, 64
    )
    cb, x, y = half_inputs(dtype, (5, 1, 40), (5, 48, 64), (5, 64, 40), seed=3)
    ref = np64(cb) * beta + alpha * (np64(x) @ np64(y))
    got = ember.baddbmm(cb, x, y, beta=beta, alpha=alpha)
    ref32 = rounded(ember.baddbmm(cb.float(), x.float(), y.float(), beta=beta, alpha=alpha), dtype)
    check_product(got, ref32, ref, dtype, 64)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", HALF)
def test_products_in_pieces_on_the_pool(dtype, threads):
    # Note [16-bit products on ember's threads]: products of 2^20 multiply-adds or more run in pieces of the output's
    # rows (or columns, when more), one per thread; each case against float32 rounded once and float64
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        a, b = half_inputs(dtype, (257, 128), (128, 64))  # rows, an uneven split
        check_product(a @ b, rounded(a.float() @ b.float(), dtype), np64(a) @ np64(b), dtype, 128)
        x, w, bias = half_inputs(dtype, (16, 256), (515, 256), (515,), seed=1)  # columns, with the bias cut too
        ref = np64(x) @ np64(w).T + np64(bias)
        check_product(
            F.linear(x, w, bias), rounded(F.linear(x.float(), w.float(), bias.float()), dtype), ref, dtype, 256
        )
        c, p, q = half_inputs(dtype, (300, 70), (300, 64), (64, 70), seed=2)  # beta reads the output in every piece
        ref = 0.5 * np64(c) + 2.0 * (np64(p) @ np64(q))
        ref32 = rounded(ember.addmm(c.float(), p.float(), q.float(), beta=0.5, alpha=2.0), dtype)
        check_product(ember.addmm(c, p, q, beta=0.5, alpha=2.0), ref32, ref, dtype, 64)
        u, v = half_inputs(dtype, (3, 200, 64), (3, 64, 90), seed=3)  # batched: every batch's rows are cut
        check_product(ember.bmm(u, v), rounded(ember.bmm(u.float(), v.float()), dtype), np64(u) @ np64(v), dtype, 64)
    finally:
        ember.set_num_threads(old)


def test_products_start_no_openmp_threads():
    # libgomp ends the process when it cannot start a worker (fuzz seed 203404261): ember never asks it for one
    import os
    import subprocess
    import sys

    code = """
import ctypes, os, ember
ember.set_num_threads(2)
x = ember.randn(256, 256)
(x @ x).sum()
before = len(os.listdir("/proc/self/task"))
a = ember.randn(512, 512).to(ember.bfloat16)
y = a @ a
print(before, len(os.listdir("/proc/self/task")), ctypes.CDLL("libgomp.so.1").omp_get_max_threads())
"""
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("needs /proc")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == out[1] and out[2] == "1", out


@pytest.mark.parametrize("dtype", HALF)
def test_linear_bias_and_nan(dtype):
    x, w, bias = half_inputs(dtype, (3, 20, 64), (48, 64), (48,))
    got = F.linear(x, w, bias)
    ref = np64(x) @ np64(w).T + np64(bias)
    check_product(got, rounded(F.linear(x.float(), w.float(), bias.float()), dtype), ref, dtype, 64)
    # beta 0 ignores NaN in the input; NaN in an operand propagates
    c = ember.full((48, 40), float("nan"), dtype=dtype)
    a, b = half_inputs(dtype, (48, 64), (64, 40))
    assert not ember.isnan(ember.addmm(c, a, b, beta=0).float()).any()
    a[3, 5] = float("nan")
    r = (a @ b).float()
    assert ember.isnan(r[3]).all() and not ember.isnan(r[4]).any()


@pytest.mark.parametrize("dtype", HALF)
def test_zero_size_products(dtype):
    a, b = half_inputs(dtype, (5, 0), (0, 7))
    assert ember.equal((a @ b).float(), ember.zeros(5, 7))
    c = ember.ones(5, 7, dtype=dtype)
    assert ember.equal(ember.addmm(c, a, b, beta=0.5).float(), ember.full((5, 7), 0.5))
    assert (ember.empty(0, 4, dtype=dtype) @ ember.empty(4, 3, dtype=dtype)).shape == (0, 3)
    assert ember.bmm(ember.empty(0, 4, 5, dtype=dtype), ember.empty(0, 5, 3, dtype=dtype)).shape == (0, 4, 3)


@pytest.mark.parametrize("dtype", HALF)
def test_product_gradients(dtype):
    a, b = half_inputs(dtype, (32, 48), (48, 24))
    a.requires_grad_(True)
    b.requires_grad_(True)
    g = half_inputs(dtype, (32, 24), seed=5)[0]
    (a @ b).backward(g)
    a32, b32 = a.detach().float().requires_grad_(True), b.detach().float().requires_grad_(True)
    (a32 @ b32).backward(g.float())
    assert a.grad.dtype == dtype and b.grad.dtype == dtype
    check_product(a.grad, rounded(a32.grad, dtype), np64(g) @ np64(b).T, dtype, 24)
    check_product(b.grad, rounded(b32.grad, dtype), np64(a).T @ np64(g), dtype, 32)


# ---- convolutions


def conv_ref64(x, w, bias, padding, stride):
    import itertools

    x, w = np64(x), np64(w)
    N, C, H, W = x.shape
    O, _, KH, KW = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    OH, OW = (H + 2 * padding - KH) // stride + 1, (W + 2 * padding - KW) // stride + 1
    out = np.zeros((N, O, OH, OW))
    for i, j in itertools.product(range(KH), range(KW)):
        patch = xp[:, :, i : i + stride * OH : stride, j : j + stride * OW : stride]
        out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    if bias is not None:
        out += np64(bias)[None, :, None, None]
    return out


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("padding,stride", [(1, 1), (0, 2)])
def test_conv2d(dtype, padding, stride):
    x, w, bias = half_inputs(dtype, (2, 16, 12, 12), (32, 16, 3, 3), (32,))
    got = F.conv2d(x, w, bias, padding=padding, stride=stride)
    ref32 = rounded(F.conv2d(x.float(), w.float(), bias.float(), padding=padding, stride=stride), dtype)
    check_product(got, ref32, conv_ref64(x, w, bias, padding, stride), dtype, 16 * 9)
    xt = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)  # channels-last input
    check_product(
        F.conv2d(xt, w, bias, padding=padding, stride=stride),
        ref32,
        conv_ref64(x, w, bias, padding, stride),
        dtype,
        16 * 9,
    )


@pytest.mark.parametrize("dtype", HALF)
def test_conv2d_backward(dtype):
    x, w, bias, g = half_inputs(dtype, (2, 8, 10, 10), (16, 8, 3, 3), (16,), (2, 16, 10, 10))
    for t in (x, w, bias):
        t.requires_grad_(True)
    F.conv2d(x, w, bias, padding=1).backward(g)
    x32, w32, b32 = (t.detach().float().requires_grad_(True) for t in (x, w, bias))
    F.conv2d(x32, w32, b32, padding=1).backward(g.float())
    for h, f, k in ((x, x32, 16 * 9), (w, w32, 2 * 100), (bias, b32, 200)):
        assert h.grad.dtype == dtype
        ref = f.grad.numpy().astype(np.float64)
        check_product(h.grad, rounded(f.grad, dtype), ref, dtype, k)


@pytest.mark.parametrize("dtype", HALF)
def test_conv_transpose_and_groups(dtype):
    x, w, wg = half_inputs(dtype, (2, 8, 7, 7), (8, 4, 3, 3), (8, 2, 3, 3))
    got = F.conv_transpose2d(x, w, stride=2, padding=1)
    ref = rounded(F.conv_transpose2d(x.float(), w.float(), stride=2, padding=1), dtype)
    assert got.dtype == dtype and ember.allclose(got.float(), ref, rtol=0, atol=4 * EPS[dtype] * ref.abs().max().item())
    got = F.conv2d(x, wg, groups=4)
    ref = rounded(F.conv2d(x.float(), wg.float(), groups=4), dtype)
    assert got.dtype == dtype and ember.allclose(got.float(), ref, rtol=0, atol=4 * EPS[dtype] * ref.abs().max().item())
    assert F.conv2d(ember.empty(0, 8, 7, 7, dtype=dtype), wg, groups=4).shape == (0, 8, 5, 5)


@pytest.mark.parametrize("dtype", HALF)
def test_conv1d_conv3d(dtype):
    x1, w1, x3, w3, b = half_inputs(dtype, (2, 8, 30), (16, 8, 5), (2, 4, 6, 7, 8), (16, 4, 3, 3, 3), (16,))
    for got, ref in (
        (
            F.conv1d(x1, w1, b, padding=2, dilation=2),
            F.conv1d(x1.float(), w1.float(), b.float(), padding=2, dilation=2),
        ),
        (F.conv3d(x3, w3, b, stride=(1, 2, 1)), F.conv3d(x3.float(), w3.float(), b.float(), stride=(1, 2, 1))),
    ):
        ref = rounded(ref, dtype)
        assert got.dtype == dtype and got.shape == ref.shape
        assert ember.allclose(got.float(), ref, rtol=0, atol=4 * EPS[dtype] * ref.abs().max().item())


# ---- threads


def test_openmp_wait_policy_default():
    """Note [OpenMP wait policy]: passive unless the user chose one."""
    import os
    import subprocess
    import sys

    code = "import ember, os; print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}

    def run(e):
        return subprocess.run(
            [sys.executable, "-c", code], env=e, capture_output=True, text=True, check=True
        ).stdout.split()

    assert run(env) == ["PASSIVE", "None"]
    assert run({**env, "OMP_WAIT_POLICY": "active"}) == ["active", "None"]
    assert run({**env, "GOMP_SPINCOUNT": "1000"}) == ["None", "1000"]
