"""Flattening nested Python containers (tuples, named tuples, lists, dicts) to lists of leaves and back: what
symbolic_trace's ``concrete_args`` with ``PH`` and the generated code of such traces use (torch.utils._pytree and
torch.fx._pytree, reduced to the container types fx needs). ``None`` and every other object is a leaf."""

__all__ = ["LeafSpec", "TreeSpec", "tree_flatten", "tree_flatten_spec", "tree_map", "tree_unflatten"]


class TreeSpec:
    """The structure of a flattened tree: ``type`` (None for a leaf), ``context`` (a dict's keys, a named tuple's
    class) and the specs of the children."""

    def __init__(self, type, context, children_specs):  # noqa: A002
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_leaves = 1 if type is None else sum(c.num_leaves for c in self.children_specs)

    @property
    def num_children(self):
        return len(self.children_specs)

    def children(self):
        return list(self.children_specs)

    def child(self, i):
        return self.children_specs[i]

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and (self.type, self.context, self.children_specs) == (
            other.type,
            other.context,
            other.children_specs,
        )

    def __repr__(self):
        if self.is_leaf():
            return "*"
        name = self.type.__name__ if self.type is not _NAMEDTUPLE else self.context.__name__
        ctx = list(self.context) if self.type is dict else None
        return "TreeSpec(%s, %s, [%s])" % (name, ctx, ", ".join(repr(c) for c in self.children_specs))


def LeafSpec():  # noqa: N802  (torch's name)
    return TreeSpec(None, None, [])


_NAMEDTUPLE = type("namedtuple", (), {})  # the spec type of every named tuple (its class is the context)


def _children(tree):
    """(spec type, context, children) of a container, or None for a leaf."""
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return _NAMEDTUPLE, type(tree), list(tree)
    if type(tree) in (tuple, list):
        return type(tree), None, list(tree)
    if type(tree) is dict:
        return dict, list(tree.keys()), list(tree.values())
    return None


def tree_flatten(tree):
    """(leaves in order, TreeSpec) of `tree`."""
    leaves = []

    def go(t):
        c = _children(t)
        if c is None:
            leaves.append(t)
            return TreeSpec(None, None, [])
        kind, context, items = c
        return TreeSpec(kind, context, [go(x) for x in items])

    return leaves, go(tree)


def tree_unflatten(leaves, spec):
    """The tree of structure `spec` holding `leaves` (the inverse of tree_flatten)."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(
            "tree_unflatten(leaves, treespec): `leaves` has length %d but the spec refers to a pytree that holds %d "
            "items (%r)." % (len(leaves), spec.num_leaves, spec)
        )
    it = iter(leaves)

    def go(s):
        if s.is_leaf():
            return next(it)
        items = [go(c) for c in s.children_specs]
        if s.type is _NAMEDTUPLE:
            return s.context(*items)
        if s.type is dict:
            return dict(zip(s.context, items))
        return s.type(items)

    return go(spec)


def tree_map(fn, tree):
    """`tree` with `fn` applied to each leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def tree_flatten_spec(tree, spec):
    """The leaves of `tree` read in the structure `spec` says (by index and key, so that it also works on traced
    values); a tree whose structure differs raises."""
    out = []

    def go(t, s):
        if s.is_leaf():
            out.append(t)
            return
        if s.type is dict:
            if isinstance(t, dict) and set(t.keys()) != set(s.context):
                raise ValueError("tree_flatten_spec: expected a dict with keys %s, got %s" % (s.context, list(t)))
            for k, c in zip(s.context, s.children_specs):
                go(t[k], c)
            return
        if isinstance(t, (tuple, list)) and len(t) != s.num_children:
            raise ValueError(
                "tree_flatten_spec: expected a %s of %d items, got %d" % (type(t).__name__, s.num_children, len(t))
            )
        for i, c in enumerate(s.children_specs):
            go(t[i], c)

    go(tree, spec)
    return out
