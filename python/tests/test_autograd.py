"""The autograd engine and API: backward/grad semantics, graph attributes, hooks, grad modes, custom functions,
in-place safety, memory, anomaly mode. Values are checked against closed forms."""

import gc
import threading

import numpy as np
import pytest

import ember
from ember.autograd import Function


def f64(values, requires_grad=True):
    return ember.tensor(values, dtype=ember.float64, requires_grad=requires_grad)


def npv(t):
    return np.array(t.tolist())


# ---- backward and grad


def test_backward_accumulates_into_leaves():
    x = f64([1.0, 2.0, 3.0])
    y = x * x * x
    y.backward(ember.ones(3, dtype=ember.float64), retain_graph=True)
    np.testing.assert_allclose(npv(x.grad), 3 * np.array([1, 4, 9.0]))
    g = x.grad
    y.backward(ember.ones(3, dtype=ember.float64))
    np.testing.assert_allclose(npv(x.grad), 6 * np.array([1, 4, 9.0]))
    assert x.grad is g  # accumulated in place without create_graph


def test_scalar_backward_needs_no_gradient():
    x = f64([2.0])
    (x * x).backward()
    assert npv(x.grad).tolist() == [4.0]


def test_gradients_arriving_at_one_node_are_summed():
    x = f64([1.5, -2.0])
    a = x.exp()
    y = a * a + a * 3.0 + a  # a feeds three consumers
    y.backward(ember.ones(2, dtype=ember.float64))
    e = np.exp([1.5, -2.0])
    np.testing.assert_allclose(npv(x.grad), (2 * e + 4) * e)


def test_broadcast_gradients_are_reduced_to_the_input_shape():
    a = ember.ones(3, 1, dtype=ember.float64, requires_grad=True)
    b = f64([[1.0, 2.0, 3.0, 4.0]])
    (a * b).backward(ember.ones(3, 4, dtype=ember.float64))
    assert a.grad.shape == (3, 1) and b.grad.shape == (1, 4)
    np.testing.assert_allclose(npv(a.grad), [[10.0]] * 3)
    np.testing.assert_allclose(npv(b.grad), [[3.0] * 4])


def test_gradient_is_cast_to_the_input_dtype():
    x = ember.tensor([1.0, 2.0], dtype=ember.float32, requires_grad=True)
    y = x * f64([3.0, 4.0], requires_grad=False)  # float64 result
    y.backward(ember.ones(2, dtype=ember.float64))
    assert x.grad.dtype == ember.float32
    assert npv(x.grad).tolist() == [3.0, 4.0]


def test_grad_returns_gradients_without_touching_dot_grad():
    x = f64([1.0, 2.0])
    y = x * x * x
    (g,) = ember.autograd.grad(y, x, ember.ones(2, dtype=ember.float64))
    np.testing.assert_allclose(npv(g), [3.0, 12.0])
    assert x.grad is None


def test_grad_of_a_non_leaf_input():
    x = f64([1.0, 2.0])
    h = x * 2.0
    y = h * h
    (gh,) = ember.autograd.grad(y, h, ember.ones(2, dtype=ember.float64))
    np.testing.assert_allclose(npv(gh), [4.0, 8.0])


def test_create_graph_gives_second_and_third_derivatives():
    x = f64([0.5, 2.0])
    y = x * x * x * x  # x^4
    ones = ember.ones(2, dtype=ember.float64)
    (g1,) = ember.autograd.grad(y, x, ones, create_graph=True)
    (g2,) = ember.autograd.grad(g1, x, ones, create_graph=True)
    (g3,) = ember.autograd.grad(g2, x, ones)
    xv = np.array([0.5, 2.0])
    np.testing.assert_allclose(npv(g1), 4 * xv**3)
    np.testing.assert_allclose(npv(g2), 12 * xv**2)
    np.testing.assert_allclose(npv(g3), 24 * xv)


def test_hessian_vector_product_by_double_backprop():
    x = f64([0.3, -1.2, 2.0])
    v = f64([1.0, 0.5, -2.0], requires_grad=False)
    y = (x * x * x).exp()
    ones = ember.ones(3, dtype=ember.float64)
    (g,) = ember.autograd.grad(y, x, ones, create_graph=True)
    (hv,) = ember.autograd.grad(g, x, v)
    xv = np.array([0.3, -1.2, 2.0])
    d2 = np.exp(xv**3) * (9 * xv**4 + 6 * xv)  # elementwise: the Hessian is diagonal
    np.testing.assert_allclose(npv(hv), d2 * npv(v))


def test_allow_unused():
    x, z = f64([1.0]), f64([2.0])
    y = x * 2.0
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        ember.autograd.grad(y, [x, z], ember.ones(1, dtype=ember.float64), retain_graph=True)
    gx, gz = ember.autograd.grad(y, [x, z], ember.ones(1, dtype=ember.float64), allow_unused=True)
    assert npv(gx).tolist() == [2.0] and gz is None
    gx, gz = ember.autograd.grad(x * 2.0, [x, z], ember.ones(1, dtype=ember.float64), materialize_grads=True)
    assert npv(gz).tolist() == [0.0]


def test_backward_with_inputs_accumulates_only_into_them():
    x, z = f64([1.0, 2.0]), f64([3.0, 4.0])
    h = x * z
    y = h * h
    y.backward(ember.ones(2, dtype=ember.float64), inputs=[x, h])
    assert z.grad is None
    np.testing.assert_allclose(npv(x.grad), 2 * np.array([3.0, 8.0]) * np.array([3.0, 4.0]))
    np.testing.assert_allclose(npv(h.grad), 2 * np.array([3.0, 8.0]))


def test_retain_graph_and_the_second_backward_error():
    x = f64([1.0, 2.0])
    y = x.exp()
    ones = ember.ones(2, dtype=ember.float64)
    y.backward(ones, retain_graph=True)
    y.backward(ones)
    np.testing.assert_allclose(npv(x.grad), 2 * np.exp([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time.*ExpBackward0"):
        y.backward(ones)
    # A graph whose nodes saved nothing can be run again (as in PyTorch).
    w = x * 2.0 + 1.0
    w.backward(ones)
    w.backward(ones)


def test_backward_errors():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2.0).backward()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        f64([1.0], requires_grad=False).backward()
    with pytest.raises(
        RuntimeError,
        match=r"Mismatch in shape: grad_output\[0\] has a shape of \[3\] and output\[0\] "
        r"has a shape of \[2\]",
    ):
        (x * 2.0).backward(ember.ones(3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        ember.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (x * 2.0).requires_grad_(False)
    with pytest.raises(
        RuntimeError,
        match=r"mul\(\): functions with out=\.\.\. arguments don't support automatic "
        "differentiation",
    ):
        ember.mul(x, x, out=ember.empty(2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="does not require grad"):
        ember.autograd.grad(x * 2.0, f64([1.0], requires_grad=False), ember.ones(2, dtype=ember.float64))


# ---- graph attributes


def test_grad_fn_names_and_next_functions():
    x = f64([1.0, 2.0])
    w = f64([3.0, 4.0])
    y = (x * w).exp()
    assert x.is_leaf and not y.is_leaf and x.grad_fn is None
    assert y.grad_fn.name() == "ExpBackward0"
    assert repr(y.grad_fn).startswith("<ExpBackward0 object at 0x")
    assert y.grad_fn is y.grad_fn
    ((mul, k),) = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and k == 0
    (acc_x, _), (acc_w, _) = mul.next_functions
    assert acc_x.name() == "AccumulateGrad" and acc_x.variable is x and acc_w.variable is w
    assert "grad_fn=<ExpBackward0>" in repr(y)
    z = x * f64([1.0, 1.0], requires_grad=False)
    assert z.grad_fn.next_functions[1] == (None, 0)


def test_requires_grad_propagates_and_detach():
    x = f64([1.0, 2.0])
    c = f64([1.0, 1.0], requires_grad=False)
    assert (x + c).requires_grad and not (c * 2).requires_grad
    d = (x * 2.0).detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    y = x * 2.0
    y.detach_()
    assert not y.requires_grad and y.grad_fn is None
    assert x.detach()._version == x._version  # detach shares the version counter


def test_integer_results_do_not_require_grad():
    x = f64([1.0, -2.0])
    assert not (x > 0).requires_grad
    assert not x.to(ember.int64).requires_grad


# ---- hooks


def test_tensor_hooks_run_in_order_and_may_replace_the_gradient():
    x = f64([1.0, 2.0])
    y = x * 3.0
    seen = []
    y.register_hook(lambda g: seen.append(("first", npv(g).tolist())))
    y.register_hook(lambda g: g * 10.0)
    y.register_hook(lambda g: seen.append(("third", npv(g).tolist())))
    y.retain_grad()
    y.backward(ember.ones(2, dtype=ember.float64))
    assert seen == [("first", [1.0, 1.0]), ("third", [10.0, 10.0])]
    assert npv(y.grad).tolist() == [10.0, 10.0]  # retain_grad sees the hooked gradient
    assert npv(x.grad).tolist() == [30.0, 30.0]


def test_leaf_hook_runs_before_accumulation_and_can_be_removed():
    x = f64([1.0])
    h = x.register_hook(lambda g: g * 2.0)
    (x * 5.0).backward()
    assert npv(x.grad).tolist() == [10.0]
    h.remove()
    (x * 5.0).backward()
    assert npv(x.grad).tolist() == [15.0]
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        f64([1.0], requires_grad=False).register_hook(lambda g: g)


def test_post_accumulate_grad_hook_sees_the_updated_grad():
    x = f64([1.0, 2.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, npv(t.grad).tolist())))
    (x * 4.0).backward(ember.ones(2, dtype=ember.float64))
    assert seen == [(True, [4.0, 4.0])]
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (x * 2.0).register_post_accumulate_grad_hook(lambda t: None)


def test_queue_callback_runs_after_the_whole_graph():
    from ember.autograd import Variable

    x, y = f64([1.0, 2.0]), f64([3.0])
    seen = []

    def cb():
        # Both leaves are accumulated by the time the callback runs, whichever hook queued it.
        seen.append((npv(x.grad).tolist(), npv(y.grad).tolist()))
        if len(seen) == 1:
            Variable._execution_engine.queue_callback(lambda: seen.append("chained"))

    x.register_post_accumulate_grad_hook(lambda t: Variable._execution_engine.queue_callback(cb))
    ((x * 2.0).sum() * y).sum().backward()
    assert seen == [([6.0, 6.0], [6.0]), "chained"]
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
        Variable._execution_engine.queue_callback(lambda: None)
    # An exception in a callback reaches the caller of backward.
    z = f64([1.0])
    z.register_post_accumulate_grad_hook(
        lambda t: Variable._execution_engine.queue_callback(lambda: (_ for _ in ()).throw(ValueError("from cb")))
    )
    with pytest.raises(ValueError, match="from cb"):
        (z * 3.0).sum().backward()


def test_node_post_hook():
    x = f64([1.0, 2.0])
    y = x.exp()
    seen = []
    y.grad_fn.register_hook(lambda gin, gout: seen.append((npv(gin[0]).tolist(), npv(gout[0]).tolist())))
    y.backward(ember.ones(2, dtype=ember.float64))
    e = np.exp([1.0, 2.0])
    np.testing.assert_allclose(seen[0][0], e)
    assert seen[0][1] == [1.0, 1.0]


def test_retain_grad_and_non_leaf_grad():
    x = f64([2.0])
    h = x * 3.0
    h.retain_grad()
    assert h.retains_grad
    (h * h).backward()
    assert npv(h.grad).tolist() == [12.0]
    x.retain_grad()  # a no-op on leaves
    assert not x.retains_grad


def test_python_error_in_a_hook_propagates():
    x = f64([1.0])
    y = x * 2.0

    def bad(g):
        raise ValueError("bad hook")

    y.register_hook(bad)
    with pytest.raises(ValueError, match="bad hook"):
        y.backward()


# ---- grad modes


def test_no_grad_enable_grad_set_grad_enabled():
    x = f64([1.0])
    with ember.no_grad():
        assert not ember.is_grad_enabled()
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
    assert ember.is_grad_enabled()

    @ember.no_grad()
    def f():
        return x * 2

    assert not f().requires_grad
    ember.set_grad_enabled(False)
    assert not ember.is_grad_enabled()
    ember.set_grad_enabled(True)
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert ember.is_grad_enabled()
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled() and not (x * 2).requires_grad
    assert not ember.is_inference_mode_enabled()


def test_grad_mode_is_thread_local():
    seen = []

    def worker():
        x = f64([1.0])
        seen.append((ember.is_grad_enabled(), (x * 2).requires_grad))

    with ember.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not ember.is_grad_enabled()
    assert seen == [(True, True)]


def test_backward_in_two_threads_at_once():
    results = {}

    def worker(k):
        x = f64([float(k)] * 1000)
        y = x
        for _ in range(50):
            y = (y * 1.01).sin()
        y.backward(ember.ones(1000, dtype=ember.float64))
        results[k] = npv(x.grad)[0]

    threads = [threading.Thread(target=worker, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in (1, 2):  # the same chain in NumPy
        v, d = float(k), 1.0
        for _ in range(50):
            d *= 1.01 * np.cos(v * 1.01)
            v = np.sin(v * 1.01)
        assert results[k] == pytest.approx(d, rel=1e-12)


# ---- custom functions


class Cube(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x * x * (3.0 * ctx.scale), None


def test_custom_function_gradient_and_double_backward():
    x = f64([1.0, -2.0])
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    ones = ember.ones(2, dtype=ember.float64)
    (g,) = ember.autograd.grad(y, x, ones, create_graph=True)
    np.testing.assert_allclose(npv(g), 6 * np.array([1.0, 4.0]))
    (gg,) = ember.autograd.grad(g, x, ones)  # the backward itself was recorded
    np.testing.assert_allclose(npv(gg), 12 * np.array([1.0, -2.0]))
    assert ember.autograd.gradcheck(lambda t: Cube.apply(t, 0.5), (f64([0.3, 1.1]),))
    assert ember.autograd.gradgradcheck(lambda t: Cube.apply(t, 0.5), (f64([0.3, 1.1]),))


def test_custom_function_needs_input_grad_and_non_tensor_args():
    seen = []

    class F(Function):
        @staticmethod
        def forward(ctx, a, k, b):
            seen.append(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    a, b = f64([1.0]), f64([2.0], requires_grad=False)
    F.apply(a, 3, b).backward()
    assert seen == [(True, False, False)]
    assert npv(a.grad).tolist() == [1.0]


def test_custom_function_mark_dirty_and_non_differentiable():
    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2.0  # deliberately not 1, to see it is used

    class SortValues(Function):
        @staticmethod
        def forward(ctx, x):
            idx = ember.argsort(x)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x[idx], idx

        @staticmethod
        def backward(ctx, g, g_idx):
            (idx,) = ctx.saved_tensors
            out = ember.zeros_like(g)
            out[idx] = g
            return out

    x = f64([1.0, 2.0])
    h = x * 1.0
    r = AddOneInplace.apply(h)
    assert r is h and h.grad_fn.name() == "AddOneInplaceBackward"
    r.backward(ember.ones(2, dtype=ember.float64))
    assert npv(x.grad).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        AddOneInplace.apply(f64([1.0]))

    v = f64([3.0, 1.0, 2.0])
    s, idx = SortValues.apply(v)
    assert not idx.requires_grad and s.requires_grad
    s.backward(f64([10.0, 20.0, 30.0], requires_grad=False))
    assert npv(v.grad).tolist() == [30.0, 10.0, 20.0]


def test_custom_function_materialize_grads_and_identity_output():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2.0, x  # the second output is the input itself

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            total = g1 * 2.0 if g1 is not None else None
            if g2 is not None:
                total = g2 if total is None else total + g2
            return total, None

    x = f64([1.0])
    a, b = Two.apply(x, False)
    assert b is not x and b.grad_fn is a.grad_fn
    a.backward()
    a, b = Two.apply(x, True)
    a.backward()
    assert seen == [(False, True), (False, False)]
    assert npv(x.grad).tolist() == [4.0]


def test_custom_function_errors():
    class WrongCount(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        WrongCount.apply(f64([1.0])).backward()

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            return ember.ones(3, dtype=ember.float64)

    with pytest.raises(
        RuntimeError,
        match=r"returned an invalid gradient at index 0 - got \[3\] but expected shape "
        r"compatible with \[2\]",
    ):
        WrongShape.apply(f64([1.0, 2.0])).backward(ember.ones(2, dtype=ember.float64))

    class Raises(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            raise KeyError("from backward")

    with pytest.raises(KeyError, match="from backward"):
        Raises.apply(f64([1.0])).backward()


def test_once_differentiable():
    class F(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ember.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert not ember.is_grad_enabled()
            return g * 2.0 * x

    x = f64([3.0])
    (g,) = ember.autograd.grad(F.apply(x), x, create_graph=True)
    assert npv(g).tolist() == [6.0] and not g.requires_grad


# ---- in-place safety


def test_modifying_a_saved_tensor_is_detected():
    x = f64([1.0, 2.0])
    y = x.exp()
    z = y * 2.0
    y.add_(1.0)  # ExpBackward0 saved y
    with pytest.raises(
        RuntimeError,
        match=r"modified by an inplace operation: \[ember\.DoubleTensor \[2\]\], which is "
        r"output 0 of ExpBackward0.*is at version 1; expected version 0",
    ):
        (z * y).backward(ember.ones(2, dtype=ember.float64))


def test_inplace_on_leaf_and_view_of_leaf_is_refused():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x.mul_(2.0)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used"):
        x[0:1].mul_(2.0)
    with ember.no_grad():
        x.mul_(2.0)  # allowed without grad mode (optimizer updates)
    assert npv(x).tolist() == [2.0, 4.0]


def test_inplace_on_a_non_leaf_rewrites_its_history():
    x = f64([1.0, 2.0])
    y = x * 2.0
    y.mul_(3.0)
    y.exp_()
    assert y.grad_fn.name() == "ExpBackward0"
    y.backward(ember.ones(2, dtype=ember.float64))
    np.testing.assert_allclose(npv(x.grad), 6 * np.exp(6 * np.array([1.0, 2.0])))


def test_inplace_on_a_view_rewrites_the_base_history():
    x = f64([1.0, 2.0, 3.0])
    y = x * 1.0
    y[0:2].mul_(5.0)  # CopySlices on y
    assert y.grad_fn.name() == "CopySlices"
    y.backward(f64([1.0, 10.0, 100.0], requires_grad=False))
    assert npv(x.grad).tolist() == [5.0, 50.0, 100.0]


def test_assigning_into_a_fresh_tensor_records_the_value():
    x = f64([1.0, 2.0])
    buf = ember.zeros(2, 3, dtype=ember.float64)
    buf[:, 1] = x * 3.0  # buf gets history through the view it was written through
    buf[0, 2] = 7.0
    assert buf.requires_grad
    w = f64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=False)
    (buf * w).backward(ember.ones(2, 3, dtype=ember.float64))
    assert npv(x.grad).tolist() == [6.0, 15.0]
    # another view of buf taken before the writes now sees the new history
    x.grad = None
    buf2 = ember.zeros(2, dtype=ember.float64)
    whole = buf2[:]
    buf2[0:1] = x[0:1] * 4.0
    assert whole.requires_grad
    whole.backward(ember.ones(2, dtype=ember.float64))
    assert npv(x.grad).tolist() == [4.0, 0.0]


def test_inplace_overwrite_gives_zero_gradient_to_the_old_value():
    x = f64([1.0, 2.0])
    y = x * 2.0
    y.fill_(3.0)
    assert y.requires_grad and y.grad_fn.name() == "FillBackward0"
    (y * x).backward(ember.ones(2, dtype=ember.float64))
    assert npv(x.grad).tolist() == [3.0, 3.0]  # only through the product, not through the overwritten y
    z = x * 2.0
    z.copy_(x * x)
    z.backward(ember.ones(2, dtype=ember.float64))
    assert npv(x.grad).tolist() == [5.0, 7.0]


# ---- memory

MIB = 1 << 20


def allocated():
    return ember._C._cpu_memory_stats()["allocated_bytes"]


def test_a_1000_op_chain_keeps_peak_memory_bounded():
    gc.collect()
    x = ember.ones(MIB // 4, requires_grad=True)  # 1 MiB of float32
    base = allocated()
    ember._C._cpu_reset_peak_memory_stats()
    y = x
    for i in range(1000):  # add and mul by a number save nothing: no node keeps a tensor
        y = y * 1.0001 + 0.5 if i % 2 else -y
    y.backward(ember.ones_like(y))
    peak = ember._C._cpu_memory_stats()["peak_allocated_bytes"] - base
    assert peak < 8 * MIB, peak / MIB
    np.testing.assert_allclose(npv(x.grad[:3]), [(-1.0) ** 500 * 1.0001**500] * 3, rtol=1e-4)
    del y
    gc.collect()
    assert allocated() - base <= 2 * MIB  # .grad only


def test_saved_outputs_are_freed_as_backward_runs():
    x = ember.ones(MIB // 4, requires_grad=True)
    base = allocated()
    y = x
    for _ in range(50):
        y = y.tanh()  # each node keeps its output: 50 MiB before backward
    held = allocated() - base
    assert held >= 49 * MIB
    y.backward(ember.ones_like(y))
    del y
    gc.collect()
    assert allocated() - base <= 2 * MIB


def test_graph_does_not_keep_unneeded_inputs_alive():
    x = ember.ones(MIB // 4, requires_grad=True)
    h = x * 2.0
    base = allocated()
    y = h + 1.0  # add keeps nothing: h's memory goes when h does
    assert allocated() - base >= MIB
    del h
    gc.collect()
    assert allocated() - base < 1024  # y took h's place
    y.backward(ember.ones_like(y))


def test_double_backward_leaves_no_reference_cycle():
    gc.collect()
    base = allocated()
    for _ in range(3):
        x = ember.ones(MIB // 4, requires_grad=True)
        y = (x * x).exp()
        y.backward(ember.ones_like(y), create_graph=True)  # x.grad has a graph that refers to x's data
        assert x.grad.requires_grad
        del x, y
    gc.collect()
    assert allocated() - base < MIB


def test_deep_graph_backward_and_free():
    x = f64([1.0])
    y = x
    for _ in range(100_000):
        y = y + 1.0
    y.backward()
    assert npv(x.grad).tolist() == [1.0]
    del y  # freeing 100k nodes must not recurse


# ---- anomaly mode


def _nan_backward():
    x = f64([0.0])
    y = x.sqrt() * 0.0  # d/dx at 0: inf * 0 = nan
    return x, y


def test_anomaly_mode_names_the_op_and_its_forward_stack():
    with ember.autograd.detect_anomaly():
        x, y = _nan_backward()
        with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output") as e:
            y.backward()
    assert "_nan_backward" in str(e.value)  # the Python stack of the forward call
    x, y = _nan_backward()
    y.backward()  # without anomaly mode: no check
    assert np.isnan(npv(x.grad)[0])


def test_anomaly_mode_adds_the_forward_stack_to_backward_errors():
    ember.autograd.set_detect_anomaly(True)
    try:
        x = f64([1.0])
        y = x.exp()
        y.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
            y.backward()
        assert "test_anomaly_mode_adds_the_forward_stack" in str(e.value)
    finally:
        ember.autograd.set_detect_anomaly(False)
    assert not ember.autograd.is_anomaly_enabled()


# ---- random ops: no gradient through sampling (as PyTorch)


def test_sampling_gives_zero_gradients():
    m, s = f64([0.0, 1.0]), f64([1.0, 2.0])
    z = ember.normal(m, s)
    assert z.grad_fn.name() == "NormalBackward3"
    z.backward(ember.ones(2, dtype=ember.float64))
    assert npv(m.grad).tolist() == [0.0, 0.0] and npv(s.grad).tolist() == [0.0, 0.0]
    p = f64([0.2, 0.7])
    ember.bernoulli(p).backward(ember.ones(2, dtype=ember.float64))
    assert npv(p.grad).tolist() == [0.0, 0.0]


def test_inplace_sampling_overwrites_the_history():
    x = f64([1.0, 2.0])
    y = x * 3.0
    y.uniform_()
    assert y.grad_fn.name() == "UniformBackward0"
    (y * x).backward(ember.ones(2, dtype=ember.float64))
    np.testing.assert_allclose(npv(x.grad), npv(y))  # only through the product
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.normal_()


def test_inplace_op_keeps_the_old_value_its_formula_needs():
    x = f64([0.5, 1.0])
    y = x * 1.0
    y.sin_()  # sin's formula reads the input, which the op overwrites: a copy of it is saved
    y.backward(ember.ones(2, dtype=ember.float64))
    np.testing.assert_allclose(npv(x.grad), np.cos([0.5, 1.0]))
    w = f64([2.0, 3.0])
    z = ember.full((2,), 5.0, dtype=ember.float64)
    z.mul_(w)  # d/dw needs z's old value 5
    z.backward(ember.ones(2, dtype=ember.float64))
    assert npv(w.grad).tolist() == [5.0, 5.0]


def test_a_0d_tensor_fill_value_gets_its_gradient():
    v = ember.tensor(2.0, dtype=ember.float64, requires_grad=True)
    mask = ember.tensor([True, False, True, False])
    out = ember.zeros(4, dtype=ember.float64).masked_fill(mask, v)
    assert npv(out).tolist() == [2.0, 0.0, 2.0, 0.0]
    out.backward(ember.ones(4, dtype=ember.float64))
    assert v.grad.item() == 2.0
    out = ember.zeros(3, 2, dtype=ember.float64).index_fill(0, ember.tensor([0, 2]), v)
    out.backward(ember.ones(3, 2, dtype=ember.float64))
    assert v.grad.item() == 6.0
    assert ember.autograd.gradcheck(lambda a, b: a.masked_fill(mask, b), (f64([1.0, 2.0, 3.0, 4.0]), f64(0.5)))


def test_overlapping_as_strided_sums_the_gradient():
    x = ember.arange(5.0, dtype=ember.float64).requires_grad_()
    x.as_strided((3, 3), (1, 1)).backward(ember.ones(3, 3, dtype=ember.float64))  # sliding windows
    assert npv(x.grad).tolist() == [1.0, 2.0, 3.0, 2.0, 1.0]
    assert ember.autograd.gradgradcheck(
        lambda a: a.as_strided((2, 3), (1, 1)) * a.as_strided((2, 3), (1, 1)), (f64([0.5, 1.0, 1.5, 2.0]),)
    )


def test_grad_mode_decorators_without_parentheses():
    x = f64([1.0])

    @ember.no_grad
    def f():
        return x * 2

    @ember.inference_mode
    def g():
        return ember.is_inference_mode_enabled(), x * 2

    @ember.enable_grad
    def h():
        return x * 2

    assert not f().requires_grad
    flag, y = g()
    assert flag and not y.requires_grad
    with ember.no_grad():
        assert h().requires_grad


def test_split_and_unbind_record_one_node():
    x = f64([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    rows = x.unbind(0)
    assert rows[0].grad_fn is rows[1].grad_fn and rows[0].grad_fn.name() == "UnbindBackward0"
    parts = x.chunk(2, 1)
    assert parts[0].grad_fn is parts[1].grad_fn and parts[0].grad_fn.name() == "SplitBackward0"
    (rows[1] * 2.0).backward(ember.ones(4, dtype=ember.float64))  # the other row gets zeros
    assert npv(x.grad).tolist() == [[0.0] * 4, [2.0] * 4]
    x.grad = None
    (parts[0] * parts[1]).backward(ember.ones(2, 2, dtype=ember.float64))
    assert npv(x.grad).tolist() == [[3.0, 4.0, 1.0, 2.0], [7.0, 8.0, 5.0, 6.0]]


def test_inplace_ops_whose_gradient_reads_the_input():
    # PyTorch keeps the original input of such in-place ops: d/dx clamp_ and sin_ on a non-leaf
    x = np.array([-1.0, 0.2, 0.9, -0.3])
    a = ember.tensor(x, requires_grad=True)
    (a * 1).clamp_(-0.5, 0.5).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), ((x >= -0.5) & (x <= 0.5)).astype(float))
    b = ember.tensor(x, requires_grad=True)
    c = b * 2
    c.sin_()
    c.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), 2 * np.cos(2 * x), rtol=1e-12)


def test_lerp_gradient_with_a_number_weight():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0, -1.0], requires_grad=True)
    ember.lerp(a, b, 0.25).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.75, 0.75])
    np.testing.assert_allclose(b.grad.numpy(), [0.25, 0.25])


def test_leaf_grad_is_contiguous_like_pytorch():
    # A linear layer's weight gradient is computed transposed; .grad follows PyTorch's layout contract (dense,
    # the parameter's strides), so p.grad.view(-1) works.
    m = ember.nn.Linear(4, 3)
    x = ember.randn(5, 4)
    m(x).sum().backward()
    g = m.weight.grad
    assert g.is_contiguous() and g.stride() == (4, 1)
    np.testing.assert_allclose(g.view(-1).numpy(), np.tile(x.sum(0).numpy(), 3), rtol=1e-5)
    m(x).sum().backward()  # accumulation keeps the layout
    assert m.weight.grad.stride() == (4, 1)
    np.testing.assert_allclose(m.weight.grad.numpy(), 2 * np.tile(x.sum(0).numpy(), (3, 1)), rtol=1e-5)


@pytest.mark.parametrize("shape", [(5, 4), (2, 5, 4)])
def test_linear_weight_gradient_arrives_in_the_weights_layout(shape):
    # Note [Gradients in the operand's layout] (ops/matmul.cpp): weight.t()'s gradient is computed transposed, so it
    # arrives laid out as the weight and becomes .grad without a copy; the backward copies nothing.
    m = ember.nn.Linear(4, 3)
    x = ember.randn(*shape, requires_grad=True)
    out = m(x)
    with ember.profiler.profile() as prof:
        out.backward(ember.ones_like(out))
    assert [e.name for e in prof.events() if e.name == "ember::copy"] == []
    rows = x.detach().numpy().reshape(-1, 4)
    np.testing.assert_allclose(m.weight.grad.numpy(), np.ones((rows.shape[0], 3)).T @ rows, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.bias.grad.numpy(), np.full(3, rows.shape[0]), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(m.weight.detach().numpy().sum(0), shape), rtol=1e-5)
    assert m.weight.grad.is_contiguous() and m.weight.grad.stride() == (4, 1)


def test_a_gradient_view_of_memory_someone_holds_is_copied():
    # .grad takes a view gradient as it is only where nothing else reaches its memory (Note [Gradients in the
    # operand's layout]); a backward returning a view of a buffer it keeps gets a copy.
    kept = {}

    class ViewGrad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            kept["buf"] = ember.full((6,), 7.0)
            return kept["buf"].view(2, 3)

    a = ember.zeros(2, 3, requires_grad=True)
    ViewGrad.apply(a).sum().backward()
    kept["buf"].fill_(-1.0)
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 3), 7.0))


def test_node_variable_is_an_attribute_of_accumulate_grad_only():
    w = ember.ones(2, requires_grad=True)
    y = (w * 2).sum()
    assert y.grad_fn.next_functions[0][0].next_functions[0][0].variable is w
    assert not hasattr(y.grad_fn, "variable")  # AttributeError, as PyTorch's nodes raise
    with pytest.raises(AttributeError, match="'SumBackward0' object has no attribute 'variable'"):
        y.grad_fn.variable


@pytest.mark.parametrize("op", ["relu_", "sigmoid_", "tanh_"])
def test_inplace_activation_writes_self_and_saves_it(op):
    # Note [In-place activations] (autograd/unary_grad.cpp): recorded in place with no copy and no second tensor; the
    # gradients (first and second) against the out-of-place op in float64; a later in-place write is caught.
    x = ember.randn(4, 5, requires_grad=True)
    y = x * 1.5
    with ember.profiler.profile() as prof:
        z = getattr(y, op)()
    assert z is y and [e.name for e in prof.events() if e.name == "ember::copy"] == []
    (g,) = ember.autograd.grad((y * y).sum(), x, create_graph=True)
    (gg,) = ember.autograd.grad(g.sum(), x)
    x64 = x.detach().double().requires_grad_()
    y64 = getattr(x64 * 1.5, op[:-1])()
    (g64,) = ember.autograd.grad((y64 * y64).sum(), x64, create_graph=True)
    (gg64,) = ember.autograd.grad(g64.sum(), x64)
    np.testing.assert_allclose(g.detach().numpy(), g64.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gg.numpy(), gg64.numpy(), rtol=1e-4, atol=1e-5)
    y = getattr(x * 2, op)()
    loss = y.sum()
    y.mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    b = x * 1.0
    getattr(b[1:3], op)()  # through a view: the base's history routes the region through the op
    (b * 2).sum().backward()
    s = x.detach().numpy()[1:3] * 1.0
    d = {
        "relu_": (s > 0) * 1.0,
        "sigmoid_": 1 / (1 + np.exp(-s)) * (1 - 1 / (1 + np.exp(-s))),
        "tanh_": 1 - np.tanh(s) ** 2,
    }
    want = np.full((4, 5), 2.0)
    want[1:3] *= d[op]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-5, atol=1e-6)
