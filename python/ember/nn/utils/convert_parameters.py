"""parameters_to_vector / vector_to_parameters, as torch.nn.utils."""

from ... import _C
from ..._C import Tensor


def parameters_to_vector(parameters):
    return _C.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        raise TypeError("expected ember.Tensor, but got: {}".format(type(vec).__name__))
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n
