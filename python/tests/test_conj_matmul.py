"""Matrix products of conjugate views (Note [Conjugate operands of GEMM] in ember/backend/cpu/blas.cpp): the matmul
kernel folds the conjugate bit into BLAS's flags (CblasConjTrans, OpenBLAS's CblasConjNoTrans, dotc) instead of
multiplying a resolved copy. Every combination of bit and layout on each operand against NumPy, batched and broadcast,
the vector cases, out= and in-place variants, gradcheck through them, and the allocator's counts and the profiler's
kernel list showing that no copy is made (CUDA: against NumPy where a GPU is present)."""

import itertools

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from ember.profiler import profile

RNG = np.random.default_rng(2323)
CDTYPES = [np.complex64, np.complex128]
# Layouts of an operand's last two dims: row-major, column-major (a transposed view), row-major with a padded leading
# dim (a column slice), and with a step along the rows (neither: matmul copies it first, as for real dtypes).
LAYOUTS = ["row", "col", "padded", "stepped"]
# Products of at most 512 multiply-adds run ember's own loop (blas.cpp's kTinyGemm), larger ones BLAS.
SIZES = [(3, 4, 5), (9, 17, 13)]


def crandn(shape, dtype):
    if not np.issubdtype(dtype, np.complexfloating):
        return RNG.standard_normal(shape).astype(dtype)
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def operand(values, conj, layout, device="cpu"):
    """A tensor whose elements are `values` (NumPy, at least 2-d), with the conjugate bit when `conj` (its memory then
    holds the conjugates), its last two dims laid out as `layout`."""
    mem = np.conj(values) if conj else values
    if layout == "row":
        t = ember.tensor(np.ascontiguousarray(mem))
    elif layout == "col":
        t = ember.tensor(np.ascontiguousarray(np.swapaxes(mem, -1, -2))).transpose(-2, -1)
    elif layout == "padded":
        wide = np.zeros(mem.shape[:-1] + (mem.shape[-1] + 3,), mem.dtype)
        wide[..., : mem.shape[-1]] = mem
        t = ember.tensor(wide)[..., : mem.shape[-1]]
    else:
        tall = np.zeros(mem.shape[:-2] + (2 * mem.shape[-2], mem.shape[-1]), mem.dtype)
        tall[..., ::2, :] = mem
        t = ember.tensor(tall)[..., ::2, :]
    t = t.to(device)
    if conj:
        t = t.conj()
    assert t.is_conj() == conj
    return t


def vals(t):
    return t.cpu().resolve_conj().numpy()


def check(t, ref, dtype):
    """t's elements are ref (computed in complex128) within the dtype's rounding."""
    tol = 1e-4 if dtype == np.complex64 else 1e-11
    got = vals(t)
    assert got.dtype == dtype and got.shape == np.shape(ref), (got.dtype, got.shape, np.shape(ref))
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def combos():
    return itertools.product([False, True], LAYOUTS, [False, True], LAYOUTS)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("size", SIZES)
def test_mm_every_bit_and_layout(dtype, size):
    m, k, n = size
    a, b = crandn((m, k), dtype), crandn((k, n), dtype)
    ref = a.astype(np.complex128) @ b
    for ca, la, cb, lb in combos():
        x, y = operand(a, ca, la), operand(b, cb, lb)
        check(ember.mm(x, y), ref, dtype)
        check(x @ y, ref, dtype)
        # the operands are views: their memory is untouched (no write-back through the bit)
        check(x, a, dtype)
        check(y, b, dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_conjugate_transposes_as_written(dtype):
    a, b = crandn((17, 9), dtype), crandn((17, 13), dtype)
    x, y = ember.tensor(a), ember.tensor(b)
    ah = np.conj(a.astype(np.complex128)).T
    check(x.mH @ y, ah @ b, dtype)
    check(x.adjoint() @ y, ah @ b, dtype)
    check(x.conj().t() @ y, ah @ b, dtype)
    check(y.mH @ x, np.conj(b.astype(np.complex128)).T @ a, dtype)
    check(x.mH @ x, ah @ a, dtype)  # both operands share memory, one with the bit
    check(x @ x.mH, a.astype(np.complex128) @ ah, dtype)
    c = crandn((9, 13), dtype)  # both with the bit: a row-major and a transposed view
    check(x.conj() @ ember.tensor(c.T.copy()).mH, np.conj(a.astype(np.complex128)) @ np.conj(c), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_addmm_with_conjugate_operands_and_input(dtype):
    m, k, n = 9, 17, 13
    a, b, c = crandn((m, k), dtype), crandn((k, n), dtype), crandn((m, n), dtype)
    bias = crandn((n,), dtype)
    beta, alpha = 0.5 - 1j, 2 + 0.25j
    prod = a.astype(np.complex128) @ b
    for ca, la, cb, lb in combos():
        x, y = operand(a, ca, la), operand(b, cb, lb)
        for cc in (False, True):
            z = operand(c, cc, "row")
            check(ember.addmm(z, x, y, beta=beta, alpha=alpha), beta * c + alpha * prod, dtype)
        check(ember.addmm(ember.tensor(bias), x, y), bias + prod, dtype)
        check(ember.addmm(ember.tensor(np.conj(bias)).conj(), x, y, alpha=alpha), bias + alpha * prod, dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_batched_and_broadcast(dtype):
    m, k, n = 6, 11, 9
    a, b = crandn((2, 1, m, k), dtype), crandn((3, k, n), dtype)
    a3, b3 = crandn((3, m, k), dtype), crandn((3, k, n), dtype)
    c3 = crandn((3, m, n), dtype)
    ref = np.matmul(a.astype(np.complex128), b)
    ref3 = np.matmul(a3.astype(np.complex128), b3)
    for ca, la, cb, lb in combos():
        check(ember.matmul(operand(a, ca, la), operand(b, cb, lb)), ref, dtype)
        x3, y3 = operand(a3, ca, la), operand(b3, cb, lb)
        check(ember.bmm(x3, y3), ref3, dtype)
        check(ember.baddbmm(operand(c3, cb, "col"), x3, y3, beta=-1j, alpha=0.5), -1j * c3 + 0.5 * ref3, dtype)
    # a batch against one matrix (folded into one GEMM over all of a's rows), each side conjugate
    w = crandn((k, n), dtype)
    for ca, cb in itertools.product([False, True], repeat=2):
        check(operand(a3, ca, "row") @ operand(w, cb, "col"), np.matmul(a3.astype(np.complex128), w), dtype)
    # the batch dims of a conjugate view permuted: a non-contiguous batch
    p = crandn((k, 3, m), dtype)
    x = ember.tensor(np.conj(p)).conj().permute(1, 2, 0)  # [3, m, k], the bit on a permuted view
    check(ember.bmm(x, operand(b3, True, "col")), np.matmul(p.transpose(1, 2, 0).astype(np.complex128), b3), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_vector_cases(dtype):
    # sizes above the tiny-product cutoff: GEMV (matrix with the bit), GEMM (vector with the bit), dotc / dotu
    k, m, n = 40, 30, 25
    A, v, u = crandn((m, k), dtype), crandn((k,), dtype), crandn((m,), dtype)
    B = crandn((k, n), dtype)
    v2 = crandn((k,), dtype)
    w = ember.tensor(np.conj(v)).conj()  # v's values with the bit
    vv = ember.tensor(v)
    A128 = A.astype(np.complex128)
    for ca, la in itertools.product([False, True], LAYOUTS):
        X = operand(A, ca, la)
        check(ember.mv(X, vv), A128 @ v, dtype)
        check(ember.mv(X, w), A128 @ v, dtype)
        check(X @ w, A128 @ v, dtype)
        check(ember.addmv(ember.tensor(u), X, w, beta=2, alpha=1j), 2 * u + 1j * (A128 @ v), dtype)
        Y = operand(B, ca, la)
        check(w @ Y, v.astype(np.complex128) @ B, dtype)
        check(vv @ Y, v.astype(np.complex128) @ B, dtype)
    # a row and a column as matrices: [1, k] @ [k, n] and [m, k] @ [k, 1] with the bit on the vector side
    row = ember.tensor(np.conj(v)[:, None]).mH  # [1, k]: v's values, a transposed view with the bit
    check(row @ ember.tensor(B), v[None].astype(np.complex128) @ B, dtype)
    col = ember.tensor(np.conj(v)[None]).mH  # [k, 1]
    check(ember.tensor(A) @ col, A128 @ v[:, None], dtype)
    # dots: each side with the bit or not, contiguous and strided
    k2 = 600
    p, q = crandn((k2,), dtype), crandn((2 * k2,), dtype)[::2]
    ref = np.dot(p.astype(np.complex128), q)
    for cp, cq in itertools.product([False, True], repeat=2):
        x = ember.tensor(np.conj(p)).conj() if cp else ember.tensor(p)
        qq = np.conj(q) if cq else q
        y = ember.tensor(np.concatenate([qq[:, None], np.zeros((k2, 1), dtype)], 1).ravel())[::2]
        y = y.conj() if cq else y
        check(ember.dot(x, y), ref, dtype)
        check(x @ y, ref, dtype)
        check(ember.vdot(x, y), np.vdot(p.astype(np.complex128), q), dtype)
    check(ember.vdot(ember.tensor(v), ember.tensor(v2)), np.vdot(v.astype(np.complex128), v2), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_out_and_inplace_variants(dtype):
    m, k, n = 9, 17, 13
    a, b, c = crandn((k, m), dtype), crandn((k, n), dtype), crandn((m, n), dtype)
    ah = np.conj(a.astype(np.complex128)).T
    ref = ah @ b
    x, y = ember.tensor(a), ember.tensor(b)
    for fn in (ember.mm, ember.matmul):
        out = ember.empty(m, n, dtype=x.dtype)
        r = fn(x.mH, y, out=out)
        assert r is out
        check(out, ref, dtype)
        # out itself a conjugate view: its elements take the product, its memory the conjugates
        base = ember.zeros(m, n, dtype=x.dtype)
        fn(x.mH, y, out=base.conj())
        check(base, np.conj(ref), dtype)
    out = ember.empty(m, n, dtype=x.dtype)
    ember.addmm(ember.tensor(c), x.mH, y.conj().conj(), beta=1j, alpha=-1, out=out)
    check(out, 1j * c - ref, dtype)
    a3, b3 = crandn((2, k, m), dtype), crandn((2, k, n), dtype)
    out3 = ember.empty(2, m, n, dtype=x.dtype)
    ember.bmm(ember.tensor(a3).mH, ember.tensor(b3), out=out3)
    check(out3, np.matmul(np.conj(a3.astype(np.complex128)).transpose(0, 2, 1), b3), dtype)
    z = ember.tensor(c)
    z.addmm_(x.mH, y.mH.mH, alpha=2)
    check(z, c + 2 * ref, dtype)
    zc = ember.tensor(np.conj(c)).conj()  # in place on a conjugate view: its base takes the conjugates
    zc.addmm_(x.mH, y)
    check(zc, c + ref, dtype)
    check(zc.conj(), np.conj(c + ref.astype(dtype)), dtype)


def leaf(shape):
    return ember.tensor(crandn(shape, np.complex128)).requires_grad_()


GRAD_CASES = {
    "a.mH @ b": (lambda a, b: a.mH @ b, (4, 3), (4, 5)),
    "a @ b.mH": (lambda a, b: a @ b.mH, (3, 4), (5, 4)),
    "conj @ conj": (lambda a, b: a.conj() @ b.conj(), (3, 4), (4, 5)),
    "mm conj row": (lambda a, b: ember.mm(a.conj(), b), (3, 4), (4, 5)),
    "bmm mH": (lambda a, b: ember.bmm(a.mH, b), (2, 4, 3), (2, 4, 5)),
    "batched broadcast": (lambda a, b: ember.matmul(a, b.mH), (2, 1, 3, 4), (3, 5, 4)),
    "folded batch": (lambda a, b: a.conj() @ b.mH, (2, 3, 4), (5, 4)),
    "addmm": (lambda a, b: ember.addmm(a[0, :1].conj(), a.mH, b, beta=0.5 - 1j, alpha=1 + 2j), (4, 3), (4, 5)),
    "baddbmm": (lambda a, b: ember.baddbmm(b[:, :3, :2], a.mH, b.conj(), alpha=1j), (2, 4, 3), (2, 4, 2)),
    "mv conj": (lambda a, b: ember.mv(a.mH, b.conj()), (4, 3), (4,)),
    "vector @ conj": (lambda a, b: b.conj() @ a.mH, (4, 3), (3,)),
    "dot conj": (lambda a, b: ember.dot(a.conj(), b), (5,), (5,)),
    "vdot": (lambda a, b: ember.vdot(a, b.conj()), (5,), (5,)),
}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradcheck(name):
    f, sa, sb = GRAD_CASES[name]
    assert gradcheck(f, (leaf(sa), leaf(sb)))


def test_gradients_of_a_complex_product_against_closed_form():
    # loss = Re(sum(conj(w) * (a.mH @ b)))
    a, b, w = leaf((6, 4)), leaf((6, 5)), crandn((4, 5), np.complex128)
    y = a.mH @ b
    (y * ember.tensor(np.conj(w))).real.sum().backward()
    A, B = a.detach().numpy(), b.detach().numpy()
    # PyTorch's convention: the gradient of a real loss L is dL/d(conj z) * 2 = conj of the Wirtinger derivative
    # dL/dz; for L = Re(sum(conj(w) * A^H B)), grad_B = A w and grad_A = B w^H.
    np.testing.assert_allclose(b.grad.numpy(), A @ w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), B @ np.conj(w).T, rtol=1e-12, atol=1e-12)


# ---- no copies: the allocator's count and the profiler's kernel list


def allocs(fn):
    """How many blocks the CPU allocator handed out while fn() ran."""
    before = ember._C._cpu_memory_stats()["num_allocs"]
    fn()
    return ember._C._cpu_memory_stats()["num_allocs"] - before


def kernels(fn):
    with profile() as prof:
        fn()
    return sorted(e.name for e in prof.events())


# x [48, 32], y [48, 40], z [40, 48], v [48], X [3, 48, 32], Y [3, 48, 40]
NO_COPY_CASES = {
    "a.mH @ b": lambda x, y, z, v, X, Y: x.mH @ y,
    "a @ b.mH": lambda x, y, z, v, X, Y: z @ z.mH,
    "conj row-major": lambda x, y, z, v, X, Y: z.conj() @ x.conj(),
    "mm": lambda x, y, z, v, X, Y: ember.mm(x.mH, y),
    "addmm": lambda x, y, z, v, X, Y: ember.addmm(y[:32], x.mH, y.conj(), beta=2j),
    "bmm": lambda x, y, z, v, X, Y: ember.bmm(X.mH, Y),
    "broadcast matmul": lambda x, y, z, v, X, Y: ember.matmul(X.mH, y),
    "mv": lambda x, y, z, v, X, Y: ember.mv(x.mH, v.conj()),
    "vector @ mH": lambda x, y, z, v, X, Y: v.conj() @ x,
    "vdot": lambda x, y, z, v, X, Y: ember.vdot(v, v.conj()),
}


@pytest.mark.parametrize("name", NO_COPY_CASES)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_no_resolved_copy(name, dtype):
    f = NO_COPY_CASES[name]
    shapes = ((48, 32), (48, 40), (40, 48), (48,), (3, 48, 32), (3, 48, 40))
    args = tuple(ember.tensor(crandn(s, dtype)) for s in shapes)
    f(*args)  # warm the allocator's cache
    assert allocs(lambda: f(*args)) == 1  # the result alone
    names = kernels(lambda: f(*args))
    # no copy, and no sign flip (how a copy is conjugated: an xor of complex64's sign bits, a negation of complex128's
    # imaginary parts); addmm copies its input into the result first, as for real dtypes
    assert names.count("ember::matmul") == 1, names
    assert names.count("ember::copy") == (1 if name == "addmm" else 0), names
    assert "ember::bitwise_xor" not in names and "ember::neg" not in names, names


@pytest.mark.parametrize("dtype", CDTYPES)
def test_an_operand_blas_cannot_take_is_still_copied(dtype):
    # the measures above see copies: a stepped operand (neither row- nor column-major) is copied and conjugated
    x = ember.tensor(crandn((48, 64), dtype))[:, ::2]
    y = ember.tensor(crandn((48, 40), dtype))
    x.mH @ y
    assert allocs(lambda: x.mH @ y) == 2
    names = kernels(lambda: x.mH @ y)
    assert "ember::copy" in names and ("ember::bitwise_xor" in names or "ember::neg" in names), names


def backward_allocs(dtype, mH):
    """Blocks allocated by the backward of a @ b (a.mH @ b when mH), and the inputs' gradients."""
    a = ember.tensor(crandn((32, 48) if mH else (48, 32), dtype)).requires_grad_()
    b = ember.tensor(crandn((32, 40), dtype)).requires_grad_()
    g = ember.tensor(crandn((48, 40), dtype))
    f = (lambda: a.mH @ b) if mH else (lambda: a @ b)
    f().backward(g)  # warm the allocator's cache
    a.grad = b.grad = None
    y = f()
    n = allocs(lambda: y.backward(g))
    return n, a, b, g


@pytest.mark.parametrize("mH", [False, True])
def test_mm_backward_makes_no_copies(mH):
    # grad @ b.mH and a.mH @ grad read b and a through the bit: as many blocks as the same backward in float32 (it
    # copied both before). Through a.mH, ConjBackward0 conjugates a's gradient in memory: one block more, as a leaf's
    # .grad never has the bit in ember (PyTorch's .grad is then a conjugate view).
    n, a, b, g = backward_allocs(np.complex64, mH)
    n_real = backward_allocs(np.float32, mH)[0]
    assert n == n_real + (1 if mH else 0)
    A, B, G = (t.detach().numpy().astype(np.complex128) for t in (a, b, g))
    if mH:
        np.testing.assert_allclose(a.grad.numpy(), B @ np.conj(G).T, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(b.grad.numpy(), A @ G, rtol=1e-4, atol=1e-4)
    else:
        np.testing.assert_allclose(a.grad.numpy(), G @ np.conj(B).T, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(b.grad.numpy(), np.conj(A).T @ G, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("dtype", CDTYPES)
def test_cuda_every_bit_and_layout(dtype):
    # cuBLAS: CUBLAS_OP_C for a transposed operand with the bit, a resolved copy for a row-major one
    m, k, n = 9, 17, 13
    a, b = crandn((2, m, k), dtype), crandn((2, k, n), dtype)
    ref = np.matmul(a.astype(np.complex128), b)
    for ca, la, cb, lb in combos():
        x, y = operand(a, ca, la, "cuda"), operand(b, cb, lb, "cuda")
        check(ember.bmm(x, y), ref, dtype)
        check(x[0] @ y[0], ref[0], dtype)
    v = crandn((k, 1), dtype)
    # [1, k] with the bit: both readings hold, the column-major one is CUBLAS_OP_C
    check(ember.tensor(np.conj(v)).cuda().mH @ ember.tensor(b[0]).cuda(), v.T.astype(np.complex128) @ b[0], dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_complex_factors_count_their_imaginary_parts(dtype):
    # beta = 1j is neither 0 (input ignored) nor 1 (input added as it is): each add* op against NumPy
    m, k, n = 5, 6, 7
    A, B, C = crandn((m, k), dtype), crandn((k, n), dtype), crandn((m, n), dtype)
    u, v, w = crandn((k,), dtype), crandn((m,), dtype), crandn((n,), dtype)
    A3, B3 = crandn((2, m, k), dtype), crandn((2, k, n), dtype)
    t = ember.tensor
    P = A.astype(np.complex128) @ B
    for beta, alpha in [(1j, 1), (1 + 1j, 1 - 1j), (1, 1j)]:
        check(ember.addmm(t(C), t(A), t(B), beta=beta, alpha=alpha), beta * C + alpha * P, dtype)
        check(
            ember.addmv(t(v), t(A), t(u), beta=beta, alpha=alpha),
            beta * v + alpha * (A @ u.astype(np.complex128)),
            dtype,
        )
        check(ember.addr(t(C), t(v), t(w), beta=beta, alpha=alpha), beta * C + alpha * np.outer(v, w), dtype)
        bsum = np.einsum("bij,bjk->ik", A3.astype(np.complex128), B3)
        check(ember.addbmm(t(C), t(A3), t(B3), beta=beta, alpha=alpha), beta * C + alpha * bsum, dtype)
        check(ember.addmm(t(w), t(A), t(B), beta=beta, alpha=alpha), beta * w + alpha * P, dtype)  # a bias row
