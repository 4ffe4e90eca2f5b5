"""skip_init: a module built without running its parameter initialisation's cost being the point (PyTorch builds it
on the meta device, then allocates uninitialised memory)."""

import inspect


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) for a Module class that takes a `device` argument. PyTorch leaves the parameters
    uninitialised (arbitrary values); ember has no meta device, so it builds the module normally, whose initialised
    values are as valid a choice of "arbitrary" (differences: docs/differences.md)."""
    from ..modules.module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError("Expected a Module; got {}".format(module_cls))
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs)
