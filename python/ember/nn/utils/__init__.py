"""ember.nn.utils: gradient clipping, parameter/vector conversion, parametrizations, pruning, weight and spectral
normalization."""
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import rnn  # noqa: F401
from . import parametrize  # noqa: F401
from . import parametrizations  # noqa: F401
from .weight_norm import weight_norm, remove_weight_norm
from .spectral_norm import spectral_norm, remove_spectral_norm
from . import stateless  # noqa: F401
from . import prune  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401
from .init import skip_init  # noqa: F401
