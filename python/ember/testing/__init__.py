"""ember.testing: assert_close (and the older assert_allclose) and make_tensor, as torch.testing."""

from ._comparison import assert_allclose, assert_close  # noqa: F401
from ._creation import make_tensor  # noqa: F401

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
