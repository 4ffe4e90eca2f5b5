"""set_stance: the compiler's stance, kept so that it reads back and nests; every stance runs eagerly in ember."""

import contextlib
import functools

_STANCES = ("default", "eager_then_compile", "aot_eager_then_compile", "force_eager", "eager_on_recompile",
            "fail_on_recompile")  # fmt: skip
_current = {"stance": "default", "skip_guard_eval_unsafe": False, "force_backend": None}


class set_stance(contextlib.ContextDecorator):
    """Sets the compiler's stance (PyTorch's values: 'default', 'force_eager', 'eager_on_recompile',
    'fail_on_recompile', ...) now, or inside a ``with`` block or a decorated function when used as one. ember runs
    every stance eagerly; the stance is validated and kept, and a block restores the previous one."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        if stance not in _STANCES:
            raise ValueError(f"set_stance: unknown stance {stance!r}; expected one of {', '.join(_STANCES)}")
        if force_backend is not None and stance != "default":
            raise RuntimeError("set_stance: force_backend can only be used with the 'default' stance")
        self._saved = dict(_current)
        self._stance = {
            "stance": stance,
            "skip_guard_eval_unsafe": skip_guard_eval_unsafe,
            "force_backend": force_backend,
        }
        _current.update(self._stance)

    def __call__(self, fn):
        _current.update(self._saved)  # as a decorator: the stance applies only inside fn

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self._reapply():
                return fn(*args, **kwargs)

        return wrapper

    @contextlib.contextmanager
    def _reapply(self):
        saved = dict(_current)
        _current.update(self._stance)
        try:
            yield
        finally:
            _current.update(saved)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _current.update(self._saved)
        return False


def current_stance():
    """The stance in effect (a dict with 'stance', 'skip_guard_eval_unsafe' and 'force_backend')."""
    return dict(_current)
