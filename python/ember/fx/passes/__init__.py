"""Passes over fx graphs (torch.fx.passes): shape_prop.ShapeProp."""

from . import shape_prop  # noqa: F401
