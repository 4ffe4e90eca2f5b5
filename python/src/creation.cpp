// Factory functions and ember.tensor(data): nested Python sequences are scanned once for their shape
// and dtype, then written straight into the new tensor's memory.
#include "common.h"
#include "ember/cuda.h"
#include "ember/dispatch_hook.h"
#include "ember/scalar_check.h"
#include "factory_dispatch.h"

namespace ember::py {

namespace {

using Leaves = SmallVector<PyObject*, 16>;

bool is_seq(PyObject* o) { return PyList_Check(o) || PyTuple_Check(o); }

// PyTorch's MAX_DIMS for nested sequences (torch/csrc/utils/tensor_new.cpp); collect() recurses once per
// dimension, so the cap also bounds its depth (ember.tensor of a list nested 200000 deep overflowed the C stack).
constexpr size_t kMaxDataDims = 128;

// Shape from the first element at each depth.
DimVector infer_shape(PyObject* o) {
  DimVector shape;
  nb::object cur = nb::borrow(o);
  for (;;) {
    PyObject* c = cur.ptr();
    if (is_seq(c)) {
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(c);
      if (shape.size() == kMaxDataDims) fail<ValueError>("too many dimensions '", Py_TYPE(c)->tp_name, "'");
      shape.push_back(n);
      if (n == 0) break;
      cur = nb::borrow(PySequence_Fast_ITEMS(c)[0]);
    } else if (!is_scalar(c) && !nb::isinstance<Tensor>(c) && PySequence_Check(c) && !PyUnicode_Check(c)) {
      if (shape.size() == kMaxDataDims) fail<ValueError>("too many dimensions '", Py_TYPE(c)->tp_name, "'");
      cur = nb::steal(PySequence_List(c));  // other sequences (e.g. NumPy arrays) via their items
      if (!cur.is_valid()) throw nb::python_error();
    } else {
      break;
    }
  }
  return shape;
}

void collect(PyObject* o, const DimVector& shape, size_t d, Leaves& leaves, std::vector<nb::object>& keep) {
  if (d == shape.size()) {
    // A sequence where a number belongs, or a number where a sequence belongs, is a TypeError in
    // PyTorch; sequences of the wrong length (ragged lists) are ValueErrors.
    if (is_seq(o) || (!is_scalar(o) && !nb::isinstance<Tensor>(o) && PySequence_Check(o)))
      fail<TypeError>("tensor(): too many dimensions at depth ", d, " (expected a number, got a sequence of type ",
                      Py_TYPE(o)->tp_name, ")");
    leaves.push_back(o);
    return;
  }
  nb::object seq;
  if (!is_seq(o)) {
    EMBER_CHECK_TYPE(!is_scalar(o) && !nb::isinstance<Tensor>(o) && PySequence_Check(o),
                     "tensor(): expected a sequence of length ", shape[d], " at dim ", d, " (got ", Py_TYPE(o)->tp_name,
                     ")");
    seq = nb::steal(PySequence_List(o));
    if (!seq.is_valid()) throw nb::python_error();
    keep.push_back(seq);
    o = seq.ptr();
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  EMBER_CHECK_VALUE(n == shape[d], "expected sequence of length ", shape[d], " at dim ", d, " (got ", n, ")");
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i) collect(items[i], shape, d + 1, leaves, keep);
}

ScalarType infer_dtype(const Leaves& leaves) {
  ScalarType r = ScalarType::Bool;
  bool any = false;
  for (PyObject* o : leaves) {
    ScalarType t;
    if (PyBool_Check(o))
      t = ScalarType::Bool;
    else if (PyLong_Check(o))
      t = ScalarType::Int64;
    else if (PyFloat_Check(o))
      t = default_dtype();
    else if (nb::isinstance<Tensor>(o))
      t = nb::cast<const Tensor&>(nb::handle(o)).dtype();
    else if (is_complex_number(o))
      t = default_complex_dtype();
    else if (PyIndex_Check(o))
      t = ScalarType::Int64;
    else if (PyNumber_Check(o))
      t = default_dtype();
    else
      fail<Error>("tensor(): Could not infer dtype of ", Py_TYPE(o)->tp_name);  // RuntimeError, as PyTorch
    r = any ? promote_types(r, t) : t;
    any = true;
  }
  return any ? r : default_dtype();
}

}  // namespace

Tensor tensor_from_data(nb::handle data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  if (nb::isinstance<Tensor>(data)) {
    const Tensor& t = nb::cast<const Tensor&>(data);
    return to(t, device.value_or(t.device()), dtype.value_or(t.dtype()), /*copy=*/true);
  }
  // NumPy arrays are copied from their memory in one strided copy, not element by element.
  if (auto t = numpy_to_tensor(data)) return to(*t, device.value_or(kCPU), dtype.value_or(t->dtype()), /*copy=*/true);
  PyObject* o = data.ptr();
  Leaves leaves;
  std::vector<nb::object> keep;  // temporaries made from non-list sequences
  DimVector shape;
  if (is_scalar(o)) {
    leaves.push_back(o);
  } else {
    EMBER_CHECK_TYPE(PySequence_Check(o) && !PyUnicode_Check(o), "tensor(): could not convert an object of type ",
                     Py_TYPE(o)->tp_name, " to a tensor");
    shape = infer_shape(o);
    collect(o, shape, 0, leaves, keep);
  }
  const ScalarType st = dtype.value_or(infer_dtype(leaves));
  Tensor out = empty(shape, st);
  dispatch_any(st, [&](auto v) {
    using T = decltype(v);
    T* p = static_cast<T*>(out.data_ptr());
    for (size_t i = 0; i < leaves.size(); ++i) {
      PyObject* x = leaves[i];
      const Scalar s = PyFloat_CheckExact(x) ? Scalar(PyFloat_AS_DOUBLE(x)) : to_scalar(x, "tensor");
      // ember.tensor([300], dtype=uint8) raises as PyTorch does (Note [Checked scalar conversion]).
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        check_scalar_fits(s, st, "tensor", ScalarCheck::Tensor);
      if constexpr (!is_complex_v<T>)  // PyTorch's message: a complex number for a real dtype
        EMBER_CHECK_TYPE(!s.is_complex(), "must be real number, not complex");
      p[i] = s.to<T>();
    }
  });
  if (device && !device->is_cpu()) return to(out, *device);
  return out;
}

// A factory called from Python offered to __torch_dispatch__ modes (Note [Python dispatch]): its positional
// arguments, then PyTorch's dtype, layout, device (its name: ember._ops makes it a device) and pin_memory (and
// memory_format when asked). Not with out= or pin_memory=True; requires_grad is set on the handler's result.
std::optional<Tensor> offer_factory(const char* op, std::vector<dispatch::Value> v, const FactoryArgs& a,
                                    bool memory_format) {
  if (!dispatch::enabled() || a.pin_memory || (a.out.is_valid() && !a.out.is_none())) return std::nullopt;
  v.emplace_back(dispatch::value(a.dtype));
  v.emplace_back();  // layout
  v.emplace_back(a.options(default_dtype()).device_.str());
  v.emplace_back(false);  // pin_memory
  if (memory_format) v.emplace_back();
  auto h = dispatch::call(op, std::move(v));
  if (!h) return std::nullopt;
  Tensor r = dispatch::result<Tensor>(std::move(*h));
  if (a.requires_grad && r.defined()) r.set_requires_grad(true);
  return r;
}

namespace {

Tensor factory_fill(const nb::args& args, const nb::kwargs& kw, const char* fn, std::optional<Scalar> value,
                    nb::object* out_obj) {
  FactoryArgs a;
  nb::handle size_kw;
  parse_factory_kwargs(kw, fn, kDtype | kDevice | kRequiresGrad | kOut | kLayout, a, {{"size", &size_kw}});
  DimVector size = size_arg(args, size_kw, fn);
  Tensor r;
  if (a.memory_format.value_or(MemoryFormat::Contiguous) == MemoryFormat::Contiguous) {
    const char* op = !value                            ? "aten.empty.memory_format"
                     : std::string_view(fn) == "zeros" ? "aten.zeros.default"
                                                       : "aten.ones.default";
    if (auto h = offer_factory(op, dispatch::values(IntArrayRef(size)), a, !value)) return *h;
  }
  if (a.memory_format == MemoryFormat::ChannelsLast || a.memory_format == MemoryFormat::ChannelsLast3d) {
    TensorOptions o = a.options(default_dtype());
    const bool grad = o.requires_grad_;
    o.requires_grad_ = false;  // set on the final tensor, which is then a leaf
    r = empty(size, o, *a.memory_format);
    if (value) fill_(r, *value);
    if (grad) r.set_requires_grad(true);
    r = a.pinned(r);
  } else {
    r = a.pinned(value ? full(size, *value, a.options(default_dtype())) : empty(size, a.options(default_dtype())));
  }
  if (a.out.is_valid() && !a.out.is_none()) *out_obj = finish_out(r, a.out, fn);
  return r;
}

nb::object like(const Tensor& t, const nb::kwargs& kw, const char* fn, std::optional<Scalar> value) {
  FactoryArgs a;
  parse_factory_kwargs(kw, fn, kDtype | kDevice | kRequiresGrad | kLayout, a);
  TensorOptions o = TensorOptions(a.dtype.value_or(t.dtype())).device(a.device.value_or(t.device()));
  // preserve_format (the default) keeps a dense t's strides (empty_like), other formats give theirs.
  const MemoryFormat mf = a.memory_format.value_or(MemoryFormat::Preserve);
  Tensor r = mf == MemoryFormat::Preserve ? empty_like(t, o) : empty(t.sizes(), o, mf);
  if (value) fill_(r, *value);
  if (a.requires_grad) r.set_requires_grad(true);
  return nb::cast(a.pinned(std::move(r)));
}

Scalar scalar_arg(nb::handle h, const char* fn) { return to_scalar(h, fn); }

// Docstrings of the factories (Note [Python surface], docs/architecture.md). The factories parse `*size` and
// `**kwargs` themselves for speed; their nb::sig gives PyTorch's signature.
constexpr const char* kTensorDoc = R"(
Constructs a tensor with no autograd history by copying ``data``.

``data`` may be a Python number, a (nested) list or tuple of numbers or tensors, a NumPy array, or a tensor. Without
``dtype`` the type is inferred: bools give ``ember.bool``, ints ``ember.int64``, floats the default dtype
(:func:`ember.get_default_dtype`); mixed values promote. The data is always copied; use :func:`ember.as_tensor` or
:func:`ember.from_numpy` to share memory, and :meth:`Tensor.detach` / :meth:`Tensor.clone` to copy a tensor.

Args:
    data (array_like): the values of the tensor.

Keyword args:
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: inferred from ``data``.
    device (:class:`ember.device`, optional): the desired device. Default: ``data``'s device if it is a tensor, else
        the default device (:func:`ember.set_default_device`).
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned (page-locked) memory; CPU tensors only, needs CUDA.
        Default: ``False``.

Example::

    >>> ember.tensor([[0.1, 1.2], [2.2, 3.1]])
    tensor([[0.1000, 1.2000],
            [2.2000, 3.1000]])
    >>> ember.tensor([1, 2, 3])
    tensor([1, 2, 3])
    >>> ember.tensor(3.5)
    tensor(3.5000)
    >>> ember.tensor([1, 2], dtype=ember.float64)
    tensor([1., 2.], dtype=ember.float64)
)";

constexpr const char* kEmptyDoc = R"(
Returns a tensor of the shape ``size`` whose memory is not initialized.

Args:
    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`; may also be passed as the
        keyword ``size``.

Keyword args:
    out (Tensor, optional): a tensor of that shape to write the result into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: the default dtype
        (:func:`ember.get_default_dtype`).
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.
    memory_format (:class:`ember.memory_format`, optional): the memory layout of the result.
        Default: ``ember.contiguous_format``.

Example::

    >>> ember.empty(2, 3).shape
    ember.Size([2, 3])
    >>> ember.empty(size=(4,), dtype=ember.int32).dtype
    ember.int32
)";

constexpr const char* kZerosDoc = R"(
Returns a tensor of the shape ``size`` filled with the scalar value 0.

Args:
    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`; may also be passed as the
        keyword ``size``.

Keyword args:
    out (Tensor, optional): a tensor of that shape to write the result into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: the default dtype
        (:func:`ember.get_default_dtype`).
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.

Example::

    >>> ember.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    >>> ember.zeros(size=(3,), dtype=ember.int64)
    tensor([0, 0, 0])
)";

constexpr const char* kOnesDoc = R"(
Returns a tensor of the shape ``size`` filled with the scalar value 1.

Args:
    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`; may also be passed as the
        keyword ``size``.

Keyword args:
    out (Tensor, optional): a tensor of that shape to write the result into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: the default dtype
        (:func:`ember.get_default_dtype`).
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.

Example::

    >>> ember.ones(2, 3)
    tensor([[1., 1., 1.],
            [1., 1., 1.]])
    >>> ember.ones((2,), dtype=ember.bool)
    tensor([True, True])
)";

constexpr const char* kFullDoc = R"(
Returns a tensor of the shape ``size`` filled with ``fill_value``.

Without ``dtype`` the type follows ``fill_value``: ``ember.bool`` for a bool, ``ember.int64`` for an int, the
default dtype for a float.

Args:
    size (int or sequence of ints): the shape.
    fill_value (Number): the value of every element.

Keyword args:
    out (Tensor, optional): a tensor of that shape to write the result into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: inferred from ``fill_value``.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.

Example::

    >>> ember.full((2, 3), 3.25)
    tensor([[3.2500, 3.2500, 3.2500],
            [3.2500, 3.2500, 3.2500]])
    >>> ember.full((2,), 7)
    tensor([7, 7])
)";

constexpr const char* kEmptyStridedDoc = R"(
Returns an uninitialized tensor of the shape ``size`` whose elements are ``stride`` apart in memory.

The memory is large enough for the highest-addressed element; strides may leave gaps or let elements overlap.

Args:
    size (sequence of ints): the shape.
    stride (sequence of ints): the stride of each dimension, in elements.

Keyword args:
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.
    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: ``False``.

Example::

    >>> t = ember.empty_strided((2, 3), (1, 2))
    >>> t.stride()
    (1, 2)
)";

// The keyword arguments of the *_like functions, shared by their docstrings.
#define EMBER_LIKE_KWARGS                                                                                        \
  "    dtype (:class:`ember.dtype`, optional): the desired data type. Default: ``input``'s.\n"                   \
  "    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.\n"                         \
  "    device (:class:`ember.device`, optional): the desired device. Default: ``input``'s.\n"                    \
  "    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.\n" \
  "    memory_format (:class:`ember.memory_format`, optional): the memory layout of the result. Default:\n"      \
  "        ``ember.preserve_format``, ``input``'s strides when ``input`` is dense, else contiguous.\n"

constexpr const char* kEmptyLikeDoc =
    "Returns an uninitialized tensor of the same size as ``input``.\n\n"
    "``ember.empty_like(input)`` is ``ember.empty(input.size(), dtype=input.dtype, device=input.device)``, with "
    "``input``'s\nmemory layout.\n\n"
    "Args:\n    input (Tensor): the tensor whose size (and by default dtype, device and layout) the result takes.\n\n"
    "Keyword args:\n" EMBER_LIKE_KWARGS
    "\nExample::\n\n    >>> ember.empty_like(ember.ones(2, 3)).shape\n    ember.Size([2, 3])\n";

constexpr const char* kZerosLikeDoc =
    "Returns a tensor filled with the scalar value 0, of the same size as ``input``.\n\n"
    "``ember.zeros_like(input)`` is ``ember.zeros(input.size(), dtype=input.dtype, device=input.device)``.\n\n"
    "Args:\n    input (Tensor): the tensor whose size (and by default dtype, device and layout) the result takes.\n\n"
    "Keyword args:\n" EMBER_LIKE_KWARGS
    "\nExample::\n\n    >>> ember.zeros_like(ember.empty(2, 3))\n    tensor([[0., 0., 0.],\n"
    "            [0., 0., 0.]])\n";

constexpr const char* kOnesLikeDoc =
    "Returns a tensor filled with the scalar value 1, of the same size as ``input``.\n\n"
    "``ember.ones_like(input)`` is ``ember.ones(input.size(), dtype=input.dtype, device=input.device)``.\n\n"
    "Args:\n    input (Tensor): the tensor whose size (and by default dtype, device and layout) the result takes.\n\n"
    "Keyword args:\n" EMBER_LIKE_KWARGS
    "\nExample::\n\n    >>> ember.ones_like(ember.empty(2, dtype=ember.int32))\n"
    "    tensor([1, 1], dtype=ember.int32)\n";

constexpr const char* kFullLikeDoc =
    "Returns a tensor filled with ``fill_value``, of the same size as ``input``.\n\n"
    "``ember.full_like(input, v)`` is ``ember.full(input.size(), v, dtype=input.dtype, device=input.device)``: "
    "the\nvalue is converted to ``input``'s dtype unless ``dtype`` is given.\n\n"
    "Args:\n    input (Tensor): the tensor whose size (and by default dtype, device and layout) the result takes.\n"
    "    fill_value (Number): the value of every element.\n\n"
    "Keyword args:\n" EMBER_LIKE_KWARGS
    "\nExample::\n\n    >>> ember.full_like(ember.zeros(3), 2.5)\n    tensor([2.5000, 2.5000, 2.5000])\n";
#undef EMBER_LIKE_KWARGS

constexpr const char* kArangeDoc = R"(
Returns a 1-D tensor of the values from ``start`` up to, not including, ``end``, ``step`` apart.

One positional argument is ``end``; two are ``start, end``; three are ``start, end, step``. The result has
:math:`\left\lceil \frac{\text{end} - \text{start}}{\text{step}} \right\rceil` elements,

.. math::
    \text{out}_{i} = \text{start} + i \times \text{step}

Without ``dtype`` the result is ``ember.int64`` when all three values are ints, else the default dtype.

Args:
    start (Number, optional): the first value. Default: ``0``.
    end (Number): the end of the range, excluded.
    step (Number, optional): the gap between neighbouring values (non-zero, may be negative). Default: ``1``.

Keyword args:
    out (Tensor, optional): a tensor of the result's shape to write it into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: inferred as above.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.

Example::

    >>> ember.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> ember.arange(1, 4)
    tensor([1, 2, 3])
    >>> ember.arange(1, 2.5, 0.5)
    tensor([1.0000, 1.5000, 2.0000])
)";

constexpr const char* kLinspaceDoc = R"(
Returns a 1-D tensor of ``steps`` values evenly spaced from ``start`` to ``end``, both included.

.. math::
    \text{out}_{i} = \text{start} + i \times \frac{\text{end} - \text{start}}{\text{steps} - 1}

Args:
    start (Number): the first value.
    end (Number): the last value.
    steps (int): the number of values (``1`` gives ``[start]``, ``0`` an empty tensor).

Keyword args:
    out (Tensor, optional): a tensor of the result's shape to write it into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.

Example::

    >>> ember.linspace(0, 1, steps=5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    >>> ember.linspace(-10, 10, steps=1)
    tensor([-10.])
)";

constexpr const char* kLogspaceDoc = R"(
Returns a 1-D tensor of ``steps`` values evenly spaced on a logarithmic scale, from ``base ** start`` to
``base ** end``.

.. math::
    \text{out}_{i} = \text{base}^{\left(\text{start} + i \times
        \frac{\text{end} - \text{start}}{\text{steps} - 1}\right)}

Args:
    start (Number): the exponent of the first value.
    end (Number): the exponent of the last value.
    steps (int): the number of values.
    base (float, optional): the base of the logarithm. Default: ``10.0``.

Keyword args:
    out (Tensor, optional): a tensor of the result's shape to write it into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.

Example::

    >>> ember.logspace(0, 2, steps=3)
    tensor([  1.,  10., 100.])
    >>> ember.logspace(0, 3, steps=4, base=2)
    tensor([1., 2., 4., 8.])
)";

constexpr const char* kEyeDoc = R"(
Returns a 2-D tensor with ones on the diagonal and zeros elsewhere.

Args:
    n (int): the number of rows.
    m (int, optional): the number of columns. Default: ``n``.

Keyword args:
    out (Tensor, optional): a tensor of the result's shape to write it into.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the desired device. Default: the default device.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.

Example::

    >>> ember.eye(2, 3)
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
)";

// The keyword arguments of the Tensor.new_* methods, shared by their docstrings.
#define EMBER_NEW_KWARGS                                                                                         \
  "Keyword args:\n"                                                                                              \
  "    dtype (:class:`ember.dtype`, optional): the desired data type. Default: ``self``'s.\n"                    \
  "    device (:class:`ember.device`, optional): the desired device. Default: ``self``'s.\n"                     \
  "    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.\n" \
  "    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.\n"                         \
  "    pin_memory (bool, optional): put the result in pinned memory (CPU tensors, needs CUDA). Default: "        \
  "``False``.\n"

constexpr const char* kNewEmptyDoc =
    "Returns an uninitialized tensor of the shape ``size``, with ``self``'s dtype and device by default.\n\n"
    "Args:\n    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`.\n\n" EMBER_NEW_KWARGS
    "\nExample::\n\n    >>> x = ember.ones(2, dtype=ember.float64)\n    >>> x.new_empty((2, 3)).dtype\n"
    "    ember.float64\n";
constexpr const char* kNewZerosDoc =
    "Returns a tensor of the shape ``size`` filled with 0, with ``self``'s dtype and device by default.\n\n"
    "Args:\n    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`.\n\n" EMBER_NEW_KWARGS
    "\nExample::\n\n    >>> x = ember.tensor([1, 2], dtype=ember.int32)\n    >>> x.new_zeros((2, 2))\n"
    "    tensor([[0, 0],\n            [0, 0]], dtype=ember.int32)\n";
constexpr const char* kNewOnesDoc =
    "Returns a tensor of the shape ``size`` filled with 1, with ``self``'s dtype and device by default.\n\n"
    "Args:\n    size (int...): the shape, as ints or as one list, tuple or :class:`ember.Size`.\n\n" EMBER_NEW_KWARGS
    "\nExample::\n\n    >>> x = ember.zeros(3)\n    >>> x.new_ones(2)\n    tensor([1., 1.])\n";
constexpr const char* kNewFullDoc =
    "Returns a tensor of the shape ``size`` filled with ``fill_value``, with ``self``'s dtype and device by "
    "default.\n\n"
    "Args:\n    size (sequence of ints): the shape.\n    fill_value (Number): the value of every "
    "element.\n\n" EMBER_NEW_KWARGS
    "\nExample::\n\n    >>> x = ember.zeros(3, dtype=ember.int64)\n    >>> x.new_full((2,), 7)\n"
    "    tensor([7, 7])\n";
constexpr const char* kNewTensorDoc =
    "Returns a new tensor holding a copy of ``data``, with ``self``'s dtype and device by default.\n\n"
    "``data`` is read as by :func:`ember.tensor`; the result has no autograd history.\n\n"
    "Args:\n    data (array_like): the values of the tensor.\n\n" EMBER_NEW_KWARGS
    "\nExample::\n\n    >>> x = ember.zeros(2, dtype=ember.int8)\n    >>> x.new_tensor([1, 2, 3])\n"
    "    tensor([1, 2, 3], dtype=ember.int8)\n";
#undef EMBER_NEW_KWARGS

constexpr const char* kNewDoc = R"(
Makes a tensor of ``self``'s dtype and device, the legacy way (as the ``ember.Tensor(...)`` constructor).

``x.new(2, 3)`` (sizes, or one :class:`ember.Size`) is uninitialized; ``x.new([1, 2])`` (a list, a tuple or an
array) copies data converted to ``self``'s dtype; ``x.new(t)`` with a tensor ``t`` of ``self``'s dtype and device
returns an alias of it; ``x.new()`` is an empty tensor. Prefer :meth:`Tensor.new_empty` and
:meth:`Tensor.new_tensor`.

Keyword args:
    device (:class:`ember.device`, optional): the desired device. Default: ``self``'s.

Example::

    >>> x = ember.zeros(1, dtype=ember.int32)
    >>> x.new([1, 2])
    tensor([1, 2], dtype=ember.int32)
    >>> x.new(2, 3).shape
    ember.Size([2, 3])
)";

}  // namespace

void init_creation(nb::module_& m) {
  m.def(
      "tensor",
      [](nb::handle data, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "tensor", kDtype | kDevice | kRequiresGrad | kLayout, a);
        // Python data goes to the default device (Note [Default device]); a tensor keeps its own unless told.
        const bool is_tensor = nb::isinstance<Tensor>(data);
        Tensor t = tensor_from_data(data, a.dtype, a.device || is_tensor ? a.device : default_device());
        if (a.requires_grad) t.set_requires_grad(true);
        return a.pinned(t);
      },
      nb::arg("data").none(), nb::arg("kwargs"),
      nb::sig("def tensor(data: Any, *, dtype: dtype | None = None, device: device | None = None, requires_grad: bool "
              "= False, pin_memory: bool = False) -> Tensor"),
      kTensorDoc);
  m.def(
      "as_tensor",
      [](nb::handle data, nb::handle dtype, nb::handle device) -> nb::object {
        auto dt = to_dtype(dtype);
        auto dev = to_device(device);
        if (nb::isinstance<Tensor>(data)) {
          const Tensor& t = nb::cast<const Tensor&>(data);
          return nb::cast(to(t, dev.value_or(t.device()), dt.value_or(t.dtype())));
        }
        // A NumPy array shares its memory when dtype and device allow (torch.from_numpy's view), else it is converted.
        if (auto t = numpy_to_tensor(data)) return nb::cast(to(*t, dev.value_or(kCPU), dt.value_or(t->dtype())));
        return nb::cast(tensor_from_data(data, dt, dev ? dev : default_device()));
      },
      nb::arg("data"), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none());

  m.def(
      "empty",
      [](nb::args args, nb::kwargs kw) -> nb::object {
        nb::object out;
        Tensor r = factory_fill(args, kw, "empty", std::nullopt, &out);
        return out.is_valid() ? out : nb::cast(std::move(r));
      },
      nb::sig("def empty(*size: int, out: Tensor | None = None, dtype: dtype | None = None, layout: layout | None = "
              "None, device: device | None = None, requires_grad: bool = False, pin_memory: bool = False, "
              "memory_format: memory_format = ember.contiguous_format) -> Tensor"),
      kEmptyDoc);
  m.def(
      "zeros",
      [](nb::args args, nb::kwargs kw) -> nb::object {
        nb::object out;
        Tensor r = factory_fill(args, kw, "zeros", Scalar(0), &out);
        return out.is_valid() ? out : nb::cast(std::move(r));
      },
      nb::sig("def zeros(*size: int, out: Tensor | None = None, dtype: dtype | None = None, layout: layout | None = "
              "None, device: device | None = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor"),
      kZerosDoc);
  m.def(
      "ones",
      [](nb::args args, nb::kwargs kw) -> nb::object {
        nb::object out;
        Tensor r = factory_fill(args, kw, "ones", Scalar(1), &out);
        return out.is_valid() ? out : nb::cast(std::move(r));
      },
      nb::sig("def ones(*size: int, out: Tensor | None = None, dtype: dtype | None = None, layout: layout | None = "
              "None, device: device | None = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor"),
      kOnesDoc);
  m.def(
      "full",
      [](nb::handle size, nb::handle value, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "full", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
        DimVector s = PyLong_Check(size.ptr()) ? DimVector{to_int(size, "full", "size")}
                                               : to_int_list(size, "full", "size");
        const Scalar v = scalar_arg(value, "full");
        if (auto h = offer_factory("aten.full.default", dispatch::values(IntArrayRef(s), v), a)) return nb::cast(*h);
        return finish_out(a.pinned(full(s, v, a.options())), a.out, "full");
      },
      nb::arg("size"), nb::arg("fill_value"), nb::arg("kwargs"),
      nb::sig("def full(size: Sequence[int], fill_value: Number, *, out: Tensor | None = None, dtype: dtype | None = "
              "None, layout: layout | None = None, device: device | None = None, requires_grad: bool = False, "
              "pin_memory: bool = False) -> Tensor"),
      kFullDoc);
  m.def(
      "empty_strided",
      [](nb::handle size, nb::handle stride, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "empty_strided", kDtype | kDevice | kRequiresGrad | kLayout, a);
        return a.pinned(empty_strided(to_int_list(size, "empty_strided", "size"),
                                      to_int_list(stride, "empty_strided", "stride"), a.options(default_dtype())));
      },
      nb::arg("size"), nb::arg("stride"), nb::arg("kwargs"),
      nb::sig("def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: dtype | None = None, layout: "
              "layout | None = None, device: device | None = None, requires_grad: bool = False, pin_memory: bool = "
              "False) -> Tensor"),
      kEmptyStridedDoc);

  m.def(
      "empty_like", [](const Tensor& t, nb::kwargs kw) { return like(t, kw, "empty_like", std::nullopt); },
      nb::arg("input"), nb::arg("kwargs"),
      nb::sig("def empty_like(input: Tensor, *, dtype: dtype | None = None, layout: layout | None = None, device: "
              "device | None = None, requires_grad: bool = False, memory_format: memory_format = "
              "ember.preserve_format) -> Tensor"),
      kEmptyLikeDoc);
  m.def(
      "zeros_like", [](const Tensor& t, nb::kwargs kw) { return like(t, kw, "zeros_like", Scalar(0)); },
      nb::arg("input"), nb::arg("kwargs"),
      nb::sig("def zeros_like(input: Tensor, *, dtype: dtype | None = None, layout: layout | None = None, device: "
              "device | None = None, requires_grad: bool = False, memory_format: memory_format = "
              "ember.preserve_format) -> Tensor"),
      kZerosLikeDoc);
  m.def(
      "ones_like", [](const Tensor& t, nb::kwargs kw) { return like(t, kw, "ones_like", Scalar(1)); }, nb::arg("input"),
      nb::arg("kwargs"),
      nb::sig("def ones_like(input: Tensor, *, dtype: dtype | None = None, layout: layout | None = None, device: "
              "device | None = None, requires_grad: bool = False, memory_format: memory_format = "
              "ember.preserve_format) -> Tensor"),
      kOnesLikeDoc);
  m.def(
      "full_like",
      [](const Tensor& t, nb::handle v, nb::kwargs kw) { return like(t, kw, "full_like", scalar_arg(v, "full_like")); },
      nb::arg("input"), nb::arg("fill_value"), nb::arg("kwargs"),
      nb::sig("def full_like(input: Tensor, fill_value: Number, *, dtype: dtype | None = None, layout: layout | None "
              "= None, device: device | None = None, requires_grad: bool = False, memory_format: memory_format = "
              "ember.preserve_format) -> Tensor"),
      kFullLikeDoc);

  m.def(
      "arange",
      [](nb::args args, nb::kwargs kw) {
        FactoryArgs a;
        nb::handle start, end, step;
        parse_factory_kwargs(kw, "arange", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a,
                             {{"start", &start}, {"end", &end}, {"step", &step}});
        const size_t n = args.size();
        EMBER_CHECK_TYPE(n <= 3, "arange() takes at most 3 positional arguments (", n, " given)");
        if (n == 1 && !end.is_valid()) {
          end = args[0];  // arange(end)
        } else {
          // arange(start, end[, step]); arange(1, end=5) is start=1
          nb::handle* slots[] = {&start, &end, &step};
          const char* names[] = {"start", "end", "step"};
          for (size_t i = 0; i < n; ++i) {
            EMBER_CHECK_TYPE(!slots[i]->is_valid(), "arange() got multiple values for argument '", names[i], "'");
            *slots[i] = args[i];
          }
        }
        EMBER_CHECK_TYPE(end.is_valid(), "arange() missing required argument 'end'");
        Scalar s0 = start.is_valid() ? scalar_arg(start, "arange") : Scalar(0);
        Scalar s1 = scalar_arg(end, "arange");
        Scalar st = step.is_valid() ? scalar_arg(step, "arange") : Scalar(1);
        auto h = start.is_valid() || step.is_valid()
                     ? offer_factory("aten.arange.start_step", dispatch::values(s0, s1, st), a)
                     : offer_factory("aten.arange.default", dispatch::values(s1), a);
        if (h) return nb::cast(*h);
        return finish_out(arange(s0, s1, st, a.options()), a.out, "arange");
      },
      nb::sig("def arange(*args: Number, start: Number = 0, end: Number, step: Number = 1, out: Tensor | None = None, "
              "dtype: dtype | None = None, layout: layout | None = None, device: device | None = None, "
              "requires_grad: bool = False) -> Tensor"),
      kArangeDoc);
  m.def(
      "linspace",
      [](nb::handle start, nb::handle end, int64_t steps, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "linspace", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
        return finish_out(linspace(scalar_arg(start, "linspace"), scalar_arg(end, "linspace"), steps, a.options()),
                          a.out, "linspace");
      },
      nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::arg("kwargs"),
      nb::sig(
          "def linspace(start: Number, end: Number, steps: int, *, out: Tensor | None = None, dtype: dtype | None = "
          "None, layout: layout | None = None, device: device | None = None, requires_grad: bool = False) -> "
          "Tensor"),
      kLinspaceDoc);
  m.def(
      "logspace",
      [](nb::handle start, nb::handle end, int64_t steps, double base, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "logspace", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
        return finish_out(
            logspace(scalar_arg(start, "logspace"), scalar_arg(end, "logspace"), steps, base, a.options()), a.out,
            "logspace");
      },
      nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::arg("base") = 10.0, nb::arg("kwargs"),
      nb::sig("def logspace(start: Number, end: Number, steps: int, base: float = 10.0, *, out: Tensor | None = None, "
              "dtype: dtype | None = None, layout: layout | None = None, device: device | None = None, requires_grad: "
              "bool = False) -> Tensor"),
      kLogspaceDoc);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> mcols, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "eye", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
        return finish_out(eye(n, mcols, a.options()), a.out, "eye");
      },
      nb::arg("n"), nb::arg("m") = nb::none(), nb::arg("kwargs"),
      nb::sig("def eye(n: int, m: int | None = None, *, out: Tensor | None = None, dtype: dtype | None = None, layout: "
              "layout | None = None, device: device | None = None, requires_grad: bool = False) -> Tensor"),
      kEyeDoc);

  // Tensor.new_*: dtype and device default to self's.
  auto cls = nb::type<Tensor>();
  auto new_opts = [](const Tensor& t, const FactoryArgs& a) {
    return TensorOptions(a.dtype.value_or(t.dtype()))
        .device(a.device.value_or(t.device()))
        .requires_grad(a.requires_grad);
  };
  cls.attr("new_empty") = nb::cpp_function(
      [new_opts](const Tensor& t, nb::args args, nb::kwargs kw) {
        FactoryArgs a;
        nb::handle size_kw;
        parse_factory_kwargs(kw, "new_empty", kDtype | kDevice | kRequiresGrad | kLayout, a, {{"size", &size_kw}});
        return a.pinned(empty(size_arg(args, size_kw, "new_empty"), new_opts(t, a)));
      },
      nb::is_method(), nb::scope(cls), nb::name("new_empty"),
      nb::sig("def new_empty(self, size: Sequence[int], *, dtype: dtype | None = None, device: device | None = None, "
              "requires_grad: bool = False, layout: layout | None = None, pin_memory: bool = False) -> Tensor"),
      kNewEmptyDoc);
  cls.attr("new_zeros") = nb::cpp_function(
      [new_opts](const Tensor& t, nb::args args, nb::kwargs kw) {
        FactoryArgs a;
        nb::handle size_kw;
        parse_factory_kwargs(kw, "new_zeros", kDtype | kDevice | kRequiresGrad | kLayout, a, {{"size", &size_kw}});
        return a.pinned(zeros(size_arg(args, size_kw, "new_zeros"), new_opts(t, a)));
      },
      nb::is_method(), nb::scope(cls), nb::name("new_zeros"),
      nb::sig("def new_zeros(self, size: Sequence[int], *, dtype: dtype | None = None, device: device | None = None, "
              "requires_grad: bool = False, layout: layout | None = None, pin_memory: bool = False) -> Tensor"),
      kNewZerosDoc);
  cls.attr("new_ones") = nb::cpp_function(
      [new_opts](const Tensor& t, nb::args args, nb::kwargs kw) {
        FactoryArgs a;
        nb::handle size_kw;
        parse_factory_kwargs(kw, "new_ones", kDtype | kDevice | kRequiresGrad | kLayout, a, {{"size", &size_kw}});
        return a.pinned(ones(size_arg(args, size_kw, "new_ones"), new_opts(t, a)));
      },
      nb::is_method(), nb::scope(cls), nb::name("new_ones"),
      nb::sig("def new_ones(self, size: Sequence[int], *, dtype: dtype | None = None, device: device | None = None, "
              "requires_grad: bool = False, layout: layout | None = None, pin_memory: bool = False) -> Tensor"),
      kNewOnesDoc);
  cls.attr("new_full") = nb::cpp_function(
      [new_opts](const Tensor& t, nb::handle size, nb::handle v, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "new_full", kDtype | kDevice | kRequiresGrad | kLayout, a);
        return a.pinned(full(to_int_list(size, "new_full", "size"), to_scalar(v, "new_full"), new_opts(t, a)));
      },
      nb::is_method(), nb::scope(cls), nb::name("new_full"), nb::arg("size"), nb::arg("fill_value"), nb::arg("kwargs"),
      nb::sig("def new_full(self, size: Sequence[int], fill_value: Number, *, dtype: dtype | None = None, device: "
              "device | None = None, requires_grad: bool = False, layout: layout | None = None, pin_memory: bool = "
              "False) -> Tensor"),
      kNewFullDoc);
  // The legacy x.new(...): as the legacy constructor (ember.Tensor(...)) with x's dtype and device: sizes give an
  // uninitialized tensor, a sequence is data, a tensor is aliased, nothing gives an empty one.
  cls.attr("new") = nb::cpp_function(
      [](const Tensor& t, nb::args args, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "new", kDevice, a);
        const TensorOptions o = TensorOptions(t.dtype()).device(a.device.value_or(t.device()));
        if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) {
          const Tensor& src = nb::cast<const Tensor&>(args[0]);
          EMBER_CHECK_TYPE(src.dtype() == t.dtype() && src.device() == o.device_, "new(): expected a tensor of dtype ",
                           t.dtype(), " on ", o.device_, " (as self), got ", src.dtype(), " on ", src.device());
          return alias(src);
        }
        if (args.size() == 1 && !PyLong_Check(args[0].ptr()) &&
            (PyTuple_CheckExact(args[0].ptr()) || (!PyTuple_Check(args[0].ptr()) && PySequence_Check(args[0].ptr()))))
          return tensor_from_data(args[0], t.dtype(), o.device_);
        return empty(args.size() ? parse_size(args, 0, "new") : DimVector{0}, o);
      },
      nb::is_method(), nb::scope(cls), nb::name("new"),
      nb::sig("def new(self, *args: int | Sequence[int] | Tensor, device: device | None = None) -> Tensor"), kNewDoc);
  cls.attr("new_tensor") = nb::cpp_function(
      [](const Tensor& t, nb::handle data, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "new_tensor", kDtype | kDevice | kRequiresGrad | kLayout, a);
        Tensor r = tensor_from_data(data, a.dtype.value_or(t.dtype()), a.device.value_or(t.device()));
        if (a.requires_grad) r.set_requires_grad(true);
        return a.pinned(r);
      },
      nb::is_method(), nb::scope(cls), nb::name("new_tensor"), nb::arg("data"), nb::arg("kwargs"),
      nb::sig("def new_tensor(self, data: Any, *, dtype: dtype | None = None, device: device | None = None, "
              "requires_grad: bool = False, layout: layout | None = None, pin_memory: bool = False) -> Tensor"),
      kNewTensorDoc);
}

}  // namespace ember::py
