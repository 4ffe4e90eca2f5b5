"""PyTorch's keyword forms of the shape, indexing, reduction, sorting and search ops (Note [Python surface]): every
spelling PyTorch's bindings or documentation give a parameter works, gives the positional call's result and NumPy's
values; out= (a tensor, or (values, indices)) is written and returned; the overloads keep PyTorch's errors for wrong
combinations; signatures and method docstrings read as the convention says."""

import inspect

import numpy as np
import pytest
from conftest import assert_equal, from_np, to_np

import ember


@pytest.fixture
def x(rng):
    return rng.standard_normal((3, 4))


def same(a, b):
    """Two results (tensors, or tuples of them) hold the same values and shapes."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for u, v in zip(a, b):
            same(u, v)
        return
    assert tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype
    np.testing.assert_array_equal(to_np(a), to_np(b))


# ---------------------------------------------------------------------------------------------- reductions


def test_max_min_overloads_by_keyword(x):
    t, y = from_np(x), from_np(x[::-1].copy())
    for name, np_red, np_elem in (("max", np.max, np.maximum), ("min", np.min, np.minimum)):
        f = getattr(ember, name)
        assert_equal(f(input=t), np_red(x))
        r = f(t, dim=1, keepdim=True)
        assert_equal(r.values, np_red(x, 1, keepdims=True))
        same(f(input=t, dim=1), f(t, 1))
        assert_equal(f(t, other=y), np_elem(x, x[::-1]))  # max(input, other): the overload
        assert_equal(f(t, y), np_elem(x, x[::-1]))
        assert_equal(getattr(t, name)(other=y), np_elem(x, x[::-1]))
        # out=: a tensor for the whole-tensor and elementwise forms, (values, indices) with a dim.
        o = ember.empty((), dtype=ember.float64)
        assert f(t, out=o) is o
        assert_equal(o, np_red(x))
        v, i = ember.empty(3, dtype=ember.float64), ember.empty(3, dtype=ember.int64)
        r = f(t, 1, out=(v, i))
        assert r.values is v and r.indices is i and type(r).__name__ == name
        assert_equal(v, np_red(x, 1))
        assert_equal(i, (np.argmax if name == "max" else np.argmin)(x, 1))
        o = ember.empty(3, 4, dtype=ember.float64)
        assert f(t, other=y, out=o) is o
        assert_equal(o, np_elem(x, x[::-1]))
        with pytest.raises(TypeError, match="keepdim=True needs a dim"):
            f(t, keepdim=True)
        with pytest.raises(TypeError, match="incompatible function arguments"):
            f(t, dim=0, other=y)  # PyTorch rejects the mix too


def test_dims_reductions_by_keyword(x):
    t = from_np(x)
    r = ember.sum(input=t, dim=(0, 1), keepdim=True, dtype=ember.float32)
    assert r.dtype == ember.float32
    np.testing.assert_allclose(to_np(r), x.sum(keepdims=True), rtol=1e-5)
    assert_equal(t.sum(dim=0, dtype=ember.float64), x.sum(0))
    assert_equal(ember.amax(t, dim=[1], keepdim=False), x.max(1))
    o = ember.empty(4, dtype=ember.float64)
    assert ember.mean(t, 0, out=o) is o
    np.testing.assert_allclose(to_np(o), x.mean(0))
    assert_equal(ember.count_nonzero(input=from_np(x > 0), dim=1), (x > 0).sum(1))
    assert_equal(ember.argmax(input=t, dim=1, keepdim=True), x.argmax(1)[:, None])
    o = ember.empty(3, dtype=ember.float64)
    assert ember.logsumexp(input=t, dim=1, out=o) is o
    np.testing.assert_allclose(to_np(o), np.log(np.exp(x).sum(1)))
    r = ember.aminmax(t, dim=0, keepdim=True)
    assert_equal(r.min, x.min(0, keepdims=True))
    assert_equal(r.max, x.max(0, keepdims=True))


def test_var_std_correction_default_and_unbiased(x):
    t = from_np(x)
    sig = inspect.signature(ember.var)
    assert sig.parameters["correction"].default == 1 and sig.parameters["keepdim"].default is False
    np.testing.assert_allclose(to_np(ember.var(t, 1)), x.var(1, ddof=1))
    np.testing.assert_allclose(to_np(ember.var(t, dim=1, correction=0)), x.var(1))
    np.testing.assert_allclose(to_np(ember.std(t, 1, False, True)), x.std(1, keepdims=True))  # (dim, unbiased, keepdim)
    np.testing.assert_allclose(to_np(t.std(unbiased=False)), x.std())
    np.testing.assert_allclose(to_np(ember.var(t, 1, correction=None)), x.var(1, ddof=1))  # None: the default
    with pytest.raises(TypeError, match="either unbiased or correction"):
        ember.var(t, 1, unbiased=True, correction=1)
    o = ember.empty(3, dtype=ember.float64)
    assert ember.std(t, 1, out=o) is o
    np.testing.assert_allclose(to_np(o), x.std(1, ddof=1))
    a, b = ember.empty(4, dtype=ember.float64), ember.empty(4, dtype=ember.float64)
    v, m = ember.var_mean(t, 0, correction=0, out=(a, b))
    assert v is a and m is b
    np.testing.assert_allclose(to_np(a), x.var(0))
    np.testing.assert_allclose(to_np(b), x.mean(0))


def test_sum_to_size_by_keyword(x):
    t = from_np(x)
    for r in (t.sum_to_size(1, 4), t.sum_to_size((1, 4)), t.sum_to_size(size=(1, 4))):
        np.testing.assert_allclose(to_np(r), x.sum(0, keepdims=True))


# ---------------------------------------------------------------------------------------------- sorting and scans


def test_sort_family_by_keyword(x):
    t = from_np(x)
    assert inspect.signature(ember.sort).parameters["stable"].default is False
    same(ember.sort(input=t, dim=0, descending=True, stable=True), ember.sort(t, 0, True))
    v, i = ember.empty(3, 4, dtype=ember.float64), ember.empty(3, 4, dtype=ember.int64)
    r = ember.sort(t, out=(v, i))
    assert r.values is v and r.indices is i
    assert_equal(v, np.sort(x, -1))
    # kthvalue, topk and mode: dim=None (PyTorch's documented default) is the last dim.
    same(ember.kthvalue(t, 2, dim=None), ember.kthvalue(t, 2, -1))
    assert_equal(ember.kthvalue(input=t, k=2, dim=None).values, np.sort(x, -1)[:, 1])
    same(ember.topk(t, 2, dim=None, largest=False), ember.topk(t, 2, -1, False))
    assert_equal(t.topk(k=1, dim=None).values, x.max(1, keepdims=True))
    same(t.mode(dim=None), t.mode(-1))
    same(ember.mode(t), ember.mode(t, dim=-1))
    assert_equal(ember.argsort(input=t, dim=0, stable=True), np.argsort(x, 0, kind="stable"))


def test_median_overloads(x):
    t = from_np(x)
    assert_equal(ember.median(input=t), np.sort(x.ravel())[(x.size - 1) // 2])
    r = ember.median(t, dim=1, keepdim=True)
    assert_equal(r.values, np.sort(x, 1)[:, 1:2])
    v, i = ember.empty(3, dtype=ember.float64), ember.empty(3, dtype=ember.int64)
    r = ember.nanmedian(input=t, dim=1, out=(v, i))
    assert r.values is v and type(r).__name__ == "nanmedian"
    assert_equal(v, np.sort(x, 1)[:, 1])
    same(t.median(dim=None), ember.median(t))


def test_scans_by_keyword(x):
    t = from_np(x)
    np.testing.assert_allclose(to_np(ember.cumsum(input=t, dim=1, dtype=ember.float64)), np.cumsum(x, 1))
    np.testing.assert_allclose(to_np(t.cumprod(dim=0)), np.cumprod(x, 0))
    v, i = ember.empty(3, 4, dtype=ember.float64), ember.empty(3, 4, dtype=ember.int64)
    r = ember.cummax(t, dim=1, out=(v, i))
    assert r.values is v and r.indices is i
    assert_equal(v, np.maximum.accumulate(x, 1))
    c = t.clone()
    assert c.cumsum_(dim=1) is c
    np.testing.assert_allclose(to_np(c), np.cumsum(x, 1))


# ---------------------------------------------------------------------------------------------- joining and splitting


def test_cat_family_by_keyword(x):
    a, b = from_np(x), from_np(2 * x)
    expected = np.concatenate([x, 2 * x], 1)
    assert_equal(ember.concatenate((a, b), axis=1), expected)  # NumPy's name
    assert_equal(ember.concatenate(tensors=(a, b), dim=1), expected)  # and PyTorch's
    assert_equal(ember.cat(tensors=[a, b], dim=1), expected)
    assert_equal(ember.concat([a, b], dim=-1), expected)
    o = ember.empty(2, 3, 4, dtype=ember.float64)
    assert ember.stack(tensors=(a, b), dim=0, out=o) is o
    assert_equal(o, np.stack([x, 2 * x]))
    o = ember.empty(3, 8, dtype=ember.float64)
    assert ember.hstack(tensors=(a, b), out=o) is o
    assert_equal(o, np.hstack([x, 2 * x]))


def test_split_family_by_keyword(x):
    t = from_np(x)
    same(ember.split(tensor=t, split_size_or_sections=[1, 3], dim=1), ember.split(t, [1, 3], 1))
    same(t.split(split_size=2, dim=1), ember.split(t, 2, 1))
    same(ember.unsafe_split(tensor=t, split_size_or_sections=2, dim=1), ember.split(t, 2, 1))  # documented names
    same(ember.unsafe_split(input=t, split_size=2, dim=1), ember.split(t, 2, 1))  # the binding's names
    same(ember.chunk(input=t, chunks=2, dim=1), ember.chunk(t, 2, 1))
    same(ember.unbind(input=t, dim=1), ember.unbind(t, 1))
    pieces = [p for p in np.array_split(x, 3, 1)]
    for r in (
        ember.tensor_split(t, 3, 1),
        ember.tensor_split(t, sections=3, dim=1),
        ember.tensor_split(input=t, indices_or_sections=3, dim=1),
        t.tensor_split(sections=3, dim=1),
    ):
        for p, e in zip(r, pieces):
            assert_equal(p, e)
    for r in (ember.tensor_split(t, indices=[1, 3], dim=1), t.tensor_split(indices=(1, 3), dim=1)):
        for p, e in zip(r, np.split(x, [1, 3], 1)):
            assert_equal(p, e)
    for r in (
        ember.hsplit(t, 2),
        ember.hsplit(input=t, indices_or_sections=2),
        ember.hsplit(t, sections=2),
        t.hsplit(split_size_or_sections=2),
        t.hsplit(sections=2),
    ):
        for p, e in zip(r, np.hsplit(x, 2)):
            assert_equal(p, e)
    for p, e in zip(ember.vsplit(t, indices=[1]), np.vsplit(x, [1])):
        assert_equal(p, e)


# ---------------------------------------------------------------------------------------------- dims and order


def test_varargs_or_keyword_methods(x):
    t = from_np(x)
    for r in (t.flip(0, 1), t.flip([0, 1]), t.flip(dims=(0, 1)), ember.flip(input=t, dims=[0, 1])):
        assert_equal(r, x[::-1, ::-1])
    assert_equal(t.flip(dims=1), x[:, ::-1])
    for r in (t.tile(2, 1), t.tile((2, 1)), t.tile(dims=(2, 1)), ember.tile(input=t, dims=(2, 1))):
        assert_equal(r, np.tile(x, (2, 1)))
    for r in (t.repeat(1, 2), t.repeat((1, 2)), t.repeat(repeats=(1, 2))):
        assert_equal(r, np.tile(x, (1, 2)))
    v = from_np(x[0])
    for r in (
        v.broadcast_to(2, 4),
        v.broadcast_to(size=(2, 4)),
        v.broadcast_to(shape=(2, 4)),
        ember.broadcast_to(v, size=(2, 4)),
        ember.broadcast_to(input=v, shape=(2, 4)),
    ):
        assert_equal(r, np.broadcast_to(x[0], (2, 4)))
    z = ember.zeros(4)
    assert z.resize_(size=(2, 2)) is z and tuple(z.shape) == (2, 2)
    assert z.resize_(4, memory_format=ember.contiguous_format) is z and tuple(z.shape) == (4,)
    assert z.resize_as_(tensor=t) is z and tuple(z.shape) == (3, 4)  # the documented name
    assert z.resize_as_(the_template=v) is z and tuple(z.shape) == (4,)  # the binding's name


def test_dims_by_keyword(x):
    t = from_np(x)
    assert_equal(ember.movedim(input=t, source=0, destination=1), x.T)
    assert_equal(ember.swapdims(input=t, dim0=0, dim1=1), x.T)
    assert_equal(ember.roll(input=t, shifts=1, dims=1), np.roll(x, 1, 1))
    assert_equal(t.rot90(k=1, dims=[0, 1]), np.rot90(x))
    assert_equal(ember.narrow_copy(input=t, dim=1, start=1, length=2), x[:, 1:3])
    assert_equal(t.narrow_copy(dimension=1, start=1, length=2), x[:, 1:3])  # the documented name
    assert_equal(t.narrow_copy(dim=1, start=1, length=2), x[:, 1:3])
    o = ember.empty(3, 2, dtype=ember.float64)
    assert ember.narrow_copy(t, 1, 0, 2, out=o) is o
    assert_equal(o, x[:, :2])
    a, b = ember.meshgrid(from_np(x[0]), from_np(x[:, 0]), indexing="xy")
    ea, eb = np.meshgrid(x[0], x[:, 0], indexing="xy")
    assert_equal(a, ea)
    assert_equal(b, eb)
    r = ember.atleast_2d(ember.tensor(1.0), ember.tensor([1.0, 2.0]))
    assert [tuple(p.shape) for p in r] == [(1, 1), (1, 2)]
    u = t.clone()
    assert u.unsqueeze_(dim=0) is u and tuple(u.shape) == (1, 3, 4)
    assert u.squeeze_(dim=0) is u and u.swapaxes_(axis0=0, axis1=1) is u and tuple(u.shape) == (4, 3)


# ---------------------------------------------------------------------------------------------- indexing ops


def test_index_ops_by_keyword(x):
    t = from_np(x)
    idx = ember.tensor([2, 0])
    src = from_np(x[:2] * 10)
    expected = x.copy()
    expected[[2, 0]] = x[:2] * 10
    assert_equal(ember.index_copy(input=t, dim=0, index=idx, source=src), expected)
    assert_equal(t.index_copy(0, idx, tensor2=src), expected)  # the documented name
    o = ember.empty(3, 4, dtype=ember.float64)
    assert ember.index_copy(t, 0, idx, src, out=o) is o
    assert_equal(o, expected)
    c = t.clone()
    assert c.index_copy_(0, idx, tensor=src) is c
    assert_equal(c, expected)
    flat = ember.tensor([0, 5])
    assert_equal(t.take(indices=flat), x.ravel()[[0, 5]])  # the documented name
    assert_equal(t.take(index=flat), x.ravel()[[0, 5]])
    assert_equal(
        ember.gather(input=t, dim=1, index=ember.tensor([[0], [1], [2]]), sparse_grad=False),
        x[np.arange(3), [0, 1, 2]][:, None],
    )
    o = ember.empty(3, 4, dtype=ember.float64)
    r = ember.index_reduce(t, 0, ember.tensor([0, 0]), src, "amax", include_self=False, out=o)
    assert r is o
    e = x.copy()
    e[0] = np.max(x[:2] * 10, 0)
    assert_equal(o, e)
    mask = from_np(x > 0)
    expected = x.copy()
    expected[x > 0] = (x * 2).ravel()[: (x > 0).sum()]  # filled in order from the start of source
    for r in (
        t.masked_scatter(mask, tensor=t * 2),
        t.masked_scatter(mask, source=t * 2),
        ember.masked_scatter(input=t, mask=mask, source=t * 2),
    ):
        assert_equal(r, expected)
    assert_equal(ember.masked_fill(input=t, mask=mask, value=0.0), np.where(x > 0, 0.0, x))


def test_where_overloads(x):
    t = from_np(x)
    c = from_np(x > 0)
    assert_equal(ember.where(condition=c, input=t, other=0.0), np.where(x > 0, x, 0.0))
    o = ember.empty(3, 4, dtype=ember.float64)
    assert ember.where(c, t, -t, out=o) is o
    assert_equal(o, np.where(x > 0, x, -x))
    for r in (ember.where(c), ember.where(condition=c)):
        for got, e in zip(r, np.nonzero(x > 0)):
            assert_equal(got, e)
    with pytest.raises(TypeError):
        ember.where(c, t)  # neither overload: PyTorch raises too


def test_out_where_pytorch_has_it(x):
    t, m = from_np(x), from_np(x[:3, :3])
    for f, args, expected in (
        (ember.diag, (m,), np.diag(x[:3, :3])),
        (ember.tril, (t,), np.tril(x)),
        (ember.triu, (t, 1), np.triu(x, 1)),
        (ember.kron, (m, m), np.kron(x[:3, :3], x[:3, :3])),
        (ember.cross, (m, m), np.zeros((3, 3))),
        (ember.msort, (t,), np.sort(x, 0)),
    ):
        o = ember.empty(*expected.shape, dtype=ember.float64)
        assert f(*args, out=o) is o
        np.testing.assert_allclose(to_np(o), expected, atol=1e-12)
    o = ember.empty(3, 4, dtype=ember.float64)
    assert ember.renorm(t, 2, 0, 1.0, out=o) is o
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(to_np(o), np.where(norms > 1, x / (norms + 1e-7), x), rtol=1e-6)


# ---------------------------------------------------------------------------------------------- search and factories


def test_searchsorted_both_spellings():
    s = ember.tensor([1, 3, 5, 7])
    v = ember.tensor([3, 6])
    for r in (
        ember.searchsorted(s, v),
        ember.searchsorted(sorted_sequence=s, input=v),
        ember.searchsorted(s, values=v),
    ):
        assert_equal(r, np.searchsorted([1, 3, 5, 7], [3, 6]))
    assert_equal(ember.searchsorted(s, values=v, right=True), np.searchsorted([1, 3, 5, 7], [3, 6], "right"))


def test_tril_indices_keywords():
    r = ember.tril_indices(row=3, col=4, offset=1, dtype=ember.int32, device="cpu", layout=ember.strided)
    assert r.dtype == ember.int32
    assert_equal(r, np.stack(np.tril_indices(3, 1, 4)).astype(np.int32))
    with pytest.raises(TypeError, match="unexpected keyword argument 'size'"):
        ember.triu_indices(3, 3, size=2)


# ---------------------------------------------------------------------------------------------- the surface itself


def test_signatures_and_docstrings_follow_the_convention():
    assert str(inspect.signature(ember.max)).startswith("(input: Tensor, dim: int | None = None, keepdim: bool")
    assert list(inspect.signature(ember.concatenate).parameters) == ["tensors", "axis", "out"]
    assert list(inspect.signature(ember.Tensor.sum).parameters) == ["self", "dim", "keepdim", "dtype"]
    assert list(inspect.signature(ember.ones(1).cumsum).parameters) == ["dim", "dtype"]
    for f in (ember.sum, ember.max, ember.cat, ember.gather, ember.sort, ember.searchsorted, ember.diag):
        assert f.__module__ == "ember._C" or f.__module__.startswith("ember")
        assert f.__name__ == f.__qualname__.split(".")[-1] and f.__name__
    doc = ember.Tensor.sum.__doc__
    assert "See :func:`ember.sum`." in doc and doc.count("Returns the sum") == 1
    assert "In-place version of :meth:`Tensor.index_add`" in ember.Tensor.index_add_.__doc__
    assert ember.Tensor.fill_diagonal_.__doc__.count("Fills the main diagonal") == 1


def test_statistics_and_products_by_keyword(rng):
    x = rng.standard_normal((2, 5))
    t = from_np(x)
    np.testing.assert_allclose(to_np(ember.cov(input=t, correction=0)), np.cov(x, ddof=0))
    fw = ember.tensor([1, 2, 1, 1, 3])
    np.testing.assert_allclose(to_np(t.cov(fweights=fw)), np.cov(x, fweights=[1, 2, 1, 1, 3]))
    np.testing.assert_allclose(to_np(ember.corrcoef(input=t)), np.corrcoef(x))
    np.testing.assert_allclose(
        to_np(ember.quantile(input=t, q=0.3, dim=1, keepdim=True, interpolation="lower")),
        np.quantile(x, 0.3, axis=1, keepdims=True, method="lower"),
    )
    np.testing.assert_allclose(to_np(t.nanquantile(q=[0.5], dim=0)), np.nanquantile(x, [0.5], axis=0))
    np.testing.assert_allclose(
        to_np(ember.diff(input=t, n=2, dim=1, prepend=t[:, :1])), np.diff(x, 2, 1, prepend=x[:, :1])
    )
    np.testing.assert_allclose(
        to_np(ember.trapezoid(y=t, dx=0.5, dim=1)),
        np.trapezoid(x, dx=0.5, axis=1) if hasattr(np, "trapezoid") else np.trapz(x, dx=0.5, axis=1),
    )
    np.testing.assert_allclose(
        to_np(ember.trapz(t, x=from_np(np.arange(5.0) ** 2))),
        np.trapezoid(x, np.arange(5.0) ** 2) if hasattr(np, "trapezoid") else np.trapz(x, np.arange(5.0) ** 2),
    )
    assert_equal(ember.vander(x=ember.tensor([1, 2, 3]), N=3, increasing=True), np.vander([1, 2, 3], 3, True))
    o = ember.empty(4)
    h = ember.tensor([0.5, 1.5, 1.5, 3.5])
    assert ember.histc(input=h, bins=4, min=0, max=4, out=o) is o
    assert_equal(o, np.histogram([0.5, 1.5, 1.5, 3.5], 4, (0, 4))[0].astype(np.float32))
    assert_equal(ember.bincount(input=ember.tensor([0, 2, 2]), minlength=4), np.bincount([0, 2, 2], minlength=4))
    a, b = from_np(rng.standard_normal((2, 3))), from_np(rng.standard_normal((2, 3)))
    np.testing.assert_allclose(to_np(ember.cross(input=a, other=b, dim=1)), np.cross(to_np(a), to_np(b)))
    np.testing.assert_allclose(to_np(ember.kron(input=a, other=b)), np.kron(to_np(a), to_np(b)))
    assert_equal(
        ember.combinations(input=ember.tensor([1, 2, 3]), r=2, with_replacement=True),
        np.array([[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]),
    )
    np.testing.assert_allclose(to_np(ember.norm(input=t, p=1, dim=1, keepdim=True)), np.abs(x).sum(1, keepdims=True))
    np.testing.assert_allclose(to_np(ember.dist(input=a, other=b, p=1)), np.abs(to_np(a) - to_np(b)).sum())


def test_predicates_like_and_unary_forms_by_keyword(rng):
    x = rng.standard_normal(4)
    t = from_np(x)
    assert ember.equal(input=t, other=t.clone()) is True
    assert t.equal(other=t + 1) is False
    assert_equal(ember.isclose(input=t, other=t + 1e-9, rtol=0.0, atol=1e-6), np.ones(4, bool))
    assert ember.allclose(t, t + 1e-3, atol=1e-2) is True
    assert ember.is_same_size(input=t, other=t) is True
    assert ember.is_nonzero(input=ember.tensor([2])) is True
    assert ember.is_signed(input=ember.tensor([1], dtype=ember.uint8)) is False
    i = ember.tensor([1, 2])
    for r in (t.type_as(other=i), t.type_as(tensor=i)):
        assert r.dtype == ember.int64
    e = t.new_empty_strided(size=(2, 3), stride=(1, 2), dtype=ember.float32, requires_grad=True)
    assert e.stride() == (1, 2) and e.dtype == ember.float32 and e.requires_grad
    with pytest.raises(TypeError, match="unexpected keyword argument 'sizes'"):
        t.new_empty_strided((2,), (1,), sizes=(2,))
    assert_equal(ember.fill(input=t, value=2.5), np.full(4, 2.5))
    assert_equal(ember.clamp_min(input=t, min=ember.tensor(0.0, dtype=ember.float64)), np.maximum(x, 0))
    assert_equal(t.clamp_max(max=0.0), np.minimum(x, 0))
    c = t.clone()
    assert c.clamp_min_(min=0.0) is c
    assert_equal(c, np.maximum(x, 0))
    assert ember.positive(input=t) is t
    s = ember.as_strided_(input=ember.zeros(4), size=(2,), stride=(2,))
    assert tuple(s.shape) == (2,) and s.stride() == (2,)


def test_search_by_keyword():
    b = ember.tensor([1.0, 3.0, 5.0])
    v = ember.tensor([0.0, 3.0, 6.0])
    o = ember.empty(3, dtype=ember.int32)
    assert ember.bucketize(input=v, boundaries=b, out_int32=True, right=True, out=o) is o
    assert_equal(o, np.searchsorted([1.0, 3.0, 5.0], [0.0, 3.0, 6.0], "right").astype(np.int32))
    assert_equal(ember.isin(elements=v, test_elements=b, invert=True), ~np.isin([0.0, 3.0, 6.0], [1.0, 3.0, 5.0]))


# Names whose docstrings carry examples (ember.name, or Tensor.name for methods only).
EXAMPLES = (
    "all allclose amax amin aminmax any argmax argmin argsort argwhere as_strided_scatter atleast_1d "
    "atleast_2d atleast_3d bincount block_diag broadcast_tensors broadcast_to bucketize cartesian_prod cat "
    "chunk column_stack combinations corrcoef count_nonzero cov cross cummax cummin "
    "cumprod cumsum cumulative_trapezoid diag diag_embed diagflat diagonal_scatter diff dist dsplit dstack "
    "equal fill flip fliplr flipud gather histc hsplit hstack index_add index_copy index_fill index_put "
    "index_reduce index_select is_nonzero is_same_size is_signed isclose isin kron kthvalue logcumsumexp "
    "logsumexp masked_fill masked_scatter masked_select max mean median meshgrid min mode movedim msort "
    "nanmean nanmedian nanquantile nansum narrow_copy nonzero norm positive prod put quantile ravel renorm "
    "repeat_interleave roll rot90 scatter scatter_add scatter_reduce searchsorted select_scatter "
    "slice_scatter sort split split_with_sizes stack std std_mean sum swapdims take take_along_dim "
    "tensor_split tile topk trace trapezoid trapz tril tril_indices triu triu_indices unbind unique "
    "unique_consecutive vander var var_mean vsplit vstack where"
).split()
METHOD_EXAMPLES = ("fill_diagonal_", "new_empty_strided", "repeat", "resize_", "sum_to_size", "type_as")


@pytest.mark.parametrize("name", EXAMPLES + list(METHOD_EXAMPLES))
def test_docstring_examples_run(name):
    import doctest

    obj = getattr(ember.Tensor if name in METHOD_EXAMPLES else ember, name)
    doc = next(d for _, d, _ in obj.__nb_signature__ if d)
    test = doctest.DocTestParser().get_doctest(doc, {"ember": ember}, name, None, 0)
    assert test.examples, name
    runner = doctest.DocTestRunner()
    runner.run(test, out=lambda s: None)
    assert runner.failures == 0, "%s: %d of %d examples fail" % (name, runner.failures, runner.tries)
