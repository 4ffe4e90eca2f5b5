"""ember.func: PyTorch's function transforms (torch.func) built on ember's reverse-mode autograd.

- grad, grad_and_value, vjp, jacrev, hessian and jvp (the double-backward trick) compute with ember.autograd.grad.
  They compose with each other and with ordinary autograd: when an input already requires grad from outside (an
  outer transform), the inner one builds its graph (create_graph) so that the outer can differentiate its result;
  grad also keeps it when its result depends on a tensor func captured that requires grad (a module parameter).
- jacfwd gives the same Jacobian as jacrev (ember has no forward mode).
- vmap runs the function once per slice of the mapped dimension and stacks the results (ember has no batching rules):
  the same values as PyTorch's, at the speed of a Python loop over the batch; functions with data-dependent control
  flow or .item() work too, and random ops draw different numbers per slice whatever `randomness` says, except
  randomness="same", which replays the generator's state for every slice.
docs/differences.md lists these differences.
"""

from . import _C
from ._C import Tensor
from .autograd import grad as _autograd_grad
from .autograd.grad_mode import enable_grad

__all__ = [
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "jacrev",
    "jacfwd",
    "hessian",
    "vmap",
    "functional_call",
    "stack_module_state",
]


# -- pytrees of tensors: tuples, lists, dicts (values) and leaves ------------------------------------------------


def _flatten(tree):
    """(leaves, rebuild) where rebuild(new_leaves) gives tree's structure back."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(t) for t in tree]
        sizes = [len(p[0]) for p in parts]

        def rebuild(leaves):
            out, at = [], 0
            for (_, rb), n in zip(parts, sizes):
                out.append(rb(leaves[at : at + n]))
                at += n
            if isinstance(tree, tuple) and hasattr(tree, "_fields"):
                return type(tree)(*out)
            return type(tree)(out)

        return [leaf for p in parts for leaf in p[0]], rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, rb = _flatten([tree[k] for k in keys])
        return leaves, lambda new: type(tree)(zip(keys, rb(new)))
    return [tree], lambda new: new[0]


def _argnums(argnums, nargs, fn):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or not all(isinstance(n, int) for n in nums):
        raise RuntimeError("%s: argnums must be an int or a non-empty tuple of ints, got %r" % (fn, argnums))
    for n in nums:
        if not -nargs <= n < nargs:
            raise RuntimeError("%s: Got argnums=%d, but only %d positional inputs" % (fn, n, nargs))
    return tuple(n % nargs for n in nums)


def _track(args, nums, fn):
    """Copies of args whose differentiated leaves are fresh graph inputs; returns (args, leaves per argnum, nested)
    where nested says that some leaf already required grad (the result must stay differentiable)."""
    args = list(args)
    per_arg, nested = [], False
    for n in nums:
        leaves, rebuild = _flatten(args[n])
        fresh = []
        for t in leaves:
            if not isinstance(t, Tensor):
                raise RuntimeError(
                    "%s: expected the differentiated arguments to be tensors (or tuples, lists, dicts "
                    "of them), got %s" % (fn, type(t).__name__)
                )
            if not t.is_floating_point():
                raise RuntimeError("%s: only floating point tensors can be differentiated, got %s" % (fn, t.dtype))
            nested = nested or (t.requires_grad and _C.is_grad_enabled())
            fresh.append(t.view_as(t) if t.requires_grad else t.detach().requires_grad_())
        args[n] = rebuild(fresh)
        per_arg.append((fresh, rebuild))
    return args, per_arg, nested


def _grads(outputs, per_arg, grad_outputs, create_graph, retain_graph=None):
    flat = [t for fresh, _ in per_arg for t in fresh]
    gs = (
        _autograd_grad(
            outputs, flat, grad_outputs, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True
        )
        if flat
        else []
    )
    gs = [_C.zeros_like(t) if g is None else g for g, t in zip(gs, flat)]
    out, at = [], 0
    for fresh, rebuild in per_arg:
        out.append(rebuild(gs[at : at + len(fresh)]))
        at += len(fresh)
    return out


def _reaches_outside(results, fresh):
    """Whether the graph of some result reaches a tensor requiring grad other than the fresh inputs (one captured by
    func from outside, such as a module parameter): then the results must stay differentiable."""
    inside = {id(t) for t in fresh}
    seen, stack = set(), [t.grad_fn for t in results if isinstance(t, Tensor) and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        var = getattr(node, "variable", None)
        if var is not None and id(var) not in inside:
            return True
        stack.extend(n for n, _ in node.next_functions)
    return False


def _detach_tree(tree, keep):
    if keep:
        return tree
    leaves, rebuild = _flatten(tree)
    return rebuild([t.detach() if isinstance(t, Tensor) else t for t in leaves])


def _split_aux(out, has_aux, fn):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            "%s(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True" % fn
        )
    return out


# -- transforms ------------------------------------------------------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux=False):
    """Returns a function computing (gradient of func's scalar output with respect to args[argnums], output)."""

    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "grad_and_value")
        outer_grad = _C.is_grad_enabled()
        with enable_grad():
            targs, per_arg, nested = _track(args, nums, "grad_and_value")
            out, aux = _split_aux(func(*targs, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got %s" % type(out).__name__
                )
            if out.numel() != 1:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    "tensor with %d dims. Maybe you wanted to use the vjp or jacrev APIs instead?" % out.dim()
                )
            # A graph for an outer differentiation: of the inputs (nested transforms) or of what func captured.
            g = _grads([out], per_arg, None, create_graph=outer_grad)
            nested = nested or (
                outer_grad and _reaches_outside(_flatten(g)[0] + [out], [t for fresh, _ in per_arg for t in fresh])
            )
        g = _detach_tree(g, nested)
        g = g[0] if isinstance(argnums, int) else tuple(g)
        value = out if nested else out.detach()
        return (g, (value, _detach_tree(aux, nested))) if has_aux else (g, value)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """Returns a function computing the gradient of func's scalar output with respect to args[argnums]."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives the vector-Jacobian products, one per primal."""
    with enable_grad():
        targs, per_arg, nested = _track(primals, tuple(range(len(primals))), "vjp")
        out, aux = _split_aux(func(*targs), has_aux, "vjp")
    out_leaves, _ = _flatten(out)
    if not all(isinstance(t, Tensor) for t in out_leaves):
        raise RuntimeError("vjp(f, *primals): Expected f to return tensors (or tuples, lists, dicts of them)")

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        ct, _ = _flatten(cotangents)
        if len(ct) != len(out_leaves):
            raise RuntimeError(
                "vjp_fn: expected %d cotangents (the structure of the output), got %d" % (len(out_leaves), len(ct))
            )
        for c, o in zip(ct, out_leaves):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    "vjp_fn: Mismatch in shape: cotangent has shape %s and output has shape %s"
                    % (tuple(c.shape), tuple(o.shape))
                )
        cg = nested or any(c.requires_grad for c in ct) if create_graph is None else create_graph
        with enable_grad():
            return tuple(_grads(out_leaves, per_arg, ct, create_graph=cg, retain_graph=retain_graph))

    res = (_detach_tree(out, nested), vjp_fn)
    return res + (_detach_tree(aux, nested),) if has_aux else res


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian-vector product with tangents): reverse mode twice (the double-backward trick)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples")
    if len(primals) != len(tangents):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same length, got "
            "%d and %d" % (len(primals), len(tangents))
        )
    with enable_grad():
        targs, per_arg, nested = _track(primals, tuple(range(len(primals))), "jvp")
        out, aux = _split_aux(func(*targs), has_aux, "jvp")
        out_leaves, rebuild = _flatten(out)
        us = [_C.zeros_like(o).requires_grad_() for o in out_leaves]
        g = [x for t in _grads(out_leaves, per_arg, us, create_graph=True) for x in _flatten(t)[0]]
        tl = [x for t in tangents for x in _flatten(t)[0]]
        for t, p in zip(tl, (x for fresh, _ in per_arg for x in fresh)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(
                    "jvp(f, primals, tangents): Expected primals and tangents to have the same shape, "
                    "got %s and %s" % (tuple(p.shape), tuple(t.shape))
                )
        pairs = [(gi, ti) for gi, ti in zip(g, tl) if gi.requires_grad]
        if pairs:
            outs = _autograd_grad(
                [p[0] for p in pairs], us, [p[1] for p in pairs], create_graph=nested, allow_unused=True
            )
        else:
            outs = [None] * len(us)
        jv = [_C.zeros_like(o) if j is None else j for j, o in zip(outs, out_leaves)]
    res = (_detach_tree(out, nested), _detach_tree(rebuild(jv), nested))
    return res + (_detach_tree(aux, nested),) if has_aux else res


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func's output(s) with respect to args[argnums], shaped output.shape + input.shape, one reverse
    pass per output element."""

    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "jacrev")
        with enable_grad():
            targs, per_arg, nested = _track(args, nums, "jacrev")
            out, aux = _split_aux(func(*targs, **kwargs), has_aux, "jacrev")
            out_leaves, rebuild_out = _flatten(out)
            flat_in = [t for fresh, _ in per_arg for t in fresh]
            jacs = []  # per output: per input
            for o in out_leaves:
                if not isinstance(o, Tensor):
                    raise RuntimeError("jacrev(f)(*args): Expected f to return tensors, got %s" % type(o).__name__)
                of = o.reshape(-1)
                rows = [[] for _ in flat_in]
                for i in range(of.numel()):
                    gs = _autograd_grad(
                        [of[i]], flat_in, None, retain_graph=True, create_graph=nested, allow_unused=True
                    )
                    for k, (g, t) in enumerate(zip(gs, flat_in)):
                        rows[k].append(_C.zeros_like(t) if g is None else g)
                per_in = []
                for k, t in enumerate(flat_in):
                    j = _C.stack(rows[k]) if rows[k] else _C.zeros(0, *t.shape, dtype=t.dtype, device=t.device)
                    per_in.append(j.reshape(tuple(o.shape) + tuple(t.shape)))
                jacs.append(per_in)
        results = []
        for per_in in jacs:
            parts, at = [], 0
            for fresh, rebuild in per_arg:
                parts.append(rebuild(per_in[at : at + len(fresh)]))
                at += len(fresh)
            results.append(parts[0] if isinstance(argnums, int) else tuple(parts))
        res = _detach_tree(rebuild_out(results), nested)
        return (res, _detach_tree(aux, nested)) if has_aux else res

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The same Jacobian as jacrev (ember computes it in reverse mode)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of func's scalar output with respect to args[argnums] (jacfwd of jacrev, as PyTorch)."""
    return jacfwd(jacrev(func, argnums), argnums)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Maps func over a dimension of its inputs: one call per slice, results stacked along out_dims."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. Got %s" % randomness
        )

    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(
                "vmap(f, in_dims=%r)(<inputs>): in_dims is not compatible with the structure of inputs: "
                "%d in_dims for %d positional arguments" % (in_dims, len(dims), len(args))
            )
        flat, size = [], None
        for a, d in zip(args, dims):
            leaves, rebuild = _flatten(a)
            ds = _flatten(d)[0] if isinstance(d, (tuple, list, dict)) else [d] * len(leaves)
            if len(ds) != len(leaves):
                raise ValueError("vmap: in_dims %r does not match the structure of its argument" % (d,))
            for t, dd in zip(leaves, ds):
                if dd is None or not isinstance(t, Tensor):
                    if dd is not None:
                        raise ValueError(
                            "vmap: Got in_dim=%r for an input but the input is of type %s. We cannot "
                            "vmap over non-Tensor arguments" % (dd, type(t).__name__)
                        )
                    continue
                if not isinstance(dd, int) or not -t.dim() <= dd < max(t.dim(), 1) or t.dim() == 0:
                    raise ValueError(
                        "vmap: Got in_dim=%r for an input but the input is of dimension %d" % (dd, t.dim())
                    )
                n = t.shape[dd]
                if size is not None and n != size:
                    raise ValueError(
                        "vmap: Expected all tensors to have the same size in the mapped dimension, got "
                        "sizes %d and %d for the mapped dimension" % (size, n)
                    )
                size = n
            flat.append((leaves, rebuild, ds))
        if size is None:
            raise ValueError(
                "vmap(f, in_dims=%r)(<inputs>): at least one input must be a tensor mapped over a "
                "dimension" % (in_dims,)
            )
        if size == 0:
            raise ValueError("vmap: the mapped dimension has size 0; there is nothing to map over")
        state = _C.get_rng_state() if randomness == "same" else None
        outs = []
        for b in range(size):
            if state is not None:
                _C.set_rng_state(state)
            call = []
            for leaves, rebuild, ds in flat:
                call.append(
                    rebuild(
                        [
                            t.select(dd, b) if isinstance(t, Tensor) and dd is not None else t
                            for t, dd in zip(leaves, ds)
                        ]
                    )
                )
            outs.append(func(*call, **kwargs))
        leaves0, rebuild = _flatten(outs[0])
        odims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(leaves0)
        if len(odims) != len(leaves0):
            raise ValueError("vmap: out_dims=%r does not match the %d outputs" % (out_dims, len(leaves0)))
        stacked = []
        for k, od in enumerate(odims):
            parts = [_flatten(o)[0][k] for o in outs]
            if not all(isinstance(p, Tensor) for p in parts):
                raise ValueError(
                    "vmap: `%s` must only return Tensors, got type %s. Did you mean to set out_dims= to "
                    "None for output?" % (getattr(func, "__name__", "func"), type(parts[0]).__name__)
                )
            stacked.append(parts[0] if od is None else _C.stack(parts, od))
        return rebuild(stacked)

    return wrapper


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Calls module with its parameters and buffers replaced by the given tensors (nn.utils.stateless)."""
    from .nn.utils.stateless import functional_call as call

    if isinstance(parameter_and_buffer_dicts, (tuple, list)):
        merged = {}
        for d in parameter_and_buffer_dicts:
            dup = set(merged) & set(d)
            if dup:
                raise ValueError("functional_call: %s appeared in multiple dictionaries" % sorted(dup))
            merged.update(d)
        parameter_and_buffer_dicts = merged
    return call(module, parameter_and_buffer_dicts, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models):
    """(params, buffers): each parameter and buffer of the (identically built) models stacked along a new first
    dimension; stacked parameters are new leaves that require grad, for vmap over an ensemble."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    t0 = type(models[0])
    if not all(type(m) is t0 for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {
        k: _C.stack([dict(m.named_parameters())[k].detach() for m in models]).requires_grad_()
        for k, _ in models[0].named_parameters()
    }
    buffers = {k: _C.stack([dict(m.named_buffers())[k] for m in models]) for k, _ in models[0].named_buffers()}
    return params, buffers
