"""ember.nn.utils: gradient clipping and parameter/vector conversion."""
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import rnn  # noqa: F401
