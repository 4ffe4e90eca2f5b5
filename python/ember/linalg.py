"""ember.linalg: the linear algebra functions of torch.linalg that ember has (vector norms so far)."""
from ._C import _linalg_vector_norm as vector_norm

__all__ = ["vector_norm"]
