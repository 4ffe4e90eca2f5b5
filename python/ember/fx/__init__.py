"""ember.fx: PyTorch's torch.fx, program capture and transformation of Modules.

``symbolic_trace`` runs a module's forward on Proxies (tensor-like objects that record what is done to them, through
``__torch_function__``) and returns a GraphModule: a Graph of Nodes and the Python code generated from it. Graphs can
be edited, interpreted (Interpreter), rebuilt (Transformer), rewritten (subgraph_rewriter.replace_pattern) and
annotated (passes.shape_prop.ShapeProp). See docs/extending.md.
"""

from . import passes, subgraph_rewriter  # noqa: F401
from ._symbolic_trace import PH, PHBase, PHWithMeta, Tracer, symbolic_trace, wrap
from .graph import Graph, PythonCode
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_arg
from .proxy import Proxy, TraceError

__all__ = [
    "Graph",
    "GraphModule",
    "Interpreter",
    "Node",
    "PH",
    "PHBase",
    "PHWithMeta",
    "Proxy",
    "PythonCode",
    "TraceError",
    "Tracer",
    "Transformer",
    "map_arg",
    "replace_pattern",
    "symbolic_trace",
    "wrap",
]

from .subgraph_rewriter import replace_pattern  # noqa: E402
