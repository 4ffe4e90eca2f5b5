// __torch_dispatch__: the hook the C++ ops call while a dispatch mode or a class with __torch_dispatch__ exists
// (Note [Python dispatch] in ember/dispatch_hook.h), and the counter it is gated on.
#include <Python.h>

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
        else if constexpr (std::is_same_v<T, std::vector<Tensor>> || std::is_same_v<T, std::vector<int64_t>>) {
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
}

}  // namespace ember::py
