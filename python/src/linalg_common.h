// Helpers shared by the linear-algebra bindings (linalg_products.cpp, linalg_decompositions.cpp,
// linalg_solvers.cpp, linalg_functions.cpp): the module ember._C._linalg and its __all__, the namedtuple result
// types (torch.return_types), and out= for the functions that return several tensors.
#pragma once

#include <initializer_list>
#include <string>

#include "common.h"

namespace ember::py {

// ember._C._linalg, the functions behind ember.linalg (python/ember/linalg.py re-exports it); the first call makes
// it, later ones return it.
inline nb::module_ linalg_module(nb::module_& m) {
  return m.def_submodule("_linalg", "The linear algebra functions behind ember.linalg.");
}

// Sets ember._C._linalg.__all__ to the public names bound in it so far. Every init_linalg_* ends with it, so the
// list is complete after the last one, whatever their order.
inline void publish_linalg(nb::module_& la) {
  nb::list names;
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  PyObject* dict = PyModule_GetDict(la.ptr());
  while (PyDict_Next(dict, &pos, &key, &value))
    if (PyUnicode_Check(key) && utf8(key)[0] != '_' && !PyModule_Check(value)) names.append(nb::handle(key));
  if (PyList_Sort(names.ptr()) < 0) throw nb::python_error();
  la.attr("__all__") = names;
}

// Makes the namedtuple type torch.return_types.<name>; ember._C._linalg._return_types keeps it alive and
// ember.return_types exports it.
inline nb::handle return_type(nb::module_& la, const char* name, std::initializer_list<const char*> fields) {
  if (!nb::hasattr(la, "_return_types")) la.attr("_return_types") = nb::list();
  nb::list f;
  for (const char* field : fields) f.append(field);
  nb::object type = nb::module_::import_("collections").attr("namedtuple")(name, nb::tuple(f));
  nb::borrow<nb::list>(la.attr("_return_types")).append(type);
  return type;
}

// An instance of `type` (a namedtuple type, or tuple itself) holding the items.
inline nb::object instance_of(nb::handle type, const nb::list& items) {
  if (type.is(reinterpret_cast<PyObject*>(&PyTuple_Type))) return nb::tuple(items);
  PyObject* r = PyObject_CallObject(type.ptr(), nb::tuple(items).ptr());
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

inline nb::object tuple_of(nb::handle type, std::initializer_list<Tensor> ts) {
  nb::list l;
  for (const Tensor& t : ts) l.append(nb::cast(t));
  return instance_of(type, l);
}

// tuple_of(type, ts); with out= (a tuple of as many tensors of the results' shapes and dtypes) the results are
// written into out's tensors, which the returned tuple then holds.
inline nb::object results(nb::handle type, std::initializer_list<Tensor> ts, nb::handle out, const char* fn) {
  if (!out.is_valid() || out.is_none()) return tuple_of(type, ts);
  const Py_ssize_t n = static_cast<Py_ssize_t>(ts.size());
  EMBER_CHECK_TYPE((PyTuple_Check(out.ptr()) || PyList_Check(out.ptr())) && PySequence_Size(out.ptr()) == n, fn,
                   "(): out= must be a tuple of ", n, " tensors");
  nb::list l;
  Py_ssize_t i = 0;
  for (const Tensor& t : ts) {
    nb::object o = nb::steal(PySequence_GetItem(out.ptr(), i++));
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(o), fn, "(): out= must be a tuple of ", n, " tensors");
    l.append(finish_out(t, o, fn));
  }
  return instance_of(type, l);
}

// The docstring of an overload that only renames parameters to the names PyTorch's argument parser gives them
// ("``input`` for ``A``"): help() lists it after the documented form.
inline std::string parsed_names_doc(const std::string& renames) {
  return "The same, with the parameter names of PyTorch's argument parser (" + renames + ").";
}

// torch.linalg documents the first parameter of many functions under one name (A) while PyTorch's argument parser
// knows it by another (input), so PyTorch accepts only the latter as a keyword; the older top-level functions have
// the same split (torch.cholesky_inverse(L) / input=). ember accepts both: the documented form is the first overload
// (inspect and help show it), the parser's the second. `rest_sig` is the signature after the first parameter, as in
// ", *, upper: bool = False) -> Tensor", and `rest` the nb::arg annotations after the first.
template <class F, class... Extra>
void def_aliased(nb::module_& mod, const char* name, const char* documented, const char* parsed, const char* doc,
                 const char* rest_sig, F f, const Extra&... rest) {
  const std::string head = std::string("def ") + name + "(";
  const std::string documented_sig = head + documented + ": Tensor" + rest_sig;
  const std::string parsed_sig = head + parsed + ": Tensor" + rest_sig;
  mod.def(name, f, nb::arg(documented), rest..., nb::sig(documented_sig.c_str()), doc);
  const std::string alias = parsed_names_doc(std::string("``") + parsed + "`` for ``" + documented + "``");
  mod.def(name, f, nb::arg(parsed), rest..., nb::sig(parsed_sig.c_str()), alias.c_str());
}

}  // namespace ember::py
