"""Gradients of the reductions, scans, sorting/selection ops and norms against independent references (NumPy loops
and closed forms): tie splitting, zeros in prod and cumprod, where max(dim) and sort send the gradient, norms at
zero, dtype and empty-tensor edge cases, in-place scans, and what the graph keeps alive."""

import gc

import numpy as np
import pytest
from gradcases import reduce as reduce_cases

import ember
from ember.autograd import gradcheck


def f64(values, requires_grad=True):
    return ember.tensor(values, dtype=ember.float64, requires_grad=requires_grad)


def npv(t):
    return np.array(t.tolist())


def grad_of(fn, x, g=None):
    """d(sum(g * fn(x)))/dx as a NumPy array (g: ones by default)."""
    x = x.detach().requires_grad_(True)
    y = fn(x)
    y.backward(ember.ones_like(y) if g is None else f64(g, requires_grad=False))
    return npv(x.grad)


RNG = np.random.default_rng(0)


# ---- second derivatives: gradcheck of (inputs, grad_outputs) -> first derivative, evaluated with grad mode on also
# for the finite differences (gradcheck runs its function under no_grad there, which would leave nothing to compare)


def first_derivative_of(fn, n_inputs, diff_idx):
    def first(*args):
        with ember.enable_grad():
            ins, gos = args[:n_inputs], args[n_inputs:]
            outs = fn(*ins)
            outs = (outs,) if isinstance(outs, ember.Tensor) else tuple(outs)
            pairs = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
            grads = ember.autograd.grad(
                [o for o, _ in pairs],
                [ins[i] for i in diff_idx],
                [g for _, g in pairs],
                create_graph=True,
                allow_unused=True,
            )
            return tuple(g for g in grads if g is not None)

    return first


SECOND = [c for c in reduce_cases.CASES if c.gradgrad]


@pytest.mark.parametrize("case", SECOND, ids=[c.id for c in SECOND])
def test_second_derivatives(case):
    inputs = case.inputs()
    with ember.no_grad():
        outs = case.fn(*inputs)
    outs = (outs,) if isinstance(outs, ember.Tensor) else tuple(outs)
    gen = np.random.default_rng(0)
    gos = tuple(ember.tensor(gen.standard_normal(tuple(o.shape)), dtype=o.dtype).requires_grad_(True) for o in outs)
    diff_idx = [i for i, x in enumerate(inputs) if x.requires_grad]
    first = first_derivative_of(case.fn, len(inputs), diff_idx)
    assert gradcheck(first, tuple(inputs) + gos, **case.check)


def test_second_derivative_check_detects_a_wrong_one():
    class Square(ember.autograd.Function):  # a first derivative that records no graph: second derivative 0
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            with ember.no_grad():
                return g * 2 * a

    first = first_derivative_of(Square.apply, 1, [0])
    assert not gradcheck(first, (f64([1.0, 2.0]), f64([1.0, -1.0])), raise_exception=False)


# ---- ties: amax/amin and the whole-tensor max/min/median split evenly; max/min(dim) pick one index


def even_split(a, axis, reduce):
    r = reduce(a, axis=axis, keepdims=True)
    mask = (a == r).astype(float)
    return mask / mask.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("op,np_op", [("amax", np.max), ("amin", np.min)])
@pytest.mark.parametrize("dim", [1, (0, 2), -1, None])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_split_the_gradient_evenly_among_ties(op, np_op, dim, keepdim):
    a = RNG.integers(0, 3, size=(2, 3, 4)).astype(float)  # many ties
    got = grad_of(lambda x: getattr(ember, op)(x, dim, keepdim), f64(a.tolist()))
    axis = tuple(range(3)) if dim is None else dim
    np.testing.assert_allclose(got, even_split(a, axis, np_op))


@pytest.mark.parametrize("op,np_op", [("max", np.max), ("min", np.min)])
def test_whole_tensor_max_min_split_evenly(op, np_op):
    a = np.array([[1.0, 3.0, 3.0], [0.0, 3.0, 0.0]])
    got = grad_of(lambda x: getattr(ember, op)(x), f64(a.tolist()))
    np.testing.assert_allclose(got, even_split(a, None, np_op))


def test_whole_tensor_max_with_nan_sends_the_gradient_to_the_nans():
    got = grad_of(ember.max, f64([1.0, float("nan"), 2.0, float("nan")]))
    np.testing.assert_allclose(got, [0.0, 0.5, 0.0, 0.5])


def test_median_of_whole_tensor_splits_evenly_among_equal_elements():
    a = np.array([1.0, 2.0, 2.0, 3.0, 5.0, 2.0])
    got = grad_of(ember.median, f64(a.tolist()))
    lower_median = np.sort(a)[(a.size - 1) // 2]
    np.testing.assert_allclose(got, (a == lower_median) / (a == lower_median).sum())


def test_aminmax_gradients_split_among_ties():
    a = np.array([[4.0, 1.0, 4.0], [1.0, 1.0, 2.0]])
    x = f64(a.tolist())
    mn, mx = ember.aminmax(x)
    (2 * mn + 3 * mx).backward()
    np.testing.assert_allclose(npv(x.grad), 2 * even_split(a, None, np.min) + 3 * even_split(a, None, np.max))


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_along_dim_send_the_gradient_to_the_returned_index(op, dim, keepdim):
    a = RNG.integers(0, 3, size=(3, 4)).astype(float)  # ties: only the returned index gets the gradient
    g = RNG.standard_normal(np.delete(np.array(a.shape), dim % 2).tolist())
    if keepdim:
        g = np.expand_dims(g, dim)
    x = f64(a.tolist())
    values, indices = getattr(ember, op)(x, dim, keepdim)
    assert not indices.requires_grad and indices.grad_fn is None
    values.backward(f64(g.tolist(), requires_grad=False))
    idx = npv(indices).astype(int)
    want = np.zeros_like(a)
    np.put_along_axis(
        want, idx if keepdim else np.expand_dims(idx, dim), g if keepdim else np.expand_dims(g, dim), axis=dim
    )
    np.testing.assert_allclose(npv(x.grad), want)
    np.testing.assert_array_equal(
        np.take_along_axis(a, idx if keepdim else np.expand_dims(idx, dim), dim),
        getattr(np, op)(a, axis=dim, keepdims=True),
    )


# ---- products with zeros


def prod_grad_reference(a, axis):
    """d prod / d a_k = the product of the other elements of a_k's slice (np.delete, no division)."""
    a = np.moveaxis(a, axis, -1)
    out = np.empty_like(a)
    for idx in np.ndindex(a.shape[:-1]):
        row = a[idx]
        out[idx] = [np.prod(np.delete(row, k)) for k in range(row.size)]
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize(
    "rows",
    [
        [[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]],  # one zero, two zeros, none
        [[0.0, 5.0, -1.0], [0.0, 0.0, 0.0], [7.0, 0.0, 0.5]],
    ],
)
@pytest.mark.parametrize("dim", [0, 1])
def test_prod_gradient_with_zeros(rows, dim):
    a = np.array(rows)
    g = RNG.standard_normal(3)
    got = grad_of(lambda x: ember.prod(x, dim), f64(rows), g.tolist())
    np.testing.assert_allclose(got, prod_grad_reference(a, dim) * np.expand_dims(g, dim))


@pytest.mark.parametrize(
    "values", [[2.0, -3.0, 0.5, 4.0], [2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 5.0], [0.0, 0.0, 0.0, 1.0]]
)
def test_prod_of_whole_tensor_with_zeros_and_its_second_derivative(values):
    a = np.array(values)
    x = f64(values)
    (gx,) = ember.autograd.grad([x.prod()], [x], create_graph=True)
    np.testing.assert_allclose(npv(gx), prod_grad_reference(a, 0))
    # Hessian: d2 prod / da_i da_j = the product of the elements other than i and j (0 on the diagonal).
    hess = np.array([[0.0 if i == j else np.prod(np.delete(a, [i, j])) for j in range(4)] for i in range(4)])
    for i in range(4):
        (row,) = ember.autograd.grad([gx[i]], [x], retain_graph=True)
        np.testing.assert_allclose(npv(row), hess[i])


def test_prod_of_a_zero_dim_zero_has_gradient_one():
    x = f64(0.0)
    x.prod().backward()
    assert x.grad.item() == 1.0


def test_prod_over_several_dims_with_zeros():
    a = RNG.uniform(0.5, 1.5, size=(2, 3, 4))
    a[0, 1, 2] = 0.0
    a[1, 0, 0] = a[1, 2, 3] = 0.0
    got = grad_of(lambda x: ember.prod(x, (0, 2)), f64(a.tolist()))
    moved = np.moveaxis(a, 1, 0).reshape(3, -1)  # the reduced elements of each output in one row
    want = np.moveaxis(prod_grad_reference(moved, 1).reshape(3, 2, 4), 0, 1)
    np.testing.assert_allclose(got, want)


# ---- scans


def cumprod_grad_reference(a, g):
    """dx_k = sum_{i>=k} g_i prod_{j<=i, j!=k} x_j, by brute force along the last axis."""
    out = np.zeros_like(a)
    for idx in np.ndindex(a.shape[:-1]):
        row, gr = a[idx], g[idx]
        for k in range(row.size):
            out[idx + (k,)] = sum(gr[i] * np.prod(np.delete(row[: i + 1], k)) for i in range(k, row.size))
    return out


@pytest.mark.parametrize(
    "rows",
    [
        [[2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 3.0], [1.0, 2.0, 3.0, -0.5]],
        [[0.0, 0.0, 0.0, 0.0], [1.5, 2.0, -1.0, 0.0], [3.0, 0.0, 0.0, 2.0]],
    ],
)
def test_cumprod_gradient_with_zeros(rows):
    a = np.array(rows)
    g = RNG.standard_normal(a.shape)
    got = grad_of(lambda x: ember.cumprod(x, 1), f64(rows), g.tolist())
    np.testing.assert_allclose(got, cumprod_grad_reference(a, g), atol=1e-12)
    got0 = grad_of(lambda x: ember.cumprod(x, 0), f64(a.T.tolist()), g.T.tolist())
    np.testing.assert_allclose(got0, cumprod_grad_reference(a, g).T, atol=1e-12)


def test_cumprod_inplace_records_the_gradient_of_the_old_values():
    a = np.array([[2.0, 0.0, 3.0], [1.0, -2.0, 0.5]])
    x = f64(a.tolist())
    y = x * 1.0
    y.cumprod_(1)
    np.testing.assert_allclose(npv(y), np.cumprod(a, 1))
    g = RNG.standard_normal(a.shape)
    y.backward(f64(g.tolist(), requires_grad=False))
    np.testing.assert_allclose(npv(x.grad), cumprod_grad_reference(a, g), atol=1e-12)


def test_cumsum_inplace_and_on_a_view():
    a = RNG.standard_normal((3, 4))
    g = RNG.standard_normal((3, 4))
    x = f64(a.tolist())
    y = x * 1.0
    y.cumsum_(0)
    y.backward(f64(g.tolist(), requires_grad=False))
    np.testing.assert_allclose(npv(x.grad), np.flip(np.cumsum(np.flip(g, 0), 0), 0))
    x = f64(a.tolist())
    y = x * 1.0
    y[1].cumsum_(0)  # in place on a row: the base's other rows keep the identity gradient
    y.backward(f64(g.tolist(), requires_grad=False))
    want = g.copy()
    want[1] = np.flip(np.cumsum(np.flip(g[1])))
    np.testing.assert_allclose(npv(x.grad), want)


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
def test_inplace_scan_on_a_leaf_that_requires_grad_raises(op):
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match=op + ".*leaf Variable"):
        getattr(x, op)(0)


@pytest.mark.parametrize("op,np_acc", [("cummax", np.maximum.accumulate), ("cummin", np.minimum.accumulate)])
def test_cummax_cummin_send_each_gradient_to_the_running_extremum(op, np_acc):
    a = np.array([[1.0, 3.0, 2.0, 3.0, 5.0], [4.0, 1.0, 1.0, 0.0, 2.0]])
    g = RNG.standard_normal(a.shape)
    x = f64(a.tolist())
    values, indices = getattr(ember, op)(x, 1)
    assert indices.grad_fn is None
    values.backward(f64(g.tolist(), requires_grad=False))
    want = np.zeros_like(a)
    for r, c in np.ndindex(a.shape):
        want[r, npv(indices)[r, c].astype(int)] += g[r, c]
    np.testing.assert_allclose(npv(x.grad), want)
    np.testing.assert_array_equal(npv(values), np_acc(a, axis=1))


def test_logcumsumexp_gradient_is_stable_for_large_inputs():
    a = np.array([1000.0, 1000.5, 999.0, -1000.0, 1001.0])
    g = np.array([0.3, -1.2, 0.0, 2.0, -0.7])
    y = np.logaddexp.accumulate(a)
    want = [sum(g[i] * np.exp(a[k] - y[i]) for i in range(k, a.size)) for k in range(a.size)]
    got = grad_of(lambda x: ember.logcumsumexp(x, 0), f64(a.tolist()), g.tolist())
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_cumsum_with_dtype_gives_the_gradient_in_the_input_dtype():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = ember.cumsum(x, 0, dtype=ember.float64)
    assert y.dtype == ember.float64
    y.backward(f64([1.0, 10.0, 100.0], requires_grad=False))
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(npv(x.grad), [111.0, 110.0, 100.0])


# ---- sorting and selection


@pytest.mark.parametrize("dim,descending", [(0, False), (1, True), (-1, False)])
def test_sort_gradient_is_the_inverse_permutation(dim, descending):
    a = RNG.standard_normal((3, 4))
    g = RNG.standard_normal((3, 4))
    x = f64(a.tolist())
    values, indices = ember.sort(x, dim, descending)
    values.backward(f64(g.tolist(), requires_grad=False))
    want = np.zeros_like(a)
    np.put_along_axis(want, npv(indices).astype(int), g, axis=dim)
    np.testing.assert_allclose(npv(x.grad), want)
    assert ember.argsort(x).grad_fn is None


def test_topk_and_kthvalue_gradients_go_to_the_selected_elements():
    a = np.array([[0.5, -1.0, 3.0, 2.0], [4.0, 0.0, 1.0, -2.0]])
    got = grad_of(lambda x: ember.topk(x, 2).values, f64(a.tolist()), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(got, [[0, 0, 1, 2], [3, 0, 4, 0]])
    got = grad_of(lambda x: ember.kthvalue(x, 2, 1).values, f64(a.tolist()), [5.0, 6.0])
    np.testing.assert_allclose(got, [[5, 0, 0, 0], [0, 6, 0, 0]])


def test_median_and_mode_along_a_dim_pick_the_returned_index():
    a = np.array([[2.0, 1.0, 2.0, 3.0], [7.0, 7.0, 1.0, 1.0]])
    x = f64(a.tolist())
    for fn in (lambda t: ember.median(t, 1), lambda t: ember.mode(t, 1), lambda t: ember.nanmedian(t, 1)):
        x.grad = None
        values, indices = fn(x)
        values.backward(f64([1.0, 2.0], requires_grad=False))
        want = np.zeros_like(a)
        want[[0, 1], npv(indices).astype(int)] = [1.0, 2.0]
        np.testing.assert_allclose(npv(x.grad), want)


# ---- moments, logsumexp, norms


@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 2), True)])
def test_var_std_gradients_match_the_closed_forms(correction, dim, keepdim):
    a = RNG.standard_normal((2, 3, 4))
    axis = tuple(range(3)) if dim is None else dim
    n = np.prod([a.shape[d] for d in np.atleast_1d(axis)])
    dev = a - a.mean(axis=axis, keepdims=True)
    var_grad = 2 * dev / (n - correction)
    got = grad_of(lambda x: ember.var(x, dim, correction=correction, keepdim=keepdim).sum(), f64(a.tolist()))
    np.testing.assert_allclose(got, var_grad)
    std = np.sqrt((dev**2).sum(axis=axis, keepdims=True) / (n - correction))
    got = grad_of(lambda x: ember.std(x, dim, correction=correction, keepdim=keepdim).sum(), f64(a.tolist()))
    np.testing.assert_allclose(got, var_grad / (2 * std))
    x = f64(a.tolist())
    v, m = ember.var_mean(x, dim, correction=correction, keepdim=keepdim)
    (3 * v.sum() + 5 * m.sum()).backward()
    np.testing.assert_allclose(npv(x.grad), 3 * var_grad + 5 / n)


def test_std_of_constant_input_has_zero_gradient():
    x = f64([2.0, 2.0, 2.0])
    s, m = ember.std_mean(x)
    (s + m).backward()
    np.testing.assert_allclose(npv(x.grad), [1 / 3] * 3)


def test_logsumexp_gradient_is_softmax_even_for_large_inputs():
    a = np.array([[1000.0, 1001.0, 999.0], [-5.0, 0.0, 5.0]])
    got = grad_of(lambda x: ember.logsumexp(x, 1), f64(a.tolist()))
    e = np.exp(a - a.max(1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(1, keepdims=True))


def p_norm_grad(a, p):
    r = (np.abs(a) ** p).sum() ** (1 / p)
    return np.sign(a) * np.abs(a) ** (p - 1) / r ** (p - 1)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 1.5, 0.5, -1.0])
def test_vector_norm_gradient_matches_the_closed_form(p):
    a = np.array([0.5, -2.0, 1.5, -0.25])
    got = grad_of(lambda x: ember.linalg.vector_norm(x, p), f64(a.tolist()))
    np.testing.assert_allclose(got, p_norm_grad(a, p))
    got = grad_of(lambda x: ember.norm(x, p), f64(a.tolist()))
    np.testing.assert_allclose(got, p_norm_grad(a, p))


def test_inf_norms_split_among_ties_and_keep_the_sign():
    a = [3.0, -3.0, 1.0, -1.0]
    np.testing.assert_allclose(grad_of(lambda x: ember.linalg.vector_norm(x, float("inf")), f64(a)), [0.5, -0.5, 0, 0])
    np.testing.assert_allclose(grad_of(lambda x: ember.linalg.vector_norm(x, float("-inf")), f64(a)), [0, 0, 0.5, -0.5])


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 1.5, 0.5, float("inf"), 0.0])
def test_norm_gradient_at_the_zero_vector_is_zero(p):
    got = grad_of(lambda x: ember.linalg.vector_norm(x, p), f64([0.0, 0.0, 0.0]))
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.0])


def test_norm_with_dtype_gives_the_gradient_in_the_input_dtype():
    x = ember.tensor([3.0, 4.0], requires_grad=True)
    y = ember.linalg.vector_norm(x, dtype=ember.float64)
    assert y.dtype == ember.float64
    y.backward()
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(npv(x.grad), [0.6, 0.8], rtol=1e-6)


# ---- dtypes, empty tensors, 0-d, in-place on results


def test_sum_and_prod_with_dtype_give_the_gradient_in_the_input_dtype():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    s = ember.sum(x, 1, dtype=ember.float64)
    p = ember.prod(x, 0, dtype=ember.float64)
    assert s.dtype == p.dtype == ember.float64
    (s.sum() + p.sum()).backward()
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(npv(x.grad), [[1 + 3, 1 + 4], [1 + 1, 1 + 2]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.sum(0),
        lambda x: x.prod(0),
        lambda x: x.mean(1),
        lambda x: ember.cumsum(x, 0),
        lambda x: ember.cumprod(x, 1),
        lambda x: ember.sort(x, 0).values,
        lambda x: ember.logsumexp(x, 0),
        lambda x: ember.linalg.vector_norm(x, 2, dim=0),
        lambda x: ember.nansum(x, 0),
        lambda x: ember.logcumsumexp(x, 0),
        lambda x: ember.var(x, 0),
    ],
)
def test_empty_inputs_give_empty_gradients(fn):
    x = ember.zeros(0, 3, dtype=ember.float64, requires_grad=True)
    y = fn(x)
    y.backward(ember.ones_like(y))
    assert tuple(x.grad.shape) == (0, 3)


def test_extrema_of_empty_inputs_raise_naming_the_op():
    x = ember.zeros(0, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="max"):
        ember.max(x)
    with pytest.raises(RuntimeError, match="amax"):
        ember.amax(x, 0)
    with pytest.raises(IndexError, match="max"):
        ember.max(x, 0)


def test_integer_outputs_have_no_history():
    x = f64([[1.0, 3.0], [2.0, 0.0]])
    assert ember.max(x, 1).indices.grad_fn is None
    assert ember.sort(x).indices.grad_fn is None
    assert ember.count_nonzero(x).grad_fn is None
    assert not ember.argmax(x).requires_grad
    assert ember.sum(x, dtype=ember.int64).grad_fn is None


@pytest.mark.parametrize(
    "fn,want",
    [  # x = [[1, 3], [2, 0]]; the result is doubled in place, then summed
        (lambda x: x.sum(1), [[2.0, 2.0], [2.0, 2.0]]),
        (lambda x: ember.nansum(x, 1), [[2.0, 2.0], [2.0, 2.0]]),
        (lambda x: ember.max(x, 1).values, [[0.0, 2.0], [2.0, 0.0]]),
        (lambda x: ember.median(x, 1, keepdim=False).values, [[2.0, 0.0], [0.0, 2.0]]),
        (lambda x: x.mean(1), [[1.0, 1.0], [1.0, 1.0]]),
        (lambda x: ember.var_mean(x, 1)[1], [[1.0, 1.0], [1.0, 1.0]]),
        (lambda x: ember.linalg.vector_norm(x, 1, dim=1), [[2.0, 2.0], [2.0, 0.0]]),
    ],
)
def test_in_place_ops_on_a_reduction_result_keep_its_history(fn, want):
    x = f64([[1.0, 3.0], [2.0, 0.0]])
    y = fn(x)
    y.mul_(2.0)
    y.sum().backward()
    np.testing.assert_allclose(npv(x.grad), want)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: ember.prod(x, 1),
        lambda x: ember.amax(x, 1),
        lambda x: ember.median(x),
        lambda x: ember.logsumexp(x, 1),
        lambda x: ember.cumprod(x, 1),
        lambda x: ember.std(x, 1),
    ],
)
def test_in_place_ops_on_a_result_the_formula_saved_make_backward_raise(fn):
    x = f64([[1.0, 3.0], [2.0, 0.5]])
    y = fn(x)
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_zero_dim_inputs():
    for fn, want in [
        (lambda x: ember.max(x, 0).values, 1.0),
        (lambda x: ember.sort(x).values, 1.0),
        (lambda x: ember.cumprod(x, 0), 1.0),
        (lambda x: ember.logsumexp(x, 0), 1.0),
        (lambda x: x.var(correction=0), 0.0),
        (lambda x: ember.norm(x, 3), -1.0),
        (lambda x: ember.topk(x, 1).values, 1.0),
        (lambda x: ember.median(x), 1.0),
    ]:
        assert grad_of(fn, f64(-2.0)).item() == pytest.approx(want)


# ---- what the graph keeps

MIB = 1 << 20


def allocated():
    return ember._C._cpu_memory_stats()["allocated_bytes"]


@pytest.mark.parametrize(
    "fn,keeps_input",
    [
        (lambda x: x.sum(), False),
        (lambda x: x.sum(0, keepdim=True), False),
        (lambda x: x.mean(1), False),
        (lambda x: ember.cumsum(x, 1), False),
        (lambda x: ember.max(x, 1).values, False),
        (lambda x: ember.sort(x, 1).values, False),
        (lambda x: x.prod(1), True),
        (lambda x: ember.amax(x, 0), True),
        (lambda x: x.var(1), True),
        (lambda x: ember.linalg.vector_norm(x, 1, dim=1), True),
    ],
)
def test_reductions_keep_their_input_only_when_the_formula_reads_it(fn, keeps_input):
    gc.collect()
    x = ember.ones(MIB // 1024, 256, requires_grad=True)  # 1 MiB of float32
    y = fn(x)
    base = allocated()
    del x
    gc.collect()
    freed = base - allocated()
    if keeps_input:
        assert freed < 1024
    else:
        assert freed >= MIB
    y.backward(ember.ones_like(y))  # the leaf is gone: nothing to accumulate into, and no error
