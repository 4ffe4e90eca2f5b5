"""ember.autograd.graph: the graph node type (what Tensor.grad_fn returns)."""

from .._C import Node  # noqa: F401
