"""ShapeProp: run a GraphModule on example inputs and record each node's tensor shape, dtype and strides in
``node.meta['tensor_meta']`` (torch.fx.passes.shape_prop)."""

from typing import Any, NamedTuple, Tuple

from ... import _C
from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    shape: Any  # ember.Size
    dtype: Any
    requires_grad: bool
    stride: Tuple[int, ...]
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(t):
    import ember

    memory_format = None
    for fmt in (ember.contiguous_format, ember.channels_last, ember.channels_last_3d):
        if t.is_contiguous(memory_format=fmt):
            memory_format = fmt
            break
    return TensorMetadata(t.shape, t.dtype, t.requires_grad, t.stride(), memory_format, False, {})


class ShapeProp(Interpreter):
    """Runs the module on real tensors (``propagate(*args)``) and stores, for each node whose value holds tensors,
    ``node.meta['tensor_meta']`` (a TensorMetadata, or the same structure of them for tuples and lists) and
    ``node.meta['type']``."""

    def run_node(self, n):
        result = super().run_node(n)
        found = []

        def extract(obj):
            if isinstance(obj, _C.Tensor):
                found.append(True)
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Runs the module on `args` (tensors) and returns its result."""
        return super().run(*args)
