"""ember.nn.utils: gradient clipping, parameter/vector conversion, parametrizations, pruning, weight and spectral
normalization."""

from . import (
    parametrizations,  # noqa: F401
    parametrize,  # noqa: F401
    prune,  # noqa: F401
    rnn,  # noqa: F401
    stateless,  # noqa: F401
)
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401
from .init import skip_init  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
