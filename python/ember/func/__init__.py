"""ember.func: functional_call (torch.func.functional_call). The function transforms of torch.func (grad, vmap,
jacrev, ...) are not in ember."""
from ..nn.utils.stateless import functional_call  # noqa: F401

__all__ = ["functional_call"]
