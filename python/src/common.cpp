#include "common.h"

#include "ember/cuda.h"

namespace ember::py {

namespace {
PyTypeObject* g_size_type = nullptr;
nb::handle g_dtypes[kNumScalarTypes];  // owned by the module's attributes
}  // namespace

nb::object dtype_object(ScalarType t) { return nb::borrow(g_dtypes[static_cast<int>(t)]); }

std::optional<ScalarType> to_dtype(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (nb::isinstance<DType>(h)) [[likely]]
    return nb::inst_ptr<DType>(h)->st;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return ScalarType::Float64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return ScalarType::Int64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  fail<TypeError>("expected an ember.dtype (such as ember.float32), got ", nb::inst_name(h).c_str());
}

ScalarType to_dtype_required(nb::handle h, const char* fn) {
  auto t = to_dtype(h);
  EMBER_CHECK_TYPE(t.has_value(), fn, "(): dtype must be an ember.dtype, not None");
  return *t;
}

std::optional<Device> to_device(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (nb::isinstance<Device>(h)) return *nb::inst_ptr<Device>(h);
  if (PyUnicode_Check(h.ptr())) return Device(std::string_view(nb::borrow<nb::str>(h).c_str()));
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    const int64_t i = to_int(h, "device", "index");
    EMBER_CHECK(i >= 0 && i < 128, "Device index must be in [0, 128), got ", i);
    return Device(DeviceType::CUDA, static_cast<int>(i));
  }
  fail<TypeError>("expected a device (ember.device, str or int), got ", nb::inst_name(h).c_str());
}

bool is_scalar(nb::handle h) {
  return PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()) || PyComplex_Check(h.ptr());
}

bool is_complex_number(nb::handle h) {
  // Python's complex (numpy.complex128 derives from it) and number-likes that convert to complex only
  // (numpy.complex64): float has no __complex__.
  return PyComplex_Check(h.ptr()) ||
         (!PyFloat_Check(h.ptr()) && !PyLong_Check(h.ptr()) && PyObject_HasAttrString(h.ptr(), "__complex__"));
}

Scalar to_scalar(nb::handle h, const char* fn) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK(!overflow, fn, ": Overflow when unpacking long (value does not fit in int64)");
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (nb::isinstance<Tensor>(h)) return item(nb::cast<const Tensor&>(h));
  if (is_complex_number(h)) {
    const Py_complex z = PyComplex_AsCComplex(o);
    if (z.real == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return Scalar(Complex<double>(z.real, z.imag));
  }
  if (PyIndex_Check(o)) {
    const Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyNumber_Check(o)) {  // numpy scalars and other number-likes
    double d = PyFloat_AsDouble(o);
    if (!(d == -1.0 && PyErr_Occurred())) return Scalar(d);
    PyErr_Clear();
  }
  fail<TypeError>(fn, "(): expected a number, got ", nb::inst_name(h).c_str());
}

nb::object scalar_to_py(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: return nb::bool_(s.to_bool());
    case Scalar::Kind::Int: return nb::int_(s.to_int());
    case Scalar::Kind::Complex: return complex_to_py(s.to_complex());
    default: return nb::float_(s.to_double());
  }
}

int64_t to_int(nb::handle h, const char* fn, const char* what) {
  PyObject* o = h.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o)) [[likely]] {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK(!overflow, fn, "(): ", what, " overflows int64");
    return v;
  }
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK_TYPE(t.numel() == 1 && is_integral(t.dtype(), false), fn, "(): ", what,
                     " must be an int, got a tensor of dtype ", t.dtype(), " and shape ", shape_str(t.sizes()));
    return item(t).to_int();
  }
  if (!PyBool_Check(o) && PyIndex_Check(o)) {
    Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return v;
  }
  fail<TypeError>(fn, "(): ", what, " must be an int, not ", nb::inst_name(h).c_str());
}

DimVector to_int_list(nb::handle h, const char* fn, const char* what) {
  PyObject* o = h.ptr();
  DimVector r;
  if (PyTuple_Check(o) || PyList_Check(o)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    r.reserve(n);
    for (Py_ssize_t i = 0; i < n; ++i) r.push_back(to_int(items[i], fn, what));
    return r;
  }
  fail<TypeError>(fn, "(): ", what, " must be a tuple of ints, not ", nb::inst_name(h).c_str());
}

DimVector parse_size(const nb::args& args, size_t first, const char* fn) {
  const size_t n = args.size();
  if (n == first + 1) {
    PyObject* a = args[first].ptr();
    if (PyTuple_Check(a) || PyList_Check(a)) return to_int_list(a, fn, "size");
  }
  DimVector r;
  r.reserve(n - first);
  for (size_t i = first; i < n; ++i) r.push_back(to_int(args[i], fn, "size"));
  return r;
}

DimVector size_arg(const nb::args& args, nb::handle size_kw, const char* fn) {
  if (!size_kw.is_valid()) return parse_size(args, 0, fn);
  EMBER_CHECK_TYPE(args.size() == 0, fn, "() got multiple values for argument 'size'");
  if (PyTuple_Check(size_kw.ptr()) || PyList_Check(size_kw.ptr())) return to_int_list(size_kw, fn, "size");
  return DimVector{to_int(size_kw, fn, "size")};
}

void set_size_type(nb::handle type) {
  EMBER_CHECK(PyType_Check(type.ptr()) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), &PyTuple_Type),
              "Size type must subclass tuple");
  Py_INCREF(type.ptr());
  g_size_type = reinterpret_cast<PyTypeObject*>(type.ptr());
}

nb::object make_size(IntArrayRef s) {
  const Py_ssize_t n = static_cast<Py_ssize_t>(s.size());
  PyObject* t = g_size_type ? g_size_type->tp_alloc(g_size_type, n) : PyTuple_New(n);
  if (!t) throw nb::python_error();
  for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(s[i]));
  return nb::steal(t);
}

std::optional<MemoryFormat> to_memory_format(nb::handle h, const char* fn) {
  if (h.is_none()) return std::nullopt;
  EMBER_CHECK_TYPE(nb::hasattr(h, "_ember_memory_format"), fn,
                   "(): memory_format must be ember.contiguous_format, "
                   "preserve_format, channels_last or channels_last_3d, got ",
                   nb::inst_name(h).c_str());
  const int v = nb::cast<int>(h.attr("_ember_memory_format"));
  EMBER_CHECK(v >= 0 && v <= 3, fn, "(): unknown memory format ", v);
  return static_cast<MemoryFormat>(v);
}

TensorOptions FactoryArgs::options(ScalarType default_dtype) const {
  return options().dtype(dtype.value_or(default_dtype));
}

// Note [Default device]
// ember.set_default_device (PyTorch 2's torch.set_default_device, and `with ember.device(...)`) names the device of
// tensors made without a device= and without a tensor to take one from: factory functions, ember.tensor of Python
// data, module parameters. The *_like functions, new_* methods and ops on tensors keep their inputs' device.
// Process-wide, as PyTorch's default device is for every thread that did not set one.
std::optional<Device> g_default_device;
std::vector<std::optional<Device>> g_device_contexts;  // what each open `with ember.device(...)` replaced

std::optional<Device> default_device() { return g_default_device; }

TensorOptions FactoryArgs::options() const {
  TensorOptions o;
  o.dtype_ = dtype;
  if (device)
    o.device_ = *device;
  else if (g_default_device)
    o.device_ = *g_default_device;
  o.requires_grad_ = requires_grad;
  return o;
}

Tensor FactoryArgs::pinned(Tensor r) const {
  if (!pin_memory) return r;
  EMBER_CHECK(r.device().is_cpu(), "pin_memory=True: only dense CPU tensors can be pinned (device ", r.device(), ")");
  r.set_requires_grad(false);
  Tensor p = cuda::pin_memory(r);
  if (requires_grad) p.set_requires_grad(true);
  return p;
}

void parse_factory_kwargs(const nb::kwargs& kw, const char* fn, unsigned allowed, FactoryArgs& a,
                          std::initializer_list<std::pair<const char*, nb::handle*>> extra) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kw.ptr(), &pos, &key, &value)) {
    const char* k = utf8(key);
    nb::handle v(value);
    if ((allowed & kDtype) && !std::strcmp(k, "dtype")) {
      a.dtype = to_dtype(v);
    } else if ((allowed & kDevice) && !std::strcmp(k, "device")) {
      a.device = to_device(v);
    } else if ((allowed & kRequiresGrad) && !std::strcmp(k, "requires_grad")) {
      a.requires_grad = truthy(value);
    } else if ((allowed & kGenerator) && !std::strcmp(k, "generator")) {
      a.generator = v.is_none() ? nullptr : nb::cast<Generator*>(v);
    } else if ((allowed & kOut) && !std::strcmp(k, "out")) {
      a.out = v;
    } else if ((allowed & kLayout) && !std::strcmp(k, "layout")) {
      EMBER_CHECK_TYPE(v.is_none() || nb::hasattr(v, "_ember_strided"), fn, "(): only the strided layout is supported");
    } else if ((allowed & kLayout) && !std::strcmp(k, "memory_format")) {
      a.memory_format = to_memory_format(v, fn);
    } else if ((allowed & kLayout) && !std::strcmp(k, "pin_memory")) {
      a.pin_memory = truthy(value);
      if (a.pin_memory) cuda::check_available("pin_memory");
    } else {
      bool found = false;
      for (auto& [name, slot] : extra)
        if (!std::strcmp(k, name)) {
          *slot = v;
          found = true;
        }
      if (!found) fail<TypeError>(fn, "() got an unexpected keyword argument '", k, "'");
    }
  }
  // As PyTorch, a factory given out= and no dtype= computes in out's dtype.
  if (!a.dtype && a.out.is_valid() && nb::isinstance<Tensor>(a.out)) a.dtype = nb::cast<const Tensor&>(a.out).dtype();
}

nb::module_ special_module(nb::module_& m) {
  if (nb::hasattr(m, "_special")) return nb::borrow<nb::module_>(m.attr("_special"));
  return m.def_submodule("_special", "the C++ functions of ember.special (python/ember/special.py exports them)");
}

std::string method_doc(const char* function_doc, const char* name) {
  std::string_view doc(function_doc);
  while (!doc.empty() && doc.front() == '\n') doc.remove_prefix(1);
  return std::string(doc.substr(0, doc.find('\n'))) + "\n\nSee :func:`ember." + name + "`.";
}

std::string inplace_doc(const char* name) {
  return std::string("In-place version of :meth:`Tensor.") + name +
         "`: writes the result into ``self`` and returns it.";
}

nb::object finish_out(Tensor r, nb::handle out, const char* fn) {
  if (!out.is_valid() || out.is_none()) return nb::cast(std::move(r));
  const Tensor& o = nb::cast<const Tensor&>(out);
  EMBER_CHECK(std::ranges::equal(o.sizes(), r.sizes()), fn, "(): out= has shape ", shape_str(o.sizes()),
              " but the result has shape ", shape_str(r.sizes()));
  EMBER_CHECK(o.dtype() == r.dtype(), fn, "(): out= has dtype ", o.dtype(), " but the result has dtype ", r.dtype());
  copy_(o, r);
  return nb::borrow(out);
}

namespace {

constexpr const char* kDtypeDoc = R"(
The data type of a tensor's elements, such as ``ember.float32`` or ``ember.int64``.

The dtypes are module constants (``ember.float32``, ``ember.float64``, ``ember.float16``, ``ember.bfloat16``,
``ember.int64``, ``ember.int32``, ``ember.int16``, ``ember.int8``, ``ember.uint8``, ``ember.bool``, and aliases such
as ``ember.float`` and ``ember.long``); instances cannot be created. A dtype tells whether it is a floating point
one (``is_floating_point``), a signed one (``is_signed``) and its size in bytes (``itemsize``).

Example::

    >>> ember.float32.itemsize
    4
    >>> ember.tensor([1, 2]).dtype
    ember.int64
)";

constexpr const char* kDeviceDoc = R"(
The device a tensor's memory is on: the CPU, one CUDA GPU, or the meta device (shapes without data).

A device has a ``type`` (``"cpu"``, ``"cuda"`` or ``"meta"``) and an optional ``index`` (the GPU's number; none means the current
one). It is made from a string (``ember.device("cuda:1")``, ``ember.device("cpu")``), from a type and an index
(``ember.device("cuda", 1)``) or from an int, a CUDA device's index. Functions that take a ``device`` also accept such
strings and ints directly. ``with ember.device(d):`` makes ``d`` the default device of the factory functions inside
the block.

Args:
    type (str, int or :class:`ember.device`): the device type, optionally with an index (``"cuda:0"``), or a CUDA
        index.
    index (int, optional): the device's index, when ``type`` names none.

Example::

    >>> ember.device("cuda", 0)
    device(type='cuda', index=0)
    >>> ember.device("cpu").type
    'cpu'
)";

constexpr const char* kSetDefaultDtypeDoc = R"(
Sets the default floating point dtype to ``d``.

The default dtype is that of tensors made from Python floats (:func:`ember.tensor`) and of the factory functions
called without ``dtype`` (:func:`ember.zeros`, :func:`ember.rand`, ...). It must be a floating point type:
``ember.float32`` (the initial one), ``ember.float64``, ``ember.float16`` or ``ember.bfloat16``.

Args:
    d (:class:`ember.dtype`): the new default dtype.

Example::

    >>> ember.set_default_dtype(ember.float64)
    >>> ember.tensor([1.2, 3]).dtype
    ember.float64
    >>> ember.set_default_dtype(ember.float32)
)";

constexpr const char* kPromoteTypesDoc = R"(
Returns the smallest dtype to which both ``type1`` and ``type2`` can be converted without losing their kind.

Floating point beats integral beats bool; within a kind the larger type wins (``int32`` and ``float16`` give
``float16``, ``uint8`` and ``int8`` give ``int16``). This is how binary operations choose their result's dtype.

Args:
    type1 (:class:`ember.dtype`): the first dtype.
    type2 (:class:`ember.dtype`): the second dtype.

Example::

    >>> ember.promote_types(ember.int32, ember.float32)
    ember.float32
    >>> ember.promote_types(ember.uint8, ember.int8)
    ember.int16
)";

constexpr const char* kCanCastDoc = R"(
Returns whether ``from_`` may be converted to ``to`` under the casting rules of in-place and ``out=`` operations.

A cast may not go to a lower kind: floating point to integral or bool, or integral to bool, is refused.

Args:
    from_ (:class:`ember.dtype`): the dtype converted from.
    to (:class:`ember.dtype`): the dtype converted to.

Example::

    >>> ember.can_cast(ember.float64, ember.float32)
    True
    >>> ember.can_cast(ember.float32, ember.int32)
    False
)";

constexpr const char* kResultTypeDoc = R"(
Returns the dtype of the result of an arithmetic operation on ``tensor1`` and ``tensor2`` (tensors or numbers).

Dimensioned tensors decide over 0-D ones, which decide over Python numbers, unless a lower category holds a higher
kind (a float number with an integer tensor gives the default dtype).

Args:
    tensor1 (Tensor or Number): the first operand.
    tensor2 (Tensor or Number): the second operand.

Example::

    >>> ember.result_type(ember.tensor([1, 2], dtype=ember.int32), 1.0)
    ember.float32
    >>> ember.result_type(ember.tensor([1, 2], dtype=ember.uint8), ember.tensor(1))
    ember.uint8
)";

}  // namespace

void init_dtype(nb::module_& m) {
  nb::class_<DType>(m, "dtype", kDtypeDoc)
      .def(
          "__init__", [](DType*) { fail<TypeError>("cannot create 'ember.dtype' instances"); },
          nb::sig("def __init__(self) -> None"))
      .def_prop_ro(
          "is_floating_point", [](const DType& d) { return is_floating(d.st); },
          "Whether the dtype is a floating point one.")
      .def_prop_ro(
          "is_complex", [](const DType& d) { return is_complex(d.st); }, "Whether the dtype is a complex one.")
      .def(
          "to_complex", [](const DType& d) { return dtype_object(to_complex(d.st)); },
          nb::sig("def to_complex(self) -> dtype"),
          "Returns the complex dtype of this one's precision (float32 -> complex64, float64 -> complex128); a complex "
          "dtype is returned as it is.")
      .def(
          "to_real", [](const DType& d) { return dtype_object(to_real(d.st)); }, nb::sig("def to_real(self) -> dtype"),
          "Returns the real dtype of this one's precision (complex64 -> float32, complex128 -> float64); a real dtype "
          "is returned as it is.")
      .def_prop_ro(
          "is_signed", [](const DType& d) { return is_signed(d.st); }, "Whether the dtype holds negative values.")
      .def_prop_ro(
          "itemsize", [](const DType& d) { return element_size(d.st); }, "The size of an element in bytes.")
      .def("__repr__", [](const DType& d) { return "ember." + std::string(dtype_name(d.st)); })
      .def("__reduce__", [](const DType& d) { return std::string(dtype_name(d.st)); });
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto st = static_cast<ScalarType>(i);
    nb::object obj = nb::cast(DType{st});
    g_dtypes[i] = obj;
    m.attr(std::string(dtype_name(st)).c_str()) = obj;
  }

  nb::class_<Device>(m, "device", kDeviceDoc)
      .def(
          "__init__",
          [](Device* self, nb::handle spec, std::optional<int> index) {
            if (PyLong_Check(spec.ptr())) {
              EMBER_CHECK(!index, "device(): an int spec takes no index");
              new (self) Device(*to_device(spec));
              return;
            }
            EMBER_CHECK_TYPE(PyUnicode_Check(spec.ptr()) || nb::isinstance<Device>(spec),
                             "device(): expected a str, int or device, got ", nb::inst_name(spec).c_str());
            Device d = *to_device(spec);
            if (index) {
              EMBER_CHECK(!d.has_index(),
                          "device(): type (string) must not include an index because index "
                          "was passed explicitly: ",
                          d);
              EMBER_CHECK(*index >= 0, "Device index must not be negative");
              EMBER_CHECK(!d.is_cpu() || *index == 0, "CPU device index must be 0, got ", *index);
              d.index = static_cast<int8_t>(*index);
            }
            new (self) Device(d);
          },
          nb::arg("type"), nb::arg("index") = nb::none(),
          nb::sig("def __init__(self, type: str | int | device, index: int | None = None) -> None"))
      .def_prop_ro(
          "type", [](const Device& d) { return device_type_name(d.type); },
          "The device type: ``\"cpu\"``, ``\"cuda\"`` or ``\"meta\"``.")
      .def_prop_ro(
          "index",
          [](const Device& d) -> std::optional<int> {
            return d.has_index() ? std::optional<int>(d.index) : std::nullopt;
          },
          "The device's index, or ``None`` for the current device of its type.")
      .def("__repr__",
           [](const Device& d) {
             std::string s = std::string("device(type='") + device_type_name(d.type) + "'";
             if (d.has_index()) s += ", index=" + std::to_string(d.index);
             return s + ")";
           })
      .def("__str__", &Device::str)
      .def("__eq__",
           [](const Device& a, nb::handle b) { return nb::isinstance<Device>(b) && a == *nb::inst_ptr<Device>(b); })
      .def("__hash__", [](const Device& d) { return static_cast<int>(d.type) * 1000 + d.index; })
      .def("__reduce__", [](const Device& d) { return nb::make_tuple(nb::type<Device>(), nb::make_tuple(d.str())); })
      .def("__enter__",
           [](nb::handle self) {  // Note [Default device]
             g_device_contexts.push_back(g_default_device);
             g_default_device = *nb::inst_ptr<Device>(self);
             return self;
           })
      .def("__exit__", [](const Device&, nb::args) {
        EMBER_CHECK(!g_device_contexts.empty(), "device.__exit__: no `with device(...)` block is open");
        g_default_device = g_device_contexts.back();
        g_device_contexts.pop_back();
        return false;
      });
  m.def(
      "_set_default_device", [](std::optional<Device> d) { g_default_device = d; }, nb::arg("device").none());
  m.def("_get_default_device", [] { return g_default_device; });

  m.def("_set_size_type", &set_size_type, nb::arg("type"));
  m.def(
      "get_default_dtype", [] { return dtype_object(default_dtype()); }, nb::sig("def get_default_dtype() -> dtype"),
      "Returns the default floating point dtype (``ember.float32`` unless :func:`ember.set_default_dtype` changed "
      "it).");
  m.def(
      "set_default_dtype", [](nb::handle d) { set_default_dtype(to_dtype_required(d, "set_default_dtype")); },
      nb::arg("d"), nb::sig("def set_default_dtype(d: dtype) -> None"), kSetDefaultDtypeDoc);
  m.def(
      "promote_types",
      [](nb::handle a, nb::handle b) {
        return dtype_object(
            promote_types(to_dtype_required(a, "promote_types"), to_dtype_required(b, "promote_types")));
      },
      nb::arg("type1"), nb::arg("type2"), nb::sig("def promote_types(type1: dtype, type2: dtype) -> dtype"),
      kPromoteTypesDoc);
  m.def(
      "can_cast",
      [](nb::handle from, nb::handle to) {
        return can_cast(to_dtype_required(from, "can_cast"), to_dtype_required(to, "can_cast"));
      },
      nb::arg("from_"), nb::arg("to"), nb::sig("def can_cast(from_: dtype, to: dtype) -> bool"), kCanCastDoc);
  m.def(
      "result_type",
      [](nb::handle a, nb::handle b) {
        ResultTypeState s;
        for (nb::handle h : {a, b}) {
          if (nb::isinstance<Tensor>(h))
            s.update(nb::cast<const Tensor&>(h));
          else
            s.update(to_scalar(h, "result_type"));
        }
        return dtype_object(s.result());
      },
      nb::arg("tensor1"), nb::arg("tensor2"),
      nb::sig("def result_type(tensor1: Tensor | Number, tensor2: Tensor | Number) -> dtype"), kResultTypeDoc);
}

}  // namespace ember::py
