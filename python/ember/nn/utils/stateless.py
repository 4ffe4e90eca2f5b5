"""functional_call: run a module with some of its parameters and buffers replaced by given tensors, for that call
only (torch.nn.utils.stateless / torch.func.functional_call). The tensors are swapped into the modules' parameter
and buffer dictionaries, so gradients flow to the given tensors, and the originals are put back afterwards, also
when the call raises."""

import contextlib


def _split(module, name):
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _tied_names(module):
    """For each parameter or buffer reachable under several names, all of its names."""
    by_tensor = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + list(
        module.named_buffers(remove_duplicate=False)
    ):
        by_tensor.setdefault(id(t), []).append(name)
    return {name: names for names in by_tensor.values() if len(names) > 1 for name in names}


def _untie(module, tensors):
    tied = _tied_names(module)
    result = dict(tensors)
    for name, value in tensors.items():
        for other in tied.get(name, ()):
            if other in tensors and tensors[other] is not value:
                raise ValueError(
                    "functional_call got multiple values for keys {}, which are tied. Consider using "
                    "tie_weights=False".format(sorted(tied[name]))
                )
            result[other] = value
    return result


@contextlib.contextmanager
def _reparametrize_module(module, tensors, tie_weights=True, strict=False):
    if tie_weights:
        tensors = _untie(module, tensors)
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)} | {
            n for n, _ in module.named_buffers(remove_duplicate=False)
        }
        unexpected = sorted(set(tensors) - expected)
        missing = sorted(expected - set(tensors))
        msgs = []
        if unexpected:
            msgs.append("Unexpected key(s): {}.".format(", ".join(map(repr, unexpected))))
        if missing:
            msgs.append("Missing key(s): {}.".format(", ".join(map(repr, missing))))
        if msgs:
            raise RuntimeError(
                "Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(), "\n\t".join(msgs))
            )
    saved = []  # (owner, store or None, leaf, had, old)
    try:
        for name, value in tensors.items():
            owner, leaf = _split(module, name)
            for store_name in ("_parameters", "_buffers"):
                store = owner.__dict__.get(store_name)
                if store is not None and leaf in store:
                    saved.append((owner, store, leaf, True, store[leaf]))
                    store[leaf] = value
                    break
            else:
                had = leaf in owner.__dict__
                saved.append((owner, None, leaf, had, owner.__dict__.get(leaf)))
                object.__setattr__(owner, leaf, value)
        yield
    finally:
        for owner, store, leaf, had, old in reversed(saved):
            if store is not None:
                store[leaf] = old
            elif had:
                object.__setattr__(owner, leaf, old)
            else:
                owner.__dict__.pop(leaf, None)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the parameters and buffers named in `parameters_and_buffers` (a dict of
    dotted names to tensors, or a tuple of such dicts) replaced for this call."""
    if isinstance(parameters_and_buffers, (list, tuple)):
        merged = {}
        for d in parameters_and_buffers:
            for k, v in d.items():
                if k in merged:
                    raise ValueError(
                        "{} appeared in multiple dictionaries; behavior of functional call is ambiguous".format(k)
                    )
                merged[k] = v
        parameters_and_buffers = merged
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
