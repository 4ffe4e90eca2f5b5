"""histogram and histogramdd (torch 1.13): bin edges, binning and counts as compositions of C++ ops (linspace,
searchsorted, index_add_); the only Python loop is over the D dimensions of a histogramdd.

As PyTorch: each bin is [e_i, e_{i+1}) except the last, which includes its right edge; elements outside
[e_0, e_last] (and NaN) are not counted, nor their weights; without `range`, the outer edges are the input's min and
max (0 and 1 for an empty input), widened by 0.5 on each side when equal; density divides by the total weight times
the bin's width (volume)."""

import operator

from . import _C
from ._C import Tensor
from .return_types import histogram as _histogram_t
from .return_types import histogramdd as _histogramdd_t

_FLOATS = (_C.float32, _C.float64)
_builtin_range = range  # the functions below take an argument named range, as PyTorch's


def _dtype_name(dtype):
    return {
        _C.float16: "Half",
        _C.bfloat16: "BFloat16",
        _C.int64: "Long",
        _C.int32: "Int",
        _C.int16: "Short",
        _C.int8: "Char",
        _C.uint8: "Byte",
        _C.bool: "Bool",
    }.get(dtype, str(dtype).split(".")[-1])


def _as_int(b):
    """b as an int if it is an integer (int, numpy integer: anything with __index__ but bool and Tensor), else None."""
    if isinstance(b, (bool, Tensor)) or not hasattr(type(b), "__index__"):
        return None
    return operator.index(b)


def _check_input(op, input):
    if not isinstance(input, Tensor):
        raise TypeError("{}(): argument 'input' (position 1) must be Tensor, not {}".format(op, type(input).__name__))
    if input.dtype not in _FLOATS:
        raise RuntimeError("\"{}\" not implemented for '{}'".format("histogramdd", _dtype_name(input.dtype)))


def _outer_edges(column, lo, hi, d):
    """The outer edges of dimension d: the range given, else the column's min and max; checked and widened."""
    if lo is None:
        if column.numel() == 0:
            lo, hi = 0.0, 1.0
        else:
            mm = _C.aminmax(column)
            lo, hi = mm.min.item(), mm.max.item()
    lo, hi = float(lo), float(hi)
    if not (lo <= hi) and lo == lo and hi == hi:
        raise RuntimeError(
            "histogramdd(): min should not exceed max, but got min {:g} max {:g} for dimension {}".format(lo, hi, d)
        )
    if not (abs(lo) < float("inf") and abs(hi) < float("inf")):
        raise RuntimeError("histogramdd(): dimension {}'s range [{:g}, {:g}] is not finite".format(d, lo, hi))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _histogramdd_impl(op, points, bins, range, weight, density):
    """points: (N, D) of a float dtype; bins: D ints or D 1-d edge tensors; range: None or 2*D floats."""
    n, dims = points.shape
    if weight is not None:
        weight = weight.reshape(-1)
    edges, counts = [], []
    for d in _builtin_range(dims):
        b = bins[d]
        column = points.select(1, d)
        if isinstance(b, Tensor):
            if b.dtype != points.dtype:
                raise RuntimeError(
                    "{}(): input tensor and bins tensors should have the same dtype, but got input "
                    "with dtype {} and bins for dimension {} with dtype {}".format(op, points.dtype, d, b.dtype)
                )
            if b.dim() != 1:
                raise RuntimeError(
                    "{}(): bins tensor should have one dimension, but got {} dimensions in the bins "
                    "tensor for dimension {}".format(op, b.dim(), d)
                )
            if b.numel() < 2:
                raise RuntimeError("{}(): bins must be > 0, but got {} for dimension {}".format(op, b.numel() - 1, d))
            e = b.to(points.device)
        else:
            if _as_int(b) is None:
                raise TypeError(
                    "{}(): bins must be an int or a 1-d tensor of bin edges, not {}".format(op, type(b).__name__)
                )
            b = _as_int(b)
            if b <= 0:
                raise RuntimeError("{}(): bins must be > 0, but got {} for dimension {}".format(op, b, d))
            lo, hi = (None, None) if range is None else (range[2 * d], range[2 * d + 1])
            lo, hi = _outer_edges(column, lo, hi, d)
            e = _C.linspace(lo, hi, b + 1, dtype=points.dtype, device=points.device)
        edges.append(e)
        counts.append(e.numel() - 1)
    # Note: bin i of a dimension holds e_i <= x < e_{i+1} (searchsorted right - 1); x == e_last goes to the last bin.
    valid = _C.ones((n,), dtype=_C.bool, device=points.device)
    flat = _C.zeros((n,), dtype=_C.int64, device=points.device)
    for d, e in enumerate(edges):
        column = points.select(1, d).contiguous()
        valid = valid & (column >= e[0]) & (column <= e[-1])
        idx = (_C.searchsorted(e, column, right=True) - 1).clamp(0, counts[d] - 1)
        flat = flat * counts[d] + idx
    total = 1
    for c in counts:
        total *= c
    values = _C.ones((n,), dtype=points.dtype, device=points.device) if weight is None else weight
    values = _C.where(valid, values, _C.zeros((), dtype=points.dtype, device=points.device))
    hist = _C.zeros((total,), dtype=points.dtype, device=points.device)
    hist.index_add_(0, _C.where(valid, flat, _C.zeros((), dtype=_C.int64, device=points.device)), values)
    hist = hist.reshape(counts)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * dims
            shape[d] = counts[d]
            hist = hist / _C.diff(e).reshape(shape)
    return hist, tuple(edges)


def _check_weight(op, input, weight, expected_shape):
    if weight is None:
        return
    if not isinstance(weight, Tensor):
        raise TypeError("{}(): argument 'weight' must be Tensor, not {}".format(op, type(weight).__name__))
    if weight.dtype != input.dtype:
        raise RuntimeError(
            "{}(): if weight tensor is provided, input tensor and weight tensor should have the same "
            "dtype, but got input({}), and weight({})".format(op, input.dtype, weight.dtype)
        )
    if tuple(weight.shape) != tuple(expected_shape):
        raise RuntimeError(
            "{}(): if weight tensor is provided it should have the same shape as the input tensor "
            "excluding its innermost dimension, but got input with shape {} and weight with shape {}".format(
                op, list(input.shape), list(weight.shape)
            )
        )


def _write_out(result, out, op):
    if out is None:
        return result
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("{}(): out must be a tuple of 2 tensors (hist, bin_edges)".format(op))
    for src, dst in zip(result, out):
        if dst.shape != src.shape:
            dst.resize_(src.shape)
        dst.copy_(src)
    return type(result)(*out)


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """Computes a histogram of the values in `input`.

    With an int `bins`, the bins are that many equal-width ones over `range` (by default the values' min and max);
    with a 1-D tensor `bins`, they lie between its increasing edges. Each bin is ``[e_i, e_{i+1})`` except the last,
    which includes its right edge; values outside the edges (and NaN) are not counted. `input` is float32 or
    float64.

    Args:
        input (Tensor): the values (any shape).
        bins (int or Tensor): the number of bins, or their edges.

    Keyword args:
        range (tuple of float, optional): the outer edges ``(min, max)``, with an int `bins` only.
        weight (Tensor, optional): a weight for each value (`input`'s shape); each value counts its weight.
        density (bool): divide each count by the total count and the bin's width, so that the histogram integrates
            to 1.
        out (tuple of Tensors, optional): the ``(hist, bin_edges)`` tensors to write into.

    Returns:
        a named tuple ``(hist, bin_edges)``: the counts (or densities) and the ``bins + 1`` edges.

    Example::

        >>> ember.histogram(ember.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
        histogram(hist=tensor([0., 2., 1., 0.]), bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    """
    _check_input("histogram", input)
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): range cannot be given with a tensor of bin edges (bins)")
    elif _as_int(bins) is None:
        raise TypeError("histogram(): argument 'bins' must be int or Tensor, not {}".format(type(bins).__name__))
    if range is not None and len(range) != 2:
        raise RuntimeError(
            "histogram(): for a 1-dimensional histogram range should have 2 elements, but got {}".format(len(range))
        )
    _check_weight("histogram", input, weight, input.shape)
    hist, edges = _histogramdd_impl("histogram", input.reshape(-1, 1), [bins], range, weight, density)
    return _write_out(_histogram_t(hist, edges[0]), out, "histogram")


def histogramdd(input, bins, range=None, weight=None, density=False, *, out=None):  # noqa: A002
    """Computes a multi-dimensional histogram of the points in `input`.

    The last dimension of `input` (of size D) holds the coordinates of each point. Along each of the D dimensions,
    the bins are as :func:`ember.histogram` makes them: equal-width ones over the range (by default the points' min
    and max in that dimension), or those between given edges.

    Args:
        input (Tensor): the points, of shape ``(..., D)``, float32 or float64.
        bins (int, sequence of ints or sequence of Tensors): the number of bins in every dimension, the number in
            each, or the edges in each (D 1-D tensors).
        range (sequence of float, optional): ``2 * D`` outer edges, ``(min, max)`` for each dimension in turn,
            with numbers of bins only.
        weight (Tensor, optional): a weight for each point (`input`'s shape without its last dimension).
        density (bool): divide each count by the total count and the bin's volume.

    Keyword args:
        out (tuple of Tensors, optional): the ``(hist, bin_edges)`` to write into.

    Returns:
        a named tuple ``(hist, bin_edges)``: the counts, of shape ``(bins_0, ..., bins_{D-1})``, and a tuple of D
        tensors of edges.

    Example::

        >>> r = ember.histogramdd(ember.tensor([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), bins=2)
        >>> r.hist
        tensor([[1., 0.],
                [1., 1.]])
    """
    _check_input("histogramdd", input)
    if input.dim() < 2:
        raise RuntimeError("histogramdd(): input tensor should have at least 2 dimensions")
    dims = input.shape[-1]
    if isinstance(bins, Tensor):
        raise TypeError("histogramdd(): bins must be an int, a sequence of ints or a sequence of tensors, not a Tensor")
    if _as_int(bins) is not None:
        bins = [_as_int(bins)] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise RuntimeError(
            "histogramdd(): expected {} sequences of bin edges for a {}-dimensional histogram but got {}".format(
                dims, dims, len(bins)
            )
        )
    if range is not None:
        if any(isinstance(b, Tensor) for b in bins):
            raise TypeError("histogramdd(): range cannot be given with tensors of bin edges (bins)")
        range = [float(r) for r in range]  # noqa: A001
        if len(range) != 2 * dims:
            raise RuntimeError(
                "histogramdd(): for a {}-dimensional histogram range should have {} elements, but got {}".format(
                    dims, 2 * dims, len(range)
                )
            )
    _check_weight("histogramdd", input, weight, input.shape[:-1])
    # The histogram's element count, checked before any edges are made: D dimensions of bins can overflow int64 (and
    # multiplying them all out as a Python int would take minutes), so stop as soon as the product passes it.
    count = 1
    for b in bins:
        count *= b.numel() - 1 if isinstance(b, Tensor) else max(_as_int(b) or 0, 0)
        if count >= 2**63:
            raise RuntimeError(
                f"histogramdd(): a histogram of {dims} dimensions with these bins has more than 2**63 - 1 elements"
            )
    hist, edges = _histogramdd_impl("histogramdd", input.reshape(-1, dims), bins, range, weight, density)
    return _write_out(_histogramdd_t(hist, edges), out, "histogramdd")
