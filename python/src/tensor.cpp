// ember.Tensor: metadata, views, conversions. Methods that take a variable number of ints (view,
// reshape, permute, expand ...) accept them as varargs or as one sequence, as PyTorch does.
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/autograd/node.h"
#include "ember/cuda.h"
#include "ember/format.h"

namespace ember::py {

namespace {

nb::object element(const char* p, ScalarType st) {
  return dispatch_any(st, [&](auto v) -> nb::object {
    using T = decltype(v);
    T x;
    std::memcpy(&x, p, sizeof(T));
    if constexpr (is_complex_v<T>)
      return complex_to_py({static_cast<double>(x.re), static_cast<double>(x.im)});
    else if constexpr (std::is_same_v<T, bool>)
      return nb::bool_(x);
    else if constexpr (std::is_integral_v<T>)
      return nb::int_(static_cast<int64_t>(x));
    else
      return nb::float_(static_cast<double>(x));
  });
}

// Nested lists of a tensor's elements, built by one loop over the elements (an odometer over the dims) rather than a
// recursion per dim: a tensor may have any number of dims (ember.ones([1] * 20001), as in PyTorch), which a
// recursion would turn into a C stack overflow.
nb::object tolist(const char* p, ScalarType st, IntArrayRef sizes, IntArrayRef strides) {
  const auto es = static_cast<int64_t>(element_size(st));
  // Below the first 0-size dim there are only empty lists; those are the leaves then.
  size_t m = 0;
  while (m < sizes.size() && sizes[m] != 0) ++m;
  const bool empty_leaves = m < sizes.size();
  if (m == 0) return empty_leaves ? nb::object(nb::list()) : element(p, st);
  std::vector<nb::list> open(m);  // open[d]: the list being filled at depth d
  std::vector<int64_t> idx(m, 0);
  for (;;) {
    open[m - 1].append(empty_leaves ? nb::object(nb::list()) : element(p, st));
    size_t d = m - 1;
    for (;;) {  // advance the odometer; each dim that wraps closes its list into the one above
      p += strides[d] * es;
      if (++idx[d] < sizes[d]) break;
      p -= sizes[d] * strides[d] * es;
      idx[d] = 0;
      if (d == 0) return std::move(open[0]);
      open[d - 1].append(std::move(open[d]));
      open[d] = nb::list();
      --d;
    }
  }
}

// r in the memory format a conversion asked for (none, or preserve_format: as it is).
Tensor in_format(const Tensor& r, std::optional<MemoryFormat> f) {
  return f && *f != MemoryFormat::Preserve ? contiguous(r, *f) : r;
}

// .to(...) accepts: to(dtype), to(device, dtype=None), to(tensor), plus keywords dtype, device,
// non_blocking, copy, memory_format.
nb::object to_method(nb::handle py_self, nb::args args, nb::kwargs kw) {
  const Tensor& self = nb::cast<const Tensor&>(py_self);
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  bool copy = false, non_blocking = false;
  std::optional<MemoryFormat> format;
  int flags = 0;  // positional bools: to(dtype, non_blocking, copy), as PyTorch's forms take them
  for (nb::handle a : args) {
    if (PyBool_Check(a.ptr())) {
      EMBER_CHECK_TYPE(flags < 2, "to() takes at most two bools (non_blocking, copy), got more");
      (flags++ == 0 ? non_blocking : copy) = a.ptr() == Py_True;
    } else if (nb::isinstance<DType>(a) || a.ptr() == (PyObject*)&PyFloat_Type || a.ptr() == (PyObject*)&PyLong_Type ||
               a.ptr() == (PyObject*)&PyBool_Type)
      dtype = to_dtype(a);
    else if (nb::isinstance<Tensor>(a)) {
      const Tensor& o = nb::cast<const Tensor&>(a);
      dtype = o.dtype();
      device = o.device();
    } else if (!a.is_none())
      device = to_device(a);
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kw.ptr(), &pos, &key, &value)) {
    std::string_view k = utf8(key);
    if (k == "dtype")
      dtype = to_dtype(value);
    else if (k == "device")
      device = to_device(value);
    else if (k == "copy")
      copy = truthy(value);
    else if (k == "non_blocking")
      non_blocking = truthy(value);
    else if (k == "memory_format")
      format = to_memory_format(value, "to");
    else
      fail<TypeError>("to() got an unexpected keyword argument '", k, "'");
  }
  if (device) return nb::cast(in_format(to(self, *device, dtype, copy, non_blocking), format));
  return nb::cast(in_format(to(self, dtype.value_or(self.dtype()), copy), format));
}

DimVector dims_arg(const nb::args& args, const char* fn) { return parse_size(args, 0, fn); }

Tensor squeeze_fn(const Tensor& t, nb::handle dim) {
  if (dim.is_none()) return squeeze(t);
  if (PyTuple_Check(dim.ptr()) || PyList_Check(dim.ptr())) return squeeze(t, to_int_list(dim, "squeeze", "dim"));
  return squeeze(t, to_int(dim, "squeeze", "dim"));
}

Tensor adjoint_fn(const Tensor& x) {
  EMBER_CHECK(x.dim() >= 2, "adjoint() is only supported on matrices or batches of matrices. Got ", x.dim(),
              "-D tensor.");
  return conj(transpose(x, -2, -1));
}

Tensor clone_fn(const Tensor& t, nb::handle f) {
  return clone(t, to_memory_format(f, "clone").value_or(MemoryFormat::Preserve));
}

nb::object fill_fn(nb::handle self, nb::handle v) {
  const Tensor& t = nb::cast<const Tensor&>(self);
  if (nb::isinstance<Tensor>(v)) {
    const Tensor& s = nb::cast<const Tensor&>(v);
    EMBER_CHECK(s.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", s.dim(),
                " dimensions.");
    fill_(t, item(s));
  } else {
    fill_(t, to_scalar(v, "fill_"));
  }
  return nb::borrow(self);
}

nb::object zero_fn(nb::handle self) {
  fill_(nb::cast<const Tensor&>(self), 0);
  return nb::borrow(self);
}

// Docstrings (Note [Python surface], docs/architecture.md). A Tensor method bound from the same callable as a
// function takes the function's first line (method_doc).
constexpr const char* kTensorClassDoc = R"(
A multi-dimensional array of elements of one data type, on one device, that autograd can differentiate.

A tensor is a view of a storage (a block of memory) through its sizes, strides and storage offset: views
(:meth:`view`, :meth:`transpose`, indexing, ...) share the storage of the tensor they come from. Tensors are usually
made by factory functions (:func:`ember.tensor`, :func:`ember.zeros`, :func:`ember.rand`, ...). The legacy
constructor makes one in the default dtype: ``ember.Tensor(2, 3)`` (sizes, or one :class:`ember.Size`) is
uninitialized, ``ember.Tensor([1, 2])`` (a list, a tuple or an array) copies data, ``ember.Tensor(t)`` aliases the
tensor ``t`` and ``ember.Tensor()`` is empty.

Keyword args:
    device (:class:`ember.device`, optional): the device of a new tensor. Default: the default device.

Example::

    >>> ember.Tensor(2, 3).shape
    ember.Size([2, 3])
    >>> ember.Tensor([1, 2])
    tensor([1., 2.])
)";

constexpr const char* kSizeDoc = R"(
Returns the size of ``self``: an :class:`ember.Size` (a tuple) of all dimensions, or the size of dimension ``dim``.

Args:
    dim (int, optional): the dimension (negative counts from the end). Default: all of them.

Example::

    >>> t = ember.empty(3, 4, 5)
    >>> t.size()
    ember.Size([3, 4, 5])
    >>> t.size(dim=1)
    4
)";

constexpr const char* kStrideDoc = R"(
Returns the strides of ``self``: how many elements apart in memory consecutive indices of each dimension are.

Args:
    dim (int, optional): the dimension whose stride (an int) to return. Default: a tuple of all strides.

Example::

    >>> x = ember.zeros(2, 3)
    >>> x.stride()
    (3, 1)
    >>> x.t().stride(0)
    1
)";

constexpr const char* kViewDoc = R"(
Returns a tensor that shares ``self``'s data with another shape (or another dtype).

``x.view(*shape)``: the new shape must have ``self``'s number of elements; one size may be ``-1``, inferred from the
others. The shape must be compatible with ``self``'s strides: each new dimension must lie within, or span whole,
contiguous runs of the old ones; otherwise a ``RuntimeError`` suggests :meth:`reshape`, which copies where it must.
The shape may also be given as one sequence, or as the keyword ``size``.

``x.view(dtype)``: reinterprets the bytes of ``self`` as elements of ``dtype``. When the element sizes differ, the
last dimension must be contiguous and is scaled by their ratio.

Args:
    shape (int...): the new shape.
    dtype (:class:`ember.dtype`): the dtype whose elements the bytes are read as.

Example::

    >>> x = ember.arange(6)
    >>> x.view(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]])
    >>> x.view(-1, 2).shape
    ember.Size([3, 2])
    >>> ember.tensor([1.0]).view(ember.int32)
    tensor([1065353216], dtype=ember.int32)
)";

constexpr const char* kViewAsDoc = R"(
Returns ``self`` viewed with the shape of ``other``: ``self.view(other.size())``.

Args:
    other (Tensor): the tensor whose shape the result takes.
)";

constexpr const char* kReshapeDoc = R"(
Returns a tensor with the elements of ``input`` and the shape ``shape``: a view when the strides allow, else a copy.

One size may be ``-1``, inferred from the others and the number of elements. Code should not rely on whether the
result is a view; use :meth:`Tensor.view` to require one and :meth:`Tensor.clone` to require a copy.

Args:
    input (Tensor): the tensor to reshape.
    shape (tuple of ints): the new shape.

Example::

    >>> a = ember.arange(4)
    >>> ember.reshape(a, (2, 2))
    tensor([[0, 1],
            [2, 3]])
    >>> ember.reshape(ember.tensor([[0, 1], [2, 3]]), (-1,))
    tensor([0, 1, 2, 3])
)";

constexpr const char* kReshapeAsDoc = R"(
Returns ``self`` with the shape of ``other``: ``self.reshape(other.size())``, a view when the strides allow.

Args:
    other (Tensor): the tensor whose shape the result takes.
)";

constexpr const char* kPermuteDoc = R"(
Returns a view of ``input`` with its dimensions in the order ``dims``.

Dimension ``i`` of the result is dimension ``dims[i]`` of ``input``.

Args:
    input (Tensor): the tensor to permute.
    dims (tuple of ints): a permutation of the dimensions (negative ones count from the end).

Example::

    >>> x = ember.empty(2, 3, 5)
    >>> ember.permute(x, (2, 0, 1)).shape
    ember.Size([5, 2, 3])
)";

constexpr const char* kTransposeDoc = R"(
Returns a view of ``input`` with dimensions ``dim0`` and ``dim1`` swapped.

The result shares ``input``'s storage: changing one changes the other.

Args:
    input (Tensor): the tensor to transpose.
    dim0 (int): the first dimension to swap.
    dim1 (int): the second dimension to swap.

Example::

    >>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
    >>> ember.transpose(x, 0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
)";

constexpr const char* kSwapaxesDoc = R"(
Returns a view of ``input`` with dimensions ``axis0`` and ``axis1`` swapped; NumPy's name for :func:`ember.transpose`.

Args:
    input (Tensor): the tensor to transpose.
    axis0 (int): the first dimension to swap.
    axis1 (int): the second dimension to swap.

Example::

    >>> ember.swapaxes(ember.empty(2, 3, 4), 0, 2).shape
    ember.Size([4, 3, 2])
)";

constexpr const char* kSwapdimsMethodDoc = R"(
Returns a view of ``self`` with dimensions ``dim0`` and ``dim1`` swapped; an alias of :meth:`Tensor.transpose`.

See :func:`ember.swapdims`.
)";

constexpr const char* kTDoc = R"(
Returns the transpose of ``input``, a tensor of at most 2 dimensions.

A 2-D tensor has its dimensions swapped (``transpose(input, 0, 1)``); 0-D and 1-D tensors are returned as they are.

Args:
    input (Tensor): the tensor to transpose (at most 2-D).

Example::

    >>> ember.t(ember.tensor([[1, 2], [3, 4]]))
    tensor([[1, 3],
            [2, 4]])
)";

constexpr const char* kAdjointDoc = R"(
Returns the conjugate transpose of ``input``: its last two dimensions swapped, conjugated.

For a real tensor this is the view ``input.transpose(-2, -1)``; for a complex one it is a new tensor (ember has no
lazy conjugate bit, docs/dtypes.md). ``input`` must have at least 2 dimensions.

Args:
    input (Tensor): the matrix, or batch of matrices, to transpose.

Example::

    >>> ember.adjoint(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[1., 3.],
            [2., 4.]])
)";

constexpr const char* kExpandDoc = R"(
Returns a view of ``self`` in which dimensions of size 1 are repeated, without copying, to the sizes ``size``.

A size of ``-1`` keeps that dimension. New dimensions may be added in front (``size`` longer than ``self.dim()``);
an expanded dimension has stride 0, so all its elements share memory: write to a :meth:`clone` of the result.
The sizes may also be given as one sequence, or as the keyword ``size``.

Args:
    size (int...): the sizes of the result.

Example::

    >>> x = ember.tensor([[1], [2]])
    >>> x.expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
    >>> x.expand(2, -1, 2).shape
    ember.Size([2, 2, 2])
)";

constexpr const char* kExpandAsDoc = R"(
Returns ``self`` expanded (without copying) to the size of ``other``: ``self.expand(other.size())``.

Args:
    other (Tensor): the tensor whose size the result takes.
)";

constexpr const char* kSqueezeDoc = R"(
Returns a view of ``input`` without its dimensions of size 1.

With ``dim``, only those of the given dimensions that have size 1 are removed; others are left as they are.

Args:
    input (Tensor): the tensor to squeeze.
    dim (int or tuple of ints, optional): the dimensions to consider. Default: all of them.

Example::

    >>> x = ember.zeros(2, 1, 3, 1)
    >>> ember.squeeze(x).shape
    ember.Size([2, 3])
    >>> ember.squeeze(x, 1).shape
    ember.Size([2, 3, 1])
    >>> ember.squeeze(x, (0, 3)).shape
    ember.Size([2, 1, 3])
)";

constexpr const char* kUnsqueezeDoc = R"(
Returns a view of ``input`` with a dimension of size 1 inserted at position ``dim``.

``dim`` ranges over ``[-input.dim() - 1, input.dim()]``; a negative one counts from the end of the result.

Args:
    input (Tensor): the tensor to expand by one dimension.
    dim (int): the index of the new dimension.

Example::

    >>> x = ember.tensor([1, 2, 3])
    >>> ember.unsqueeze(x, 0)
    tensor([[1, 2, 3]])
    >>> ember.unsqueeze(x, -1).shape
    ember.Size([3, 1])
)";

constexpr const char* kFlattenDoc = R"(
Flattens dimensions ``start_dim`` to ``end_dim`` of ``input`` into one dimension.

The result is a view when the strides allow, else a copy (as :func:`ember.reshape`). A 0-D tensor gives a 1-D one.

Args:
    input (Tensor): the tensor to flatten.
    start_dim (int, optional): the first dimension to flatten. Default: ``0``.
    end_dim (int, optional): the last dimension to flatten. Default: ``-1``.

Example::

    >>> t = ember.zeros(2, 3, 4)
    >>> ember.flatten(t).shape
    ember.Size([24])
    >>> ember.flatten(t, start_dim=1).shape
    ember.Size([2, 12])
)";

constexpr const char* kUnflattenDoc = R"(
Splits dimension ``dim`` of ``input`` into several dimensions of the sizes ``sizes``.

The product of ``sizes`` must equal the size of ``dim``; one of them may be ``-1``, inferred from the others.

Args:
    input (Tensor): the tensor to unflatten.
    dim (int): the dimension to split.
    sizes (tuple of ints): the sizes of the new dimensions.

Example::

    >>> ember.unflatten(ember.zeros(2, 6), 1, (2, 3)).shape
    ember.Size([2, 2, 3])
)";

constexpr const char* kNarrowDoc = R"(
Returns a view of ``input`` narrowed to the elements ``start`` to ``start + length - 1`` of dimension ``dim``.

Args:
    input (Tensor): the tensor to narrow.
    dim (int): the dimension to narrow.
    start (int): the first element kept (negative counts from the end).
    length (int): the number of elements kept.

Example::

    >>> x = ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> ember.narrow(x, 0, 0, 2)
    tensor([[1, 2, 3],
            [4, 5, 6]])
    >>> ember.narrow(x, 1, 1, 2)
    tensor([[2, 3],
            [5, 6],
            [8, 9]])
)";

constexpr const char* kSelectDoc = R"(
Returns a view of ``input`` at index ``index`` of dimension ``dim``, which is removed.

``ember.select(x, 0, i)`` is ``x[i]``, ``ember.select(x, 1, i)`` is ``x[:, i]``.

Args:
    input (Tensor): the tensor to index.
    dim (int): the dimension to index.
    index (int): the index (negative counts from the end).

Example::

    >>> ember.select(ember.tensor([[1, 2], [3, 4]]), 1, 0)
    tensor([1, 3])
)";

constexpr const char* kDiagonalDoc = R"(
Returns a view of the diagonal of ``input`` with respect to its dimensions ``dim1`` and ``dim2``.

Both dimensions are removed and the diagonal is appended as the last dimension. ``offset`` selects a diagonal
above (``offset > 0``) or below (``offset < 0``) the main one.

Args:
    input (Tensor): the tensor (at least 2-D).
    offset (int, optional): which diagonal. Default: ``0``, the main one.
    dim1 (int, optional): the first dimension of the matrices. Default: ``0``.
    dim2 (int, optional): the second dimension of the matrices. Default: ``1``.

Example::

    >>> a = ember.tensor([[1, 2, 3], [4, 5, 6]])
    >>> ember.diagonal(a)
    tensor([1, 5])
    >>> ember.diagonal(a, offset=1)
    tensor([2, 6])
)";

constexpr const char* kAsStridedDoc = R"(
Returns a view of the storage of ``input`` with the given sizes, strides and storage offset.

The elements are ``storage[offset + sum(i_k * stride[k])]``: several indices may address one element. The view must
stay within the storage. Prefer the other view functions; this one is for what they cannot express.

Args:
    input (Tensor): the tensor whose storage to view.
    size (tuple of ints): the shape of the result.
    stride (tuple of ints): the stride of each dimension, in elements.
    storage_offset (int, optional): the offset of the first element in the storage. Default: ``input``'s.

Example::

    >>> x = ember.arange(6)
    >>> ember.as_strided(x, (2, 2), (1, 2))
    tensor([[0, 2],
            [1, 3]])
)";

constexpr const char* kUnfoldDoc = R"(
Returns a view of ``self`` with every slice of ``size`` elements along ``dimension``, ``step`` apart, in a new last
dimension.

Dimension ``dimension`` of the result has :math:`\lfloor (\text{self.size(dimension)} - \text{size}) /
\text{step} \rfloor + 1` entries.

Args:
    dimension (int): the dimension to slide along.
    size (int): the size of each slice.
    step (int): the distance between the starts of consecutive slices.

Example::

    >>> ember.arange(1, 6).unfold(0, 2, 1)
    tensor([[1, 2],
            [2, 3],
            [3, 4],
            [4, 5]])
)";

constexpr const char* kContiguousDoc = R"(
Returns a tensor with ``self``'s data laid out in ``memory_format``: ``self`` itself when it already is, else a copy.

Args:
    memory_format (:class:`ember.memory_format`, optional): ``ember.contiguous_format`` (row-major), or
        ``ember.channels_last`` / ``ember.channels_last_3d`` for 4-D / 5-D tensors. Default:
        ``ember.contiguous_format``.

Example::

    >>> x = ember.zeros(2, 3).t()
    >>> x.is_contiguous()
    False
    >>> x.contiguous().is_contiguous()
    True
)";

constexpr const char* kIsContiguousDoc = R"(
Returns whether ``self`` is laid out in memory in the order ``memory_format`` describes.

Args:
    memory_format (:class:`ember.memory_format`, optional): the order to test. Default: ``ember.contiguous_format``
        (row-major).
)";

constexpr const char* kCloneDoc = R"(
Returns a copy of ``input``, with its own memory; autograd records the copy (gradients flow back to ``input``).

Args:
    input (Tensor): the tensor to copy.

Keyword args:
    memory_format (:class:`ember.memory_format`, optional): the memory layout of the copy. Default:
        ``ember.preserve_format``: ``input``'s strides when ``input`` is dense, else row-major.

Example::

    >>> a = ember.tensor([1, 2])
    >>> b = ember.clone(a)
    >>> b[0] = 5
    >>> a
    tensor([1, 2])
)";

constexpr const char* kRequiresGradDoc = R"(
Sets whether autograd records operations on ``self`` (``self.requires_grad``) and returns ``self``.

Use it to make a leaf tensor trainable, or to freeze one. Only leaf tensors (those made directly, not by an operation
that autograd recorded) can stop requiring grad.

Args:
    requires_grad (bool, optional): whether autograd should record operations on ``self``. Default: ``True``.

Example::

    >>> w = ember.zeros(2).requires_grad_()
    >>> w.requires_grad
    True
)";

constexpr const char* kToDoc = R"(
Returns ``self`` converted to another dtype and/or device; ``self`` itself when nothing needs to change.

The forms are ``to(dtype, non_blocking=False, copy=False, memory_format=ember.preserve_format)``,
``to(device=None, dtype=None, non_blocking=False, copy=False, memory_format=ember.preserve_format)`` and
``to(other, non_blocking=False, copy=False)``, which takes the dtype and device of the tensor ``other``. The result
is recorded by autograd: gradients flow back to ``self``.

Args:
    dtype (:class:`ember.dtype`, optional): the dtype of the result.
    device (:class:`ember.device`, optional): the device of the result (``"cuda"``, ``"cuda:1"``, ``"cpu"``, ...).
    other (Tensor): a tensor whose dtype and device the result takes.
    non_blocking (bool, optional): copy between pinned CPU memory and a GPU without waiting for the copy to finish.
        Default: ``False``.
    copy (bool, optional): return a new tensor even when nothing needs to change. Default: ``False``.
    memory_format (:class:`ember.memory_format`, optional): the memory layout of the result. Default:
        ``ember.preserve_format``.

Example::

    >>> x = ember.tensor([1.5, 2.5])
    >>> x.to(ember.int64)
    tensor([1, 2])
    >>> x.to("cpu", dtype=ember.float64)
    tensor([1.5000, 2.5000], dtype=ember.float64)
    >>> x.to(x) is x
    True
)";

constexpr const char* kTypeDoc = R"(
Returns the type name of ``self`` when no ``dtype`` is given, else ``self`` converted to ``dtype``.

The name is ``"ember.<dtype>"``.

Args:
    dtype (:class:`ember.dtype`, optional): the dtype of the result.
)";

constexpr const char* kCpuDoc = R"(
Returns a copy of ``self`` in CPU memory; ``self`` itself when it is on the CPU already.

Args:
    memory_format (:class:`ember.memory_format`, optional): the memory layout of the result. Default:
        ``ember.preserve_format``.
)";

constexpr const char* kCudaDoc = R"(
Returns a copy of ``self`` in the memory of a CUDA device; ``self`` itself when it is on that device already.

Args:
    device (:class:`ember.device` or int, optional): the CUDA device. Default: the current CUDA device.
    non_blocking (bool, optional): when ``self`` is in pinned CPU memory, copy without waiting for the copy to
        finish. Default: ``False``.
    memory_format (:class:`ember.memory_format`, optional): the memory layout of the result. Default:
        ``ember.preserve_format``.
)";

constexpr const char* kItemDoc = R"(
Returns the value of a one-element tensor as a Python number (``bool``, ``int`` or ``float`` by dtype).

A CUDA tensor's value is copied back to the host, waiting for the GPU. Tensors of more than one element raise.

Example::

    >>> ember.tensor([2.5]).item()
    2.5
    >>> ember.tensor(7).item()
    7
)";

constexpr const char* kTolistDoc = R"(
Returns the values of ``self`` as (nested) Python lists of numbers; a 0-D tensor gives a number.

Example::

    >>> ember.tensor([[1, 2], [3, 4]]).tolist()
    [[1, 2], [3, 4]]
    >>> ember.tensor(1.5).tolist()
    1.5
)";

constexpr const char* kFillDoc = R"(
Fills ``input`` with the value ``value`` and returns it.

Args:
    input (Tensor): the tensor to fill.
    value (Number or Tensor): the value, a number or a 0-D tensor, converted to ``input``'s dtype.

Example::

    >>> ember.zeros(3).fill_(2.5)
    tensor([2.5000, 2.5000, 2.5000])
)";

constexpr const char* kZeroDoc = R"(
Fills ``input`` with zeros and returns it.

Args:
    input (Tensor): the tensor to fill.
)";

constexpr const char* kCopyDoc = R"(
Copies the elements of ``src`` into ``self`` and returns ``self``.

``src`` is broadcast to ``self``'s shape and may have another dtype (converted) or device (copied across).
Autograd records the copy: gradients flow back to ``src``.

Args:
    src (Tensor): the tensor to copy from.
    non_blocking (bool, optional): copy between pinned CPU memory and a GPU without waiting for the copy to finish.
        Default: ``False``.

Example::

    >>> x = ember.zeros(2, 2)
    >>> x.copy_(ember.tensor([1, 2]))
    tensor([[1., 2.],
            [1., 2.]])
)";

constexpr const char* kNumelDoc = R"(
Returns the number of elements of ``input``.

Args:
    input (Tensor): the tensor.

Example::

    >>> ember.numel(ember.zeros(4, 4))
    16
)";

constexpr const char* kIsFloatingPointDoc = R"(
Returns whether the dtype of ``input`` is a floating point one (``float64``, ``float32``, ``float16``, ``bfloat16``).

Args:
    input (Tensor): the tensor.
)";

constexpr const char* kBroadcastShapesDoc = R"(
Returns the shape that tensors of the shapes ``shapes`` broadcast to, as :class:`ember.Size`, without making tensors.

Shapes are aligned at their last dimension; in each, sizes must be equal or 1 (a missing dimension counts as 1),
and the result takes the largest. Incompatible shapes raise a ``RuntimeError``.

Args:
    shapes (int or tuple of ints...): the shapes.

Example::

    >>> ember.broadcast_shapes((2,), (3, 1), (1, 1, 1))
    ember.Size([1, 3, 2])
)";

constexpr const char* kIsTensorDoc = R"(
Returns ``True`` if ``obj`` is an ember tensor (an instance of :class:`ember.Tensor` or of a subclass).

Args:
    obj (object): the object to test.

Example::

    >>> ember.is_tensor(ember.tensor([1]))
    True
    >>> ember.is_tensor([1])
    False
)";

constexpr const char* kSetPrintoptionsDoc = R"(
Sets how tensors are printed (their ``repr`` and ``str``); the options apply to the whole process.

Args:
    precision (int, optional): the number of digits after the decimal point of floating point values. Default: ``4``.
    threshold (int, optional): the number of elements above which the middle of a tensor is summarized with
        ``...``. Default: ``1000``.
    edgeitems (int, optional): how many items are shown at each end of a summarized dimension. Default: ``3``.
    linewidth (int, optional): the number of characters per line. Default: ``80``.
    profile (str, optional): ``"default"``, ``"short"`` or ``"full"`` (never summarize), set before the other
        options.
    sci_mode (bool, optional): ``True`` always prints floats in scientific notation, ``False`` never does, ``None``
        chooses by the values. Default: ``None``.

Example::

    >>> ember.set_printoptions(precision=2)
    >>> ember.tensor([1.23456])
    tensor([1.23])
    >>> ember.set_printoptions(profile="default")
)";

// The garbage collector's view of a Tensor: its __dict__, its type, and what autograd lets it reach (a custom
// function's ctx, Note [Custom functions and the garbage collector] in autograd.cpp). nanobind's own pair for
// dynamic_attr classes does the first two; a class that names tp_traverse must name tp_clear too.
int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  if (PyObject** dict = _PyObject_GetDictPtr(self)) Py_VISIT(*dict);
  Py_VISIT(Py_TYPE(self));
  return nb::inst_ready(self) ? traverse_autograd(*nb::inst_ptr<Tensor>(self), visit, arg) : 0;
}

int tensor_clear(PyObject* self) {
  if (PyObject** dict = _PyObject_GetDictPtr(self)) Py_CLEAR(*dict);
  return 0;
}

PyType_Slot tensor_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(&tensor_traverse)},
                              {Py_tp_clear, reinterpret_cast<void*>(&tensor_clear)},
                              {0, nullptr}};

}  // namespace

void init_tensor(nb::module_& m) {
  auto cls = nb::class_<Tensor>(m, "Tensor", nb::dynamic_attr(), nb::type_slots(tensor_slots), kTensorClassDoc);
  init_tensor_autograd(cls);
  cls.def_prop_ro("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def_prop_ro("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_prop_ro("device", [](const Tensor& t) { return t.device(); })
      .def_prop_ro("ndim", &Tensor::dim)
      .def_prop_ro("is_cuda", &Tensor::is_cuda)
      .def_prop_ro("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def_prop_ro("itemsize", &Tensor::element_size)
      .def_prop_ro("nbytes", &Tensor::nbytes)
      .def_prop_ro("is_leaf", &Tensor::is_leaf)
      .def_prop_ro("_version", &Tensor::version)
      .def_prop_rw("requires_grad", &Tensor::requires_grad, [](const Tensor& t, bool r) { t.set_requires_grad(r); })
      .def_prop_rw(
          "grad",
          [](const Tensor& t) -> nb::object {
            Tensor g = t.grad();
            return g.defined() ? nb::cast(g) : nb::none();
          },
          [](const Tensor& t, std::optional<Tensor> g) { t.set_grad(g ? *g : Tensor()); }, nb::arg().none())
      .def_prop_rw(
          "data", [](const Tensor& t) { return alias(t); },
          [](const Tensor& t, const Tensor& src) {
            // As PyTorch, the new data may have another dtype or device (Module.to/double/cuda use it);
            // a .grad of the old kind no longer fits and is dropped.
            Tensor old;  // released after the lock
            if (AutogradMeta* m = t.impl()->autograd_meta()) {
              std::lock_guard lock(m->mutex);  // Note [Autograd and threads] in ember/autograd/node.h
              if (m->grad.defined() && (m->grad.dtype() != src.dtype() || m->grad.device() != src.device()))
                old = std::move(m->grad);
            }
            t.impl()->set_data(*src.impl());
          })
      .def(
          "size",
          [](const Tensor& t, std::optional<int64_t> d) -> nb::object {
            if (d) return nb::int_(t.size(*d));
            return make_size(t.sizes());
          },
          nb::arg("dim") = nb::none(), nb::sig("def size(self, dim: int | None = None) -> Size | int"), kSizeDoc)
      .def(
          "stride",
          [](const Tensor& t, std::optional<int64_t> d) -> nb::object {
            if (d) return nb::int_(t.stride(*d));
            nb::list l;
            for (int64_t s : t.strides()) l.append(s);
            return nb::tuple(l);
          },
          nb::arg("dim") = nb::none(), nb::sig("def stride(self, dim: int | None = None) -> tuple[int, ...] | int"),
          kStrideDoc)
      .def("dim", &Tensor::dim, "Returns the number of dimensions of ``self`` (0 for a scalar tensor).")
      .def("ndimension", &Tensor::dim, "Returns the number of dimensions of ``self``; an alias of :meth:`dim`.")
      .def("numel", &Tensor::numel, method_doc(kNumelDoc, "numel").c_str())
      .def("nelement", &Tensor::numel, "Returns the number of elements of ``self``; an alias of :meth:`numel`.")
      .def("element_size", &Tensor::element_size, "Returns the size in bytes of one element of ``self``.")
      .def(
          "data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); },
          "Returns the address of the first element of ``self`` (0 for a tensor of no memory).")
      .def("storage_offset", &Tensor::storage_offset,
           "Returns the offset of ``self``'s first element in its storage, in elements.")
      .def(
          "is_contiguous",
          [](const Tensor& t, nb::handle f) {
            return is_contiguous(t, to_memory_format(f, "is_contiguous").value_or(MemoryFormat::Contiguous));
          },
          nb::arg("memory_format") = nb::none(),
          nb::sig("def is_contiguous(self, memory_format: memory_format = ember.contiguous_format) -> bool"),
          kIsContiguousDoc)
      .def("is_floating_point", &Tensor::is_floating_point,
           method_doc(kIsFloatingPointDoc, "is_floating_point").c_str())
      .def(
          "is_complex", [](const Tensor& t) { return is_complex(t.dtype()); },
          "Returns whether the dtype of ``self`` is a complex one (complex64 or complex128).")
      .def(
          "get_device", [](const Tensor& t) { return t.is_cuda() ? int(t.device().index) : -1; },
          "Returns the index of the CUDA device ``self`` is on, or -1 for a CPU tensor.")
      .def("__len__", [](const Tensor& t) {
        EMBER_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
        return t.sizes()[0];
      });

  // Views. view, reshape, expand and permute take their sizes as varargs or one sequence (the fast path), or as the
  // keyword PyTorch names (x.view(size=...), x.reshape(shape=...)) through a second overload.
  const std::string view_doc = kViewDoc, expand_doc = kExpandDoc;
  const std::string reshape_doc = method_doc(kReshapeDoc, "reshape"), permute_doc = method_doc(kPermuteDoc, "permute");
  cls.def(
         "view",
         [](const Tensor& t, nb::args a) {
           if (a.size() == 1 && (nb::isinstance<DType>(a[0]))) return view(t, nb::cast<DType>(a[0]).st);
           return view(t, dims_arg(a, "view"));
         },
         nb::sig("def view(self, *shape: int) -> Tensor"), view_doc.c_str())
      .def(
          "view", [](const Tensor& t, nb::handle size) { return view(t, to_int_list(size, "view", "size")); },
          nb::kw_only(), nb::arg("size"), nb::sig("def view(self, *, size: Sequence[int]) -> Tensor"), view_doc.c_str())
      .def(
          "view", [](const Tensor& t, nb::handle dtype) { return view(t, to_dtype_required(dtype, "view")); },
          nb::kw_only(), nb::arg("dtype"), nb::sig("def view(self, *, dtype: dtype) -> Tensor"), view_doc.c_str())
      .def(
          "view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); }, nb::arg("other"), kViewAsDoc)
      .def(
          "reshape", [](const Tensor& t, nb::args a) { return reshape(t, dims_arg(a, "reshape")); },
          nb::sig("def reshape(self, *shape: int) -> Tensor"), reshape_doc.c_str())
      .def(
          "reshape", [](const Tensor& t, nb::handle s) { return reshape(t, to_int_list(s, "reshape", "shape")); },
          nb::kw_only(), nb::arg("shape"), nb::sig("def reshape(self, *, shape: Sequence[int]) -> Tensor"),
          reshape_doc.c_str())
      .def(
          "reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); }, nb::arg("other"),
          kReshapeAsDoc)
      .def(
          "permute", [](const Tensor& t, nb::args a) { return permute(t, dims_arg(a, "permute")); },
          nb::sig("def permute(self, *dims: int) -> Tensor"), permute_doc.c_str())
      .def(
          "permute", [](const Tensor& t, nb::handle d) { return permute(t, to_int_list(d, "permute", "dims")); },
          nb::kw_only(), nb::arg("dims"), nb::sig("def permute(self, *, dims: Sequence[int]) -> Tensor"),
          permute_doc.c_str())
      .def(
          "transpose", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("dim0"),
          nb::arg("dim1"), method_doc(kTransposeDoc, "transpose").c_str())
      .def(
          "swapaxes", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("axis0"),
          nb::arg("axis1"), method_doc(kSwapaxesDoc, "swapaxes").c_str())
      .def(
          "swapdims", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("dim0"),
          nb::arg("dim1"), kSwapdimsMethodDoc)
      .def(
          "t", [](const Tensor& x) { return t(x); }, method_doc(kTDoc, "t").c_str())
      .def_prop_ro("T",
                   [](const Tensor& x) {
                     DimVector dims;
                     for (int64_t d = x.dim() - 1; d >= 0; --d) dims.push_back(d);
                     return permute(x, dims);
                   })
      .def_prop_ro("mT",
                   [](const Tensor& x) {
                     EMBER_CHECK(x.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ",
                                 x.dim(), "-D tensor.");
                     return transpose(x, -2, -1);
                   })
      // The conjugate transposes: lazy conjugate views of the transposes (Note [The conjugate bit]).
      .def_prop_ro("mH",
                   [](const Tensor& x) {
                     EMBER_CHECK(x.dim() >= 2, "tensor.mH is only supported on matrices or batches of matrices. Got ",
                                 x.dim(), "-D tensor.");
                     return conj(transpose(x, -2, -1));
                   })
      .def("adjoint", &adjoint_fn, method_doc(kAdjointDoc, "adjoint").c_str())
      .def_prop_ro("H",
                   [](const Tensor& x) {
                     EMBER_CHECK(x.dim() == 2 || x.dim() == 0,
                                 "tensor.H is only supported on matrices (2-D tensors). Got ", x.dim(), "-D tensor.");
                     return x.dim() == 2 ? conj(transpose(x, 0, 1)) : conj(x);
                   })
      .def(
          "expand", [](const Tensor& t, nb::args a) { return expand(t, dims_arg(a, "expand")); },
          nb::sig("def expand(self, *size: int) -> Tensor"), expand_doc.c_str())
      .def(
          "expand", [](const Tensor& t, nb::handle s) { return expand(t, to_int_list(s, "expand", "size")); },
          nb::kw_only(), nb::arg("size"), nb::sig("def expand(self, *, size: Sequence[int]) -> Tensor"),
          expand_doc.c_str())
      .def(
          "expand_as", [](const Tensor& t, const Tensor& o) { return expand_as(t, o); }, nb::arg("other"), kExpandAsDoc)
      .def("squeeze", &squeeze_fn, nb::arg("dim") = nb::none(),
           nb::sig("def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor"),
           method_doc(kSqueezeDoc, "squeeze").c_str())
      .def(
          "unsqueeze", [](const Tensor& t, int64_t d) { return unsqueeze(t, d); }, nb::arg("dim"),
          method_doc(kUnsqueezeDoc, "unsqueeze").c_str())
      .def(
          "flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); }, nb::arg("start_dim") = 0,
          nb::arg("end_dim") = -1, method_doc(kFlattenDoc, "flatten").c_str())
      .def(
          "unflatten",
          [](const Tensor& t, int64_t d, nb::handle sizes) {
            return unflatten(t, d, to_int_list(sizes, "unflatten", "sizes"));
          },
          nb::arg("dim"), nb::arg("sizes"), nb::sig("def unflatten(self, dim: int, sizes: Sequence[int]) -> Tensor"),
          method_doc(kUnflattenDoc, "unflatten").c_str())
      // PyTorch documents narrow(dimension, start, length) and accepts dim= too: both keywords work.
      .def(
          "narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); }, nb::arg("dim"),
          nb::arg("start"), nb::arg("length"), method_doc(kNarrowDoc, "narrow").c_str())
      .def(
          "narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); },
          nb::arg("dimension"), nb::arg("start"), nb::arg("length"), method_doc(kNarrowDoc, "narrow").c_str())
      .def(
          "select", [](const Tensor& t, int64_t d, int64_t i) { return select(t, d, i); }, nb::arg("dim"),
          nb::arg("index"), method_doc(kSelectDoc, "select").c_str())
      .def(
          "as_strided",
          [](const Tensor& t, nb::handle size, nb::handle stride, std::optional<int64_t> off) {
            return as_strided(t, to_int_list(size, "as_strided", "size"), to_int_list(stride, "as_strided", "stride"),
                              off);
          },
          nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none(),
          nb::sig("def as_strided(self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = "
                  "None) -> Tensor"),
          method_doc(kAsStridedDoc, "as_strided").c_str())
      .def(
          "diagonal", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diagonal(t, o, a, b); },
          nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1, method_doc(kDiagonalDoc, "diagonal").c_str())
      .def(
          "unfold", [](const Tensor& t, int64_t d, int64_t s, int64_t st) { return unfold(t, d, s, st); },
          nb::arg("dimension"), nb::arg("size"), nb::arg("step"), kUnfoldDoc)
      .def(
          "contiguous",
          [](nb::handle self, nb::handle f) {
            const Tensor& t = nb::cast<const Tensor&>(self);
            const MemoryFormat mf = to_memory_format(f, "contiguous").value_or(MemoryFormat::Contiguous);
            EMBER_CHECK(mf != MemoryFormat::Preserve,
                        "contiguous(): preserve memory format is unsupported by the "
                        "contiguous operator");
            const Tensor r = contiguous(t, mf);
            return r.impl() == t.impl() ? nb::borrow(self) : nb::cast(r);  // self when nothing changes
          },
          nb::arg("memory_format") = nb::none(),
          nb::sig("def contiguous(self, memory_format: memory_format = ember.contiguous_format) -> Tensor"),
          kContiguousDoc)
      .def("clone", &clone_fn, nb::arg("memory_format") = nb::none(),
           nb::sig("def clone(self, memory_format: memory_format = ember.preserve_format) -> Tensor"),
           method_doc(kCloneDoc, "clone").c_str())
      .def(
          "requires_grad_",
          [](nb::handle self, bool r) {
            nb::cast<const Tensor&>(self).set_requires_grad(r);
            return nb::borrow(self);
          },
          nb::arg("requires_grad") = true, nb::sig("def requires_grad_(self, requires_grad: bool = True) -> Tensor"),
          kRequiresGradDoc);

  // Conversions.
  cls.def("to", &to_method,
          nb::sig("def to(self, *args: dtype | device | str | int | Tensor | bool, dtype: dtype | None = None, "
                  "device: device | None = None, non_blocking: bool = False, copy: bool = False, memory_format: "
                  "memory_format = ember.preserve_format) -> Tensor"),
          kToDoc)
      // Replaced by the legacy types' Tensor.type (python/ember/_tensor_types.py), which calls this one for dtypes.
      .def(
          "type",
          [](nb::handle self, nb::handle dtype) -> nb::object {
            const Tensor& t = nb::cast<const Tensor&>(self);
            if (dtype.is_none()) return nb::str(("ember." + std::string(dtype_name(t.dtype()))).c_str());
            return nb::cast(to(t, to_dtype_required(dtype, "type")));
          },
          nb::arg("dtype") = nb::none(), nb::sig("def type(self, dtype: dtype | None = None) -> str | Tensor"),
          kTypeDoc)
      .def(
          "cpu",
          [](nb::handle self, nb::handle f) {
            return nb::cast(in_format(to(nb::cast<const Tensor&>(self), kCPU), to_memory_format(f, "cpu")));
          },
          nb::arg("memory_format") = nb::none(),
          nb::sig("def cpu(self, memory_format: memory_format = ember.preserve_format) -> Tensor"), kCpuDoc)
      .def(
          "cuda",
          [](nb::handle self, nb::handle device, bool non_blocking, nb::handle f) {
            auto d = to_device(device);
            return nb::cast(in_format(
                to(nb::cast<const Tensor&>(self), d ? *d : Device(DeviceType::CUDA), std::nullopt, false, non_blocking),
                to_memory_format(f, "cuda")));
          },
          nb::arg("device") = nb::none(), nb::arg("non_blocking") = false, nb::arg("memory_format") = nb::none(),
          nb::sig("def cuda(self, device: device | int | None = None, non_blocking: bool = False, memory_format: "
                  "memory_format = ember.preserve_format) -> Tensor"),
          kCudaDoc)
      .def(
          "item",
          [](const Tensor& t) {
            if (!t.is_cuda()) return scalar_to_py(item(t));
            Scalar v;
            {
              nb::gil_scoped_release r;  // it waits for the GPU: let other Python threads run
              v = item(t);
            }
            return scalar_to_py(v);
          },
          nb::sig("def item(self) -> bool | int | float"), kItemDoc)
      .def(
          "tolist",
          [](const Tensor& t) {
            Tensor c = t.device().is_cpu() ? t : to(t, kCPU);  // a meta tensor raises: it has no data
            if (c.is_conj()) c = resolve_conj(c);              // the values, not the memory (Note [The conjugate bit])
            return tolist(static_cast<const char*>(c.data_ptr()), c.dtype(), c.sizes(), c.strides());
          },
          nb::sig("def tolist(self) -> list | bool | int | float"), kTolistDoc)
      .def("__bool__",
           [](const Tensor& t) {
             EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
             return item(t).to_bool();
           })
      .def("__float__", [](const Tensor& t) { return item(t).to_double(); })
      .def("__complex__", [](const Tensor& t) { return complex_to_py(item(t).to_complex()); })
      .def("__int__", [](const Tensor& t) { return item(t).to_int(); })
      .def("__index__",
           [](const Tensor& t) {
             EMBER_CHECK_TYPE(is_integral(t.dtype(), true) && t.numel() == 1,
                              "only integer tensors of a single element can be converted to an index");
             return item(t).to_int();
           })
      .def("__repr__",
           [](const Tensor& t) {
             auto& fn = autograd::grad_fn(t);
             return tensor_repr(t, fn ? fn->name() : std::string());
           })
      .def("_repr", [](const Tensor& t, std::string_view grad_fn,
                       std::string_view prefix) { return tensor_repr(t, grad_fn, prefix); })
      .def("fill_", &fill_fn, nb::arg("value"), nb::sig("def fill_(self, value: Number | Tensor) -> Tensor"),
           method_doc(kFillDoc, "fill_").c_str())
      .def("zero_", &zero_fn, method_doc(kZeroDoc, "zero_").c_str())
      .def(
          "copy_",
          [](nb::handle self, const Tensor& src, bool non_blocking) {
            copy_(nb::cast<const Tensor&>(self), src, non_blocking);
            return nb::borrow(self);
          },
          nb::arg("src"), nb::arg("non_blocking") = false,
          nb::sig("def copy_(self, src: Tensor, non_blocking: bool = False) -> Tensor"), kCopyDoc);

  const std::pair<const char*, ScalarType> casts[] = {
      {"float", ScalarType::Float32},     {"double", ScalarType::Float64},      {"half", ScalarType::Float16},
      {"bfloat16", ScalarType::BFloat16}, {"long", ScalarType::Int64},          {"int", ScalarType::Int32},
      {"short", ScalarType::Int16},       {"char", ScalarType::Int8},           {"byte", ScalarType::UInt8},
      {"bool", ScalarType::Bool},         {"cfloat", ScalarType::ComplexFloat}, {"cdouble", ScalarType::ComplexDouble},
      {"chalf", ScalarType::ComplexHalf}};
  for (auto [name, st] : casts) {
    const std::string type = "ember." + std::string(dtype_name(st));
    const std::string sig = std::string("def ") + name +
                            "(self, memory_format: memory_format = ember.preserve_format) -> Tensor";
    const std::string doc = "Returns ``self`` converted to ``" + type + "``: ``self.to(" + type +
                            ")``, ``self`` itself when it\nhas that dtype already.\n\nArgs:\n"
                            "    memory_format (:class:`ember.memory_format`, optional): the memory layout of the "
                            "result. Default:\n        ``ember.preserve_format``.";
    cls.def(
        name,
        [st, name](nb::handle self, nb::handle f) {
          return nb::cast(in_format(to(nb::cast<const Tensor&>(self), st), to_memory_format(f, name)));
        },
        nb::arg("memory_format") = nb::none(), nb::sig(sig.c_str()), doc.c_str());
  }

  // Module-level forms of the view ops.
  m.def(
      "reshape", [](const Tensor& t, nb::handle s) { return reshape(t, to_int_list(s, "reshape", "shape")); },
      nb::arg("input"), nb::arg("shape"), nb::sig("def reshape(input: Tensor, shape: Sequence[int]) -> Tensor"),
      kReshapeDoc);
  m.def(
      "permute", [](const Tensor& t, nb::handle d) { return permute(t, to_int_list(d, "permute", "dims")); },
      nb::arg("input"), nb::arg("dims"), nb::sig("def permute(input: Tensor, dims: Sequence[int]) -> Tensor"),
      kPermuteDoc);
  m.def(
      "transpose", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("input"),
      nb::arg("dim0"), nb::arg("dim1"), kTransposeDoc);
  m.def(
      "swapaxes", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("input"),
      nb::arg("axis0"), nb::arg("axis1"), kSwapaxesDoc);
  m.def(
      "t", [](const Tensor& x) { return t(x); }, nb::arg("input"), kTDoc);
  m.def("adjoint", &adjoint_fn, nb::arg("input"), kAdjointDoc);
  m.def("squeeze", &squeeze_fn, nb::arg("input"), nb::arg("dim") = nb::none(),
        nb::sig("def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor"), kSqueezeDoc);
  m.def(
      "unsqueeze", [](const Tensor& t, int64_t d) { return unsqueeze(t, d); }, nb::arg("input"), nb::arg("dim"),
      kUnsqueezeDoc);
  m.def(
      "flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); }, nb::arg("input"),
      nb::arg("start_dim") = 0, nb::arg("end_dim") = -1, kFlattenDoc);
  m.def(
      "unflatten",
      [](const Tensor& t, int64_t d, nb::handle s) { return unflatten(t, d, to_int_list(s, "unflatten", "sizes")); },
      nb::arg("input"), nb::arg("dim"), nb::arg("sizes"),
      nb::sig("def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor"), kUnflattenDoc);
  m.def(
      "narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); }, nb::arg("input"),
      nb::arg("dim"), nb::arg("start"), nb::arg("length"), kNarrowDoc);
  m.def(
      "select", [](const Tensor& t, int64_t d, int64_t i) { return select(t, d, i); }, nb::arg("input"), nb::arg("dim"),
      nb::arg("index"), kSelectDoc);
  m.def(
      "diagonal", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diagonal(t, o, a, b); },
      nb::arg("input"), nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1, kDiagonalDoc);
  m.def(
      "as_strided",
      [](const Tensor& t, nb::handle size, nb::handle stride, std::optional<int64_t> off) {
        return as_strided(t, to_int_list(size, "as_strided", "size"), to_int_list(stride, "as_strided", "stride"), off);
      },
      nb::arg("input"), nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none(),
      nb::sig("def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = "
              "None) -> Tensor"),
      kAsStridedDoc);
  m.def("clone", &clone_fn, nb::arg("input"), nb::kw_only(), nb::arg("memory_format") = nb::none(),
        nb::sig("def clone(input: Tensor, *, memory_format: memory_format = ember.preserve_format) -> Tensor"),
        kCloneDoc);
  // PyTorch's top-level forms of these methods (python/ember/_derived.py would otherwise take the methods, whose first
  // parameter is `self`, not `input`).
  m.def("fill_", &fill_fn, nb::arg("input"), nb::arg("value"),
        nb::sig("def fill_(input: Tensor, value: Number | Tensor) -> Tensor"), kFillDoc);
  m.def("zero_", &zero_fn, nb::arg("input"), nb::sig("def zero_(input: Tensor) -> Tensor"), kZeroDoc);
  m.def(
      "broadcast_shapes",
      [](nb::args shapes) {
        DimVector r;
        for (nb::handle s : shapes) {
          DimVector d = PyLong_Check(s.ptr()) ? DimVector{to_int(s, "broadcast_shapes", "shape")}
                                              : to_int_list(s, "broadcast_shapes", "shape");
          r = broadcast_shapes(r, d, "broadcast_shapes");
        }
        return make_size(r);
      },
      nb::sig("def broadcast_shapes(*shapes: int | Sequence[int]) -> Size"), kBroadcastShapesDoc);
  m.def(
      "is_tensor", [](nb::handle h) { return nb::isinstance<Tensor>(h); }, nb::arg("obj"),
      nb::sig("def is_tensor(obj: Any) -> bool"), kIsTensorDoc);
  m.def(
      "numel", [](const Tensor& t) { return t.numel(); }, nb::arg("input"), kNumelDoc);
  m.def(
      "is_floating_point", [](const Tensor& t) { return t.is_floating_point(); }, nb::arg("input"),
      kIsFloatingPointDoc);
  m.def(
      "set_printoptions",
      [](std::optional<int> precision, std::optional<int64_t> threshold, std::optional<int64_t> edgeitems,
         std::optional<int> linewidth, nb::handle profile, nb::handle sci_mode) {
        PrintOptions& o = print_options();
        if (!profile.is_none()) {
          std::string p = nb::cast<std::string>(profile);
          if (p == "default")
            o = PrintOptions();
          else if (p == "short")
            o = PrintOptions{2, 1000, 2, 80, std::nullopt};
          else if (p == "full")
            o = PrintOptions{4, INT64_MAX, 3, 80, std::nullopt};
          else
            fail<ValueError>("set_printoptions: unknown profile '", p, "'");
        }
        if (precision) o.precision = *precision;
        if (threshold) o.threshold = *threshold;
        if (edgeitems) o.edgeitems = *edgeitems;
        if (linewidth) o.linewidth = *linewidth;
        o.sci_mode = sci_mode.is_none() ? std::nullopt : std::optional<bool>(nb::cast<bool>(sci_mode));
      },
      nb::arg("precision") = nb::none(), nb::arg("threshold") = nb::none(), nb::arg("edgeitems") = nb::none(),
      nb::arg("linewidth") = nb::none(), nb::arg("profile") = nb::none(), nb::arg("sci_mode") = nb::none(),
      nb::sig(
          "def set_printoptions(precision: int | None = None, threshold: int | None = None, edgeitems: int | None = "
          "None, linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None"),
      kSetPrintoptionsDoc);

  // The legacy constructor: ember.Tensor(2, 3) is uninitialized, ember.Tensor([1, 2]) copies data, both in
  // the default dtype; ember.Tensor() is empty.
  cls.def(
      "__init__",
      [](Tensor* self, nb::args args, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "Tensor", kDevice, a);
        const TensorOptions opts =
            TensorOptions(default_dtype()).device(a.device.value_or(default_device().value_or(kCPU)));
        if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) {
          new (self) Tensor(alias(nb::cast<const Tensor&>(args[0])));
        } else if (args.size() == 1 && !PyLong_Check(args[0].ptr()) &&
                   (PyTuple_CheckExact(args[0].ptr()) ||
                    (!PyTuple_Check(args[0].ptr()) && PySequence_Check(args[0].ptr())))) {
          // A list, a plain tuple or an array is data; ember.Size (a tuple subclass) is a shape.
          new (self) Tensor(tensor_from_data(args[0], opts.dtype_, opts.device_));
        } else {
          new (self) Tensor(empty(args.size() ? parse_size(args, 0, "Tensor") : DimVector{0}, opts));
        }
        self->impl()->pyobj =
            self;  // Note [One Python object per tensor]: this instance (maybe a subclass) is the wrapper
      },
      nb::sig("def __init__(self, *args: int | Sequence[int] | Tensor, device: device | None = None) -> None"));
  // f"{loss:.4f}" formats a 0-d tensor's value, as PyTorch does; other tensors take only an empty spec.
  cls.def("__format__", [](nb::handle self, nb::handle spec) -> nb::object {
    const Tensor& t = nb::cast<const Tensor&>(self);
    if (t.dim() == 0 && !t.is_meta()) return nb::steal(PyObject_Format(scalar_to_py(item(t)).ptr(), spec.ptr()));
    EMBER_CHECK_TYPE(PyUnicode_GetLength(spec.ptr()) == 0, "unsupported format string passed to Tensor.__format__");
    return nb::str(self);
  });
  // Pickling (and so copy.deepcopy and multiprocessing) ships the values, dtype, shape, device and
  // requires_grad; views are rebuilt as independent tensors. ember.save (issue 6) keeps storage sharing.
  cls.def("__reduce_ex__", [](const Tensor& t, int) {
    Tensor c = t.is_meta() ? t : contiguous(to(t, kCPU));  // a meta tensor ships no values (Note [Meta device])
    nb::bytes data(static_cast<const char*>(c.data_ptr()), t.is_meta() ? 0 : c.nbytes());
    return nb::make_tuple(nb::module_::import_("ember").attr("_rebuild_tensor"),
                          nb::make_tuple(data, std::string(dtype_name(t.dtype())), make_size(t.sizes()),
                                         t.device().str(), t.requires_grad()));
  });
  m.def(
      "_rebuild_tensor",
      [](nb::bytes data, const std::string& dtype, nb::handle shape, const std::string& device, bool requires_grad) {
        std::optional<ScalarType> st;
        for (int i = 0; i < kNumScalarTypes; ++i)
          if (dtype_name(static_cast<ScalarType>(i)) == dtype) st = static_cast<ScalarType>(i);
        EMBER_CHECK_VALUE(st.has_value(), "_rebuild_tensor: unknown dtype '", dtype, "'");
        DimVector size = to_int_list(shape, "_rebuild_tensor", "shape");
        if (Device(device).is_meta() && data.size() == 0)
          return empty(size, TensorOptions(*st).device(kMeta).requires_grad(requires_grad));
        int64_t n = 1;
        for (int64_t s : size) n *= s;
        EMBER_CHECK_VALUE(n >= 0 && static_cast<size_t>(n) * element_size(*st) == data.size(),
                          "_rebuild_tensor: ", data.size(), " bytes do not hold a ", dtype, " tensor of shape ",
                          shape_str(size));
        Tensor t = from_blob_copy(data.c_str(), *st, size, TensorOptions(*st).device(Device(device)));
        if (requires_grad) t.set_requires_grad(true);
        return t;
      },
      nb::arg("data"), nb::arg("dtype"), nb::arg("shape"), nb::arg("device"), nb::arg("requires_grad"));
  cls.def("__contains__", [](const Tensor& t, nb::handle element) {
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(element) || is_scalar(element),
                     "Tensor.__contains__ only supports Tensor or scalar, but you passed in a ",
                     nb::inst_name(element).c_str());
    Tensor hit = nb::isinstance<Tensor>(element) ? eq(t, nb::cast<const Tensor&>(element))
                                                 : eq(t, to_scalar(element, "__contains__"));
    return item(any(hit)).to_bool();
  });
  init_indexing(cls);
  // `del t.grad` is `t.grad = None`, as in PyTorch; nanobind's properties have no deleter, so `grad` becomes a
  // plain property of the same getter and setter.
  nb::object grad = cls.attr("grad");
  nb::object del_grad = nb::cpp_function([](const Tensor& t) { t.set_grad(Tensor()); });
  nb::setattr(cls, "grad",
              nb::module_::import_("builtins")
                  .attr("property")(grad.attr("fget"), grad.attr("fset"), del_grad, grad.attr("__doc__")));
}

}  // namespace ember::py
