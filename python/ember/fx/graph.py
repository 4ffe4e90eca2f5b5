"""Graph: the list of Nodes of a traced program, and the Python code it becomes (torch.fx.Graph's API)."""

import builtins
import copy
import inspect
import keyword
import operator
import re
import warnings

from .node import Node, _format_arg, _qualified_name, map_arg

__all__ = ["Graph", "PythonCode"]

# The operator functions that generated code writes as operators, as torch.fx does.
_MAGIC = {
    "add": "{} + {}",
    "sub": "{} - {}",
    "mul": "{} * {}",
    "floordiv": "{} // {}",
    "truediv": "{} / {}",
    "div": "{} / {}",
    "mod": "{} % {}",
    "pow": "{} ** {}",
    "lshift": "{} << {}",
    "rshift": "{} >> {}",
    "and_": "{} & {}",
    "or_": "{} | {}",
    "xor": "{} ^ {}",
    "getitem": "{}[{}]",
    "matmul": "{} @ {}",
    "eq": "{} == {}",
    "ne": "{} != {}",
    "lt": "{} < {}",
    "gt": "{} > {}",
    "le": "{} <= {}",
    "ge": "{} >= {}",
    "pos": "+{}",
    "neg": "-{}",
    "invert": "~{}",
}
_ILLEGAL_NAMES = set(dir(builtins)) | set(keyword.kwlist) | {"self", "ember", "operator", "math"}


def _pytree_module():
    from . import _pytree

    return _pytree


def _snake_case(s):
    out = []
    for i, c in enumerate(s):
        if c.isupper() and i > 0 and s[i - 1].islower():
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def _is_magic(name):
    return name.startswith("__") and name.endswith("__")


class _Namespace:
    """Unique Python names for a graph's nodes: ``add``, ``add_1``, ...; builtins and keywords get a suffix."""

    def __init__(self):
        self._used = set()
        self._base_count = {}

    def create_name(self, candidate):
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = "_" + candidate
        match = re.match(r"(.*)_(\d+)$", candidate)
        base, num = (match.group(1), int(match.group(2))) if match else (candidate, None)
        if num is None:
            num = self._base_count.get(base, 0)
        while candidate in self._used or candidate in _ILLEGAL_NAMES:
            num += 1
            candidate = "%s_%d" % (base, num)
        self._used.add(candidate)
        self._base_count[base] = num
        return candidate


class _NodeList:
    """A graph's nodes in order; iterating tolerates erasing the current node."""

    def __init__(self, graph, reverse=False):
        self._graph = graph
        self._reverse = reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = "_prev" if self._reverse else "_next"
        cur = getattr(root, step)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, step)

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))


class _InsertPoint:
    def __init__(self, graph, insert):
        self.graph = graph
        self.orig, graph._insert = graph._insert, insert

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        self.graph._insert = self.orig


class PythonCode:
    """The source of a graph's ``forward`` and the globals it runs with."""

    def __init__(self, src, globals):  # noqa: A002
        self.src = src
        self.globals = globals


def _type_repr(t, add_global):
    if isinstance(t, type):
        if t.__module__ == "builtins":
            return t.__qualname__
        return add_global(t)
    return repr(t)


class Graph:
    """The operations of a program, in order: Nodes made by ``placeholder``, ``get_attr``, ``call_function``,
    ``call_method``, ``call_module`` and ``output`` (or by ``create_node``), inserted at the end or where an
    ``inserting_before``/``inserting_after`` block says."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._namespace = _Namespace()
        self._insert = self._root.prepend
        self.owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._pytree_info = None  # set when the inputs are containers (Note [pytree codegen] in _symbolic_trace.py)

    def __deepcopy__(self, memo=None):
        """A copy with new Nodes (copied one by one, not recursively through the node list)."""
        memo = memo if memo is not None else {}
        g = Graph(tracer_cls=self._tracer_cls, tracer_extras=self._tracer_extras)
        g._pytree_info = copy.deepcopy(self._pytree_info, memo)
        out = g.graph_copy(self, val_map=memo, return_output_node=True)
        if out is not None:
            value, old_output = out
            g.output(value, type_expr=old_output.type).meta = copy.copy(old_output.meta)
        return g

    @property
    def nodes(self):
        return _NodeList(self)

    def find_nodes(self, *, op, target=None):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- making nodes

    def _target_to_str(self, target):
        if callable(target):
            op = target.__name__
        else:
            op = target
            if _is_magic(op):
                op = op[2:-2]
        return _snake_case(op)

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Makes a node at the current insertion point; its name is `name` or made from the target, unique."""
        candidate = name if name is not None else self._target_to_str(target)
        node = Node(self, self._namespace.create_name(candidate), op, target, args or (), kwargs or {}, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of `node` (of another graph) here, its inputs mapped by `arg_transform`."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copies the nodes of graph `g` here (val_map: g's nodes -> these); returns what g's output returns."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def erase_node(self, to_erase):
        """Removes a node that has no users."""
        if len(to_erase.users) > 0:
            raise RuntimeError(
                "Tried to erase Node %s but it still had %d users in the graph: %s!"
                % (to_erase, len(to_erase.users), to_erase.users)
            )
        if to_erase.graph is not self:
            raise RuntimeError("Attempting to remove %s from wrong graph!" % to_erase)
        if to_erase._erased:
            warnings.warn("erase_node(%s) on an already erased node" % to_erase, stacklevel=2)
            return
        p, n = to_erase._prev, to_erase._next
        p._next, n._prev = n, p
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def inserting_before(self, n=None):
        """A context in which new nodes go just before `n` (at the start of the graph when None)."""
        if n is None:
            return self.inserting_after(self._root)
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """A context in which new nodes go just after `n` (at the end of the graph when None)."""
        if n is None:
            return self.inserting_before(self._root)
        return _InsertPoint(self, n.append)

    # ---- checking and cleaning

    def lint(self):
        """Checks the graph: known ops, unique names, every input defined before its use and in this graph, users
        consistent, and targets of get_attr/call_module present in the owning module."""
        seen, names = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError("Node '%s' does not belong to this Graph!" % node)
            if node.name in names:
                raise RuntimeError("Node redefined name %s!" % node.name)
            names.add(node.name)
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(
                        "Argument '%s' of Node '%s' does not belong to this Graph, but was used as an "
                        "argument! If you are copying nodes from another graph, make sure to use "
                        "``arg_transform`` on node_copy() to remap values\n%s" % (arg, node, self)
                    )
                if arg not in seen:
                    raise RuntimeError(
                        "Argument '%s' of Node '%s' was used before it has been defined! Please check "
                        "that Nodes in the graph are topologically ordered\n%s" % (arg, node, self)
                    )
                if node not in arg.users:
                    raise RuntimeError("Node '%s' reads '%s' but is not among its users" % (node, arg))
            seen.add(node)
        mod = self.owning_module
        if mod is None:
            return
        for node in self.nodes:
            if node.op not in ("get_attr", "call_module"):
                continue
            obj, path = mod, []
            for atom in node.target.split("."):
                if not hasattr(obj, atom):
                    raise RuntimeError(
                        "Node %s target %s references nonexistent attribute %s of %s"
                        % (node.name, node.target, atom, ".".join(path) or "root")
                    )
                obj = getattr(obj, atom)
                path.append(atom)
            if node.op == "call_module" and not callable(obj):
                raise RuntimeError("Node %s target %s is not a module" % (node.name, node.target))

    def eliminate_dead_code(self, is_impure_node=None):
        """Erases the nodes whose values nothing uses and that have no side effects; returns whether any was."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    # ---- printing and code

    def __str__(self):
        lines = ["graph():"] + ["    " + n.format_node() for n in self.nodes]
        return "\n".join(lines)

    def print_tabular(self):
        """Prints the nodes as a table: opcode, name, target, args, kwargs."""
        rows = [
            [
                n.op,
                n.name,
                str(n.target) if isinstance(n.target, str) else _qualified_name(n.target),
                _format_arg(n.args).replace("%", ""),
                _format_arg(n.kwargs).replace("%", ""),
            ]
            for n in self.nodes
        ]
        headers = ["opcode", "name", "target", "args", "kwargs"]
        widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
        fmt = "  ".join("{:<%d}" % w for w in widths)
        lines = [fmt.format(*headers), "  ".join("-" * w for w in widths)] + [fmt.format(*r) for r in rows]
        print("\n".join(line.rstrip() for line in lines))

    def python_code(self, root_module="self"):
        """The Python source of ``forward`` for this graph, and the globals it needs."""
        globals_ = {}
        taken = {n.name for n in self.nodes} | {n.target for n in self.nodes if n.op == "placeholder"}

        def add_global(obj):
            # ember's functions and types by their public names (ember.relu), builtins by theirs, anything else
            # (math.sqrt, a wrapped user function) as a global named after its qualified name (math_sqrt), as
            # torch.fx does
            name = getattr(obj, "__name__", None)
            if name and getattr(builtins, name, None) is obj:
                return name
            qualified = obj.__module__ + "." + obj.__qualname__ if isinstance(obj, type) else _qualified_name(obj)
            if qualified.startswith("ember."):
                import ember

                globals_["ember"] = ember
                return qualified
            base = re.sub(r"[^0-9a-zA-Z_]", "_", qualified or name or "fn")
            if base[0].isdigit():
                base = "_" + base
            unique, i = base, 0
            while (unique in globals_ and globals_[unique] is not obj) or unique in taken:
                i += 1
                unique = "%s_%d" % (base, i)
            globals_[unique] = obj
            return unique

        def r(arg):
            if isinstance(arg, Node):
                return arg.name
            if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
                return "(%s,)" % r(arg[0]) if len(arg) == 1 else "(%s)" % ", ".join(r(a) for a in arg)
            if isinstance(arg, list):
                return "[%s]" % ", ".join(r(a) for a in arg)
            if isinstance(arg, dict):
                return "{%s}" % ", ".join("%r: %s" % (k, r(v)) for k, v in arg.items())
            if isinstance(arg, slice):
                return "slice(%s, %s, %s)" % (r(arg.start), r(arg.stop), r(arg.step))
            if callable(arg) and not isinstance(arg, type):
                return add_global(arg)
            if isinstance(arg, type):
                return _type_repr(arg, add_global)
            text = repr(arg)
            if text.startswith("device("):
                import ember

                globals_["device"] = ember.device
            elif text in ("inf", "-inf", "nan"):
                globals_[text.lstrip("-")] = float(text.lstrip("-"))
            elif text.startswith("ember."):
                import ember

                globals_["ember"] = ember
            return text

        def fmt_args(args, kwargs):
            parts = [r(a) for a in args] + ["%s = %s" % (k, r(v)) for k, v in kwargs.items()]
            return ", ".join(parts)

        def target(base, t):
            for atom in t.split("."):
                base = "%s.%s" % (base, atom) if atom.isidentifier() else 'getattr(%s, "%s")' % (base, atom)
            return base

        last_use, to_free = {}, {}
        for node in reversed(self.nodes):
            for inp in node._input_nodes:
                if inp not in last_use:
                    last_use[inp] = node
                    to_free.setdefault(node, []).append(inp)

        free_vars, body, ret_annotation, wrapped = [], [], "", []
        for node in self.nodes:
            ann = " : " + _type_repr(node.type, add_global) if node.type is not None else ""
            if node.op == "placeholder":
                default = " = " + r(node.args[0]) if node.args else ""
                free_vars.append(node.target + ann + default)
                raw = node.target.replace("*", "")
                if raw != node.name:
                    body.append("%s = %s\n" % (node.name, raw))
                continue
            if node.op == "output":
                if node.type is not None:
                    ret_annotation = " -> " + _type_repr(node.type, add_global)
                info = self._pytree_info
                if info is not None and info.out_spec is not None:
                    globals_["pytree"] = _pytree_module()
                    body.append("return pytree.tree_unflatten(%s, %s._out_spec)" % (r(node.args[0]), root_module))
                else:
                    body.append("return %s" % r(node.args[0]))
                body.append("\n")
                continue
            if node.op == "call_method":
                line = "%s = %s(%s)" % (
                    node.name,
                    target(r(node.args[0]), node.target),
                    fmt_args(node.args[1:], node.kwargs),
                )
            elif node.op == "call_module":
                line = "%s = %s(%s)" % (node.name, target(root_module, node.target), fmt_args(node.args, node.kwargs))
            elif node.op == "get_attr":
                line = "%s = %s" % (node.name, target(root_module, node.target))
            else:
                fn = node.target
                name = getattr(fn, "__name__", "")
                if getattr(operator, name, None) is fn and name in _MAGIC and not node.kwargs:
                    line = "%s = %s" % (node.name, _MAGIC[name].format(*[r(a) for a in node.args]))
                elif (
                    fn is builtins.getattr
                    and len(node.args) == 2
                    and isinstance(node.args[1], str)
                    and node.args[1].isidentifier()
                ):
                    line = "%s = %s" % (node.name, target(r(node.args[0]), node.args[1]))
                else:
                    global_name = add_global(fn)
                    line = "%s = %s(%s)" % (node.name, global_name, fmt_args(node.args, node.kwargs))
                    if node.meta.get("is_wrapped", False) and global_name not in wrapped:
                        wrapped.append(global_name)
            body.append(line)
            frees = list(to_free.get(node, []))
            if not node.users:
                frees.append(node)
            body.append(";  %s = None\n" % " = ".join(n.name for n in frees) if frees else "\n")
        params = [root_module] + free_vars
        info = self._pytree_info
        if info is not None:  # forward takes the containers and flattens them (Note [pytree codegen])
            orig = [a for a in info.orig_args if a != "self"]
            params = [root_module] + orig
            if free_vars:
                globals_["fx_pytree"] = _pytree_module()
                lhs = ", ".join(v.split(" ")[0] for v in free_vars)
                body.insert(
                    0, "%s, = fx_pytree.tree_flatten_spec([%s], %s._in_spec)\n" % (lhs, ", ".join(orig), root_module)
                )
        code = "".join(body) or "pass\n"
        code = "\n".join("    " + line for line in code.split("\n"))
        wrap_stmts = ""
        if wrapped:  # so that tracing the code again (unpickling) keeps the wrapped functions as single calls
            from ._symbolic_trace import wrap

            wrap_stmts = "\n".join('%s("%s")' % (add_global(wrap), n) for n in wrapped)
        src = "\n%s\n\ndef forward(%s)%s:\n%s" % (wrap_stmts, ", ".join(params), ret_annotation, code)
        return PythonCode(src, globals_)
