"""GraphModule: a Module whose forward is the Python code generated from a Graph (torch.fx.GraphModule)."""

import copy
import os
import pickle
import types

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from .graph import Graph

__all__ = ["GraphModule"]


def _copy_attr(from_module, to_module, target):
    """Installs `from_module`'s attribute at dotted path `target` on `to_module`, making empty Modules on the way."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # the whole subtree is installed already
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if (
        isinstance(orig, _tensor_type())
        and not isinstance(orig, Parameter)
        and field in getattr(from_module, "_buffers", {})
    ):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(value, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    setattr(to_module, field, value)


class _CodeOnlyModule(Module):
    """A Module whose state is a saved GraphModule's __dict__ (and whose class gets the saved forward)."""

    def __init__(self, body):
        super().__init__()
        self.__dict__ = body


def _format_import_block(globals_):
    """Python source that defines the globals generated code uses, by importing them."""
    lines = []
    for name, obj in globals_.items():
        if isinstance(obj, types.ModuleType):
            lines.append(
                "import %s" % obj.__name__ if name == obj.__name__ else "import %s as %s" % (obj.__name__, name)
            )
            continue
        if isinstance(obj, float):
            lines.append("%s = float(%r)" % (name, repr(obj)))
            continue
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if module == "_operator":
            module = "operator"
        if not module or not qualname or "<" in qualname:
            raise pickle.PicklingError(
                "GraphModule: cannot pickle a module whose code calls %r (%s): it cannot be imported by name"
                % (obj, name)
            )
        lines.append("%s = __import__('importlib').import_module(%r).%s" % (name, module, qualname))
    return "\n".join(lines)


def reduce_graph_module(body, import_block):
    """Rebuilds a pickled GraphModule: runs its saved code and traces it again (submodules stay leaves)."""
    globals_ = {}
    exec(import_block, globals_)  # noqa: S102
    exec(compile(body["_code"], "<reduce_graph_module>", "exec"), globals_)  # noqa: S102
    return _deserialize_graph_module(globals_["forward"], body)


def _deserialize_graph_module(forward, body):
    from ._symbolic_trace import Tracer

    tracer_cls = body.get("_tracer_cls") or Tracer

    class KeepModules(tracer_cls):
        def is_leaf_module(self, _, __):
            return True

    com = type("_CodeOnlyModule", (_CodeOnlyModule,), {"forward": forward})(body)
    graph = KeepModules().trace(com)
    graph._tracer_cls = tracer_cls
    gm = GraphModule(com, graph, class_name=body.get("_graphmodule_cls_name", "GraphModule"))
    for k, v in body.items():  # attributes the graph does not name come back too
        if not hasattr(gm, k):
            setattr(gm, k, v)
    return gm


def _tensor_type():
    from .. import _C

    return _C.Tensor


class GraphModule(Module):
    """A Module made from a Graph: the submodules, parameters and attributes the graph's ``call_module`` and
    ``get_attr`` nodes name are copied from `root` (a Module, or a dict from qualified name to value), and
    ``forward`` is the Python code generated from the graph (``code``). Changing ``graph`` (or editing it and
    calling ``recompile()``) regenerates it.

    Args:
        root (Module or dict): where the graph's modules and attributes come from.
        graph (Graph): the program.
        class_name (str): the name of the generated class (printed by ``print_readable``).
    """

    def __new__(cls, *args, **kwargs):
        # Each instance gets its own class, so that forward can be set on it without affecting others.
        for t in cls.__mro__:
            if t.__qualname__ == "GraphModuleImpl":
                cls = t
                break
        impl = type("GraphModuleImpl", (cls,), {})
        return super().__new__(impl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(
                            "Node %s referenced target %s but that target was not provided in "
                            "``root``!" % (node, node.target)
                        )
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type %s passed for root!" % type(root))
        self.graph = graph

    @property
    def graph(self):
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError("Expected a Graph instance, but got %s" % type(g))
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of ``forward``, generated from the graph."""
        if "_code" not in self.__dict__:
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self.__dict__["_code"]

    def recompile(self):
        """Regenerates ``forward`` from the graph (after editing it)."""
        info = self.graph._pytree_info
        if info is not None:
            self._in_spec, self._out_spec = info.in_spec, info.out_spec
        python_code = self.graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        globals_ = dict(python_code.globals)
        filename = "<eval_with_key>.%d" % id(self)
        exec(compile(python_code.src, filename, "exec"), globals_)  # noqa: S102
        type(self).forward = globals_["forward"]
        return python_code

    # ---- copying and pickling: as torch.fx, only the generated code is saved, and the graph is traced again from it

    def __reduce__(self):
        body = dict(self.__dict__)
        python_code = self.recompile()
        del body["_graph"]
        body["_graphmodule_cls_name"] = type(self).__name__
        return (reduce_graph_module, (body, _format_import_block(python_code.globals)))

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake = _CodeOnlyModule(copy.deepcopy(self.__dict__, memo))
        GraphModule.__init__(res, fake, fake.__dict__["_graph"], type(self).__name__)
        for attr in ("_state_dict_hooks", "_load_state_dict_pre_hooks"):
            if attr in self.__dict__:
                setattr(res, attr, copy.deepcopy(self.__dict__[attr], memo))
        res.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        return res

    def __copy__(self):
        res = GraphModule(self, self.graph, type(self).__name__)
        res.meta = getattr(self, "meta", {})
        return res

    def print_readable(self, print_output=True):
        """The generated class as source: ``class <name>(ember.nn.Module):`` and its forward."""
        lines = self.code.strip().split("\n")
        lines.insert(1, "    # No stacktrace found for following nodes")  # as torch.fx prints without stack traces
        text = "class %s(ember.nn.Module):\n%s\n" % (type(self).__name__, "\n".join("    " + line for line in lines))
        if print_output:
            print(text)
        return text

    def __str__(self):
        return super().__str__() + "\n\n" + self.code

    def to_folder(self, folder, module_name="FxModule"):
        """Writes this module as a Python package that does not need the original code: ``module.py`` (a class
        `module_name` with the generated forward, its submodules rebuilt from their reprs or loaded from
        ``<name>.pt``) with its parameters and buffers in ``state_dict.pt`` (ember.save), and ``__init__.py``."""
        import ember

        os.makedirs(folder, exist_ok=True)
        ember.save(self.state_dict(), os.path.join(folder, "state_dict.pt"))
        python_code = self.graph.python_code(root_module="self")
        lines = ["import os", "", "import ember", "from ember.nn import *  # the submodules' classes"]
        for name, obj in python_code.globals.items():  # what forward calls besides ember's functions
            if name == "ember":
                continue
            module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
            importable = module and qualname and "." not in qualname and "<" not in qualname
            lines.append(
                "from %s import %s as %s" % (module, qualname, name)
                if importable
                else "%s = None  # %r: define it here (it cannot be imported)" % (name, obj)
            )
        lines += [
            "",
            "_here = os.path.dirname(os.path.abspath(__file__))",
            "",
            "",
            "class %s(ember.nn.Module):" % module_name,
            "    def __init__(self):",
            "        super().__init__()",
        ]
        for name, mod in self.named_children():
            if "\n" not in repr(mod):
                lines.append("        self.%s = %r" % (name, mod))
            else:  # a container: saved whole
                ember.save(mod, os.path.join(folder, "%s.pt" % name))
                lines.append(
                    "        self.%s = ember.load(os.path.join(_here, %r), weights_only=False)" % (name, name + ".pt")
                )
        for name, p in self.named_parameters(recurse=False):
            lines.append("        self.%s = ember.nn.Parameter(ember.empty(%s))" % (name, list(p.shape)))
        for name, b in self.named_buffers(recurse=False):
            lines.append("        self.register_buffer(%r, ember.empty(%s))" % (name, list(b.shape)))
        lines.append("        self.load_state_dict(ember.load(os.path.join(_here, 'state_dict.pt')))")
        head, _, fn = python_code.src.partition("def forward")
        code = "\n".join("    " + line if line else line for line in ("def forward" + fn).strip("\n").split("\n"))
        wraps = [line for line in head.split("\n") if line.strip()]  # wrap("...") must run at module level
        i = lines.index("_here = os.path.dirname(os.path.abspath(__file__))")
        lines[i:i] = wraps + ([""] if wraps else [])
        with open(os.path.join(folder, "module.py"), "w") as f:
            f.write("\n".join(lines) + "\n\n" + code + "\n")
        with open(os.path.join(folder, "__init__.py"), "w") as f:
            f.write("from .module import *\n")
