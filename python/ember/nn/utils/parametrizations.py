"""ember.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations (torch.nn.utils.parametrizations;
orthogonal is not available), registered with ember.nn.utils.parametrize. All math uses ember's tensor ops."""

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad
from ...linalg import vector_norm as _vector_norm
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


def _norm_except_dim(v, pow_, dim):
    """torch.norm_except_dim: the `pow_`-norm over every dimension but `dim`, keeping them as size 1; dim == -1
    means the norm of the whole tensor (a 0-dim result), as in PyTorch."""
    if dim == -1:
        return _vector_norm(v, pow_)
    dims = [d for d in range(v.dim()) if d != dim]
    if not dims:
        return v.abs() if pow_ else v
    return _vector_norm(v, pow_, dim=dims, keepdim=True)


def _weight_norm(v, g, dim):
    """torch._weight_norm: v * (g / ||v||), the norm taken over every dimension but dim."""
    return v * (g / _norm_except_dim(v, 2, dim))


# ---- weight_norm


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = _norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """module.<name> = g * v / ||v|| with g ("parametrizations.<name>.original0", the magnitude) and v
    ("parametrizations.<name>.original1", the direction) learned; dim as in the legacy weight_norm (None: the
    norm of the whole tensor). As PyTorch (>= 2.1), a state_dict of the legacy <name>_g / <name>_v form loads."""
    _wn = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _wn, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        g_key = prefix + name + "_g"
        v_key = prefix + name + "_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[prefix + "parametrizations." + name + ".original0"] = state_dict.pop(g_key)
            state_dict[prefix + "parametrizations." + name + ".original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---- spectral_norm


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of [-%d, %d] but got %d)" % (ndim, ndim - 1, dim)
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got n_power_iterations=%d" % n_power_iterations
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # For ndim == 1 we do not need to approximate anything (see forward)
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            with no_grad():
                u = _C.randn(h, dtype=weight.dtype, device=weight.device)
                v = _C.randn(w, dtype=weight.dtype, device=weight.device)
                self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # Start u, v near the singular vectors (as PyTorch: 15 iterations on registration)
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        assert weight.dim() > 1
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place, so that the buffers stay the same tensors
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(_C.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_C.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the in-place updates of the next call must not touch what autograd saved here
        u = self._u.clone()
        v = self._v.clone()
        sigma = _C.dot(u, _C.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        # we may want to assert that value is normalized, but it would be a costly check; as PyTorch
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module.<name> = W / sigma(W), sigma the largest singular value of W reshaped to a matrix over dim
    (default 0, 1 for ConvTranspose), estimated by power iteration: u, v are buffers of the parametrization
    ("parametrizations.<name>._u", "._v") updated n_power_iterations times at every access in training mode."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError("Module '%s' has no parameter or buffer with name '%s'" % (module, name))
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
