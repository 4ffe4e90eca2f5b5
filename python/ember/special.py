"""ember.special: torch.special's functions.

Every function but three is a C++ op bound in ember._C._special: the elementwise ones from their op tables (the rows
of ember/ops/unary.def and binary.def name their `special.` forms; the math is in ember/backend/math/special.h and
bessel.h), polygamma and multigammaln from python/src/special.cpp. softmax, log_softmax and logsumexp are the
top-level ops under their torch.special names.
"""

from ._C import _special, log_softmax, logsumexp, softmax  # noqa: F401
from ._C._special import *  # noqa: F403  (every name of _special.__all__; signatures in ember/_C/_special.pyi)

__all__ = [*_special.__all__, "log_softmax", "logsumexp", "softmax"]
