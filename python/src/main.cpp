// The one extension module, ember._C. Each area registers itself through an init_* function.
#include "common.h"
#include "ember/allocator.h"
#include "ember/determinism.h"
#include "ember/parallel.h"

namespace ember::py {

void init_amp(nb::module_& m);  // amp.cpp: autocast state, GradScaler's ops
void init_search(nb::module_& m);  // search.cpp: searchsorted, bucketize, isin
void init_shape_more(nb::module_& m);  // shape_more.cpp: the diag family, splits, stacks, statistics
void init_special(nb::module_& m);  // special.cpp: the special functions with parameters, frexp, the windows
void init_ternary(nb::module_& m);  // ternary.cpp: where, lerp, addcmul, addcdiv (the ternary op table)
void init_linalg_more(nb::module_& m);  // linalg_more.cpp: the LU family, matrix functions, LinAlgError
void init_profiler(nb::module_& m);  // profiler.cpp: the event recorder behind ember.profiler
void init_distributed(nb::module_& m);  // distributed.cpp: stores, process groups, Work (ember.distributed)

namespace {

nb::dict stats_dict(const MemoryStats& s) {
  nb::dict d;
  d["allocated_bytes"] = s.allocated;
  d["peak_allocated_bytes"] = s.peak_allocated;
  d["reserved_bytes"] = s.reserved;
  d["peak_reserved_bytes"] = s.peak_reserved;
  d["num_allocs"] = s.num_allocs;
  d["num_frees"] = s.num_frees;
  d["num_sys_allocs"] = s.num_sys_allocs;
  d["num_sys_frees"] = s.num_sys_frees;
  return d;
}

// Note [Deterministic algorithms]: warn_only's message as a Python UserWarning.
void warn_not_deterministic(const std::string& msg) {
  nb::gil_scoped_acquire g;
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw nb::python_error();
}

void init_backend(nb::module_& m) {
  set_determinism_warning_handler(&warn_not_deterministic);
  m.def("_set_deterministic_algorithms", &set_deterministic_algorithms, nb::arg("mode"), nb::arg("warn_only") = false);
  m.def("_get_deterministic_algorithms", &deterministic_algorithms);
  m.def("_get_deterministic_algorithms_warn_only", &deterministic_algorithms_warn_only);
  m.def("_alert_not_deterministic", [](const std::string& op) { alert_not_deterministic(op); });
  m.def("set_num_threads", &set_num_threads, nb::arg("int"));
  m.def("get_num_threads", &get_num_threads);
  m.def("_cpu_memory_stats", [] { return stats_dict(cpu_allocator()->stats()); });
  m.def("_cpu_reset_peak_memory_stats", [] { cpu_allocator()->reset_peak_stats(); });
  m.def("_cpu_empty_cache", [] { cpu_allocator()->empty_cache(); });
}

// Note [Signatures of C++ functions]
// inspect.signature (and so help(), IDEs and documentation tools) reads `__signature__`; nanobind's function types
// describe a function only in `__nb_signature__`. A lazily evaluated `__signature__` property on those three types
// (functions, methods, bound methods) turns the latter into the former (python/ember/_signatures.py), so every
// binding's `nb::sig` or `nb::arg` names become its Python signature at no cost per call. The types are immutable to
// Python code, so the property goes into their dictionaries from here.
void install_signatures(nb::module_& m) {
  nb::object property = nb::module_::import_("builtins").attr("property");
  auto put = [&](nb::handle type, const char* getter) {
    nb::object fget = nb::cpp_function([getter](nb::handle f) {
      return nb::module_::import_("ember._signatures").attr(getter)(f);
    });
    PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(type.ptr());
    if (PyDict_SetItemString(tp->tp_dict, "__signature__", property(fget).ptr()) < 0) throw nb::python_error();
    PyType_Modified(tp);
  };
  nb::handle tensor = nb::type<Tensor>();
  put(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(m.attr("get_num_threads").ptr()))), "function_signature");
  nb::object method = tensor.attr("__dict__")["dim"];
  put(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(method.ptr()))), "function_signature");
  nb::object bound = method.attr("__get__")(nb::int_(0), tensor);  // any object: only its type is used
  put(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(bound.ptr()))), "bound_signature");
}

// Note [__all__ of the extension modules]
// ember._C and each of its submodules (_nn, _linalg, _special, ...) list their public names (every name bound in them
// that does not start with an underscore and is not a submodule: functions, types, the dtypes) in `__all__`, so that
// the Python namespaces re-export them with `from ._C._nn import *` and name them in their own `__all__` (Note
// [Python surface] in docs/architecture.md). Called once, at the end of the module's initialisation, it walks the
// submodules itself: a new one needs no call of its own.
void export_all(nb::module_ m) {
  const std::string prefix = nb::cast<std::string>(m.attr("__name__")) + ".";
  nb::list names;
  nb::dict dict = nb::borrow<nb::dict>(m.attr("__dict__"));
  for (auto [key, value] : dict) {
    const std::string name = nb::cast<std::string>(key);
    if (PyModule_Check(value.ptr())) {
      const std::string sub = nb::cast<std::string>(value.attr("__name__"));
      if (sub.rfind(prefix, 0) == 0) export_all(nb::borrow<nb::module_>(value));  // its own, not an imported one
      continue;
    }
    if (!name.empty() && name[0] != '_') names.append(key);
  }
  names.sort();
  m.attr("__all__") = names;
}

}  // namespace
}  // namespace ember::py

NB_MODULE(_C, m) {
  using namespace ember::py;
  // At interpreter exit, tensors in module globals may still be held from C++ (a graph node of a custom
  // Function holds its ctx, whose class's globals hold the tensor); Python frees them after nanobind's
  // leak check would run, so its warnings would be false alarms.
  nb::set_leak_warnings(false);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ember::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ember::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ember::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ember::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const ember::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  // Registered after the generic translator so that it is tried first.
  nb::exception<ember::OutOfMemoryError>(m, "OutOfMemoryError", PyExc_RuntimeError);
  init_dtype(m);
  init_tensor(m);
  init_creation(m);
  init_random(m);
  init_interop(m);
  init_binary(m);
  init_unary(m);
  init_special(m);
  init_reduce(m);
  init_ternary(m);  // before init_shape, which wraps its ember.where
  init_shape(m);
  init_sort(m);
  init_backend(m);
  init_cuda(m);
  init_autograd(m);
  init_profiler(m);
  init_amp(m);
  init_search(m);
  init_shape_more(m);
  init_optim(m);
  init_serialize(m);
  init_data(m);
  init_vision(m);
  init_distributed(m);
  // ember.nn.functional's ops live in ember._C._nn (python/ember/nn/functional.py exports them).
  nb::module_ nn = m.def_submodule("_nn", "the functional ops behind ember.nn.functional");
  init_nn(m, nn);
  init_linalg_more(m);  // after init_nn (which makes ember._C._linalg); its error type is tried first
  install_signatures(m);
  export_all(m);  // last: every name is bound by now
}
