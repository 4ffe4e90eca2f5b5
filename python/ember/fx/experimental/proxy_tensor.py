"""``make_fx``: traces a function through ``__torch_dispatch__`` into an ATen-level ``GraphModule``.

Where ``symbolic_trace`` records the Python calls a module makes, ``make_fx`` runs the function on the real inputs
under a dispatch mode that records each ATen op that runs (``ember.ops.aten.*`` overloads), so the graph holds what
the ops decompose into, and, when the function calls ``ember.autograd.grad`` or ``backward``, the backward's ops too.
Tensors the function uses that are not its inputs and were not produced by recorded ops (a module's parameters, a
tensor from a factory function) become ``get_attr`` constants of the GraphModule, as in PyTorch's real-mode tracing.
"""

import ember
from ember.fx.graph import Graph
from ember.fx.graph_module import GraphModule
from ember.utils._python_dispatch import TorchDispatchMode

__all__ = ["make_fx"]


class _ProxyMode(TorchDispatchMode):
    def __init__(self, graph, root, decomposition_table):
        super().__init__()
        self.graph = graph
        self.root = root
        self.decompositions = decomposition_table or {}
        self.nodes = {}  # id(tensor) -> node
        self.by_geometry = {}  # (address, shape, strides, dtype) -> node: autograd's saved tensors are aliases
        self.alive = []  # the traced tensors, so that their ids stay theirs during the trace
        self.constants = 0

    @staticmethod
    def geometry(t):
        return (t.data_ptr(), tuple(t.shape), t.stride(), t.dtype, t.device)

    def track(self, t, node):
        self.nodes[id(t)] = node
        self.by_geometry[self.geometry(t)] = node
        self.alive.append(t)

    def node_of(self, t):
        node = self.nodes.get(id(t))
        if node is None and t.numel():
            node = self.by_geometry.get(self.geometry(t))
        if node is None:
            name = "_tensor_constant%d" % self.constants
            self.constants += 1
            setattr(self.root, name, t.detach())
            node = self.graph.get_attr(name)
            self.track(t, node)
        return node

    def to_arg(self, a):
        if isinstance(a, ember.Tensor):
            return self.node_of(a)
        if isinstance(a, (list, tuple)):
            return type(a)(self.to_arg(x) for x in a)
        if isinstance(a, dict):  # keyword arguments (an out= tensor)
            return {k: self.to_arg(v) for k, v in a.items()}
        return a

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in self.decompositions:
            with self:
                return self.decompositions[func](*args, **kwargs)
        out = func(*args, **kwargs)
        node = self.graph.call_function(func, self.to_arg(tuple(args)), self.to_arg(dict(kwargs)))
        if isinstance(out, ember.Tensor):
            self.track(out, node)
        elif isinstance(out, (tuple, list)):
            import operator

            for i, o in enumerate(out):
                if isinstance(o, ember.Tensor):
                    self.track(o, self.graph.call_function(operator.getitem, (node, i)))
        return out


def make_fx(f, decomposition_table=None, tracing_mode="real", _allow_non_fake_inputs=False, **kwargs):
    """Returns a function that traces ``f(*args)`` into an ATen-level GraphModule (PyTorch's
    ``torch.fx.experimental.proxy_tensor.make_fx``; ember traces with real tensors: ``tracing_mode="real"``)."""
    if tracing_mode not in ("real", "fake", "symbolic"):
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}")

    def wrapped(*args):
        graph = Graph()
        root = ember.nn.Module()
        mode = _ProxyMode(graph, root, decomposition_table)
        flat, placeholders = [], 0

        def placeholder(a):
            nonlocal placeholders
            if isinstance(a, ember.Tensor):
                placeholders += 1
                mode.track(a, graph.placeholder("arg%d_1" % placeholders))
            elif isinstance(a, (list, tuple)):
                for x in a:
                    placeholder(x)
            else:
                placeholders += 1
                graph.placeholder("arg%d_1" % placeholders)

        for a in args:
            placeholder(a)
            flat.append(a)
        with mode:
            out = f(*args)

        def result(o):
            if isinstance(o, ember.Tensor):
                return mode.node_of(o)
            if isinstance(o, (list, tuple)):
                return type(o)(result(x) for x in o)
            return o

        graph.output(result(out))
        return GraphModule(root, graph)

    return wrapped
