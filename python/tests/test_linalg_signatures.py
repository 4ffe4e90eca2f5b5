"""The Python surface of the linear algebra bindings (python/src/linalg_*.cpp, nn_linear.cpp, python/ember/linalg.py):
every keyword form PyTorch 2.15 accepts, under its documented names and under its argument parser's (linalg's A /
input), gives the positional result and NumPy's; the out_dtype forms of mm/bmm/addmm/baddbmm; out= for the functions
that return several tensors; ember._C._linalg's __all__; LinAlgError; and the docstrings' examples."""

import doctest
import inspect
import pickle

import numpy as np
import pytest

import ember
import ember.linalg as LA
import ember.nn.functional as F


def arr(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def same(a, b):
    assert tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype
    np.testing.assert_array_equal(arr(a), arr(b))


def close(t, expected, tol=1e-10):
    expected = np.asarray(expected, dtype=np.float64)
    assert tuple(t.shape) == expected.shape, (tuple(t.shape), expected.shape)
    np.testing.assert_allclose(arr(t), expected, rtol=tol, atol=tol)


RNG = np.random.default_rng(0)
M = RNG.uniform(-1, 1, (3, 3))
SPD = M @ M.T + 3 * np.eye(3)
B = RNG.uniform(-1, 1, (3, 2))


def t(a):
    return ember.tensor(a, dtype=ember.float64)


# ---------------------------------------------------------------------------------------- products: keyword forms


def test_products_accept_pytorchs_keywords():
    a, b, v = t(M), t(B), t(B[:, 0])
    close(ember.matmul(input=a, other=b), M @ B)
    close(ember.mm(input=a, mat2=b), M @ B)
    close(ember.mv(input=a, vec=v), M @ B[:, 0])
    close(ember.dot(input=v, tensor=v), B[:, 0] @ B[:, 0])
    close(ember.vdot(input=v, other=v), B[:, 0] @ B[:, 0])
    close(ember.outer(input=v, vec2=v), np.outer(B[:, 0], B[:, 0]))
    close(ember.ger(input=v, vec2=v), np.outer(B[:, 0], B[:, 0]))
    close(ember.inner(input=a, other=a), M @ M.T)
    bb = t(np.stack([M, M.T]))
    close(ember.bmm(input=bb, mat2=bb), np.stack([M @ M, M.T @ M.T]))
    close(ember.tensordot(a=a, b=b, dims=1), M @ B)
    close(ember.linalg.vecdot(x=a, y=a, dim=0), (M * M).sum(0))
    c = t([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    close(LA.cross(input=c, other=t([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), dim=-1), [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    close(LA.multi_dot(tensors=[a, a, b]), M @ M @ B)


def test_tensor_product_methods_take_the_documented_and_the_parsed_name():
    a, v = t(M), t(B[:, 0])
    bb = t(np.stack([M, M]))
    # PyTorch documents Tensor.matmul(tensor2), bmm(batch2), dot(other) and parses other, mat2, tensor.
    for kw in ("tensor2", "other"):
        close(a.matmul(**{kw: a}), M @ M)
    for kw in ("batch2", "mat2"):
        close(bb.bmm(**{kw: bb}), np.stack([M @ M, M @ M]))
    for kw in ("other", "tensor"):
        close(v.dot(**{kw: v}), B[:, 0] @ B[:, 0])
    assert list(inspect.signature(ember.Tensor.matmul).parameters) == ["self", "tensor2"]
    with pytest.raises(TypeError):
        a.matmul(mat2=a)


@pytest.mark.parametrize(
    "name, x, y",
    [
        ("addmm", "mat1", "mat2"),
        ("addmv", "mat", "vec"),
        ("addr", "vec1", "vec2"),
        ("baddbmm", "batch1", "batch2"),
        ("addbmm", "batch1", "batch2"),
    ],
)
def test_add_products_keywords_and_in_place(name, x, y):
    shapes = {
        "addmm": ((3, 2), (3, 3), (3, 2)),
        "addmv": ((3,), (3, 3), (3,)),
        "addr": ((3, 2), (3,), (2,)),
        "baddbmm": ((2, 3, 2), (2, 3, 3), (2, 3, 2)),
        "addbmm": ((3, 2), (2, 3, 3), (2, 3, 2)),
    }[name]
    inp, p, q = (RNG.uniform(-1, 1, s) for s in shapes)
    prod = {
        "addmm": lambda: p @ q,
        "addmv": lambda: p @ q,
        "addr": lambda: np.outer(p, q),
        "baddbmm": lambda: p @ q,
        "addbmm": lambda: (p @ q).sum(0),
    }[name]()
    expected = 0.5 * inp + 2 * prod
    f = getattr(ember, name)
    close(f(input=t(inp), **{x: t(p), y: t(q)}, beta=0.5, alpha=2), expected)
    close(getattr(t(inp), name)(**{x: t(p), y: t(q)}, beta=0.5, alpha=2), expected)
    s = t(inp)
    r = getattr(s, name + "_")(**{x: t(p), y: t(q)}, beta=0.5, alpha=2)
    assert r is s
    close(s, expected)
    out = ember.empty(tuple(expected.shape), dtype=ember.float64)
    assert f(t(inp), t(p), t(q), beta=0.5, alpha=2, out=out) is out
    close(out, expected)


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_out_dtype_float32_keeps_the_unrounded_sum(dtype):
    # Values exact in 16 bits whose products sum to a number a 16-bit float cannot hold.
    a = ember.tensor([[1.0, 1.0 / 256, 1.0 / 512]], dtype=dtype)
    b = ember.tensor([[1.0], [1.0], [1.0]], dtype=dtype)
    exact = 1.0 + 1.0 / 256 + 1.0 / 512
    r = ember.mm(a, b, ember.float32)
    assert r.dtype == ember.float32 and r.item() == exact
    assert ember.mm(a, b, out_dtype=ember.float32).item() == exact
    assert ember.mm(a, b).dtype == dtype
    r = ember.bmm(a[None], b[None], out_dtype=ember.float32)
    assert r.dtype == ember.float32 and r.item() == exact
    r = ember.addmm(ember.zeros(1, 1, dtype=dtype), a, b, ember.float32, beta=1, alpha=2)
    assert r.dtype == ember.float32 and r.item() == 2 * exact
    r = ember.baddbmm(ember.ones(1, 1, 1, dtype=dtype), a[None], b[None], out_dtype=ember.float32, alpha=1)
    assert r.dtype == ember.float32 and r.item() == 1 + exact
    out = ember.empty(1, 1)
    assert ember.mm(a, b, ember.float32, out=out) is out and out.item() == exact


def test_out_dtype_same_dtype_and_errors():
    a = t(M)
    same(ember.mm(a, a, ember.float64), ember.mm(a, a))
    with pytest.raises(RuntimeError, match="out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs"):
        ember.mm(a, a, ember.float32)
    with pytest.raises(RuntimeError, match="out_dtype must be the same"):
        ember.mm(a.half(), a.half(), ember.bfloat16)


def test_einsum_tensordot_chain_matmul_signatures():
    assert str(inspect.signature(ember.einsum)) == "(equation: str, /, *operands: Tensor) -> Tensor"
    a = t(M)
    close(ember.einsum("ij,jk->ik", a, a), M @ M)
    close(ember.einsum("ij,jk->ik", [a, a]), M @ M)
    close(ember.einsum(a, [0, 1], a, [1, 2], [0, 2]), M @ M)
    assert list(inspect.signature(ember.chain_matmul).parameters) == ["matrices", "out"]
    out = ember.empty(3, 3, dtype=ember.float64)
    assert ember.chain_matmul(a, a, a, out=out) is out
    close(out, M @ M @ M)
    close(ember.chain_matmul([a, a]), M @ M)
    with pytest.raises(TypeError):
        ember.chain_matmul(a, a, bogus=1)
    out = ember.empty(3, 2, dtype=ember.float64)
    ember.tensordot(a, t(B), 1, out)  # out is positional in PyTorch's tensordot
    close(out, M @ B)


def test_linear_and_bilinear_keywords():
    x, w, bias = t(B.T), t(M), t(B[:, 0])
    close(F.linear(input=x, weight=w, bias=bias), B.T @ M.T + B[:, 0])
    close(F.linear(x, w), B.T @ M.T)
    W = RNG.uniform(-1, 1, (2, 3, 3))
    close(F.bilinear(input1=x, input2=x, weight=t(W), bias=None), np.einsum("bi,oij,bj->bo", B.T, W, B.T))
    with pytest.raises(TypeError, match="argument 'bias' must be Tensor, not int"):
        F.linear(x, w, 5)


# ------------------------------------------------------------------------------------------ linalg: both names

# (name, documented first parameter, the parser's, further arguments by name, expected from NumPy)
ALIASED = [
    ("cholesky", "A", "input", {}, lambda: np.linalg.cholesky(SPD)),
    ("eigvalsh", "A", "input", {}, lambda: np.linalg.eigvalsh(SPD)),
    ("matrix_exp", "A", "input", {}, None),
    ("matrix_norm", "A", "input", {"ord": 1}, lambda: np.linalg.norm(SPD, 1)),
    ("matrix_power", "A", "input", {"n": 3}, lambda: np.linalg.matrix_power(SPD, 3)),
    ("matrix_rank", "A", "input", {}, lambda: 3),
    ("pinv", "A", "input", {}, lambda: np.linalg.pinv(SPD)),
    ("cond", "A", "input", {"p": 1}, lambda: np.linalg.cond(SPD, 1)),
    ("tensorinv", "A", "input", {"ind": 1}, lambda: np.linalg.inv(SPD)),
    ("vector_norm", "x", "input", {"ord": 3}, lambda: np.linalg.norm(SPD.ravel(), 3)),
]


@pytest.mark.parametrize("name, documented, parsed, extra, expected", ALIASED, ids=[a[0] for a in ALIASED])
def test_linalg_takes_the_documented_and_the_parsed_name(name, documented, parsed, extra, expected):
    f = getattr(LA, name)
    a = t(SPD)
    positional = f(a, *extra.values())
    same(f(**{documented: a}, **extra), positional)
    same(f(**{parsed: a}, **extra), positional)
    assert list(inspect.signature(f).parameters)[0] == documented
    if expected is not None:
        close(positional, expected(), tol=1e-8)
    with pytest.raises(TypeError):
        f(bogus=a)


def test_linalg_two_name_pairs_and_older_forms():
    A, b = t(SPD), t(B)
    x = np.linalg.solve(SPD, B)
    # lstsq(A, B) / lstsq(input, b); tensorsolve(A, B) / (input, other); solve_triangular(A|input, B, upper=...).
    close(LA.lstsq(A=A, B=b).solution, x, 1e-8)
    close(LA.lstsq(input=A, b=b, rcond=None, driver="gelsd").solution, x, 1e-8)
    close(LA.tensorsolve(A=A, B=b[:, 0]), x[:, 0], 1e-8)
    close(LA.tensorsolve(input=A, other=b[:, 0]), x[:, 0], 1e-8)
    L = np.linalg.cholesky(SPD)
    for kw in ("A", "input"):
        close(LA.solve_triangular(**{kw: t(L)}, B=b, upper=False), np.linalg.solve(L, B), 1e-8)
    # householder_product(A|input, tau); eigh / cholesky_ex / ldl_factor(_ex) (A|input).
    a, tau = ember.geqrf(A)
    for kw in ("A", "input"):
        same(LA.householder_product(**{kw: a}, tau=tau), LA.householder_product(a, tau))
        same(LA.eigh(**{kw: A}, UPLO="U").eigenvalues, LA.eigh(A, "U").eigenvalues)
        same(LA.cholesky_ex(**{kw: A}, upper=True).L, LA.cholesky(A, upper=True))
        same(LA.ldl_factor(**{kw: A}).LD, LA.ldl_factor_ex(**{kw: A}, check_errors=True).LD)
    # pinv(input, rcond, hermitian=False) and matrix_rank(input, tol, hermitian=False), PyTorch's older forms.
    S = t(np.diag([1.0, 1e-3, 0.0]))
    same(LA.pinv(S, 1e-2), LA.pinv(S, rtol=1e-2, atol=0.0))
    same(LA.pinv(input=S, rcond=1e-2, hermitian=True), LA.pinv(S, atol=0.0, rtol=1e-2, hermitian=True))
    close(LA.pinv(S, 1e-2), np.diag([1.0, 0.0, 0.0]))
    assert LA.matrix_rank(S, 1e-2).item() == 1
    assert LA.matrix_rank(S, tol=1e-4).item() == 2
    assert LA.matrix_rank(input=S, atol=1e-2).item() == 1
    assert LA.matrix_rank(S, atol=t(1e-4), rtol=0.0, hermitian=True).item() == 2
    # linalg.norm's first parameter is input in PyTorch's documentation and parser alike.
    close(LA.norm(input=A, ord=2), np.linalg.norm(SPD, 2), 1e-8)
    assert list(inspect.signature(LA.norm).parameters)[0] == "input"
    # vander's N is keyword-only, as in PyTorch.
    close(LA.vander(x=t([1.0, 2.0]), N=3), [[1, 1, 1], [1, 2, 4]])
    with pytest.raises(TypeError):
        LA.vander(t([1.0, 2.0]), 3)


def test_top_level_documented_and_parsed_names():
    A, b = t(SPD), t(B)
    x = np.linalg.solve(SPD, B)
    L = ember.linalg.cholesky(A)
    for kw in ({"B": b, "L": L}, {"input": b, "input2": L}):
        close(ember.cholesky_solve(**kw, upper=False), x, 1e-8)
    for kw in ("L", "input"):
        close(ember.cholesky_inverse(**{kw: L}), np.linalg.inv(SPD), 1e-8)
    LU, piv = ember.linalg.lu_factor(A)
    for kw in ("b", "input"):
        close(ember.lu_solve(**{kw: b}, LU_data=LU, LU_pivots=piv), x, 1e-8)
    U = t(np.triu(SPD))
    for kw in ("b", "input"):
        close(ember.triangular_solve(**{kw: b}, A=U, upper=True).solution, np.linalg.solve(np.triu(SPD), B), 1e-8)
    for kw in ("A", "input"):
        same(ember.matrix_exp(**{kw: A}), A.matrix_exp())
    a, tau = ember.geqrf(A)
    for kw in ("tau", "input2"):
        same(ember.orgqr(input=a, **{kw: tau}), a.orgqr(input2=tau))


# -------------------------------------------------------------------------------------- out= of several results


def test_out_tuples():
    A = t(SPD)
    w, V = ember.empty(3, dtype=ember.float64), ember.empty(3, 3, dtype=ember.float64)
    r = LA.eigh(A, out=(w, V))
    assert type(r).__name__ == "linalg_eigh" and r.eigenvalues is w and r.eigenvectors is V
    close(w, np.linalg.eigvalsh(SPD), 1e-8)
    Q, R = ember.empty(3, 3, dtype=ember.float64), ember.empty(3, 3, dtype=ember.float64)
    assert LA.qr(A, out=(Q, R)).Q is Q
    close(Q @ R, SPD, 1e-8)
    U, S, Vh = (
        ember.empty(3, 3, dtype=ember.float64),
        ember.empty(3, dtype=ember.float64),
        ember.empty(3, 3, dtype=ember.float64),
    )
    assert LA.svd(A, out=(U, S, Vh)).S is S
    close(S, np.linalg.svd(SPD, compute_uv=False), 1e-8)
    s, logabs = ember.empty((), dtype=ember.float64), ember.empty((), dtype=ember.float64)
    assert LA.slogdet(A, out=(s, logabs)).logabsdet is logabs
    close(logabs, np.linalg.slogdet(SPD)[1], 1e-8)
    assert ember.slogdet(A, out=[s, logabs]).sign is s
    V2 = ember.empty(3, 3, dtype=ember.float64)
    assert ember.svd(A, out=(U, S, V2)).V is V2
    close(U @ ember.diag(S) @ V2.T, SPD, 1e-8)
    assert ember.qr(A, out=(Q, R)).R is R
    C = ember.empty(3, 3, dtype=ember.float64)
    assert ember.cholesky(A, out=C) is C
    close(C, np.linalg.cholesky(SPD), 1e-8)
    assert ember.matrix_power(A, 2, out=C) is C
    close(C, SPD @ SPD, 1e-8)
    LU, piv = ember.empty(3, 3, dtype=ember.float64), ember.empty(3, dtype=ember.int32)
    r = ember.lu(A, out=(LU, piv))
    assert type(r) is tuple and r[0] is LU and r[1] is piv
    info = ember.empty((), dtype=ember.int32)
    assert ember.lu(A, get_infos=True, out=(LU, piv, info)).info is info
    out = ember.empty(3, dtype=ember.float64)
    assert LA.cross(t([1.0, 0.0, 0.0]), t([0.0, 1.0, 0.0]), out=out) is out
    close(out, [0.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="out= must be a tuple of 2 tensors"):
        LA.eigh(A, out=w)


# -------------------------------------------------------------------------------------------- module and errors


def test_linalg_module_all_and_names():
    public = set(ember._C._linalg.__all__)
    assert public == {n for n in dir(ember._C._linalg) if not n.startswith("_")}
    assert set(LA.__all__) - public == {"diagonal"}
    for name in ("vector_norm", "cross", "vander", "LinAlgError", "matmul"):
        assert getattr(LA, name) is getattr(ember._C._linalg, name)
    for name in public - {"LinAlgError"}:
        f = getattr(ember._C._linalg, name)
        assert f.__name__ == name, name
    for name in ("addmm_", "svd", "qr", "lu", "geqrf", "slogdet", "triangular_solve", "matmul", "inverse"):
        assert getattr(ember.Tensor, name).__name__ == name
    # Every namedtuple type is exported by ember.return_types and pickles by reference there.
    import ember.return_types as rt

    for name in ("linalg_lstsq", "linalg_ldl_factor_ex", "triangular_solve", "geqrf", "lu_unpack", "slogdet", "svd"):
        assert hasattr(rt, name)
    r = LA.slogdet(t(SPD))
    assert pickle.loads(pickle.dumps(r)) == r


def test_lin_alg_error():
    E = LA.LinAlgError
    assert E is ember._C._LinAlgError and issubclass(E, RuntimeError)
    assert str(inspect.signature(E)) == "(*args)"
    assert E.__doc__.startswith("The error ember.linalg raises")
    with pytest.raises(E, match="singular"):
        LA.inv(ember.zeros(2, 2))
    with pytest.raises(RuntimeError):
        LA.cholesky(-ember.eye(2))
    assert pickle.loads(pickle.dumps(E)) is E


# ---------------------------------------------------------------------------------------------------- docstrings


def _my_callables():
    top = (
        "matmul mm bmm mv dot vdot outer ger inner addmm addmv addr baddbmm addbmm einsum tensordot chain_matmul "
        "det logdet inverse slogdet pinverse matrix_power cholesky svd qr lu_unpack lu lu_solve cholesky_solve "
        "cholesky_inverse matrix_exp triangular_solve orgqr geqrf"
    ).split()
    out = [("ember." + n, getattr(ember, n)) for n in top]
    out += [("linalg." + n, getattr(LA, n)) for n in LA.__all__]
    out += [("F.linear", F.linear), ("F.bilinear", F.bilinear)]
    return out


@pytest.mark.parametrize("label, f", _my_callables(), ids=[c[0] for c in _my_callables()])
def test_docstring_examples_run(label, f):
    nb = getattr(f, "__nb_signature__", None)
    doc = next(d for _, d, _ in nb if d) if nb is not None else inspect.getdoc(f)
    # The first paragraph is one line (one sentence), which Tensor methods' docstrings repeat (method_doc).
    assert "\n" not in doc.strip().split("\n\n")[0], label
    test = doctest.DocTestParser().get_doctest(doc, {"ember": ember}, label, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: None)
    assert runner.failures == 0, "%s: %d example(s) differ" % (label, runner.failures)
