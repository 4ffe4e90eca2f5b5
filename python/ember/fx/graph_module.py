"""GraphModule: a Module whose forward is the Python code generated from a Graph (torch.fx.GraphModule)."""

import os

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
        python_code = self.graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        globals_ = dict(python_code.globals)
        filename = "<eval_with_key>.%d" % id(self)
        exec(compile(python_code.src, filename, "exec"), globals_)  # noqa: S102
        type(self).forward = globals_["forward"]
        return python_code

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
        code = "\n".join("    " + line if line else line for line in python_code.src.strip("\n").split("\n"))
        with open(os.path.join(folder, "module.py"), "w") as f:
            f.write("\n".join(lines) + "\n\n" + code + "\n")
        with open(os.path.join(folder, "__init__.py"), "w") as f:
            f.write("from .module import *\n")
