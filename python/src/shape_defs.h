// Binding helpers shared by the bindings of the shape, indexing, reduction, sorting and search ops: tensor sequences,
// optional arguments, and defining a function and its Tensor method (or in-place method) from one callable, each
// with its Python signature and docstring (Note [Python surface], docs/architecture.md).
#pragma once

#include <new>

#include <string>
#include <utility>
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

// Note [Many tensors back to Python]
// nanobind records each new wrapper in a hash map from code that is noexcept, so a std::bad_alloc there (a rehash,
// with a million views from unbind near the address-space limit) ends the process. Before making many wrappers,
// the memory they and the map's growth need (about 256 bytes each, measured: 1M wrappers of an unbind) is asked for
// once and given back: when it is not there, the call raises MemoryError instead.
inline void reserve_for_wrappers(size_t n) {
  if (n < 1024) return;
  void* p = ::operator new(n * 256, std::nothrow);  // the new_handler first releases the CPU cache
  if (!p) throw std::bad_alloc();
  ::operator delete(p);
}

inline nb::tuple to_tuple(const std::vector<Tensor>& v) {
  reserve_for_wrappers(v.size());
  nb::tuple out = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(v.size())));
  if (!out.is_valid()) throw nb::python_error();
  for (size_t i = 0; i < v.size(); ++i)
    PyTuple_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), nb::cast(v[i]).release().ptr());
  return out;
}

inline bool is_seq(nb::handle h) { return PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()); }

// An int or a sequence of ints.
inline DimVector int_or_ints(nb::handle h, const char* fn, const char* what) {
  if (is_seq(h)) return to_int_list(h, fn, what);
  return {to_int(h, fn, what)};
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

// A named-tuple type of torch.return_types with the fields (first, second), appended to the module's list `attr`
// (_return_types, _sort_return_types: ember.return_types lists them), which keeps it alive.
inline nb::handle return_type(nb::module_& m, const char* attr, const char* name, const char* first = "values",
                              const char* second = "indices") {
  if (!nb::hasattr(m, attr)) m.attr(attr) = nb::list();
  nb::object t = nb::module_::import_("collections").attr("namedtuple")(name, nb::make_tuple(first, second));
  m.attr(attr).attr("append")(t);
  return t;
}

// r as a `type` named tuple (a plain tuple for an invalid handle); with out=(a, b), the results are written there
// and the result holds those tensors.
inline nb::object pair_result(nb::handle type, const char* name, std::pair<Tensor, Tensor> r, nb::handle out) {
  auto make = [type](nb::handle a, nb::handle b) {
    return type.is_valid() ? type(a, b) : nb::object(nb::make_tuple(a, b));
  };
  if (!out.is_valid() || out.is_none()) return make(nb::cast(std::move(r.first)), nb::cast(std::move(r.second)));
  const bool ok = is_seq(out) && PySequence_Size(out.ptr()) == 2;
  nb::object a = ok ? nb::steal(PySequence_GetItem(out.ptr(), 0)) : nb::none();
  nb::object b = ok ? nb::steal(PySequence_GetItem(out.ptr(), 1)) : nb::none();
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(a) && nb::isinstance<Tensor>(b), name,
                   "(): out= must be a tuple of two tensors");
  return make(finish_out(std::move(r.first), a, name), finish_out(std::move(r.second), b, name));
}

// The Python signatures of a function and its method from one description: the parameters after the tensor
// (`input` for the function, `self` for the method) and the return annotation.
struct Sig {
  const char* params;  // "dim: int = 0, keepdim: bool = False"; "" for none
  const char* ret = "Tensor";

  std::string text(const char* name, const char* first) const {
    return std::string("def ") + name + "(" + first + (*params ? ", " : "") + params + ") -> " + ret;
  }
};

// Binds scope.name (a function, or with nb::is_method() a method) from f and the annotations in `extra` (nb::arg,
// nb::sig, the docstring), replacing an earlier binding of that name: nanobind would add a new definition in the
// same scope to the existing one as an overload. nb::name comes first: an nb::sig in `extra` then gives the Python
// signature, and the name still sets __name__ and __qualname__ (which nb::sig alone leaves empty).
template <class F, class... Extra>
void def_fn(nb::handle scope, const char* name, F&& f, const Extra&... extra) {
  if (PyObject_HasAttrString(scope.ptr(), name) && PyObject_DelAttrString(scope.ptr(), name) < 0)
    throw nb::python_error();
  nb::cpp_function_def(std::forward<F>(f), nb::scope(scope), nb::name(name), extra...);
}

// Binds the method Tensor.name (see def_fn).
template <class F, class... Extra>
void def_method(nb::handle cls, const char* name, F&& f, const Extra&... extra) {
  def_fn(cls, name, std::forward<F>(f), nb::is_method(), extra...);
}

// Tensor.name(*ints) and Tensor.name(kw=ints): PyTorch's methods take sizes and dims either way (an overload per
// keyword spelling; positional calls take the first).
template <class F>
void def_ints_method(nb::handle cls, const char* name, const char* var, std::initializer_list<const char*> kws, F f,
                     const char* doc) {
  def_method(
      cls, name, [f, name](const Tensor& t, nb::args ints) { return f(t, parse_size(ints, 0, name)); },
      nb::sig((std::string("def ") + name + "(self, *" + var + ": int) -> Tensor").c_str()), doc);
  for (const char* kw : kws)
    nb::cpp_function_def(
        [f, name, kw](const Tensor& t, nb::handle ints) { return f(t, int_or_ints(ints, name, kw)); }, nb::scope(cls),
        nb::is_method(), nb::arg(kw), doc,
        nb::sig((std::string("def ") + name + "(self, " + kw + ": int | Sequence[int]) -> Tensor").c_str()));
}

// Defines ember.name(input, ...) and Tensor.name(...) from one function taking the tensor first; doc is the
// function's docstring, the method gets method_doc(doc, name). `extra` names the parameters after the tensor.
template <class F, class... Extra>
void def_both(nb::module_& m, nb::handle cls, const char* name, F f, const char* doc, const Extra&... extra) {
  def_fn(m, name, f, nb::arg("input"), extra..., doc);
  def_fn(cls, name, f, nb::is_method(), extra..., method_doc(doc, name).c_str());
}

// As above, with the Python signatures written out (for parameters that nanobind would show as `object`).
template <class F, class... Extra>
void def_both(nb::module_& m, nb::handle cls, const char* name, const Sig& sig, F f, const char* doc,
              const Extra&... extra) {
  def_fn(m, name, f, nb::sig(sig.text(name, "input: Tensor").c_str()), nb::arg("input"), extra..., doc);
  def_fn(cls, name, f, nb::sig(sig.text(name, "self").c_str()), nb::is_method(), extra...,
         method_doc(doc, name).c_str());
}

// Tensor.name_(...): runs f(self, ...) and returns self, documented by inplace_doc(name without the "_").
template <class... A, class F, class... Extra>
void def_inplace(nb::handle cls, const char* name, F f, const Extra&... extra) {
  std::string base(name);
  base.pop_back();
  def_fn(
      cls, name,
      [f](nb::handle self, A... a) -> nb::typed<nb::object, Tensor> {
        f(nb::cast<const Tensor&>(self), a...);
        return nb::borrow(self);
      },
      nb::is_method(), extra..., inplace_doc(base.c_str()).c_str());
}

// As above, with the Python signature's parameters after `self` written out.
template <class... A, class F, class... Extra>
void def_inplace(nb::handle cls, const char* name, const Sig& sig, F f, const Extra&... extra) {
  std::string base(name);
  base.pop_back();
  def_fn(
      cls, name,
      [f](nb::handle self, A... a) -> nb::typed<nb::object, Tensor> {
        f(nb::cast<const Tensor&>(self), a...);
        return nb::borrow(self);
      },
      nb::sig(sig.text(name, "self").c_str()), nb::is_method(), extra..., inplace_doc(base.c_str()).c_str());
}

}  // namespace ember::py
