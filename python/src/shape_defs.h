// Binding helpers shared by the shape-op bindings (shape.cpp, shape_more.cpp, search.cpp): tensor sequences,
// optional arguments, and defining a function and its Tensor method (or in-place method) from one callable.
#pragma once

#include <vector>

#include "common.h"

namespace ember::py {

// A tuple or list of tensors (TypeError naming fn otherwise).
inline std::vector<Tensor> tensor_list(nb::handle h, const char* fn) {
  EMBER_CHECK_TYPE(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()), fn,
                   "(): argument 'tensors' must be tuple of Tensors, not ", nb::inst_name(h).c_str());
  std::vector<Tensor> r;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(h.ptr());
  PyObject** items = PySequence_Fast_ITEMS(h.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::handle item(items[i]);
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(item), fn, "(): expected Tensor as element ", i,
                     " in argument 'tensors', but got ", nb::inst_name(item).c_str());
    r.push_back(nb::cast<const Tensor&>(item));
  }
  return r;
}

// f(*tensors) or f(tensors) (a single tuple or list).
inline std::vector<Tensor> tensor_varargs(const nb::args& args, const char* fn) {
  if (args.size() == 1 && !nb::isinstance<Tensor>(args[0])) return tensor_list(args[0], fn);
  return tensor_list(args, fn);
}

inline nb::tuple to_tuple(const std::vector<Tensor>& v) {
  nb::list l;
  for (const Tensor& t : v) l.append(nb::cast(t));
  return nb::tuple(l);
}

inline std::optional<int64_t> opt_int(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return std::nullopt;
  return to_int(h, fn, what);
}

inline Tensor opt_tensor(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), fn, "(): argument '", what, "' must be Tensor, not ",
                   nb::inst_name(h).c_str());
  return nb::cast<Tensor>(h);
}

// Defines ember.name(input, ...) and Tensor.name(...) from one function taking the tensor first.
template <class F, class... Extra>
void def_both(nb::module_& m, nb::handle cls, const char* name, F f, const Extra&... extra) {
  m.attr(name) = nb::cpp_function(f, nb::arg("input"), extra...);
  cls.attr(name) = nb::cpp_function(f, nb::is_method(), extra...);
}

// Tensor.name_(...): runs f(self, ...) and returns self.
template <class... A, class F, class... Extra>
void def_inplace(nb::handle cls, const char* name, F f, const Extra&... extra) {
  cls.attr(name) = nb::cpp_function(
      [f](nb::handle self, A... a) {
        f(nb::cast<const Tensor&>(self), a...);
        return nb::borrow(self);
      },
      nb::is_method(), extra...);
}

}  // namespace ember::py
