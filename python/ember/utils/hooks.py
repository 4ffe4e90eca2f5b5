"""RemovableHandle for hooks kept in Python dicts (ember.nn.Module's hooks), as torch.utils.hooks."""

import itertools
import weakref


class RemovableHandle:
    """Removes the hook it was returned for from its dict(s); a context manager that removes on exit."""

    _ids = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)
        self.extra_dict_refs = tuple(
            weakref.ref(d) for d in ([extra_dict] if isinstance(extra_dict, dict) else extra_dict or [])
        )

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_refs:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    # Copies and pickles refer to the copied dicts (deepcopy and pickle copy what the state names), as PyTorch's.
    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_refs))

    def __setstate__(self, state):
        def ref(d):
            return weakref.ref(d) if d is not None else (lambda: None)

        self.hooks_dict_ref = ref(state[0])
        self.id = state[1]
        self.extra_dict_refs = tuple(ref(d) for d in state[2])
        RemovableHandle._ids = itertools.count(max(next(RemovableHandle._ids), self.id + 1))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
