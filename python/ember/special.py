"""ember.special: torch.special's functions (the math runs in C++: ember/backend/math/special.h).

Most names are the ember ops PyTorch aliases (gammaln is lgamma, psi and digamma are digamma, expit is sigmoid,
gammainc is igamma, ...); the others (i0e, i1, i1e, erfcx, ndtr, ndtri, log_ndtr, entr, xlog1py, zeta, the
orthogonal polynomials) exist only here, as in PyTorch. Not available: the Bessel functions of the first and second
kind (bessel_j0/j1/y0/y1), the modified Bessel functions of the second kind (k0, k1), airy_ai, spherical_bessel_j0.
"""
from . import _C
from ._C import (digamma, erf, erfc, erfinv, exp2, expm1, i0, log1p, log_softmax, logit, logsumexp,  # noqa: F401
                 polygamma, sinc, softmax, xlogy)
from ._C import round as round  # noqa: A004 (torch.special.round; a statement of its own, which isort keeps)
from ._C import _special_entr as entr  # noqa: F401
from ._C import _special_erfcx as erfcx  # noqa: F401
from ._C import _special_i0e as i0e  # noqa: F401
from ._C import _special_i1 as i1  # noqa: F401
from ._C import _special_i1e as i1e  # noqa: F401
from ._C import _special_log_ndtr as log_ndtr  # noqa: F401
from ._C import _special_ndtr as ndtr  # noqa: F401
from ._C import _special_ndtri as ndtri  # noqa: F401
from ._C import _special_xlog1py as xlog1py  # noqa: F401
from ._C import _special_zeta as zeta  # noqa: F401
from ._C import igamma as gammainc  # noqa: F401
from ._C import igammac as gammaincc  # noqa: F401
from ._C import lgamma as gammaln  # noqa: F401
from ._C import sigmoid as expit  # noqa: F401
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

psi = digamma
modified_bessel_i0 = i0
modified_bessel_i1 = i1


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma function of dimension p (ember.mvlgamma)."""
    return _C.mvlgamma(input, p, out=out)


__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
           "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "sinc", "softmax", "xlog1py", "xlogy", "zeta"]
