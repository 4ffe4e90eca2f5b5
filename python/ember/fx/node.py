"""Node: one operation of an fx Graph (torch.fx.Node's API)."""

import builtins
import operator

from ..overrides import _PUBLIC_NAMES, _key

__all__ = ["Argument", "Node", "map_aggregate", "map_arg"]

Argument = object  # what a node's args hold: Nodes, Python values, and tuples/lists/dicts/slices of them

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")
# Functions that change state: a node that calls one is kept by eliminate_dead_code even without users.
_SIDE_EFFECTFUL = {operator.setitem, builtins.print}


def map_aggregate(a, fn):
    """Applies `fn` to each leaf of `a`, rebuilding tuples (named tuples too), lists, dicts and slices."""
    if isinstance(a, tuple):
        items = [map_aggregate(e, fn) for e in a]
        return type(a)(*items) if hasattr(a, "_fields") else tuple(items)
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Applies `fn` to each Node in `a`."""
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(func):
    """How generated code and printed graphs name a function: ember.relu, operator.add, math.sqrt."""
    name = _PUBLIC_NAMES.get(_key(func))
    if name is not None:
        return name
    if getattr(builtins, getattr(func, "__name__", ""), None) is func:
        return func.__name__
    module = getattr(func, "__module__", None) or ""
    if module == "_operator":
        module = "operator"
    return "%s.%s" % (module, getattr(func, "__qualname__", func.__name__)) if module else func.__name__


def _format_arg(arg):
    if isinstance(arg, Node):
        return "%" + arg.name
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        items = ", ".join(_format_arg(a) for a in arg)
        return "(%s,)" % items if len(arg) == 1 else "(%s)" % items
    if isinstance(arg, list):
        return "[%s]" % ", ".join(_format_arg(a) for a in arg)
    if isinstance(arg, dict):
        return "{%s}" % ", ".join("%s: %s" % (k, _format_arg(v)) for k, v in arg.items())
    return repr(arg)


class Node:
    """One operation of a Graph: ``op`` is ``placeholder`` (an input), ``get_attr`` (a parameter, buffer or
    attribute of the module), ``call_function``, ``call_method``, ``call_module`` or ``output``; ``target`` says
    what is called, and ``args``/``kwargs`` hold the inputs (other Nodes and constants). ``users`` are the nodes that
    read this one's value, ``meta`` a dict for passes (ShapeProp writes ``tensor_meta`` there)."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPS:
            raise ValueError("Node: op must be one of %s, got %r" % (_OPS, op))
        if op == "call_function" and not callable(target):
            raise ValueError(
                "Node [graph = %s, name = '%s'] target %s has type %s but a Callable is expected"
                % (id(graph), name, target, type(target))
            )
        if op in ("placeholder", "call_method", "call_module", "get_attr") and not isinstance(target, str):
            raise ValueError(
                "Node [graph = %s, name = '%s'] target %s has type %s but a str is expected"
                % (id(graph), name, target, type(target))
            )
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self.users = {}  # an ordered set: user node -> None
        self.meta = {}
        self._input_nodes = {}
        self._args = ()
        self._kwargs = {}
        self._prev = self
        self._next = self
        self._erased = False
        self._update_args_kwargs(args, kwargs)

    # ---- the list a Graph keeps its nodes in

    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Moves node `x` just before this one."""
        if x is self:
            raise ValueError("Node.prepend: cannot prepend a node to itself")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Moves node `x` just after this one."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # ---- inputs and users

    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}

        def collect(n):
            self._input_nodes.setdefault(n)
            return n

        args = map_arg(tuple(new_args), collect)
        kwargs = map_arg(dict(new_kwargs), collect)
        self._args, self._kwargs = args, kwargs
        for n in self._input_nodes:
            n.users.setdefault(self)

    def update_arg(self, idx, arg):
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self._kwargs, key: arg}

    def replace_input_with(self, old_input, new_input):
        """Replaces every use of `old_input` among this node's inputs with `new_input`."""

        def swap(n):
            return new_input if n is old_input else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Makes every user of this node read `replace_with` instead (those for which `delete_user_cb` is true);
        returns the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError(
                    "Called node.replace_all_uses_with(replace_with, propagate_meta=True), but "
                    "replace_with already has .meta keys"
                )
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if delete_user_cb(user):
                user.replace_input_with(self, replace_with)
                changed.append(user)
        return changed

    def is_impure(self):
        """Whether removing this node could change what the program does (inputs, outputs, side effects)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _SIDE_EFFECTFUL
        if self.op == "call_method":
            return self.target.endswith("_") and not self.target.endswith("__")  # in-place methods
        if self.op == "call_module" and self.graph.owning_module is not None:
            mod = self.graph.owning_module.get_submodule(self.target)
            return bool(getattr(mod, "_is_impure", False))
        return False

    # ---- printing

    def _pretty_print_target(self, target):
        if isinstance(target, str):
            return target
        return _qualified_name(target)

    def format_node(self):
        """One line of the graph's printout: ``%add : [num_users=1] = call_function[target=operator.add](...)``."""
        if self.op == "output":
            return "return %s" % _format_arg(self.args[0]).replace("%", "")
        head = "%%%s : [num_users=%d] = %s[target=%s]" % (
            self.name,
            len(self.users),
            self.op,
            self._pretty_print_target(self.target),
        )
        if self.op == "placeholder":
            return head + ("(default=%r)" % (self.args[0],) if self.args else "")
        if self.op == "get_attr":
            return head
        return head + "(args = %s, kwargs = %s)" % (_format_arg(self.args), _format_arg(self.kwargs))

    def __repr__(self):
        return self.name
