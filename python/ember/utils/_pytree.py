"""``ember.utils._pytree``: nested containers as trees of leaves (PyTorch's ``torch.utils._pytree``), which
``__torch_dispatch__`` handlers use to unwrap and rewrap the tensors in their arguments.

Containers: list, tuple, dict (insertion order), namedtuple, OrderedDict, defaultdict, deque, and the classes given to
``register_pytree_node``; everything else (``None`` too, as in PyTorch 2.15) is a leaf.
"""

import collections
from typing import Any, NamedTuple

__all__ = [
    "LeafSpec",
    "TreeSpec",
    "register_pytree_node",
    "tree_all",
    "tree_any",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_map_",
    "tree_map_only",
    "tree_structure",
    "tree_unflatten",
]


class _Node(NamedTuple):
    flatten: Any  # obj -> (children, context)
    unflatten: Any  # (children, context) -> obj


_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):  # fmt: skip
    """Makes instances of ``cls`` containers: ``flatten_fn(obj) -> (children, context)`` and
    ``unflatten_fn(children, context) -> obj``."""
    if cls in _NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _NODES[cls] = _Node(flatten_fn, unflatten_fn)


def _is_namedtuple(t):
    return issubclass(t, tuple) and hasattr(t, "_fields")


def _node_of(obj):
    t = type(obj)
    if t in _NODES:
        return _NODES[t]
    if _is_namedtuple(t):
        return _Node(lambda o: (list(o), type(o)), lambda c, ctx: ctx(*c))
    return None


register_pytree_node(list, lambda o: (list(o), None), lambda c, ctx: list(c))
register_pytree_node(tuple, lambda o: (list(o), None), lambda c, ctx: tuple(c))
register_pytree_node(dict, lambda o: (list(o.values()), list(o)), lambda c, ctx: dict(zip(ctx, c)))
register_pytree_node(
    collections.OrderedDict,
    lambda o: (list(o.values()), list(o)),
    lambda c, ctx: collections.OrderedDict(zip(ctx, c)),
)
register_pytree_node(
    collections.defaultdict,
    lambda o: (list(o.values()), (o.default_factory, list(o))),
    lambda c, ctx: collections.defaultdict(ctx[0], zip(ctx[1], c)),
)
register_pytree_node(collections.deque, lambda o: (list(o), o.maxlen), lambda c, ctx: collections.deque(c, maxlen=ctx))


class TreeSpec:
    """The structure of a tree: its container type, context and children's specs (a leaf is ``LeafSpec()``)."""

    def __init__(self, type, context, children_specs):  # noqa: A002
        self.type = type
        self.context = context
        self.children_specs = children_specs
        self.num_leaves = sum(c.num_leaves for c in children_specs)
        self.num_children = len(children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return (
            isinstance(other, TreeSpec)
            and self.is_leaf() == other.is_leaf()
            and self.type is other.type
            and self.context == other.context
            and self.children_specs == other.children_specs
        )

    def __hash__(self):
        return id(self)

    def __repr__(self):
        if self.is_leaf():
            return "*"
        inner = ", ".join(repr(c) for c in self.children_specs)
        return f"TreeSpec({self.type.__name__}, {self.context!r}, [{inner}])"

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])
        self.num_leaves = 1

    def is_leaf(self):
        return True


def _is_leaf(obj, is_leaf):
    return (is_leaf is not None and is_leaf(obj)) or _node_of(obj) is None


def tree_flatten(tree, is_leaf=None):
    """(the leaves in order, the TreeSpec to rebuild the tree from them)."""
    leaves = []

    def go(obj):
        if _is_leaf(obj, is_leaf):
            leaves.append(obj)
            return LeafSpec()
        node = _node_of(obj)
        children, context = node.flatten(obj)
        return TreeSpec(type(obj), context, [go(c) for c in children])

    spec = go(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The tree of ``treespec``'s structure with ``leaves`` in it."""
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(
            f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a pytree that "
            f"holds {treespec.num_leaves} items ({treespec})."
        )
    it = iter(leaves)

    def go(spec):
        if spec.is_leaf():
            return next(it)
        children = [go(c) for c in spec.children_specs]
        node = _NODES.get(spec.type) or _node_of_type(spec.type)
        return node.unflatten(children, spec.context)

    return go(treespec)


def _node_of_type(t):
    if _is_namedtuple(t):
        return _Node(None, lambda c, ctx: ctx(*c))
    raise ValueError(f"{t} is not a registered pytree node")


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """The tree with ``func`` applied to each leaf (to the leaves at the same place of ``rests`` too)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [tree_leaves(r, is_leaf) for r in rests]
    for o in others:
        if len(o) != len(leaves):
            raise ValueError("tree_map: the trees do not have the same structure")
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def tree_map_(func, tree, *rests, is_leaf=None):
    """Applies ``func`` to each leaf for its effect; returns ``tree``."""
    leaves = tree_leaves(tree, is_leaf)
    others = [tree_leaves(r, is_leaf) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _type_check(type_or_types):
    return lambda x: isinstance(x, type_or_types)


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    """tree_map applying ``func`` to the leaves that are instances of ``type_or_types`` only."""
    check = _type_check(type_or_types)
    return tree_map(lambda x: func(x) if check(x) else x, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_leaves(tree, is_leaf))


def tree_any(pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_leaves(tree, is_leaf))
