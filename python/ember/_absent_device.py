"""Modules for devices ember does not have (ember.xpu, ember.mps), behaving as PyTorch's builds without them.

Note [Absent devices]
Programs probe other accelerators at start-up (`torch.xpu.is_available()`, `torch.backends.mps.is_available()`)
and some call a harmless function unconditionally (`torch.xpu.manual_seed_all`, `memory_allocated`). These answer
as PyTorch does without the device: the probes say False or 0, the seeding and statistics functions that PyTorch
makes safe without a device return quietly, and every other name PyTorch defines raises PyTorch's error for a build
without the device when called, so a program that really needs the device fails at the first use.
"""

import collections


def make(module_globals, *, quiet, raising, error):
    """Fills a module's namespace: `quiet` maps names to the values (or callables) returned without a device;
    each name in `raising` becomes a function raising `error(name)`."""

    def absent(name):
        def fn(*args, **kwargs):
            raise error(name)

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Raises: {error(name)}"
        return fn

    for name, value in quiet.items():
        module_globals[name] = value
    for name in raising:
        module_globals[name] = absent(name)
    module_globals["__all__"] = sorted(set(quiet) | set(raising))


def returning(value, name, doc):
    def fn(*args, **kwargs):
        return value() if callable(value) else value

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def stats(name):
    return returning(collections.OrderedDict, name, "An empty OrderedDict: no device memory was ever allocated.")
