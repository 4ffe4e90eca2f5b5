"""gradcheck and gradgradcheck: the analytical gradients (from the engine) against central finite differences,
with PyTorch's defaults (eps=1e-6, atol=1e-5, rtol=1e-3). Inputs that require grad should be float64."""

from .. import _C
from .._C import Tensor


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _outputs(fn, inputs):
    out = fn(*inputs)
    return [o for o in _as_tuple(out) if isinstance(o, Tensor)]


def _host(t):
    """A tensor's values as a flat float64 NumPy array (copied to the CPU from any device)."""
    import ember

    return t.detach().to("cpu", ember.float64).numpy().reshape(-1).copy()


def _numerical_jacobians(fn, inputs, diff_idx, eps):
    """For each differentiable input: a list (per output) of arrays [input numel, output numel]."""
    import numpy as np  # on use: `import ember` does not load NumPy

    import ember

    with ember.no_grad():
        outs0 = _outputs(fn, inputs)
    jacs = []
    for i in diff_idx:
        x = inputs[i]
        n = x.numel()
        per_out = [np.zeros((n, o.numel())) for o in outs0]
        flat = x.detach().reshape(-1) if x.is_contiguous() else None
        for k in range(n):
            idx = np.unravel_index(k, tuple(x.shape)) if x.dim() else ()
            with ember.no_grad():
                orig = x[idx].item() if x.dim() else x.item()
                x[idx] = orig + eps
                plus = [_host(o) for o in _outputs(fn, inputs)]
                x[idx] = orig - eps
                minus = [_host(o) for o in _outputs(fn, inputs)]
                x[idx] = orig
            for j in range(len(outs0)):
                per_out[j][k] = (plus[j] - minus[j]) / (2 * eps)
        del flat
        jacs.append(per_out)
    return jacs


def _analytical_jacobians(fn, inputs, diff_idx, nondet_tol=0.0):
    import numpy as np  # on use: `import ember` does not load NumPy

    import ember

    outs = _outputs(fn, inputs)
    jacs = [[np.zeros((inputs[i].numel(), o.numel())) for o in outs] for i in diff_idx]
    diff_inputs = [inputs[i] for i in diff_idx]
    for j, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for k in range(o.numel()):
            g = ember.zeros_like(o).reshape(-1)
            g[k] = 1.0
            grads = ember.autograd.grad([o], diff_inputs, [g.reshape(o.shape)], retain_graph=True, allow_unused=True)
            for a, gr in enumerate(grads):
                if gr is not None:
                    if tuple(gr.shape) != tuple(diff_inputs[a].shape):
                        raise GradcheckError(
                            "Gradient has incorrect size: input %d has shape %s, its gradient %s"
                            % (diff_idx[a], tuple(diff_inputs[a].shape), tuple(gr.shape))
                        )
                    jacs[a][j][:, k] = _host(gr)
    return jacs


def _as_real_problem(func, inputs):
    """Complex inputs and outputs as real ones (view_as_real's pairs): the real Jacobian of (re, im) -> (re, im) that
    the finite differences measure is what the complex gradients (dL/dre + i dL/dim, Note [Complex gradients]) must
    reproduce through view_as_complex / view_as_real, which is how PyTorch's gradcheck checks complex functions."""
    was_complex = [isinstance(x, Tensor) and x.is_complex() for x in inputs]
    real_inputs = tuple(
        _C.view_as_real(x.detach().resolve_conj()).clone().requires_grad_(x.requires_grad) if c else x
        for x, c in zip(inputs, was_complex)
    )

    def real_func(*xs):
        out = func(*(_C.view_as_complex(x) if c else x for x, c in zip(xs, was_complex)))
        return tuple(
            _C.view_as_real(o.resolve_conj()) if isinstance(o, Tensor) and o.is_complex() else o for o in _as_tuple(out)
        )

    return real_func, real_inputs


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    fast_mode=False,
    masked=None,
):
    """Checks the gradients of func at inputs against finite differences; raises GradcheckError on mismatch
    (or returns False when raise_exception=False). Returns True when they agree."""
    import numpy as np  # on use: `import ember` does not load NumPy

    import ember

    inputs = _as_tuple(inputs)
    kw = dict(eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
    if any(isinstance(x, Tensor) and x.is_complex() for x in inputs):
        return gradcheck(*_as_real_problem(func, inputs), **kw)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_idx:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the them "
            "have requires_grad=True."
        )
    for i in diff_idx:
        if inputs[i].dtype not in (_C.float64,):
            import warnings

            warnings.warn(
                "Input #%d requires gradient and is not a double precision floating point. This check "
                "will likely fail if all the inputs are not of double precision floating point." % i
            )
    with ember.no_grad():
        outs = _outputs(func, inputs)
        if not outs:
            raise GradcheckError("gradcheck: the function returned no tensor to check")
    if any(o.is_complex() for o in outs):
        return gradcheck(*_as_real_problem(func, inputs), **kw)
    numerical = _numerical_jacobians(func, inputs, diff_idx, eps)
    analytical = _analytical_jacobians(func, inputs, diff_idx)
    for a, i in enumerate(diff_idx):
        for j, (num, ana) in enumerate(zip(numerical[a], analytical[a])):
            if not np.allclose(ana, num, rtol=rtol, atol=atol, equal_nan=True):
                msg = "Jacobian mismatch for output %d with respect to input %d,\nnumerical:%s\nanalytical:%s\n" % (
                    j,
                    i,
                    num,
                    ana,
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def _random_like(gen, o):
    """Standard normal grad_outputs (complex: both parts) on o's device, as PyTorch's randn_like."""
    import ember

    v = gen.standard_normal(tuple(o.shape))
    if o.is_complex():
        v = v + 1j * gen.standard_normal(tuple(o.shape))
    return ember.tensor(v, dtype=o.dtype, device=o.device)


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """Checks second derivatives: gradcheck of the function (inputs, grad_outputs) -> d(outputs)/d(inputs)."""
    import numpy as np  # on use: `import ember` does not load NumPy

    import ember

    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        gen = np.random.default_rng(0)
        with ember.no_grad():
            outs = _outputs(func, inputs)
        grad_outputs = tuple(_random_like(gen, o).requires_grad_(True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args):
        ins, gos = args[:n], args[n:]
        with ember.enable_grad():  # gradcheck evaluates this under no_grad for the finite differences
            return _first_derivative(ins, gos)

    def _first_derivative(ins, gos):
        # Under gradcheck's no_grad finite differences, an input made from a real view (complex inputs: the
        # view_as_complex of gradcheck's real problem) does not require grad: differentiate with respect to a leaf.
        ins = tuple(
            x.detach().requires_grad_(True) if i in diff_idx and not x.requires_grad else x for i, x in enumerate(ins)
        )
        outs = _outputs(func, ins)
        pairs = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
        grads = ember.autograd.grad(
            [o for o, _ in pairs],
            [ins[i] for i in diff_idx],
            [g for _, g in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception
    )
