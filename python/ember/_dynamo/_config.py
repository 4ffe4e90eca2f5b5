"""Config modules with PyTorch's behaviour: known names read and set, unknown names raise AttributeError.

Note [Compiler settings]
Programs written for PyTorch 2 set compiler knobs at start-up (`torch._dynamo.config.suppress_errors = True`,
`cache_size_limit = 64`). ember runs everything eagerly, so the values change nothing; but a misspelt name must
still fail as in PyTorch, and a value set must read back, so each config is a module whose attributes are exactly
PyTorch's names (with PyTorch's renamed aliases), plus patch() as a context manager.
"""

import contextlib
import copy
import sys
import types


class ConfigModule(types.ModuleType):
    def __init__(self, name, defaults, aliases=None):
        super().__init__(name)
        object.__setattr__(self, "_defaults", dict(defaults))
        object.__setattr__(self, "_values", copy.deepcopy(dict(defaults)))
        object.__setattr__(self, "_aliases", dict(aliases or {}))

    def _key(self, name):
        key = self._aliases.get(name, name)
        if key not in self._values:
            raise AttributeError(f"{self.__name__}.{name} does not exist")
        return key

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._values[self._key(name)]

    def __setattr__(self, name, value):
        if name.startswith("__"):
            object.__setattr__(self, name, value)
            return
        self._values[self._key(name)] = value

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._values))

    def get_config_copy(self):
        """A copy of every setting, by name."""
        return copy.deepcopy(self._values)

    def load_config(self, config):
        """Sets the settings named in ``config`` (a dict, as get_config_copy returns)."""
        for k, v in config.items():
            setattr(self, k, v)

    @contextlib.contextmanager
    def patch(self, arg1=None, arg2=None, **kwargs):
        """Sets settings inside a ``with`` block (or a decorated function) and restores them after:
        ``patch("name", value)``, ``patch({"name": value})`` or ``patch(name=value)``."""
        changes = dict(kwargs)
        if isinstance(arg1, str):
            changes[arg1] = arg2
        elif isinstance(arg1, dict):
            changes.update(arg1)
        saved = {k: getattr(self, k) for k in changes}
        try:
            for k, v in changes.items():
                setattr(self, k, v)
            yield
        finally:
            for k, v in saved.items():
                setattr(self, k, v)


def install(name, defaults, aliases=None):
    """Creates the config module `name` (e.g. 'ember._dynamo.config') and registers it in sys.modules."""
    mod = ConfigModule(name, defaults, aliases)
    sys.modules[name] = mod
    return mod
