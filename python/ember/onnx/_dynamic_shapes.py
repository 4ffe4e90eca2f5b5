"""``dynamic_shapes=`` of ember.onnx.export (PyTorch's dynamo exporter argument, from torch.export): a dict keyed by
forward's argument names, or a tuple/list in their order, whose entries mirror the inputs. A tensor's entry maps
axis -> ``Dim`` (its name names the ONNX dimension; equal Dims are one dimension), a string (the name),
``Dim.AUTO``/``Dim.DYNAMIC`` (a dynamic axis named ``<input>_dim_<axis>``), or None/an int/``Dim.STATIC`` (static);
as a dict ``{0: Dim("batch")}`` or a list with one entry per axis. The result is the axes of each flat input that
are dynamic, written like dynamic_axes' (Note [ONNX export])."""

import inspect

from .. import _C

__all__ = ["flat_dims"]


def _path(keys):
    return "".join("[%r]" % (k,) for k in keys)


def flat_dims(model, args, kwargs, dynamic_shapes):
    """{id(input tensor): {axis: name or None}} (None: a name made from the graph input's) for the tensors of the
    example inputs, checked as torch.export checks dynamic_shapes; RuntimeError on a mismatch."""
    from ..export import Dim, _DimHint

    params = list(inspect.signature(type(model).forward).parameters.values())[1:]
    combined = inspect.Signature(params).bind(*args, **kwargs).arguments
    names = list(combined)
    if isinstance(dynamic_shapes, dict):
        got = list(dynamic_shapes)
        if sorted(got, key=str) != sorted(names):
            raise RuntimeError(
                "When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg names %s of "
                "`inputs`, but here they are %s. Alternatively, you could also ignore arg names entirely and specify "
                "`dynamic_shapes` as a list/tuple matching `inputs`." % (names, got)
            )
        specs = [(n, dynamic_shapes[n]) for n in names]
    elif isinstance(dynamic_shapes, (tuple, list)):
        if len(dynamic_shapes) != len(names):
            raise RuntimeError(
                "Detected mismatch between the structure of `inputs` and `dynamic_shapes`: `inputs` has %d "
                "elements, but `dynamic_shapes` has %d elements" % (len(names), len(dynamic_shapes))
            )
        specs = list(zip(names, dynamic_shapes))
    else:
        raise AssertionError("expected dynamic_shapes to be dict, tuple, or list, got %s" % type(dynamic_shapes))

    result = {}
    sizes_of = {}  # a Dim -> (size, where)

    def tensor_spec(t, spec, keys):
        if spec is None:
            return
        shape = tuple(t.shape)
        if isinstance(spec, dict):
            items = list(spec.items())
            for axis, _ in items:
                if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
                    raise RuntimeError(
                        "Dynamic shape axis %r specified at `dynamic_shapes%s` is out of range for the input tensor "
                        "of shape %s" % (axis, _path(keys), list(shape))
                    )
        elif isinstance(spec, (list, tuple)):
            if len(spec) != len(shape):
                raise RuntimeError(
                    "Expected dynamic shape spec %s specified at `dynamic_shapes%s` to have the same length as the "
                    "actual tensor shape %s (expected %d, but got %d instead)"
                    % (spec, _path(keys), list(shape), len(shape), len(spec))
                )
            items = list(enumerate(spec))
        else:
            raise RuntimeError(
                "Unexpected input tensor shape %s specified at `dynamic_shapes%s` (expected either a list/tuple of "
                "dimensions, or a dict mapping indices to dimensions, where each dimension is an int, a Dim, "
                "Dim.AUTO, Dim.STATIC, or Dim.DYNAMIC)" % (spec, _path(keys))
            )
        dims = {}
        for axis, dim in items:
            axis = axis % len(shape)
            size = shape[axis]
            if dim is None or dim == Dim.STATIC:
                continue
            if isinstance(dim, bool) or not isinstance(dim, (int, str, Dim, _DimHint)):
                raise RuntimeError(
                    "Unexpected dimension mapped to index %d in input tensor shape %s specified at "
                    "`dynamic_shapes%s` (expected None, an int, a Dim, Dim.AUTO, Dim.STATIC, or Dim.DYNAMIC, but got "
                    "%r instead)" % (axis, spec, _path(keys), dim)
                )
            if isinstance(dim, int):
                if dim != size:
                    raise RuntimeError(
                        "Expected input at `inputs%s`.shape[%d] to be equal to %d, but got %d (the static size "
                        "given in dynamic_shapes)" % (_path(keys), axis, dim, size)
                    )
                continue
            if isinstance(dim, Dim):
                if not dim.min <= size <= dim.max:
                    raise RuntimeError(
                        "Constraints violated (%s)! The example's size %d at `inputs%s`.shape[%d] is outside %r's "
                        "range [%d, %s]" % (dim.__name__, size, _path(keys), axis, dim, dim.min, dim.max)
                    )
                seen = sizes_of.get(id(dim))
                if seen is not None and seen[0] != size:
                    raise RuntimeError(
                        "Constraints violated (%s)! %r names axes of different sizes: %d at `inputs%s` and %d at "
                        "`inputs%s`" % (dim.__name__, dim, seen[0], seen[1], size, _path(keys))
                    )
                sizes_of[id(dim)] = (size, _path(keys))
                dims[axis] = dim.__name__
            elif isinstance(dim, str):
                dims[axis] = dim
            else:  # Dim.AUTO, Dim.DYNAMIC
                dims[axis] = None
        if dims:
            result.setdefault(id(t), {}).update(dims)

    def walk(value, spec, keys):
        if isinstance(value, _C.Tensor):
            tensor_spec(value, spec, keys)
        elif isinstance(value, (list, tuple)):
            if spec is None:
                return
            if not isinstance(spec, (list, tuple)) or len(spec) != len(value):
                raise RuntimeError(
                    "Detected mismatch between the structure of `inputs` and `dynamic_shapes`: `inputs%s` is a %s "
                    "of %d elements, but `dynamic_shapes%s` is %r" % (_path(keys), type(value).__name__, len(value),
                                                                      _path(keys), spec)
                )  # fmt: skip
            for i, (v, s) in enumerate(zip(value, spec)):
                walk(v, s, keys + [i])
        elif isinstance(value, dict):
            if spec is None:
                return
            if not isinstance(spec, dict) or sorted(spec, key=str) != sorted(value, key=str):
                raise RuntimeError(
                    "Detected mismatch between the structure of `inputs` and `dynamic_shapes`: `inputs%s` has keys "
                    "%s, but `dynamic_shapes%s` is %r" % (_path(keys), list(value), _path(keys), spec)
                )
            for k in value:
                walk(value[k], spec[k], keys + [k])
        elif spec is not None:
            raise RuntimeError(
                "Cannot associate shape %s specified at `dynamic_shapes%s` to non-tensor type %s at `inputs%s` "
                "(expected None)" % (spec, _path(keys), type(value), _path(keys))
            )

    for name, spec in specs:
        walk(combined[name], spec, [name])
    return result
