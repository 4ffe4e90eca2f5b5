"""Linear algebra (ember/ops/linalg.h; python/src/linalg_*.cpp and nn_linear.cpp; python/ember/linalg.py): the
matrix products against NumPy for every matmul case (dot, mv, 1-d operands, folded and broadcast batches, zero
sizes) in row-major, column-major, strided and broadcast layouts; integer and 16-bit matmul; add* ops, einsum,
tensordot, linear and bilinear; ember.linalg against numpy.linalg; and the error paths with PyTorch's messages."""

import ctypes
import math

import numpy as np
import pytest
from conftest import from_np, make_layout, to_np

import ember
import ember.linalg as LA
import ember.nn.functional as F

FLOATS = [ember.float32, ember.float64]
TOL = {ember.float32: dict(rtol=2e-5, atol=2e-5), ember.float64: dict(rtol=1e-11, atol=1e-11)}


def arr(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def close(t, expected, dtype=None, **tol):
    expected = np.asarray(expected, dtype=np.float64)
    assert tuple(t.shape) == expected.shape, (tuple(t.shape), expected.shape)
    if dtype is not None:
        assert t.dtype == dtype
    np.testing.assert_allclose(arr(t), expected, **(tol or TOL[t.dtype]))


def rand(rng, *shape, dtype=ember.float64, layout="contiguous"):
    """A tensor with values in [-1, 1) and its float64 NumPy values."""

    def values(rng, shape, dtype):
        return np.array(rng.uniform(-1, 1, shape), dtype=np.float32 if dtype is ember.float32 else np.float64, ndmin=0)

    t, a = make_layout(rng, shape, dtype, layout, values)
    return t, np.asarray(a, np.float64)


def spd(rng, n, batch=(), dtype=ember.float64):
    """A well-conditioned symmetric positive-definite batch: X X^T + n I."""
    x = rng.uniform(-1, 1, batch + (n, n))
    a = x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
    return from_np(a, dtype), a


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# ------------------------------------------------------------------------------------------------ matmul

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((2, 5, 2, 3), (3, 4)),  # folded into one product
    ((3,), (5, 3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),  # batched
    ((1, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (3, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((4, 1, 1, 3), (1, 3, 5)),
    ((1, 3), (3, 1)),
    ((1, 1), (1, 1)),
    ((4, 1), (1, 5)),
    ((1, 4), (4, 1)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((2, 3), (3, 0)),
    ((0, 2, 3), (0, 3, 4)),
    ((0,), (0,)),
    ((3, 2, 0), (0,)),
    # above the size that a plain loop computes: through BLAS (GEMM, GEMV, DOT)
    ((600,), (600,)),
    ((40, 30), (30,)),
    ((30,), (30, 40)),
    ((3, 40, 30), (30,)),
    ((3, 1, 30), (30, 40)),
    ((2, 20, 30), (2, 30, 10)),
    ((3, 20, 30), (1, 30, 10)),
    ((20, 30), (4, 30, 10)),
    ((2, 1, 1, 30), (3, 30, 20)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
def test_matmul_shapes(rng, sa, sb, dtype):
    a, na = rand(rng, *sa, dtype=dtype)
    b, nb = rand(rng, *sb, dtype=dtype)
    close(ember.matmul(a, b), np.matmul(na, nb), dtype)
    close(a @ b, np.matmul(na, nb), dtype)


@pytest.mark.parametrize("la", ["contiguous", "transposed", "stepped", "expanded"])
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "stepped", "expanded"])
@pytest.mark.parametrize(
    "sa,sb",
    [
        ((4, 6), (6, 5)),
        ((3, 4, 6), (3, 6, 5)),
        ((3, 4, 6), (6, 5)),
        ((6,), (6, 5)),
        ((4, 6), (6,)),
        ((3, 1, 6), (3, 6, 5)),
        ((16, 24), (24, 20)),
        ((3, 16, 24), (3, 24, 20)),
        ((3, 16, 24), (24, 20)),
        ((40,), (40, 30)),
        ((30, 40), (40,)),
        ((3, 1, 40), (3, 40, 30)),
        ((1, 40), (40, 30)),
        ((30, 40), (40, 1)),
    ],
)
def test_matmul_layouts(rng, sa, sb, la, lb):
    a, na = rand(rng, *sa, dtype=ember.float32, layout=la)
    b, nb = rand(rng, *sb, dtype=ember.float32, layout=lb)
    close(ember.matmul(a, b), np.matmul(na, nb))


def test_matmul_transposed_operands_take_no_copy_and_give_the_same(rng):
    # Row- and column-major operands go to BLAS as they are (transpose flags): results agree with a contiguous copy.
    a, na = rand(rng, 70, 50)
    b, nb = rand(rng, 50, 60)
    for x, y in [
        (a, b),
        (a.t().contiguous().t(), b),
        (a, b.t().contiguous().t()),
        (a.t().contiguous().t(), b.t().contiguous().t()),
    ]:
        close(x @ y, na @ nb)
    close(b.t() @ a.t(), (na @ nb).T)


def test_matmul_large_batch_of_small_matrices_runs_in_parallel_and_agrees(rng):
    a, na = rand(rng, 300, 4, 5)
    b, nb = rand(rng, 300, 5, 3)
    close(ember.bmm(a, b), na @ nb)
    v, nv = rand(rng, 300, 5, 1)
    close(ember.matmul(a, v), na @ nv)


def test_matmul_large(rng):
    a, na = rand(rng, 300, 200, dtype=ember.float32)
    b, nb = rand(rng, 200, 250, dtype=ember.float32)
    close(a @ b, na @ nb, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_large_matrix_vector_products_split_across_threads(rng, dtype):
    """A large GEMV runs in one block of rows (or columns) of the output per thread: every layout of the matrix, a
    side that is not a whole number of blocks, beta, and beta 0 over NaN, against NumPy at 1 and 2 threads."""
    tol = dict(rtol=1e-4, atol=1e-3) if dtype == ember.float32 else {}
    before = ember.get_num_threads()
    try:
        for threads in (1, 2):
            ember.set_num_threads(threads)
            for m, k in [(1001, 700), (333, 1600)]:
                w, nw = rand(rng, m, k, dtype=dtype)
                x, nx = rand(rng, k, dtype=dtype)
                y, ny = rand(rng, m, dtype=dtype)
                close(w @ x, nw @ nx, **tol)  # n == 1, row-major
                close(w.t().contiguous().t() @ x, nw @ nx, **tol)  # n == 1, column-major
                close(x.unsqueeze(0) @ w.t(), nx[None] @ nw.T, **tol)  # m == 1, a linear layer's transposed weight
                close(x.unsqueeze(0) @ w.t().contiguous(), nx[None] @ nw.T, **tol)  # m == 1, row-major
                close(ember.addmv(y, w, x, beta=0.5, alpha=2), 0.5 * ny + 2 * (nw @ nx), **tol)
                nan = ember.full((m,), math.nan, dtype=dtype)
                close(ember.addmv(nan, w, x, beta=0), nw @ nx, **tol)
                close(ember.addmm(nan.unsqueeze(0), x.unsqueeze(0), w.t(), beta=0), nx[None] @ nw.T, **tol)
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize(
    "dtype,np_dtype",
    [
        (ember.int64, np.int64),
        (ember.int32, np.int32),
        (ember.int16, np.int16),
        (ember.int8, np.int8),
        (ember.uint8, np.uint8),
    ],
)
def test_integer_matmul_wraps_like_numpy(rng, dtype, np_dtype):
    lo, hi = (0, 200) if np_dtype is np.uint8 else (-100, 100)
    na = rng.integers(lo, hi, (3, 4, 5)).astype(np_dtype)
    nb = rng.integers(lo, hi, (5, 2)).astype(np_dtype)
    r = ember.matmul(from_np(na, dtype), from_np(nb, dtype))
    assert r.dtype == dtype
    np.testing.assert_array_equal(to_np(r), np.matmul(na, nb))
    nv = rng.integers(lo, hi, (5,)).astype(np_dtype)
    np.testing.assert_array_equal(to_np(ember.mv(from_np(na[0], dtype), from_np(nv, dtype))), na[0] @ nv)


def test_integer_addmm_with_beta_alpha(rng):
    na, nb, nc = (rng.integers(-9, 9, s) for s in [(3, 4), (4, 2), (3, 2)])
    r = ember.addmm(from_np(nc), from_np(na), from_np(nb), beta=2, alpha=3)
    np.testing.assert_array_equal(to_np(r), 2 * nc + 3 * (na @ nb))


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_half_matmul_computes_in_float32_and_rounds(rng, dtype):
    a = ember.randn(4, 8, 16).to(dtype)
    b = ember.randn(16, 3).to(dtype)
    r = a @ b
    assert r.dtype == dtype
    expected = (a.float() @ b.float()).to(dtype)
    assert r.tolist() == expected.tolist()
    assert ember.mm(a[0], b).tolist() == expected[0].tolist()


def test_bool_matmul_is_refused():
    a = ember.ones(2, 2, dtype=ember.bool)
    with pytest.raises(NotImplementedError, match="\"addmm_impl_cpu_\" not implemented for 'Bool'"):
        a @ a


def test_matmul_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        ember.mm(ember.zeros(2, 3), ember.zeros(4, 5))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        ember.zeros(2, 3) @ ember.zeros(4, 5)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x3 and 4x5\)"):
        ember.zeros(2, 3, 3) @ ember.zeros(4, 5)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"):
        ember.zeros(3) @ ember.zeros(4, 5)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float != double"):
        ember.mm(ember.zeros(2, 3), ember.zeros(3, 2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: long int != float"):
        ember.zeros(2, 3, dtype=ember.int64) @ ember.zeros(3, 2)
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D, but they are 0D and 2D"):
        ember.matmul(ember.tensor(1.0), ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        ember.mm(ember.zeros(3), ember.zeros(3, 2))
    with pytest.raises(RuntimeError, match="mat2 must be a matrix"):
        ember.mm(ember.zeros(2, 3), ember.zeros(3))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        ember.bmm(ember.zeros(2, 3), ember.zeros(2, 3, 4))
    with pytest.raises(RuntimeError, match="batch2 must be a 3D tensor"):
        ember.bmm(ember.zeros(2, 2, 3), ember.zeros(3, 4))
    with pytest.raises(
        RuntimeError,
        match=r"Expected size for first two dimensions of batch2 tensor to be: "
        r"\[2, 3\] but got: \[2, 4\]\.",
    ):
        ember.bmm(ember.zeros(2, 2, 3), ember.zeros(2, 4, 5))
    with pytest.raises(
        RuntimeError,
        match=r"Expected size for first two dimensions of batch2 tensor to be: "
        r"\[6, 3\] but got: \[6, 4\]\.",
    ):
        ember.zeros(2, 3, 2, 3) @ ember.zeros(3, 4, 5)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        ember.bmm(ember.zeros(2, 2, 3), ember.zeros(2, 3, 4, dtype=ember.float64))
    with pytest.raises(
        RuntimeError,
        match="The size of tensor a \\(2\\) must match the size of tensor b \\(3\\) at non-singleton dimension 0",
    ):
        ember.zeros(2, 2, 3) @ ember.zeros(3, 3, 4)
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"):
        ember.mv(ember.zeros(2, 3), ember.zeros(4))
    with pytest.raises(RuntimeError, match="vector \\+ matrix @ vector expected, got 1, 2, 2"):
        ember.mv(ember.zeros(2, 3), ember.zeros(3, 1))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        ember.dot(ember.zeros(2, 3), ember.zeros(3))
    with pytest.raises(
        RuntimeError,
        match=r"inconsistent tensor size, expected tensor \[3\] and src \[4\] to have "
        "the same number of elements, but got 3 and 4 elements respectively",
    ):
        ember.dot(ember.zeros(3), ember.zeros(4))
    with pytest.raises(
        RuntimeError, match="dot : expected both vectors to have same dtype, but found Float and Double"
    ):
        ember.dot(ember.zeros(3), ember.zeros(3, dtype=ember.float64))
    with pytest.raises(
        RuntimeError, match="vdot : expected both vectors to have same dtype, but found Float and Double"
    ):
        ember.vdot(ember.zeros(3), ember.zeros(3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument self, but got 2-D"):
        ember.outer(ember.zeros(2, 2), ember.zeros(2))
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument vec2, but got 2-D"):
        ember.outer(ember.zeros(2), ember.zeros(2, 2))
    with pytest.raises(TypeError):
        ember.zeros(2, 2) @ 3


def test_matmul_methods_operators_and_out(rng):
    a, na = rand(rng, 3, 4)
    b, nb = rand(rng, 4, 2)
    close(a.matmul(b), na @ nb)
    close(a.mm(b), na @ nb)
    close(b.__rmatmul__(a), na @ nb)
    out = ember.empty(3, 2, dtype=ember.float64)
    assert ember.matmul(a, b, out=out) is out
    close(out, na @ nb)
    sq, nsq = rand(rng, 4, 4)
    x = a.clone()
    x @= sq
    close(x, na @ nsq)
    with pytest.raises(RuntimeError, match="cannot be written into self of shape"):
        y = a.clone()
        y @= b


# ---------------------------------------------------------------------------------------- the other products


def test_dot_vdot_outer_inner_ger(rng):
    a, na = rand(rng, 5)
    b, nb = rand(rng, 5)
    close(ember.dot(a, b), np.dot(na, nb))
    close(a.dot(b), np.dot(na, nb))
    close(ember.vdot(a, b), np.vdot(na, nb))
    close(ember.outer(a, b), np.outer(na, nb))
    close(ember.ger(a, b), np.outer(na, nb))
    close(a.outer(b), np.outer(na, nb))
    m, nm = rand(rng, 2, 3, 5)
    n, nn = rand(rng, 4, 5)
    close(ember.inner(m, n), np.inner(nm, nn))
    close(ember.inner(a, b), np.inner(na, nb))
    close(ember.inner(ember.tensor(2.0, dtype=ember.float64), m), 2 * nm)
    with pytest.raises(
        RuntimeError,
        match=r"inner\(\) the last dimension must match on both input tensors but got "
        r"shapes \[2, 3, 5\] and \[4\]",
    ):
        ember.inner(m, ember.zeros(4, dtype=ember.float64))


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
def test_add_products(rng, dtype):
    c, nc = rand(rng, 3, 4, dtype=dtype)
    c1, nc1 = rand(rng, 4, dtype=dtype)
    a, na = rand(rng, 3, 5, dtype=dtype)
    b, nb = rand(rng, 5, 4, dtype=dtype)
    close(ember.addmm(c, a, b), nc + na @ nb)
    close(ember.addmm(c1, a, b, beta=0.5, alpha=2), 0.5 * nc1 + 2 * (na @ nb))
    close(c.addmm(a, b, alpha=-1), nc - na @ nb)
    v, nv = rand(rng, 5, dtype=dtype)
    i3, ni3 = rand(rng, 3, dtype=dtype)
    close(ember.addmv(i3, a, v, beta=2, alpha=0.5), 2 * ni3 + 0.5 * (na @ nv))
    w, nw = rand(rng, 4, dtype=dtype)
    close(ember.addr(c, i3, w, beta=0.5, alpha=3), 0.5 * nc + 3 * np.outer(ni3, nw))
    b1, nb1 = rand(rng, 2, 3, 5, dtype=dtype)
    b2, nb2 = rand(rng, 2, 5, 4, dtype=dtype)
    close(ember.baddbmm(c, b1, b2, beta=2, alpha=0.5), 2 * nc + 0.5 * (nb1 @ nb2))
    close(ember.addbmm(c, b1, b2, beta=2, alpha=0.5), 2 * nc + 0.5 * (nb1 @ nb2).sum(0))
    close(ember.bmm(b1, b2), nb1 @ nb2)
    close(b1.bmm(b2), nb1 @ nb2)


@pytest.mark.parametrize("m,k,n", [(3, 5, 4), (30, 20, 25)], ids=["loop", "blas"])
def test_add_products_with_beta_zero_ignore_nan_input(rng, m, k, n):
    a, na = rand(rng, m, k)
    b, nb = rand(rng, k, n)
    nan = ember.full((m, n), math.nan, dtype=ember.float64)
    close(ember.addmm(nan, a, b, beta=0), na @ nb)
    close(ember.baddbmm(nan.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), beta=0), (na @ nb)[None])
    v, nv = rand(rng, k)
    close(ember.addmv(ember.full((m,), math.nan, dtype=ember.float64), a, v, beta=0), na @ nv)
    w, nw = rand(rng, m)
    close(ember.addmm(ember.full((1, 1), math.nan, dtype=ember.float64), w.unsqueeze(0), a, beta=0), nw[None] @ na)
    close(ember.addmm(nan[:1, :1], w.unsqueeze(0), w.unsqueeze(1), beta=0), nw[None] @ nw[:, None])


def test_add_products_in_place_and_out(rng):
    c, nc = rand(rng, 3, 4)
    a, na = rand(rng, 3, 5)
    b, nb = rand(rng, 5, 4)
    x = c.clone()
    assert x.addmm_(a, b, beta=2) is x
    close(x, 2 * nc + na @ nb)
    y = c.clone().unsqueeze(0)
    y.baddbmm_(a.unsqueeze(0), b.unsqueeze(0))
    close(y, (nc + na @ nb)[None])
    z = c.clone()
    z.addbmm_(a.unsqueeze(0), b.unsqueeze(0), alpha=2)
    close(z, nc + 2 * na @ nb)
    v, nv = rand(rng, 5)
    w = ember.zeros(3, dtype=ember.float64)
    w.addmv_(a, v)
    close(w, na @ nv)
    r = ember.zeros(3, 4, dtype=ember.float64)
    r.addr_(ember.ones(3, dtype=ember.float64), ember.ones(4, dtype=ember.float64))
    close(r, np.ones((3, 4)))
    out = ember.empty(3, 4, dtype=ember.float64)
    assert ember.addmm(c, a, b, out=out) is out
    close(out, nc + na @ nb)
    with pytest.raises(RuntimeError, match="cannot be written into self of shape"):
        ember.zeros(4, dtype=ember.float64).addmm_(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (2.5, -0.5), (0, 1)])
def test_addmm_in_place_accumulates_into_self(rng, dtype, beta, alpha):
    # the GEMM accumulates into a dense self when nothing is recorded; other cases go through the product and a copy
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    nc, na, nb = (rng.standard_normal(s).astype(dtype) for s in [(20, 48), (20, 33), (33, 48)])
    if beta == 0:
        nc[3, 5] = math.nan  # beta 0 ignores self, NaN included
    want = (0 if beta == 0 else beta * nc.astype(np.float64)) + alpha * (na.astype(np.float64) @ nb)
    a, b = ember.from_numpy(na), ember.from_numpy(nb)
    x = ember.from_numpy(nc.copy())
    v = x._version
    assert x.addmm_(a, b, beta=beta, alpha=alpha) is x
    np.testing.assert_allclose(x.numpy(), want, **tol)
    assert x._version == v + 1
    # m2 as a transposed view, m1 as a column-major one
    x = ember.from_numpy(nc.copy())
    x.addmm_(ember.from_numpy(np.asfortranarray(na)), ember.from_numpy(nb.T.copy()).t(), beta=beta, alpha=alpha)
    np.testing.assert_allclose(x.numpy(), want, **tol)
    # self overlapping an operand: computed from the values before the write
    sq = rng.standard_normal((20, 20)).astype(dtype)
    y = ember.from_numpy(sq.copy())
    y.addmm_(y, y, beta=beta, alpha=alpha)
    sq64 = sq.astype(np.float64)
    np.testing.assert_allclose(y.numpy(), (0 if beta == 0 else beta * sq64) + alpha * sq64 @ sq64, **tol)
    # a non-contiguous self (a column slice) and one that records a graph
    big = ember.from_numpy(np.concatenate([nc, nc], axis=1))
    big[:, :48].addmm_(a, b, beta=beta, alpha=alpha)
    np.testing.assert_allclose(big[:, :48].numpy(), want, **tol)
    np.testing.assert_array_equal(big[:, 48:].numpy(), nc)
    leaf = ember.from_numpy(nc.copy()).requires_grad_()
    z = leaf.clone()
    z.addmm_(a, b, beta=beta, alpha=alpha)
    np.testing.assert_allclose(z.detach().numpy(), want, **tol)
    z.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), np.full(nc.shape, beta, dtype), **tol)


def test_add_product_errors():
    with pytest.raises(RuntimeError, match="mat1 must be a matrix, got 1-D tensor"):
        ember.addmm(ember.zeros(2), ember.zeros(2), ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="expected mat1 and mat2 to have the same dtype, but got: float != double"):
        ember.addmm(ember.zeros(2, 2), ember.zeros(2, 2), ember.zeros(2, 2, dtype=ember.float64))
    with pytest.raises(
        RuntimeError,
        match=r"The expanded size of the tensor \(4\) must match the existing size \(3\) "
        r"at non-singleton dimension 1",
    ):
        ember.addmm(ember.zeros(3), ember.zeros(2, 2), ember.zeros(2, 4))
    with pytest.raises(RuntimeError, match="self and mat2 must have the same dtype, but got Double and Float"):
        ember.addmm(ember.zeros(2, 2, dtype=ember.float64), ember.zeros(2, 2), ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="batch1 and batch2 must have same number of batches, got 2 and 3"):
        ember.addbmm(ember.zeros(2, 2), ember.zeros(2, 2, 2), ember.zeros(3, 2, 2))
    with pytest.raises(RuntimeError, match=r"Incompatible matrix sizes for bmm \(2x3 and 4x2\)"):
        ember.addbmm(ember.zeros(2, 2), ember.zeros(2, 2, 3), ember.zeros(2, 4, 2))
    with pytest.raises(RuntimeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        ember.addr(ember.zeros(2, 2), ember.zeros(2, 2), ember.zeros(2))


# ---------------------------------------------------------------------------------------------------- einsum

EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,jk", [(2, 2, 3, 4), (4, 5)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ba", [(3, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 4)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
    ("i...->...", [(2, 3, 4)]),
    ("...,...->...", [(2, 3), (3,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,kl->ijkl", [(2, 3), (4, 5)]),
    ("iji->j", [(3, 4, 3)]),
    ("...i,...i", [(2, 1, 4), (3, 4)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(rng, eq, shapes):
    ts, ns = zip(*[rand(rng, *s) for s in shapes])
    close(ember.einsum(eq, *ts), np.einsum(eq, *ns))


def test_einsum_forms(rng):
    a, na = rand(rng, 3, 4)
    b, nb = rand(rng, 4, 5)
    close(ember.einsum("ij,jk->ik", [a, b]), na @ nb)
    close(ember.einsum("ij,jk->ik", (a, b)), na @ nb)
    close(ember.einsum(a, [0, 1], b, [1, 2], [0, 2]), na @ nb)
    close(ember.einsum(a, [Ellipsis, 1], b, [1, 2]), na @ nb)
    close(ember.einsum(" ij , jk -> ik ", a, b), na @ nb)
    t, nt = rand(rng, 3, 4, layout="transposed")
    close(ember.einsum("ij,jk", t, b), nt @ nb)


def test_einsum_errors():
    a = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="einsum\\(\\): more operands were provided than specified in the equation"):
        ember.einsum("ij", a, a)
    with pytest.raises(RuntimeError, match="einsum\\(\\): fewer operands were provided than were specified"):
        ember.einsum("ij,jk", a)
    with pytest.raises(
        RuntimeError,
        match=r"the number of subscripts in the equation \(3\) does not match the number "
        r"of dimensions \(2\) for operand 0 and no ellipsis was given",
    ):
        ember.einsum("ijk", a)
    with pytest.raises(
        RuntimeError,
        match=r"the number of subscripts in the equation \(3\) is more than the number of "
        r"dimensions \(2\) for operand 0",
    ):
        ember.einsum("ijk...", a)
    with pytest.raises(
        RuntimeError,
        match="invalid subscript given at index 1 in the equation string, subscripts must "
        r"be in \[a-zA-Z\]",
    ):
        ember.einsum("i1", a)
    with pytest.raises(RuntimeError, match="output subscript k does not appear in the equation for any input operand"):
        ember.einsum("ij->k", a)
    with pytest.raises(RuntimeError, match="output subscript i appears more than once in the output"):
        ember.einsum("ij->ii", a)
    with pytest.raises(RuntimeError, match="subscript i is repeated for operand 0 but the sizes don't match, 2 != 3"):
        ember.einsum("ii->i", a)
    with pytest.raises(RuntimeError, match=r"operands do not broadcast with remapped shapes \(original->remapped\)"):
        ember.einsum("ij,ij->ij", a, ember.zeros(2, 4))
    with pytest.raises(RuntimeError, match="found '.' for operand 0 that is not part of any ellipsis"):
        ember.einsum("i.j", a)


# ---------------------------------------------------------------------------- tensordot, multi_dot, linear


def test_tensordot(rng):
    a, na = rand(rng, 3, 4, 5)
    b, nb = rand(rng, 4, 5, 6)
    close(ember.tensordot(a, b), np.tensordot(na, nb))
    close(ember.tensordot(a, b, dims=2), np.tensordot(na, nb, 2))
    c, nc = rand(rng, 5, 2)
    close(ember.tensordot(a, c, dims=1), np.tensordot(na, nc, 1))
    close(ember.tensordot(a, b, dims=([1, 2], [0, 1])), np.tensordot(na, nb, ([1, 2], [0, 1])))
    close(ember.tensordot(a, b, dims=[[1], [0]]), np.tensordot(na, nb, ([1], [0])))
    close(ember.tensordot(a, a, dims=0), np.tensordot(na, na, 0))
    with pytest.raises(
        RuntimeError,
        match="contracted dimensions need to match, but first has size 3 in dim 0 and second has size 4 in dim 0",
    ):
        ember.tensordot(a, b, dims=([0], [0]))
    with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
        ember.tensordot(a, b, dims=([0, 1], [0]))
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0, but got dims=-1"):
        ember.tensordot(a, b, dims=-1)


def test_multi_dot_and_chain_matmul(rng):
    ts, ns = zip(*[rand(rng, *s) for s in [(3, 4), (4, 5), (5, 2), (2, 6)]])
    close(LA.multi_dot(list(ts)), np.linalg.multi_dot(ns))
    close(ember.chain_matmul(*ts), np.linalg.multi_dot(ns))
    v, nv = rand(rng, 3)
    w, nw = rand(rng, 6)
    close(LA.multi_dot([v, *ts, w]), np.linalg.multi_dot([nv, *ns, nw]))
    close(ember.chain_matmul(ts[0]), ns[0])
    with pytest.raises(RuntimeError, match=r"multi_dot\(\): expected at least 2 tensors but got 1"):
        LA.multi_dot([ts[0]])
    with pytest.raises(
        RuntimeError,
        match=r"multi_dot\(\): tensors 0 and 1 with shapes \[3, 4\] and \[5, 2\] cannot "
        "be multiplied",
    ):
        LA.multi_dot([ts[0], ts[2]])
    with pytest.raises(RuntimeError, match=r"multi_dot\(\): tensor 1 must be 2D but got 1D"):
        LA.multi_dot([ts[0], v, ts[1]])


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4), (5, 1, 4)])
def test_linear(rng, shape):
    x, nx = rand(rng, *shape)
    w, nw = rand(rng, 6, 4)
    b, nb = rand(rng, 6)
    close(F.linear(x, w, b), nx @ nw.T + nb)
    close(F.linear(x, w), nx @ nw.T)
    wt, nwt = rand(rng, 6, 4, layout="transposed")
    close(F.linear(x, wt, b), nx @ nwt.T + nb)


def test_linear_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        F.linear(ember.zeros(2, 3), ember.zeros(5, 4))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x3 and 4x5\)"):
        F.linear(ember.zeros(2, 3, 3), ember.zeros(5, 4))
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Float and Double"):
        F.linear(ember.zeros(2, 3), ember.zeros(5, 3, dtype=ember.float64))


def test_bilinear(rng):
    x1, n1 = rand(rng, 2, 3, 4)
    x2, n2 = rand(rng, 2, 3, 5)
    w, nw = rand(rng, 6, 4, 5)
    b, nb = rand(rng, 6)
    close(F.bilinear(x1, x2, w, b), np.einsum("...i,oij,...j->...o", n1, nw, n2) + nb)
    close(F.bilinear(x1[0, 0], x2[0, 0], w), np.einsum("i,oij,j->o", n1[0, 0], nw, n2[0, 0]))
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input dimensions do not match: got 3 and 2"):
        F.bilinear(x1, x2[0], w)
    with pytest.raises(
        RuntimeError,
        match=r"bilinear\(\): input batch dimensions do not match: got \[2, 3, 4\] and "
        r"\[3, 3, 5\]",
    ):
        F.bilinear(x1, ember.zeros(3, 3, 5, dtype=ember.float64), w)
    with pytest.raises(
        RuntimeError, match="bilinear\\(\\): input1 size does not match weight size: got 4 but expected 3"
    ):
        F.bilinear(x1, x2, ember.zeros(6, 3, 5, dtype=ember.float64))
    with pytest.raises(
        RuntimeError, match="bilinear\\(\\): input2 size does not match weight size: got 5 but expected 2"
    ):
        F.bilinear(x1, x2, ember.zeros(6, 4, 2, dtype=ember.float64))
    with pytest.raises(
        RuntimeError, match="bilinear\\(\\): bias size does not match weight size: got 2 but expected 6"
    ):
        F.bilinear(x1, x2, w, ember.zeros(2, dtype=ember.float64))


# ------------------------------------------------------------------------------------------------ ember.linalg


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_inv_solve_det(rng, dtype, batch):
    A, nA = spd(rng, 4, batch, dtype)
    A = A - 2 * A.tril(-1)  # not symmetric
    nA = arr(A)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype is ember.float32 else dict(rtol=1e-10, atol=1e-10)
    close(LA.inv(A), np.linalg.inv(nA), **tol)
    close(ember.inverse(A), np.linalg.inv(nA), **tol)
    B, nB = rand(rng, *batch, 4, 2, dtype=dtype)
    close(LA.solve(A, B), np.linalg.solve(nA, nB), **tol)
    v, nv = rand(rng, *batch, 4, dtype=dtype)
    close(LA.solve(A, v), np.linalg.solve(nA, nv[..., None])[..., 0], **tol)
    Bl, nBl = rand(rng, *batch, 2, 4, dtype=dtype)
    close(
        LA.solve(A, Bl, left=False),
        np.swapaxes(np.linalg.solve(np.swapaxes(nA, -1, -2), np.swapaxes(nBl, -1, -2)), -1, -2),
        **tol,
    )
    close(LA.det(A), np.linalg.det(nA), rtol=tol["rtol"] * 10, atol=0)
    close(A.det(), np.linalg.det(nA), rtol=tol["rtol"] * 10, atol=0)
    sign, logabs = LA.slogdet(A)
    ns, nl = np.linalg.slogdet(nA)
    close(sign, ns, **tol)
    close(logabs, nl, **tol)
    assert LA.slogdet(A).sign is not None and ember.slogdet(A).logabsdet is not None


def test_solve_broadcasts_batches(rng):
    A, nA = spd(rng, 3, (2, 1))
    B, nB = rand(rng, 4, 3, 2)
    close(LA.solve(A, B), np.linalg.solve(nA, nB))
    v, nv = rand(rng, 3)
    close(LA.solve(A, v), np.linalg.solve(nA, np.broadcast_to(nv, (2, 1, 3))[..., None])[..., 0])


def test_det_of_singular_and_negative(rng):
    s = ember.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=ember.float64)
    assert LA.det(s).item() == 0.0
    sign, logabs = LA.slogdet(s)
    assert sign.item() == 0.0 and logabs.item() == -math.inf
    n = ember.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=ember.float64)
    assert LA.det(n).item() == -1.0
    assert math.isnan(ember.logdet(n).item())
    assert ember.logdet(ember.eye(3, dtype=ember.float64) * 2).item() == pytest.approx(3 * math.log(2))
    assert LA.det(ember.zeros(0, 0, dtype=ember.float64)).item() == 1.0


def test_solve_triangular(rng):
    A, nA = rand(rng, 2, 4, 4)
    A = A + 4 * ember.eye(4, dtype=ember.float64)
    nA = arr(A)
    B, nB = rand(rng, 2, 4, 3)
    for upper in (True, False):
        T = np.triu(nA) if upper else np.tril(nA)
        close(LA.solve_triangular(A, B, upper=upper), np.linalg.solve(T, nB))
        U = T.copy()
        idx = np.arange(4)
        U[..., idx, idx] = 1
        close(LA.solve_triangular(A, B, upper=upper, unitriangular=True), np.linalg.solve(U, nB))
        Bt = np.swapaxes(nB, -1, -2)
        close(
            LA.solve_triangular(A, from_np(Bt), upper=upper, left=False),
            np.swapaxes(np.linalg.solve(np.swapaxes(T, -1, -2), nB), -1, -2),
        )


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
def test_cholesky(rng, dtype):
    A, nA = spd(rng, 5, (3,), dtype)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype is ember.float32 else {}
    L = LA.cholesky(A)
    close(L, np.linalg.cholesky(nA), **tol)
    close(LA.cholesky(A, upper=True), np.swapaxes(np.linalg.cholesky(nA), -1, -2), **tol)
    close(ember.cholesky(A), np.linalg.cholesky(nA), **tol)
    close(A.cholesky(upper=True), np.swapaxes(np.linalg.cholesky(nA), -1, -2), **tol)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (2, 3, 5)])
def test_qr(rng, shape):
    A, nA = rand(rng, *shape)
    m, n = shape[-2:]
    k = min(m, n)
    for mode, qc in [("reduced", k), ("complete", m)]:
        Q, R = LA.qr(A, mode=mode)
        assert tuple(Q.shape) == shape[:-2] + (m, qc) and tuple(R.shape) == shape[:-2] + (qc, n)
        nQ, nR = arr(Q), arr(R)
        np.testing.assert_allclose(nQ @ nR, nA, atol=1e-12)
        np.testing.assert_allclose(
            np.swapaxes(nQ, -1, -2) @ nQ, np.broadcast_to(np.eye(qc), nQ.shape[:-2] + (qc, qc)), atol=1e-12
        )
        np.testing.assert_array_equal(nR, np.triu(nR))
        np.testing.assert_allclose(np.abs(nR), np.abs(np.linalg.qr(nA, mode=mode)[1]), atol=1e-12)
    Q, R = LA.qr(A, mode="r")
    assert tuple(Q.shape) == (0,)
    np.testing.assert_allclose(np.abs(arr(R)), np.abs(np.linalg.qr(nA, mode="r")), atol=1e-12)
    Q, R = ember.qr(A)
    np.testing.assert_allclose(arr(Q) @ arr(R), nA, atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (2, 3, 5)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(rng, shape, full):
    A, nA = rand(rng, *shape)
    U, S, Vh = LA.svd(A, full_matrices=full)
    nU, nS, nVh = np.linalg.svd(nA, full_matrices=full)
    assert tuple(U.shape) == nU.shape and tuple(Vh.shape) == nVh.shape
    close(S, nS)
    k = nS.shape[-1]
    np.testing.assert_allclose((arr(U)[..., :k] * arr(S)[..., None, :]) @ arr(Vh)[..., :k, :], nA, atol=1e-12)
    for Q in (arr(U), np.swapaxes(arr(Vh), -1, -2)):
        c = Q.shape[-1]
        np.testing.assert_allclose(
            np.swapaxes(Q, -1, -2) @ Q, np.broadcast_to(np.eye(c), Q.shape[:-2] + (c, c)), atol=1e-12
        )
    close(LA.svdvals(A), nS)
    U2, S2, V2 = ember.svd(A)
    np.testing.assert_allclose((arr(U2) * arr(S2)[..., None, :]) @ np.swapaxes(arr(V2), -1, -2), nA, atol=1e-12)


def test_svd_of_empty_and_nonfinite():
    U, S, Vh = LA.svd(ember.zeros(3, 0, dtype=ember.float64))
    assert tuple(S.shape) == (0,) and arr(U).tolist() == np.eye(3).tolist() and tuple(Vh.shape) == (0, 0)
    with pytest.raises(
        RuntimeError,
        match="linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.",
    ):
        LA.svd(ember.tensor([[1.0, math.nan], [0.0, 1.0]]))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(rng, uplo):
    X, nX = rand(rng, 3, 5, 5)
    L, V = LA.eigh(X, UPLO=uplo)
    nL, nV = np.linalg.eigh(nX, UPLO=uplo)
    close(L, nL)
    sym = (
        np.tril(nX) + np.swapaxes(np.tril(nX, -1), -1, -2)
        if uplo == "L"
        else np.triu(nX) + np.swapaxes(np.triu(nX, 1), -1, -2)
    )
    np.testing.assert_allclose(sym @ arr(V), arr(V) * arr(L)[..., None, :], atol=1e-12)
    close(LA.eigvalsh(X, UPLO=uplo), nL)
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        LA.eigh(X, UPLO="X")


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (4, 4)])
def test_lstsq(rng, driver, shape):
    A, nA = rand(rng, 2, *shape)
    m, n = shape
    B, nB = rand(rng, 2, m, 2)
    r = LA.lstsq(A, B, driver=driver)
    expected = np.stack([np.linalg.lstsq(nA[i], nB[i], rcond=None)[0] for i in range(2)])
    close(r.solution, expected, rtol=1e-9, atol=1e-9)
    drv = driver or "gelsy"
    if m > n and drv != "gelsy":
        close(r.residuals, np.sum((nA @ expected - nB) ** 2, axis=-2), rtol=1e-9, atol=1e-9)
    else:
        assert tuple(r.residuals.shape) == (0,)
    if drv == "gels":
        assert tuple(r.rank.shape) == (0,)
    else:
        assert r.rank.dtype == ember.int64 and r.rank.tolist() == [min(m, n)] * 2
    if drv in ("gelsd", "gelss"):
        close(r.singular_values, np.linalg.svd(nA, compute_uv=False))
    else:
        assert tuple(r.singular_values.shape) == (0,)
    v, nv = rand(rng, m)
    x = LA.lstsq(A[0], v, driver=driver).solution
    close(x, np.linalg.lstsq(nA[0], nv, rcond=None)[0], rtol=1e-9, atol=1e-9)


def test_lstsq_rank_deficient_and_errors(rng):
    A = ember.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], dtype=ember.float64)
    b = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)
    r = LA.lstsq(A, b, driver="gelsd")
    assert r.rank.item() == 1 and tuple(r.residuals.shape) == (0,)
    close(r.solution, np.linalg.lstsq(arr(A), arr(b), rcond=None)[0])
    with pytest.raises(
        RuntimeError,
        match=r"torch.linalg.lstsq: parameter `driver` should be one of \(gels, gelsy, "
        r"gelsd, gelss\)",
    ):
        LA.lstsq(A, b, driver="foo")
    with pytest.raises(RuntimeError, match=r"torch.linalg.lstsq: input.size\(-2\) should match other.size\(-1\)"):
        LA.lstsq(A, ember.zeros(2, dtype=ember.float64))
    with pytest.raises(
        RuntimeError,
        match=r"torch.linalg.lstsq: input.dim\(\) must be greater or equal to "
        r"other.dim\(\) and \(input.dim\(\) - other.dim\(\)\) <= 1",
    ):
        LA.lstsq(A, ember.zeros(2, 2, 3, dtype=ember.float64))
    with pytest.raises(
        RuntimeError,
        match="Expected input and other to have the same dtype, but got input's dtype Double and other's dtype Float",
    ):
        LA.lstsq(A, ember.zeros(3))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_pinv(rng, shape):
    A, nA = rand(rng, *shape)
    close(LA.pinv(A), np.linalg.pinv(nA), rtol=1e-9, atol=1e-9)
    close(ember.pinverse(A), np.linalg.pinv(nA), rtol=1e-9, atol=1e-9)
    s = ember.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=ember.float64)
    close(LA.pinv(s), np.linalg.pinv(arr(s)))
    close(LA.pinv(s, hermitian=True), np.linalg.pinv(arr(s), hermitian=True))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, -1, -3])
def test_matrix_power(rng, n):
    A, nA = spd(rng, 3, (2,))
    A = A / 3
    nA = arr(A)
    close(LA.matrix_power(A, n), np.linalg.matrix_power(nA, n), rtol=1e-10, atol=1e-10)
    close(ember.matrix_power(A, n), np.linalg.matrix_power(nA, n), rtol=1e-10, atol=1e-10)
    ni = np.array([[1, 2], [3, 4]])
    assert ember.matrix_power(from_np(ni), 3).tolist() == np.linalg.matrix_power(ni, 3).tolist()


@pytest.mark.parametrize("ord", ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm(rng, ord, keepdim):
    A, nA = rand(rng, 2, 3, 4)
    close(LA.matrix_norm(A, ord, keepdim=keepdim), np.linalg.norm(nA, ord, axis=(-2, -1), keepdims=keepdim))
    close(LA.matrix_norm(A, ord, dim=(0, 2), keepdim=keepdim), np.linalg.norm(nA, ord, axis=(0, 2), keepdims=keepdim))
    close(LA.matrix_norm(A, ord, dim=(2, 0)), np.linalg.norm(nA, ord, axis=(2, 0)))
    close(LA.norm(A[0], ord), np.linalg.norm(nA[0], ord))
    close(LA.norm(A, ord, dim=(1, 2)), np.linalg.norm(nA, ord, axis=(1, 2)))


def test_norm_vector_cases_and_errors(rng):
    A, nA = rand(rng, 2, 3, 4)
    close(LA.norm(A), np.linalg.norm(nA.ravel()))
    close(LA.norm(A, 3, dim=1), np.linalg.norm(nA, 3, axis=1))
    close(LA.norm(A[0, 0], 1), np.linalg.norm(nA[0, 0], 1))
    close(LA.norm(A, dim=(0, 1)), np.linalg.norm(nA, axis=(0, 1)))
    close(LA.matrix_norm(A.float(), dtype=ember.float64), np.linalg.norm(arr(A.float()), axis=(-2, -1)))
    with pytest.raises(
        RuntimeError, match="linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."
    ):
        LA.norm(A, 2)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Order 3.* not supported."):
        LA.matrix_norm(A, 3)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Order foo not supported."):
        LA.matrix_norm(A, "foo")
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: The input tensor A must have at least 2 dimensions."):
        LA.matrix_norm(A[0, 0])
    with pytest.raises(RuntimeError, match=r"linalg.matrix_norm: dims must be different. Got \(1, 1\)"):
        LA.matrix_norm(A, dim=(1, 1))


def test_vecdot(rng):
    a, na = rand(rng, 3, 4)
    b, nb = rand(rng, 4)
    close(LA.vecdot(a, b), (na * nb).sum(-1))
    close(LA.vecdot(a, a, dim=0), (na * na).sum(0))


def test_linalg_errors():
    with pytest.raises(
        RuntimeError, match="linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"
    ):
        LA.inv(ember.zeros(2, 3))
    with pytest.raises(RuntimeError, match="linalg.inv: The input tensor A must have at least 2 dimensions."):
        LA.inv(ember.zeros(3))
    with pytest.raises(
        RuntimeError, match="linalg.inv: Expected a floating point or complex tensor as input. Got Long"
    ):
        LA.inv(ember.zeros(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="linalg.inv: Low precision dtypes not supported. Got Half"):
        LA.inv(ember.zeros(2, 2, dtype=ember.float16))
    singular = ember.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(
        RuntimeError,
        match="linalg.inv: The diagonal element 2 is zero, the inversion could not be "
        "completed because the input matrix is singular.",
    ):
        LA.inv(singular)
    with pytest.raises(RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 2 is zero"):
        LA.inv(ember.stack([ember.eye(2), singular]))
    with pytest.raises(RuntimeError, match="linalg.solve: The solver failed because the input matrix is singular."):
        LA.solve(singular, ember.ones(2))
    with pytest.raises(
        RuntimeError,
        match=r"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
        r"\(2x2 and 3x1\)",
    ):
        LA.solve(ember.eye(2), ember.ones(3, 1))
    with pytest.raises(
        RuntimeError,
        match="linalg.solve: Expected A and B to have the same dtype, but found A of type "
        "Float and B of type Double instead",
    ):
        LA.solve(ember.eye(2), ember.ones(2, dtype=ember.float64))
    with pytest.raises(
        RuntimeError,
        match=r"linalg.cholesky: The factorization could not be completed because the "
        r"input is not positive-definite \(the leading minor of order 2 is not "
        r"positive-definite\).",
    ):
        LA.cholesky(ember.tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(
        RuntimeError,
        match=r"linalg.cholesky: \(Batch element 0\): The factorization could not be "
        "completed",
    ):
        LA.cholesky(ember.tensor([[[-1.0, 0.0], [0.0, 1.0]]]))
    with pytest.raises(
        RuntimeError,
        match="qr received unrecognized mode 'foo' but expected one of 'reduced' "
        r"\(default\), 'r', or 'complete'",
    ):
        LA.qr(ember.eye(2), mode="foo")
    with pytest.raises(
        RuntimeError, match="linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"
    ):
        LA.det(ember.zeros(2, 3))
    with pytest.raises(
        RuntimeError, match="linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices"
    ):
        LA.matrix_power(ember.zeros(2, 3), 2)
    with pytest.raises(RuntimeError, match="linalg.svd: The input tensor A must have at least 2 dimensions."):
        LA.svd(ember.zeros(3))
    with pytest.raises(RuntimeError, match="linalg.eigh: A must be batches of square matrices"):
        LA.eigh(ember.zeros(2, 3))
    with pytest.raises(
        RuntimeError,
        match=r"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
        r"AX = B \(2x2 and 3x1\)",
    ):
        LA.solve_triangular(ember.eye(2), ember.ones(3, 1), upper=True)


def test_linalg_results_are_namedtuples(rng):
    A, _ = spd(rng, 3)
    assert type(LA.qr(A)).__name__ == "linalg_qr" and LA.qr(A).Q is not None
    assert set(LA.svd(A)._fields) == {"U", "S", "Vh"}
    assert LA.eigh(A)._fields == ("eigenvalues", "eigenvectors")
    assert LA.lstsq(A, A)._fields == ("solution", "residuals", "rank", "singular_values")
    assert ember.svd(A)._fields == ("U", "S", "V")


def test_openblas_threads_follow_the_kind_of_call():
    # GEMMs run single-threaded inside OpenBLAS on ember's pool; LAPACK routines use ember's thread count
    # (Note [GEMMs on ember's threads]).
    lib = ctypes.CDLL("libopenblas.so.0")
    old = ember.get_num_threads()
    a = ember.randn(64, 64) + 8 * ember.eye(64)
    try:
        ember.set_num_threads(2)
        ember.linalg.solve(a, a)
        assert lib.openblas_get_num_threads() == 2
        a @ a
        assert lib.openblas_get_num_threads() == 1
        ember.linalg.solve(a, a)
        assert lib.openblas_get_num_threads() == 2
        ember.set_num_threads(1)
        ember.linalg.solve(a, a)
        assert lib.openblas_get_num_threads() == 1
    finally:
        ember.set_num_threads(old)
