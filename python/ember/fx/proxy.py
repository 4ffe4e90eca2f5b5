"""Proxy: the stand-in value that records, as graph nodes, what a traced program does with it (torch.fx.Proxy).

A Proxy is a tensor-like object: ember's functions and Tensor methods hand calls that reach one to its
``__torch_function__`` (ember.overrides), which records them; Python operators, attribute access and method calls are
recorded by the Proxy's own special methods.
"""

import dis
import inspect
import operator

from ..overrides import is_tensor_method_or_property
from .node import map_aggregate

__all__ = ["Attribute", "ParameterProxy", "Proxy", "TraceError"]


class TraceError(ValueError):
    """Raised when a traced program does something a Proxy cannot record (control flow on traced values)."""


class Proxy:
    """A value of the program being traced; operations on it become nodes of ``tracer.graph``. ``node`` is the node
    that produces it."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            from ._symbolic_trace import GraphAppendingTracer

            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self):
        return "Proxy(%s)" % self.node.name

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):  # copy, pickle and the like probe special names
            raise AttributeError(k)
        return Attribute(self, k)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # `a, b = proxy` unpacks into getitem nodes when the calling code says how many values it wants.
        frame = inspect.currentframe().f_back
        try:
            for inst in dis.get_instructions(frame.f_code):
                if inst.offset == frame.f_lasti:
                    if inst.opname == "UNPACK_SEQUENCE":
                        return (self[i] for i in range(inst.argval))
                    break
        finally:
            del frame
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        return self.tracer._len(self)  # raises, unless a tracer that knows example values says

    def keys(self):
        return self.tracer.keys(self)

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None

        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(
                "Found multiple different tracers %s while trying to trace operations %s" % (list(tracers), orig_method)
            )
        tracer = next(iter(tracers))
        if is_tensor_method_or_property(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        return tracer.create_proxy(
            "call_function", orig_method, args, kwargs, name=tracer.graph._target_to_str(orig_method.__name__)
        )


class Attribute(Proxy):
    """``proxy.name``: a method call when it is called, else a ``getattr`` node (made on first use)."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """The Proxy of a parameter when the tracer has ``param_shapes_constant``: its shape, size, dim, ndim, numel and
    nelement are the parameter's (constants), so that checks on them do not stop tracing."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        from ..nn.parameter import Parameter

        if not isinstance(param, Parameter):
            raise AssertionError("Expected Parameter, got %s" % type(param))
        self.param = param
        self.name = name

    def __repr__(self):
        return "ParameterProxy(%s)" % self.name

    @property
    def shape(self):
        return self.param.shape

    def size(self):
        return self.param.size()

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


def _define_operators():
    binary = ("add sub mul floordiv truediv mod pow lshift rshift and_ or_ xor getitem matmul").split()
    compare = "eq ne lt gt le ge".split()
    unary = "pos neg invert".split()

    def make(name, reflected):
        target = getattr(operator, name)

        def impl(self, *args):
            operands = (args[0], self) if reflected else (self,) + args
            return self.tracer.create_proxy("call_function", target, operands, {})

        impl.__name__ = "__%s%s__" % ("r" if reflected else "", name.strip("_"))
        return impl

    for name in binary + compare + unary:
        setattr(Proxy, "__%s__" % name.strip("_"), make(name, False))
    for name in binary:
        if name != "getitem":
            setattr(Proxy, "__r%s__" % name.strip("_"), make(name, True))
    Proxy.__hash__ = object.__hash__  # __eq__ records a node; hashing stays identity, as torch.fx's


_define_operators()
