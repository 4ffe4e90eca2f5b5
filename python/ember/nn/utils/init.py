"""skip_init: a module whose parameters are allocated but not initialised (built on the meta device, then given
uninitialised memory on the requested one), as PyTorch's."""

import inspect


def skip_init(module_cls, *args, **kwargs):
    """Instantiates `module_cls(*args, **kwargs)` without initialising its parameters and buffers: the module is
    built on the meta device (no memory, no initialisation work), then moved with ``to_empty`` to ``device`` (the
    CPU unless given), so their values are whatever the memory held. The class must take a `device` argument."""
    from ..modules.module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError("Expected a Module; got {}".format(module_cls))
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
