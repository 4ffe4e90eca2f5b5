// NumPy interop: ember.from_numpy, Tensor.numpy(), Tensor.__array__, as_tensor and ember.tensor(ndarray).
// Both directions share memory: a tensor made from an array holds the array's buffer (Py_buffer) in its
// storage's deleter, and an array made from a tensor has as base a small Python object holding the
// tensor's storage.
#include <bit>
#include <cstddef>
#include <cstring>

#include "ember/storage_watch.h"
#include "interop.h"

namespace ember::py {

namespace {

// ---- NumPy, imported lazily so that `import ember` does not need it. The cached objects are never
// released: they live as long as the numpy module, which is never unloaded.
struct NumPy {
  PyObject* module = nullptr;
  PyObject* ndarray = nullptr;
  PyObject* generic = nullptr;
  PyObject* asarray = nullptr;
};
NumPy g_np;

bool load_numpy(PyObject* module) {
  PyObject* nd = PyObject_GetAttrString(module, "ndarray");
  PyObject* gen = PyObject_GetAttrString(module, "generic");
  PyObject* as = PyObject_GetAttrString(module, "asarray");
  if (!nd || !gen || !as) {
    Py_XDECREF(nd), Py_XDECREF(gen), Py_XDECREF(as);
    return false;
  }
  g_np = {Py_NewRef(module), nd, gen, as};
  return true;
}

const NumPy& numpy(const char* fn) {
  if (g_np.module) [[likely]]
    return g_np;
  PyObject* m = PyImport_ImportModule("numpy");
  if (!m) {
    PyErr_Clear();
    fail<Error>(fn, "(): Numpy is not available");
  }
  bool ok = load_numpy(m);
  Py_DECREF(m);
  if (!ok) throw nb::python_error();
  return g_np;
}

// NumPy when something has imported it, else null: no object can be a NumPy array before that.
const NumPy* numpy_if_loaded() {
  if (g_np.module) [[likely]]
    return &g_np;
  PyObject* m = PyImport_GetModule(nb::str("numpy").ptr());
  if (!m) {
    PyErr_Clear();
    return nullptr;
  }
  bool ok = load_numpy(m);
  Py_DECREF(m);
  if (!ok) {
    PyErr_Clear();
    return nullptr;
  }
  return &g_np;
}

bool isinstance(PyObject* o, PyObject* type) {
  int r = PyObject_IsInstance(o, type);
  if (r < 0) throw nb::python_error();
  return r == 1;
}

// ---- NumPy -> ember

constexpr const char* kSupportedNumpy =
    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool";

std::string numpy_type_name(PyObject* array) {
  nb::object dt = nb::steal(PyObject_GetAttrString(array, "dtype"));
  if (dt.is_valid()) {
    nb::object type = nb::steal(PyObject_GetAttrString(dt.ptr(), "type"));
    if (type.is_valid() && PyType_Check(type.ptr())) return reinterpret_cast<PyTypeObject*>(type.ptr())->tp_name;
  }
  PyErr_Clear();
  return "unknown";
}

// A buffer format (PEP 3118) and item size -> ember's dtype, for the single-item formats NumPy writes.
enum class FormatStatus { Ok, Unsupported, NonNativeByteOrder };
FormatStatus parse_format(const char* f, Py_ssize_t itemsize, ScalarType& st) {
  if (!f) return FormatStatus::Unsupported;
  constexpr bool little = std::endian::native == std::endian::little;
  if (*f == '@' || *f == '=' || (*f == '<' && little) || (*f == '>' && !little)) {
    ++f;
  } else if (*f == '<' || *f == '>' || *f == '!') {
    return FormatStatus::NonNativeByteOrder;
  }
  if (f[0] == 'Z' && (f[1] == 'f' || f[1] == 'd') && !f[2]) {  // PEP 3118's complex: Zf, Zd
    st = f[1] == 'f' ? ScalarType::ComplexFloat : ScalarType::ComplexDouble;
    return static_cast<Py_ssize_t>(element_size(st)) == itemsize ? FormatStatus::Ok : FormatStatus::Unsupported;
  }
  if (!f[0] || f[1]) return FormatStatus::Unsupported;
  switch (f[0]) {
    case '?': st = ScalarType::Bool; break;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
      switch (itemsize) {
        case 1: st = ScalarType::Int8; break;
        case 2: st = ScalarType::Int16; break;
        case 4: st = ScalarType::Int32; break;
        case 8: st = ScalarType::Int64; break;
        default: return FormatStatus::Unsupported;
      }
      break;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
      if (itemsize != 1) return FormatStatus::Unsupported;
      st = ScalarType::UInt8;
      break;
    case 'e': st = ScalarType::Float16; break;
    case 'f': st = ScalarType::Float32; break;
    case 'd': st = ScalarType::Float64; break;
    default: return FormatStatus::Unsupported;
  }
  return static_cast<Py_ssize_t>(element_size(st)) == itemsize ? FormatStatus::Ok : FormatStatus::Unsupported;
}

enum class WrapStatus { Ok, BadDtype, NonNativeByteOrder, NegativeStride, UnalignedStride };

struct BufferDeleter {
  void operator()(Py_buffer* v) const {
    with_gil([v] { PyBuffer_Release(v); });
    delete v;
  }
};
using BufferPtr = std::unique_ptr<Py_buffer, BufferDeleter>;

// Views the memory of NumPy array `a` (zero-copy): the storage holds the array's buffer export, which
// holds the array. Layouts ember can't view come back as a status, not an exception.
WrapStatus wrap_array(PyObject* a, bool warn_readonly, Tensor& out) {
  auto* raw = new Py_buffer;
  if (PyObject_GetBuffer(a, raw, PyBUF_RECORDS_RO) != 0) {  // e.g. datetime64, which has no buffer format
    delete raw;
    PyErr_Clear();
    return WrapStatus::BadDtype;
  }
  BufferPtr view(raw);
  ScalarType st{};
  switch (parse_format(view->format, view->itemsize, st)) {
    case FormatStatus::Ok: break;
    case FormatStatus::Unsupported: return WrapStatus::BadDtype;
    case FormatStatus::NonNativeByteOrder: return WrapStatus::NonNativeByteOrder;
  }
  const int64_t es = view->itemsize;
  const int nd = view->ndim;
  DimVector sizes(nd), strides(nd);
  int64_t numel = 1, extent = 1;
  for (int i = 0; i < nd; ++i) sizes[i] = view->shape[i], numel *= sizes[i];
  // Strides of dims of size 1, and of arrays of no elements, address nothing, and NumPy may leave any
  // value there (negative ones too): those get the row-major strides.
  int64_t expected = 1;
  for (int i = nd - 1; i >= 0; --i) {
    const int64_t s = view->strides[i];
    if (numel == 0 || sizes[i] == 1) {
      strides[i] = expected;
    } else {
      if (s < 0) return WrapStatus::NegativeStride;
      if (s % es) return WrapStatus::UnalignedStride;
      strides[i] = s / es;
      extent += (sizes[i] - 1) * strides[i];
    }
    expected *= std::max<int64_t>(sizes[i], 1);
  }
  if (view->readonly && warn_readonly) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The given NumPy array is not writable, and ember does not support non-writable tensors. "
                     "This means writing to this tensor will result in undefined behavior. You may want to copy "
                     "the array to protect its data or make it writable before converting it to a tensor.",
                     1) < 0)
      throw nb::python_error();
  }
  void* data = view->buf ? view->buf : g_empty_data;
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(extent * es);
  Py_buffer* owned = view.release();
  out = from_blob(
      data, st, sizes, strides, kCPU, [owned] { BufferDeleter()(owned); }, nbytes);
  return WrapStatus::Ok;
}

[[noreturn]] void wrap_failed(WrapStatus s, PyObject* a, const char* fn) {
  switch (s) {
    case WrapStatus::BadDtype:
      fail<TypeError>(fn, "(): can't convert np.ndarray of type ", numpy_type_name(a),
                      ". The only supported types are: ", kSupportedNumpy, ".");
    case WrapStatus::NonNativeByteOrder:
      fail<ValueError>(fn,
                       "(): given numpy array has byte order different from the native byte order. Conversion "
                       "between byte orders is currently not supported.");
    case WrapStatus::NegativeStride:
      fail<ValueError>(fn,
                       "(): At least one stride in the given numpy array is negative, and tensors with negative "
                       "strides are not currently supported. (You can probably work around this by making a copy of "
                       "your array  with array.copy().) ");
    default:
      fail<ValueError>(fn,
                       "(): given numpy array strides not a multiple of the element byte size. Copy the numpy "
                       "array to reallocate the memory.");
  }
}

Tensor from_numpy(nb::handle h, bool warn_readonly, const char* fn) {
  const NumPy& np = numpy(fn);
  EMBER_CHECK_TYPE(isinstance(h.ptr(), np.ndarray), fn, "(): expected np.ndarray (got ", nb::inst_name(h).c_str(), ")");
  Tensor t;
  if (WrapStatus s = wrap_array(h.ptr(), warn_readonly, t); s != WrapStatus::Ok) wrap_failed(s, h.ptr(), fn);
  return t;
}

// ---- ember -> NumPy: `ArrayOwner` exports a tensor's memory through the buffer protocol, and becomes
// (through a memoryview) the base of the array NumPy makes from it.
struct ArrayOwner {
  PyObject_VAR_HEAD Storage storage;  // keeps the memory alive as long as the array
  void* data;
  Py_ssize_t nbytes;
  Py_ssize_t itemsize;
  const char* format;
  bool contiguous;
  int ndim;
  Py_ssize_t geometry[1];  // 2 * ndim items (a variable-size object): sizes, then strides in bytes
};
PyTypeObject* g_owner_type = nullptr;

const char* buffer_format(ScalarType st) {
  switch (st) {
    case ScalarType::Bool: return "?";
    case ScalarType::UInt8: return "B";
    case ScalarType::Int8: return "b";
    case ScalarType::Int16: return "h";
    case ScalarType::Int32: return "i";
    case ScalarType::Int64: return sizeof(long) == 8 ? "l" : "q";
    case ScalarType::Float16: return "e";
    case ScalarType::Float32: return "f";
    case ScalarType::Float64: return "d";
    case ScalarType::ComplexFloat: return "Zf";
    case ScalarType::ComplexDouble: return "Zd";
    default: return nullptr;
  }
}

int owner_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  auto* o = reinterpret_cast<ArrayOwner*>(self);
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !o->contiguous) {
    PyErr_SetString(PyExc_BufferError, "numpy(): the tensor is not contiguous and the consumer asked for no strides");
    return -1;
  }
  view->obj = Py_NewRef(self);
  view->buf = o->data;
  view->len = o->nbytes;
  view->readonly = 0;
  view->itemsize = o->itemsize;
  view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(o->format) : nullptr;
  view->ndim = o->ndim;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? o->geometry : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? o->geometry + o->ndim : nullptr;
  view->suboffsets = nullptr;
  view->internal = nullptr;
  return 0;
}

void owner_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<ArrayOwner*>(self);
  PyTypeObject* type = Py_TYPE(self);
  o->storage.~Storage();
  type->tp_free(self);
  Py_DECREF(type);
}

void init_owner_type(nb::module_& m) {
  static PyType_Slot slots[] = {
      {Py_bf_getbuffer, reinterpret_cast<void*>(&owner_getbuffer)},
      {Py_tp_dealloc, reinterpret_cast<void*>(&owner_dealloc)},
      {Py_tp_doc, const_cast<char*>("Holds the storage of an ember tensor for the NumPy arrays viewing it.")},
      {0, nullptr}};
  static PyType_Spec spec = {"ember._C._TensorMemory", static_cast<int>(offsetof(ArrayOwner, geometry)),
                             sizeof(Py_ssize_t), Py_TPFLAGS_DEFAULT, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw nb::python_error();
  g_owner_type = reinterpret_cast<PyTypeObject*>(type);
  m.attr("_TensorMemory") = nb::steal(type);
  Py_INCREF(type);  // g_owner_type stays valid for arrays that outlive the module
}

nb::object tensor_to_numpy(const Tensor& self, bool force) {
  const NumPy& np = numpy("numpy");
  if (!force) {
    EMBER_CHECK_TYPE(self.device().is_cpu(), "can't convert ", self.device(),
                     " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
    EMBER_CHECK(!self.requires_grad(),
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
    EMBER_CHECK(!self.is_conj(),
                "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead.");
  }
  EMBER_CHECK_TYPE(self.dtype() != ScalarType::BFloat16,
                   "numpy(): NumPy has no bfloat16 dtype; convert the tensor first (tensor.float().numpy())");
  EMBER_CHECK_TYPE(self.dtype() != ScalarType::ComplexHalf,  // PyTorch's message; NumPy has no complex32
                   "Got unsupported ScalarType ComplexHalf (numpy() of a complex32 tensor: NumPy has no complex32; "
                   "convert the tensor first, tensor.cfloat().numpy())");
  // NumPy arrays have at most 64 dims (NPY_MAXDIMS; 32 before NumPy 2); given a buffer of more, np.asarray silently
  // made a 0-d object array holding it.
  EMBER_CHECK_VALUE(self.dim() <= 64, "number of dimensions must be within [0, 64] (numpy() of a tensor with ",
                    self.dim(), " dimensions)");
  const Tensor t = resolve_conj(self.device().is_cpu() ? self : to(self, kCPU));  // force=True: a resolved copy
  mark_shared_outside(t.impl()->storage().get());  // NumPy may write it (Note [Caches derived from a storage])
  PyObject* obj = g_owner_type->tp_alloc(g_owner_type, 2 * t.dim());
  if (!obj) throw nb::python_error();
  nb::object owner = nb::steal(obj);
  auto* o = reinterpret_cast<ArrayOwner*>(obj);
  new (&o->storage) Storage(t.impl()->storage());
  o->data = t.numel() && t.data_ptr() ? t.data_ptr() : g_empty_data;
  o->itemsize = static_cast<Py_ssize_t>(t.element_size());
  o->nbytes = static_cast<Py_ssize_t>(t.nbytes());
  o->format = buffer_format(t.dtype());
  o->contiguous = t.is_contiguous();
  o->ndim = static_cast<int>(t.dim());
  for (int i = 0; i < o->ndim; ++i) {
    o->geometry[i] = t.sizes()[i];
    o->geometry[o->ndim + i] = t.strides()[i] * o->itemsize;
  }
  PyObject* arr = PyObject_CallOneArg(np.asarray, obj);
  if (!arr) throw nb::python_error();
  nb::object r = nb::steal(arr);
  EMBER_CHECK_VALUE(nb::cast<int64_t>(r.attr("ndim")) == t.dim(), "numpy(): this NumPy supports fewer than the ",
                    t.dim(), " dimensions of the tensor");
  return r;
}

}  // namespace

std::optional<Tensor> numpy_to_tensor(nb::handle data) {
  PyObject* o = data.ptr();
  if (PyFloat_CheckExact(o) || PyLong_CheckExact(o) || PyBool_Check(o) || PyList_Check(o) || PyTuple_Check(o))
    return std::nullopt;
  const NumPy* np = numpy_if_loaded();
  if (!np) return std::nullopt;
  nb::object arr = nb::borrow(data);
  if (isinstance(o, np->generic)) {
    arr = nb::steal(PyObject_CallOneArg(np->asarray, o));
    if (!arr.is_valid()) throw nb::python_error();
  } else if (!isinstance(o, np->ndarray)) {
    return std::nullopt;
  }
  Tensor t;
  switch (wrap_array(arr.ptr(), /*warn_readonly=*/false, t)) {
    case WrapStatus::Ok: return t;
    case WrapStatus::BadDtype: return std::nullopt;
    default: break;
  }
  // A layout or byte order ember can't view: NumPy makes a native, row-major copy to view.
  nb::object native = arr.attr("dtype").attr("newbyteorder")("=");
  nb::object copy = arr.attr("astype")(native, "C");
  if (wrap_array(copy.ptr(), false, t) != WrapStatus::Ok) return std::nullopt;
  return t;
}

constexpr const char* kFromNumpyDoc = R"(
Creates a tensor that shares its memory with the NumPy array ``ndarray``.

Writes to the tensor show in the array and the other way round; the array stays alive as long as the tensor.
Supported dtypes: float64, float32, float16, int64, int32, int16, int8, uint8 and bool; arrays with negative strides,
or with another byte order than the machine's, raise ``ValueError`` (copy them first).
A read-only array gives a warning, since writing to the tensor would change it.

Args:
    ndarray (numpy.ndarray): the array whose memory the tensor views.

Example::

    >>> a = numpy.array([1, 2, 3])
    >>> t = ember.from_numpy(a)
    >>> t
    tensor([1, 2, 3])
    >>> t[0] = -1
    >>> a
    array([-1,  2,  3])
)";

constexpr const char* kNumpyDoc = R"(
Returns the tensor as a NumPy ``ndarray`` that shares its memory.

Writes to the array show in the tensor and the other way round. The tensor must be on the CPU and not require grad,
unless ``force`` is given; ``bfloat16`` tensors, which NumPy cannot hold, must be converted first.

Keyword args:
    force (bool, optional): when ``True``, a tensor on another device is copied to the CPU and one that requires
        grad is detached first, so the array may not share memory with ``self``. Default: ``False``.

Example::

    >>> t = ember.ones(3)
    >>> a = t.numpy()
    >>> a[0] = 5
    >>> t
    tensor([5., 1., 1.])
)";

constexpr const char* kAsTensorDoc = R"(
Converts ``data`` into a tensor, sharing memory where it can.

A tensor of the requested dtype and device is returned as it is; one of another dtype or device is converted (a
copy, recorded by autograd). A NumPy array of a dtype ember has shares its memory when no conversion is asked for,
as :func:`ember.from_numpy` does. Other data (lists, tuples, numbers) is copied as by :func:`ember.tensor`.

Args:
    data (array_like): the values of the tensor.
    dtype (:class:`ember.dtype`, optional): the desired data type. Default: ``data``'s, or inferred.
    device (:class:`ember.device`, optional): the desired device. Default: ``data``'s if it is a tensor, the CPU for a
        NumPy array, else the default device.

Example::

    >>> a = numpy.array([1, 2, 3])
    >>> t = ember.as_tensor(a)
    >>> t[0] = -1
    >>> a
    array([-1,  2,  3])
)";

void init_numpy(nb::module_& m) {
  init_owner_type(m);
  auto cls = nb::type<Tensor>();

  m.def(
      "from_numpy", [](nb::handle a) { return from_numpy(a, /*warn_readonly=*/true, "from_numpy"); },
      nb::arg("ndarray").none(), nb::sig("def from_numpy(ndarray: numpy.ndarray) -> Tensor"), kFromNumpyDoc);
  cls.attr("numpy") = nb::cpp_function([](const Tensor& t, bool force) { return tensor_to_numpy(t, force); },
                                       nb::is_method(), nb::kw_only(), nb::arg("force") = false, nb::name("numpy"),
                                       nb::scope(cls), kNumpyDoc);
  cls.attr("__array__") = nb::cpp_function(
      [](const Tensor& t, nb::handle dtype, nb::handle copy) -> nb::object {
        nb::object arr = tensor_to_numpy(t, false);
        const bool copy_true = !copy.is_none() && truthy(copy);
        if (!dtype.is_none()) {
          nb::object want = nb::borrow(g_np.module).attr("dtype")(dtype);
          if (!copy_true && !arr.attr("dtype").equal(want)) {
            if (!copy.is_none())
              fail<ValueError>("__array__(): converting a tensor of dtype ", t.dtype(), " to NumPy dtype ",
                               nb::str(want).c_str(), " needs a copy, but copy=False");
            return arr.attr("astype")(want);
          }
          if (copy_true) return arr.attr("astype")(want);
          return arr;
        }
        return copy_true ? arr.attr("copy")() : arr;
      },
      nb::is_method(), nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none(), nb::name("__array__"),
      nb::scope(cls));

  // as_tensor shares a NumPy array's memory when dtype and device allow (creation.cpp's version copies).
  nb::object as_tensor = m.attr("as_tensor");
  nb::delattr(m, "as_tensor");  // else nanobind would chain the new function as an overload after the old one
  m.def(
      "as_tensor",
      [as_tensor](nb::handle data, nb::handle dtype, nb::handle device) -> nb::object {
        const NumPy* np = numpy_if_loaded();
        if (!np || !isinstance(data.ptr(), np->ndarray)) return as_tensor(data, dtype, device);
        Tensor t = from_numpy(data, /*warn_readonly=*/true, "as_tensor");
        const std::optional<ScalarType> dt = to_dtype(dtype);
        const std::optional<Device> dev = to_device(device);
        return nb::cast(to(t, dev.value_or(kCPU), dt.value_or(t.dtype())));
      },
      nb::arg("data").none(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
      nb::sig("def as_tensor(data: Any, dtype: dtype | None = None, device: device | None = None) -> Tensor"),
      kAsTensorDoc);
}

}  // namespace ember::py
