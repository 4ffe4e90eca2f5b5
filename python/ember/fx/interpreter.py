"""Interpreter and Transformer: run a GraphModule node by node, or rebuild it through overridable per-op methods
(torch.fx.Interpreter and torch.fx.Transformer)."""

import copy
import inspect

from . import _pytree
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs a GraphModule one node at a time: ``run(*args)`` calls ``run_node`` for each node, which calls the method
    named after its op (``placeholder``, ``get_attr``, ``call_function``, ``call_method``, ``call_module``,
    ``output``) with the node's target and evaluated arguments. Subclasses override those methods to observe or
    change execution.

    Args:
        module (GraphModule): what to run.
        garbage_collect_values (bool): drop each value after its last use.
    """

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            self.user_to_last_uses = {}
            seen = set()
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Runs the graph on `args` and returns what its output node returns."""
        self.env = initial_env if initial_env is not None else {}
        info = self.graph._pytree_info
        if enable_io_processing and info is not None:  # containers in, as the generated forward takes them
            args = _pytree.tree_flatten_spec(list(args), info.in_spec)
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue  # given in initial_env
            self.env[node] = self.run_node(node)
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                out = self.env[node]
                if enable_io_processing and info is not None and info.out_spec is not None:
                    out = _pytree.tree_unflatten(out if isinstance(out, (list, tuple)) else [out], info.out_spec)
                return out
        return None

    def run_node(self, n):
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    def placeholder(self, target, args, kwargs):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as e:
            if len(args) > 0:
                return args[0]  # the parameter's default
            raise RuntimeError(
                "Expected positional argument for parameter %s, but one was not passed in!" % target
            ) from e

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    def fetch_attr(self, target):
        """The module's attribute at dotted path `target`."""
        atoms = target.split(".")
        attr = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(attr, atom):
                raise RuntimeError("Node referenced nonexistent target %s" % ".".join(atoms[: i + 1]))
            attr = getattr(attr, atom)
        return attr

    def fetch_args_kwargs_from_env(self, n):
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        def load(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(
                    "Node %s referenced nonexistent value %s! Run Graph.lint() to diagnose such issues" % (n, n_arg)
                )
            return self.env[n_arg]

        return map_arg(args, load)


class Transformer(Interpreter):
    """Builds a new GraphModule by running the graph on Proxies: override ``call_function`` (and the other op
    methods) to return different values, and ``transform()`` records what they do."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph._pytree_info = copy.deepcopy(self.graph._pytree_info)
        from ._symbolic_trace import Tracer

        class TransformerTracer(Tracer):
            def __init__(self, graph):
                super().__init__()
                self.graph = graph
                self.tensor_attrs = {}

            def is_leaf_module(self, _, __):
                return True

        self.tracer = TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self):
        """Runs the transformation and returns the new GraphModule."""
        result = super().run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a))
        return GraphModule(self.module, self.new_graph)
