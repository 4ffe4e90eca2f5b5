// __torch_dispatch__: the hook the C++ ops call while a dispatch mode or a class with __torch_dispatch__ exists
// (Note [Python dispatch] in ember/dispatch_hook.h), and the counter it is gated on.
#include <Python.h>

#include <utility>

#include "common.h"
#include "ember/dispatch_hook.h"

namespace ember::py {
namespace {

PyObject* g_dispatch = nullptr;  // ember.utils._python_dispatch._dispatch_from_cpp
PyObject* g_not_handled = nullptr;

nb::object to_py(const dispatch::Value& v) {
  return std::visit(
      [](const auto& x) -> nb::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return nb::none();
        else if constexpr (std::is_same_v<T, Scalar>)
          return scalar_to_py(x);
        else if constexpr (std::is_same_v<T, ScalarType>)
          return dtype_object(x);
        else if constexpr (std::is_same_v<T, std::vector<bool>>) {
          nb::list l;
          for (bool e : x) l.append(nb::bool_(e));
          return std::move(l);
        } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
          nb::list l;  // an undefined entry is None (a Tensor?[] argument: index's dims not indexed)
          for (const auto& e : x) l.append(e.defined() ? nb::cast(e) : nb::none());
          return std::move(l);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          nb::list l;
          for (const auto& e : x) l.append(nb::cast(e));
          return std::move(l);
        } else
          return nb::cast(x);
      },
      v);
}

Tensor to_tensor(nb::handle h) {
  if (h.is_none()) return Tensor();
  if (!nb::isinstance<Tensor>(h))
    throw nb::type_error(
        ("__torch_dispatch__ returned a " + std::string(Py_TYPE(h.ptr())->tp_name) + " where the op returns a Tensor")
            .c_str());
  return nb::cast<Tensor>(h);
}

std::optional<std::vector<Tensor>> hook(const char* op, std::vector<dispatch::Value>& args) {
  nb::gil_scoped_acquire gil;
  // Each level of a handler that calls its op on its own kind again re-enters here: Python's recursion limit stops it
  // with a RecursionError, as in PyTorch, before the C stack runs out.
  if (Py_EnterRecursiveCall(" while calling a Python object")) throw nb::python_error();
  struct Leave {
    ~Leave() { Py_LeaveRecursiveCall(); }
  } leave;
  nb::tuple a = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(args.size())));
  for (size_t i = 0; i < args.size(); ++i)
    PyTuple_SET_ITEM(a.ptr(), static_cast<Py_ssize_t>(i), to_py(args[i]).release().ptr());
  nb::object name = nb::steal(PyUnicode_FromString(op));
  nb::object r = nb::steal(PyObject_CallFunctionObjArgs(g_dispatch, name.ptr(), a.ptr(), nullptr));
  if (!r.is_valid()) throw nb::python_error();
  if (r.ptr() == g_not_handled) return std::nullopt;
  std::vector<Tensor> out;
  if (PyTuple_Check(r.ptr()) || PyList_Check(r.ptr())) {
    for (nb::handle h : r) out.push_back(to_tensor(h));
  } else {
    out.push_back(to_tensor(r));
  }
  return out;
}

// Note [Wrapper subclass identity]
// A wrapper subclass instance (Tensor._make_wrapper_subclass) is a meta tensor whose Python object carries the state
// (the tensors it wraps). ember's C++ side keeps tensors it has saved for backward, or gradients in flight, without
// their Python objects, and hands them back later as new plain objects. So that a handler still finds the wrapper,
// the storage of every wrapper gets a token (its data pointer: meta storages have none) and a deleter that tells
// Python when the storage goes; Python maps (token, geometry) to the class and the state, and rebuilds the wrapper
// around the plain tensor (_adopt: the same TensorImpl, so the autograd history is kept).
PyObject* g_storage_freed = nullptr;  // ember.utils._python_dispatch._wrapper_storage_freed

// Whether Python can run a callback (not before it starts or while it shuts down).
bool python_running() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

int64_t wrapper_mark(const Tensor& t) {
  StorageImpl* s = t.impl()->storage().get();
  EMBER_CHECK(t.device().type == DeviceType::Meta, "_wrapper_mark: expected a meta tensor, got ", t.device());
  if (s->data()) return reinterpret_cast<int64_t>(s->data());  // already marked (a view of a wrapper's storage)
  char* token = new char(0);
  s->set_external_data(token, [token] {
    if (g_storage_freed && python_running()) {
      nb::gil_scoped_acquire gil;
      PyObject* r = PyObject_CallFunction(g_storage_freed, "L",
                                          static_cast<long long>(reinterpret_cast<int64_t>(token)));
      if (r)
        Py_DECREF(r);
      else
        PyErr_Clear();  // a deleter cannot raise; the entry stays (it is never looked up again)
    }
    delete token;
  });
  return reinterpret_cast<int64_t>(token);
}

nb::object adopt(nb::handle cls, const Tensor& t) {
  PyTypeObject* tensor_type = reinterpret_cast<PyTypeObject*>(nb::type<Tensor>().ptr());
  if (!PyType_Check(cls.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), tensor_type))
    throw nb::type_error("_adopt: cls must be a subclass of Tensor");
  nb::object o = nb::inst_alloc(cls);
  new (nb::inst_ptr<Tensor>(o)) Tensor(t);
  nb::inst_mark_ready(o);
  Tensor* p = nb::inst_ptr<Tensor>(o);
  p->impl()->pyobj = p;  // this object is now the tensor's Python identity (Note [One Python object per tensor])
  return o;
}

}  // namespace

void init_python_dispatch(nb::module_& m) {
  m.def(
      "_set_python_dispatch_hook",
      [](nb::object fn, nb::object not_handled) {
        Py_XDECREF(g_dispatch);
        Py_XDECREF(g_not_handled);
        g_dispatch = fn.release().ptr();  // kept for the life of the process, as the op hook may run at any time
        g_not_handled = not_handled.release().ptr();
        dispatch::g_hook = hook;
      },
      "Installs ember.utils._python_dispatch's handler of the C++ ops' __torch_dispatch__ calls.");
  m.def(
      "_python_dispatch_enable", [](int delta) { return dispatch::g_enabled.fetch_add(delta) + delta; },
      "Adds delta to the count that turns the ops' __torch_dispatch__ check on (modes pushed, plus one once a class "
      "with __torch_dispatch__ exists); returns the new count.");
  m.def("_python_dispatch_enabled", [] { return dispatch::g_enabled.load(); });
  m.def("_wrapper_mark", &wrapper_mark,
        "Gives a wrapper subclass's meta storage its token (Note [Wrapper subclass identity]); returns it.");
  m.def(
      "_storage_token", [](const Tensor& t) { return reinterpret_cast<int64_t>(t.impl()->storage()->data()); },
      "A meta tensor's storage token (0 when it has none).");
  m.def("_adopt", &adopt, nb::arg("cls"), nb::arg("t"),
        "A `cls` object for t itself (the same TensorImpl and autograd history), which becomes t's Python identity.");
  m.def(
      "_tensor_is_ready", [](nb::handle o) { return nb::isinstance<Tensor>(o) && nb::inst_ready(o); },
      "Whether a Tensor (subclass) object holds its tensor yet (a subclass's __new__ may have made it already).");
  m.def(
      "_set_wrapper_recording", [](bool on) { return std::exchange(dispatch::t_wrapper_recording, on); },
      "Lets the meta kernels run on wrapper subclass tensors on this thread while a wrapper op records its autograd "
      "node (Note [Wrapper subclass safety]); returns the previous setting.");
  m.def(
      "_set_wrapper_storage_freed", [](nb::object fn) { g_storage_freed = fn.release().ptr(); },
      "Installs the function told when a wrapper's storage is freed.");
}

}  // namespace ember::py
