"""Runs unchanged PyTorch programs on ember: `torch`, `torch.*`, `torchvision` and `torchvision.*` imported as ember's
modules (docs/torch_programs.md).

Note [torch as an alias]
A finder at the front of sys.meta_path answers an import of `torch.X.Y` by importing `ember.X.Y` and handing back
that same module object, so `torch.nn.Module is ember.nn.Module` and a class pickled by a program names ember's
module. A name ember does not have fails as an ordinary ModuleNotFoundError naming both the torch name and the ember
module it looked for. Nothing is copied or wrapped: aliasing costs one dict entry per module.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys

__all__ = ["install_as_torch"]

# The top-level names redirected, and the ember module each stands for.
_ROOTS = {"torch": "ember", "torchvision": "ember.vision"}


def _target(fullname):
    """The ember module that the torch-side name stands for, or None when the name is not redirected."""
    root, _, rest = fullname.partition(".")
    base = _ROOTS.get(root)
    if base is None:
        return None
    return f"{base}.{rest}" if rest else base


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module  # the ember module itself: importlib keeps its __name__, __spec__ and __path__

    def exec_module(self, module):
        pass  # already executed when ember's module was imported


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        name = _target(fullname)
        if name is None:
            return None
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
                raise ModuleNotFoundError(
                    f"No module named '{fullname}': it stands for '{name}' under ember's torch alias "
                    f"(ember.install_as_torch), and ember has no module '{e.name}'",
                    name=fullname,
                ) from None
            raise
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=is_package)


def install_as_torch():
    """Makes ``import torch`` and ``import torchvision`` (and their submodules) import ember's modules, so that an
    unchanged PyTorch program runs on ember in this process: ``torch.nn`` is ``ember.nn``, ``torchvision.transforms``
    is ``ember.vision.transforms``. Meant for notebooks and interactive sessions; ``python -m ember.run script.py``
    does the same for a whole program.

    A real ``torch`` imported before the call stays what it is; ``RuntimeError`` is raised then, since two libraries
    under one name would mix tensors of both. Calling it twice is harmless.

    Example::

        >>> import ember
        >>> ember.install_as_torch()
        >>> import torch.nn as nn
        >>> nn.Linear is ember.nn.Linear
        True
    """
    for root in _ROOTS:
        mod = sys.modules.get(root)
        if mod is not None and not getattr(mod, "__name__", "").startswith("ember"):
            raise RuntimeError(
                f"install_as_torch: the real '{root}' ({getattr(mod, '__file__', '?')}) is already imported in this "
                "process; call ember.install_as_torch() before anything imports it"
            )
    if not any(isinstance(f, _TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchAliasFinder())
