"""``ember.library.opcheck``: checks that a custom operator's registrations agree with what it does
(``torch.library.opcheck``).

Each test runs the op on copies of the given arguments:

- test_schema: arguments the schema does not mark mutable (``Tensor(a!)``) keep their values and geometry; outputs
  the schema does not mark as aliases share no memory with an input, those it does alias the input of their alias
  set; the outputs' number and kinds are those of the schema's returns.
- test_autograd_registration: with inputs that require grad, an op without an autograd registration
  (register_autograd, an "Autograd" or "CompositeImplicitAutograd" kernel) whose kernel, run as it is, returns
  outputs that require grad has autograd wired at a backend key: an error, as in PyTorch.
- test_faketensor: the op on meta tensors (its fake kernel) gives outputs of the real outputs' shapes, dtypes,
  strides and aliasing.
- test_aot_dispatch_dynamic / test_aot_dispatch_static: the op traced with make_fx (forward, and the gradients when
  inputs require grad) and the traced graph re-run give what eager mode gives. ember traces with the example's
  sizes, so the two are the same test.
"""

import ember

__all__ = ["DEFAULT_TEST_UTILS", "OpCheckError", "opcheck"]

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    """An opcheck test failed (raised with raise_exception=True; the cause is chained)."""


def _map(tree, fn):
    if isinstance(tree, ember.Tensor):
        return fn(tree)
    if isinstance(tree, (list, tuple)):
        return type(tree)(_map(t, fn) for t in tree)
    if isinstance(tree, dict):
        return {k: _map(v, fn) for k, v in tree.items()}
    return tree


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in _leaves(t)]
    if isinstance(tree, dict):
        return [x for t in tree.values() for x in _leaves(t)]
    return [tree]


def _clone(tree):
    def one(t):
        c = t.detach().clone()
        return c.requires_grad_(t.requires_grad) if c.is_floating_point() or c.is_complex() else c

    return _map(tree, one)


def _storage(t):
    """What identifies a tensor's memory (meta tensors' too): views share it."""
    return None if t.numel() == 0 else t._storage_key()


def _same_values(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        both_nan = ember.isnan(a) & ember.isnan(b)
        return bool(((a == b) | both_nan).all())
    return bool((a == b).all())


class _Snapshot:
    """A tensor argument's values and geometry before the op ran."""

    def __init__(self, t):
        self.values, self.shape, self.stride = t.clone(), tuple(t.shape), t.stride()

    def same(self, t):
        return tuple(t.shape) == self.shape and t.stride() == self.stride and _same_values(t, self.values)


def _values(op, args, kwargs):
    """The arguments in schema order with their schema arguments: [(Argument, value)]."""
    from ._function_schema import bind

    schema = op._schema
    return list(zip(schema.arguments, bind(schema, args, kwargs)))


def _returns(op, out):
    rets = op._schema.returns
    if len(rets) == 0:
        if out is not None:
            raise RuntimeError(f"{op.name()}: the schema returns nothing but the op returned a {type(out).__name__}")
        return []
    if len(rets) == 1:
        outs = [out]
    else:
        if not isinstance(out, (tuple, list)) or len(out) != len(rets):
            raise RuntimeError(f"{op.name()}: the schema returns {len(rets)} values but the op returned {out!r:.80}")
        outs = list(out)
    for r, o in zip(rets, outs):
        if r.type == "Tensor" and not isinstance(o, ember.Tensor):
            raise RuntimeError(f"{op.name()}: the schema returns a Tensor but the op returned a {type(o).__name__}")
        if r.type == "Tensor[]" and not (isinstance(o, (list, tuple)) and all(isinstance(t, ember.Tensor) for t in o)):
            raise RuntimeError(f"{op.name()}: the schema returns Tensor[] but the op returned a {type(o).__name__}")
    return list(zip(rets, outs))


def check_schema(op, args, kwargs, *, rtol=None, atol=None):
    args, kwargs = _clone(args), _clone(kwargs)
    with ember.no_grad():
        values = _values(op, args, kwargs)
        before = [(p, _map(v, _Snapshot)) for p, v in values]
        out = op(*args, **kwargs)
    for (p, v), (_, snap) in zip(values, before):
        if p.alias_info is not None and p.alias_info.is_write:
            continue
        for t, old in zip(_leaves(v), _leaves(snap)):
            if isinstance(t, ember.Tensor) and not old.same(t):
                raise RuntimeError(f"Argument {p.name} is not defined as mutable but was mutated")
    inputs = {}
    for p, v in values:
        for t in _leaves(v):
            if isinstance(t, ember.Tensor) and _storage(t) is not None:
                inputs.setdefault(_storage(t), []).append(p)
    for i, (r, o) in enumerate(_returns(op, out)):
        for t in _leaves(o):
            if not isinstance(t, ember.Tensor):
                continue
            owners = inputs.get(_storage(t), [])
            if r.alias_info is None and owners:
                raise RuntimeError(f"Argument {owners[0].name} is not defined to alias output but was aliasing")
            if r.alias_info is not None:
                want = [
                    p
                    for p, _ in values
                    if p.alias_info is not None and p.alias_info.before_set & r.alias_info.before_set
                ]
                if want and not any(p in owners for p in want):
                    raise RuntimeError(
                        f"Output {i} is defined to alias argument {want[0].name} (alias set "
                        f"{sorted(r.alias_info.before_set)}) but does not alias it"
                    )


def check_autograd_registration(op, args, kwargs, *, rtol=None, atol=None):
    tensors = [t for t in _leaves((args, kwargs)) if isinstance(t, ember.Tensor)]
    if not any(t.requires_grad for t in tensors):
        raise RuntimeError(
            "autograd_registration_check: no inputs have requires_grad=True so we are unable to actually perform "
            "this test. Please pass inputs that do require grad."
        )
    devices = {t.device.type for t in tensors}
    if not devices <= {"cpu", "cuda"}:
        raise NotImplementedError(f"autograd_registration_check: NYI devices other than CPU/CUDA, got {devices}")
    custom = getattr(op, "_custom", None)
    if custom is None or custom._has_autograd():
        return  # ember's own ops all carry their gradients
    values = custom._bind(args, kwargs)
    a, kw = custom._split(values)
    with ember.enable_grad():
        outs = custom._kernel(values)(*a, **kw)  # the kernel as it is, without ember's autograd wrapping
    ids = {id(t) for t in tensors}
    if any(isinstance(t, ember.Tensor) and t.requires_grad and id(t) not in ids for t in _leaves(outs)):
        raise AssertionError(
            f"{op.name()}: at least one output of this operator has requires_grad=True but the operator does not "
            "have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd). This could mean that "
            "you have incorrectly registered an autograd kernel to a non-Autograd DispatchKey, which may lead to "
            "silently incorrect results. If your operator consists of regular PyTorch operations, consider not "
            "using an operator at all or registering your operator as CompositeImplicitAutograd. If you have an "
            "autograd.Function registered to a backend (CPU/CUDA/XPU) key, the correct location for it is the "
            "Autograd key."
        )


def _to_meta(tree):
    return _map(tree, lambda t: ember.empty_strided(tuple(t.shape), t.stride(), dtype=t.dtype, device="meta"))


def check_fake(op, args, kwargs, *, rtol=None, atol=None):
    real_args, real_kwargs = _clone(args), _clone(kwargs)
    meta_args, meta_kwargs = _to_meta(args), _to_meta(kwargs)
    with ember.no_grad():
        real = op(*real_args, **real_kwargs)
        fake = op(*meta_args, **meta_kwargs)
    real_l, fake_l = _leaves(real), _leaves(fake)
    context = f"When comparing the output of {op} on FakeTensor and concrete Tensors, found"
    if len(real_l) != len(fake_l):
        raise RuntimeError(f"{context} mismatch in number of returns {len(fake_l)} != {len(real_l)}")
    real_in = [t for t in _leaves((real_args, real_kwargs)) if isinstance(t, ember.Tensor)]
    meta_in = [t for t in _leaves((meta_args, meta_kwargs)) if isinstance(t, ember.Tensor)]
    for idx, (r, f) in enumerate(zip(real_l, fake_l)):
        if isinstance(r, ember.Tensor) != isinstance(f, ember.Tensor):
            raise RuntimeError(f"{context} mismatched number of tensor outputs")
        if not isinstance(r, ember.Tensor):
            continue
        problems = []
        if tuple(r.shape) != tuple(f.shape):
            problems.append(f"sizes {tuple(f.shape)} != {tuple(r.shape)}")
        if r.dtype != f.dtype:
            problems.append(f"dtype {f.dtype} != {r.dtype}")
        if not problems and any(
            n > 1 and sr != sf for n, sr, sf in zip(r.shape, r.stride(), f.stride())
        ):  # strides of size-1 axes carry no meaning
            problems.append(f"strides {f.stride()} != {r.stride()}")
        if problems:
            raise RuntimeError(f"{context} mismatched tensor metadata for output[{idx}]: " + ", ".join(problems))
        r_alias = [i for i, t in enumerate(real_in) if _storage(t) is not None and _storage(t) == _storage(r)]
        f_alias = [i for i, t in enumerate(meta_in) if _storage(t) is not None and _storage(t) == _storage(f)]
        if bool(r_alias) != bool(f_alias) and r.numel():
            raise RuntimeError(
                f"{context} mismatch in outputs_alias_inputs check {bool(f_alias)} != {bool(r_alias)} for output[{idx}]"
            )


def check_traced(op, args, kwargs, *, rtol=None, atol=None):
    from .fx.experimental.proxy_tensor import make_fx

    names = list(kwargs)

    def run(*flat):
        a, kw = flat[: len(args)], dict(zip(names, flat[len(args) :]))
        out = op(*a, **kw)
        diff = [t for t in flat if isinstance(t, ember.Tensor) and t.requires_grad]
        outs = [t for t in _leaves(out) if isinstance(t, ember.Tensor) and t.requires_grad]
        if not diff or not outs:
            return out
        grad_outs = [ember.ones_like(t) * (1.0 + 0.5 * k) for k, t in enumerate(outs)]
        grads = ember.autograd.grad(outs, diff, grad_outs, allow_unused=True)
        return out, tuple(g if g is not None else ember.zeros_like(d) for g, d in zip(grads, diff))

    flat = list(_clone(tuple(args) + tuple(kwargs[k] for k in names)))
    eager = run(*flat)
    traced = make_fx(run)(*_clone(flat))
    again = traced(*_clone(flat))
    tol = {} if rtol is None else {"rtol": rtol, "atol": atol}
    for k, (e, t) in enumerate(zip(_leaves(eager), _leaves(again))):
        if isinstance(e, ember.Tensor):
            try:
                ember.testing.assert_close(t.detach(), e.detach(), equal_nan=True, **tol)
            except AssertionError as err:
                raise AssertionError(
                    f"{op}: the make_fx-traced graph's value {k} differs from eager mode: {err}"
                ) from err
        elif e != t:
            raise AssertionError(f"{op}: the make_fx-traced graph's value {k} is {t!r}, eager mode gives {e!r}")


ALL_TEST_UTILS = {
    "test_schema": check_schema,
    "test_autograd_registration": check_autograd_registration,
    "test_faketensor": check_fake,
    "test_aot_dispatch_static": check_traced,
    "test_aot_dispatch_dynamic": check_traced,
}


def _resolve(op):
    from ._ops import OpOverload, OpOverloadPacket

    op = getattr(op, "_opoverload", op)  # a CustomOpDef
    if isinstance(op, OpOverloadPacket):
        overloads = op.overloads()
        if len(overloads) != 1:
            raise ValueError(
                f"opcheck can only test operators without overloads. Got the following overloads for "
                f"{op._qualified_op_name}: {overloads}"
            )
        op = getattr(op, overloads[0])
    if not isinstance(op, OpOverload):
        raise ValueError(
            "opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. torch.ops.aten.sin.default, "
            f"got {type(op)}"
        )
    return op


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True, rtol=None, atol=None):
    """Checks a custom op's registrations against what it does on ``args``/``kwargs`` (see the module's
    docstring); returns ``{test name: "SUCCESS" or the exception}``, or with ``raise_exception=True`` raises
    ``OpCheckError`` at the first failure."""
    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    kwargs = {} if kwargs is None else kwargs
    op = _resolve(op)
    if test_utils == "ALL":
        test_utils = tuple(ALL_TEST_UTILS)
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils) <= set(ALL_TEST_UTILS):
        raise ValueError(
            f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
            f"{tuple(ALL_TEST_UTILS)} but it was not"
        )
    results = {}
    for name in test_utils:
        try:
            ALL_TEST_UTILS[name](op, tuple(args), dict(kwargs), rtol=rtol, atol=atol)
            results[name] = "SUCCESS"
        except Exception as ex:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)") from ex
            results[name] = ex
    return results
