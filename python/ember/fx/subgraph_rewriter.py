"""replace_pattern: find every occurrence of one traced pattern in a GraphModule and replace it with another
(torch.fx.subgraph_rewriter)."""

from typing import Dict, NamedTuple

from .graph_module import GraphModule, _copy_attr
from .node import Node, map_arg

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    anchor: Node  # the node of the graph that matched the pattern's output
    nodes_map: Dict[Node, Node]  # pattern node -> graph node


def _graph_of(f):
    if isinstance(f, GraphModule):
        return f.graph, f
    from ._symbolic_trace import symbolic_trace

    gm = symbolic_trace(f)
    return gm.graph, gm


def _match(pn, gn, nodes_map, gm, pattern_gm):
    """Whether pattern node `pn` matches graph node `gn`, binding pattern nodes to graph nodes in nodes_map."""
    if pn in nodes_map:
        return nodes_map[pn] is gn
    if pn.op == "placeholder":
        nodes_map[pn] = gn
        return True
    if pn.op != gn.op or len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
        return False
    if pn.op == "get_attr":
        a = _fetch(pattern_gm, pn.target)
        b = _fetch(gm, gn.target)
        if a is not b and not (type(a) is type(b) and _equal(a, b)):
            return False
    elif pn.op == "call_module":
        if type(_fetch(pattern_gm, pn.target)) is not type(_fetch(gm, gn.target)):
            return False
    elif pn.target != gn.target:
        return False
    nodes_map[pn] = gn
    pairs = list(zip(pn.args, gn.args)) + [(pn.kwargs[k], gn.kwargs[k]) for k in pn.kwargs]
    for pa, ga in pairs:
        if isinstance(pa, Node):
            if not isinstance(ga, Node) or not _match(pa, ga, nodes_map, gm, pattern_gm):
                del nodes_map[pn]
                return False
        elif isinstance(ga, Node) or pa != ga:
            del nodes_map[pn]
            return False
    return True


def _fetch(mod, target):
    for atom in target.split("."):
        mod = getattr(mod, atom)
    return mod


def _equal(a, b):
    try:
        return bool(a == b)
    except Exception:
        return False


def replace_pattern(gm, pattern, replacement):
    """Replaces each non-overlapping occurrence of `pattern` in `gm`'s graph with `replacement` (both callables or
    modules, traced with symbolic_trace; the pattern's inputs match any values, in order of its placeholders), then
    recompiles `gm`. An occurrence whose inner values are used outside it is left alone. Returns the list of
    Matches."""
    p_graph, p_gm = _graph_of(pattern)
    r_graph, r_gm = _graph_of(replacement)
    p_out = next(n for n in p_graph.nodes if n.op == "output")
    anchor_p = p_out.args[0]
    if not isinstance(anchor_p, Node):
        raise NotImplementedError("replace_pattern: the pattern must return one value")
    p_placeholders = [n for n in p_graph.nodes if n.op == "placeholder"]
    r_placeholders = [n for n in r_graph.nodes if n.op == "placeholder"]
    if len(p_placeholders) != len(r_placeholders):
        raise ValueError(
            "replace_pattern: the pattern takes %d inputs and the replacement %d"
            % (len(p_placeholders), len(r_placeholders))
        )

    graph = gm.graph
    matches, used = [], set()
    for gn in list(graph.nodes):
        nodes_map = {}
        if not _match(anchor_p, gn, nodes_map, gm, p_gm):
            continue
        inner = [g for p, g in nodes_map.items() if p.op != "placeholder"]
        if any(g in used for g in inner):
            continue
        # The values computed inside the occurrence must not be read outside it (but for its result).
        inner_set = set(inner)
        if any(u not in inner_set for g in inner if g is not gn for u in g.users):
            continue
        used.update(inner)
        matches.append(Match(anchor=gn, nodes_map=nodes_map))

    replaced = {}  # an earlier occurrence's result node -> what replaced it (a later one may read it)

    def current(n):
        while n in replaced:
            n = replaced[n]
        return n

    for m in matches:
        val_map = {r: current(m.nodes_map[p]) for p, r in zip(p_placeholders, r_placeholders)}
        with graph.inserting_before(m.anchor):
            for rn in r_graph.nodes:
                if rn.op == "placeholder":
                    continue
                if rn.op == "output":
                    result = map_arg(rn.args[0], lambda n: val_map[n])
                    break
                if rn.op in ("get_attr", "call_module"):
                    _copy_attr(r_gm, gm, rn.target)
                val_map[rn] = graph.node_copy(rn, lambda n: val_map[n])
        m.anchor.replace_all_uses_with(result)
        replaced[m.anchor] = result
        for p in reversed(list(p_graph.nodes)):
            g = m.nodes_map.get(p)
            if g is not None and p.op != "placeholder" and not g.users:
                graph.erase_node(g)
    gm.recompile()
    return matches
