"""ember.signal: torch.signal's namespace (its windows, ember.signal.windows)."""

from . import windows

__all__ = ["windows"]
