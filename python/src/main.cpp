// The one extension module, ember._C. Each area registers itself through an init_* function.
#include "common.h"
#include "ember/allocator.h"
#include "ember/determinism.h"
#include "ember/parallel.h"

namespace ember::py {

void init_amp(nb::module_& m);              // amp.cpp: autocast state, GradScaler's ops
void init_search(nb::module_& m);           // search.cpp: searchsorted, bucketize, isin
void init_join_split(nb::module_& m);       // join_split.cpp: cat, the stacks, split, chunk, tensor_split, ...
void init_gather_scatter(nb::module_& m);   // gather_scatter.cpp: gather, scatter, index_*, take, put, *_scatter
void init_masked(nb::module_& m);           // masked.cpp: masked_*, nonzero, argwhere
void init_diag(nb::module_& m);             // diag.cpp: diag, diag_embed, trace, tril/triu and their indices
void init_products(nb::module_& m);         // products.cpp: cross, kron, block_diag, cartesian_prod, combinations
void init_statistics(nb::module_& m);       // statistics.cpp: cov, quantile, diff, trapezoid, vander, histc, bincount
void init_norms(nb::module_& m);            // norms.cpp: norm, renorm, dist, linalg.vector_norm
void init_scan(nb::module_& m);             // scan.cpp: cumsum, cumprod, cummax, cummin, logcumsumexp
void init_predicates(nb::module_& m);       // predicates.cpp: equal, isclose, allclose, is_same_size, ...
void init_like(nb::module_& m);             // like.cpp: type_as, new_empty_strided, fill
void init_unary_forms(nb::module_& m);      // unary_forms.cpp: clamp_min, clamp_max, positive
void init_special(nb::module_& m);          // special.cpp: the special functions with parameters, frexp, the windows
void init_linalg_products(nb::module_& m);  // linalg_products.cpp: matmul, mm, ..., einsum, linalg.multi_dot
void init_linalg_decompositions(nb::module_& m);  // linalg_decompositions.cpp: cholesky, qr, svd, eigh, lu, ldl
void init_linalg_solvers(nb::module_& m);         // linalg_solvers.cpp: solve, lstsq, inv, pinv, ..., LinAlgError
void init_linalg_functions(nb::module_& m);       // linalg_functions.cpp: det, norms, cond, rank, matrix_power/exp
void init_ternary(nb::module_& m);                // ternary.cpp: where, lerp, addcmul, addcdiv (the ternary op table)
void init_complex(nb::module_& m);                // complex.cpp: view_as_real/complex, real, imag, complex, polar, conj
void init_profiler(nb::module_& m);               // profiler.cpp: the event recorder behind ember.profiler
void init_distributed(nb::module_& m);            // distributed.cpp: stores, process groups, Work (ember.distributed)
void init_fft(nb::module_& m);                    // fft.cpp: the internal spectral ops _fft_c2c, _fft_r2c, _fft_c2r
void init_signal(nb::module_& m);                 // signal.cpp: ember._C._signal, torch.signal.windows
void init_unravel(nb::module_& m);                // unravel.cpp: unravel_index
void init_gradient(nb::module_& m);               // gradient.cpp: gradient
void init_torch_function(nb::module_& m);         // torch_function.cpp: __torch_function__, as_subclass, the mode stack
void init_python_dispatch(nb::module_& m);        // python_dispatch.cpp: the C++ ops' __torch_dispatch__ hook

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
  m.def("set_num_threads", &set_num_threads, nb::arg("int"),
        "Sets the number of threads ember uses to run an operation on the CPU (its intra-op thread pool).\n\n"
        "Args:\n    int (int): the number of threads, at least 1.");
  m.def("get_num_threads", &get_num_threads,
        "Returns the number of threads ember uses to run an operation on the CPU (its intra-op thread pool).");
  m.def("_expected_threads", &expected_threads,
        "The threads a job posted now can expect to run on (expected_threads in ember/parallel.h).");
  m.def("_set_expected_threads", &detail::set_expected_threads, nb::arg("n"),
        "Tests: the threads ember's ops expect to run on (expected_threads in ember/parallel.h), 0 to measure again.");
  m.def("_cpu_memory_stats", [] { return stats_dict(cpu_allocator()->stats()); });
  m.def("_cpu_reset_peak_memory_stats", [] { cpu_allocator()->reset_peak_stats(); });
  m.def("_cpu_empty_cache", [] { cpu_allocator()->empty_cache(); });
}

// Note [Named bindings]
// nanobind names a function's errors after its name: one made with nb::cpp_function(f, ...) and no nb::name(...)
// has none, and a wrong call reads "(): incompatible function arguments" (Tensor.__add__ did). m.def and
// nb::cpp_function_def(..., nb::name(...)) name theirs; a function assigned with `cls.attr(name) = nb::cpp_function(`
// must pass nb::name(name) itself. test_hardening_sizes.py::test_every_bound_function_has_a_name checks them all.

// Note [Signatures of C++ functions]
// inspect.signature (and so help(), IDEs and documentation tools) reads `__signature__`; nanobind's function types
// describe a function only in `__nb_signature__`. A lazily evaluated `__signature__` property on those three types
// (functions, methods, bound methods) turns the latter into the former (python/ember/_signatures.py), so every
// binding's `nb::sig` or `nb::arg` names become its Python signature at no cost per call. The types are immutable to
// Python code, so the property goes into their dictionaries from here.
void install_signatures(nb::module_& m) {
  nb::object property = nb::module_::import_("builtins").attr("property");
  auto put = [&](nb::handle type, const char* name, nb::handle value) {
    PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(type.ptr());
    if (PyDict_GetItemString(tp->tp_dict, name)) return;  // the type has it (a method type's __get__)
    if (PyDict_SetItemString(tp->tp_dict, name, value.ptr()) < 0) throw nb::python_error();
    PyType_Modified(tp);
  };
  auto signature = [&](nb::handle type, const char* getter) {
    nb::object fget = nb::cpp_function(
        [getter](nb::handle f) { return nb::module_::import_("ember._signatures").attr(getter)(f); });
    put(type, "__signature__", property(fget));
    // A `__get__` in the dictionary (not in the type's slot, so attribute lookup and binding are unchanged: a function
    // stored on a class stays unbound, as a builtin does) makes inspect.isroutine true, so that help() and pydoc
    // document the function as a routine with its signature, as they do PyTorch's builtins.
    put(type, "__get__",
        nb::cpp_function([](nb::handle self, nb::handle, nb::handle) { return nb::borrow(self); }, nb::arg("self"),
                         nb::arg("instance").none(), nb::arg("owner").none() = nb::none()));
  };
  nb::handle tensor = nb::type<Tensor>();
  signature(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(m.attr("get_num_threads").ptr()))), "function_signature");
  nb::object method = tensor.attr("__dict__")["dim"];
  signature(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(method.ptr()))), "function_signature");
  nb::object bound = method.attr("__get__")(nb::int_(0), tensor);  // any object: only its type is used
  signature(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(bound.ptr()))), "bound_signature");
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
  nb::exception<ember::OutOfMemoryError> oom(m, "OutOfMemoryError", PyExc_RuntimeError);
  oom.attr("__doc__") =
      "Raised when a device or the host runs out of memory for a tensor (a RuntimeError, as "
      "torch.OutOfMemoryError).\n\nThe message names the allocation's size and the device's "
      "allocator statistics; ember.cuda.empty_cache() releases the caching allocator's unused "
      "blocks.";
  nb::module_ inspect = nb::module_::import_("inspect");  // imported by ember's Python modules anyway
  nb::object parameter = inspect.attr("Parameter");
  oom.attr("__signature__") = inspect.attr("Signature")(
      nb::make_tuple(parameter("args", parameter.attr("VAR_POSITIONAL"))));
  init_dtype(m);
  init_tensor(m);
  init_creation(m);
  init_random(m);
  init_interop(m);
  init_binary(m);
  init_unary(m);
  init_special(m);
  init_reduce(m);
  init_ternary(m);
  init_shape(m);
  init_join_split(m);
  init_gather_scatter(m);
  init_masked(m);
  init_diag(m);
  init_products(m);
  init_statistics(m);
  init_norms(m);
  init_scan(m);
  init_sort(m);
  init_predicates(m);
  init_like(m);
  init_unary_forms(m);  // after init_unary: replaces its clamp_min/clamp_max
  init_complex(m);
  init_backend(m);
  init_cuda(m);
  init_autograd(m);
  init_profiler(m);
  init_amp(m);
  init_search(m);
  init_optim(m);
  init_serialize(m);
  init_data(m);
  init_vision(m);
  init_distributed(m);
  // ember.nn.functional's ops live in ember._C._nn (python/ember/nn/functional.py exports them).
  nb::module_ nn = m.def_submodule("_nn", "the functional ops behind ember.nn.functional");
  init_nn(m, nn);
  init_linalg_products(m);
  init_linalg_decompositions(m);
  init_linalg_solvers(m);  // registers LinAlgError after the generic translator, so it is tried first
  init_linalg_functions(m);
  init_fft(m);
  init_signal(m);
  init_unravel(m);
  init_gradient(m);
  install_signatures(m);
  init_torch_function(m);
  init_python_dispatch(m);
  export_all(m);  // last: every name is bound by now
}
