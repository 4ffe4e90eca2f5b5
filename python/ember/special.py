"""ember.special: torch.special's functions.

The elementwise ones are C++ ops bound in ember._C._special from their op tables (the rows of ember/ops/unary.def and
binary.def name their `special.` forms; the math is in ember/backend/math/special.h and bessel.h); softmax,
log_softmax and logsumexp are the top-level ops under their torch.special names.
"""
from ._C import _special
from ._C._special import *  # noqa: F403  (every name of _special.__all__; signatures in ember/_C/_special.pyi)
from ._C import _special_xlog1py as xlog1py  # noqa: F401
from ._C import _special_zeta as zeta  # noqa: F401
from ._C import igamma as gammainc  # noqa: F401
from ._C import igammac as gammaincc  # noqa: F401
from ._C import log_softmax, logsumexp, softmax, xlogy  # noqa: F401
from ._C import (_special_chebyshev_polynomial_t as chebyshev_polynomial_t,  # noqa: F401
                 _special_chebyshev_polynomial_u as chebyshev_polynomial_u,
                 _special_chebyshev_polynomial_v as chebyshev_polynomial_v,
                 _special_chebyshev_polynomial_w as chebyshev_polynomial_w,
                 _special_hermite_polynomial_h as hermite_polynomial_h,
                 _special_hermite_polynomial_he as hermite_polynomial_he,
                 _special_laguerre_polynomial_l as laguerre_polynomial_l,
                 _special_legendre_polynomial_p as legendre_polynomial_p,
                 _special_shifted_chebyshev_polynomial_t as shifted_chebyshev_polynomial_t,
                 _special_shifted_chebyshev_polynomial_u as shifted_chebyshev_polynomial_u,
                 _special_shifted_chebyshev_polynomial_v as shifted_chebyshev_polynomial_v,
                 _special_shifted_chebyshev_polynomial_w as shifted_chebyshev_polynomial_w)
from ._C import mvlgamma as _mvlgamma
from ._C import polygamma  # noqa: F401


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma function of dimension p (ember.mvlgamma)."""
    return _mvlgamma(input, p, out=out)


__all__ = [*_special.__all__, "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "gammainc", "gammaincc", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p", "log_softmax", "logsumexp", "multigammaln", "polygamma",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "softmax", "xlog1py", "xlogy", "zeta"]
