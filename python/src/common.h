// Shared helpers of the bindings: conversions between Python objects and ember's types, and
// argument parsing that accepts what PyTorch accepts (sizes as varargs or a sequence, dtype=float).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "ember/ops.h"
#include "ember/ops/memory_format.h"

namespace nb = nanobind;

// Note [One Python object per tensor]
// Returning a tensor to Python reuses its live wrapper when it has one (TensorImpl::pyobj), so
// `x.grad is x.grad`, in-place ops return `self`, and a Python subclass instance (Parameter) comes back
// as itself. A new wrapper that owns its Tensor records itself; its Tensor's destructor clears the record.
namespace nanobind::detail {
template <>
struct type_caster<ember::Tensor> : type_caster_base<ember::Tensor> {
  template <typename T>
  static handle from_cpp(T&& value, rv_policy policy, cleanup_list* cleanup) noexcept {
    const ember::Tensor* t;
    if constexpr (is_pointer_v<std::remove_reference_t<T>>)
      t = value;
    else
      t = &value;
    if (t && t->defined() && t->impl()->pyobj) {
      // rv_policy::none only looks up an existing instance (a new reference), never makes one.
      handle live = type_caster_base<ember::Tensor>::from_cpp(*t->impl()->pyobj, rv_policy::none, nullptr);
      if (live.is_valid()) return live;
    }
    const rv_policy owned = infer_policy<T>(policy);
    ember::TensorImpl* impl = t ? t->impl() : nullptr;  // before a move empties *t
    handle h = type_caster_base<ember::Tensor>::from_cpp(std::forward<T>(value), policy, cleanup);
    if (h.is_valid() && impl &&
        (owned == rv_policy::move || owned == rv_policy::copy || owned == rv_policy::take_ownership))
      impl->pyobj = nanobind::inst_ptr<ember::Tensor>(h);
    return h;
  }
};
}  // namespace nanobind::detail

namespace ember::py {

// Python-side dtype objects (ember.float32 ...): one singleton per ScalarType.
struct DType {
  ScalarType st;
};
nb::object dtype_object(ScalarType t);
std::optional<ScalarType> to_dtype(nb::handle h);  // None -> nullopt; TypeError on anything else
ScalarType to_dtype_required(nb::handle h, const char* fn);

std::optional<Device> to_device(nb::handle h);  // None, ember.device, "cuda:1", int (a cuda index)

// An argument that defaults to None (nanobind refuses None for an argument not marked .none()).
inline auto none_arg(const char* name) { return nb::arg(name).none() = nb::none(); }
// Issues a Python UserWarning from the caller's line (an error raised by a warnings filter propagates).
inline void warn(const std::string& msg) {
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 2) < 0) throw nb::python_error();
}

// Python's truth value of h; a raising __bool__ (a multi-element tensor) propagates as a Python error.
inline bool truthy(nb::handle h) {
  const int r = PyObject_IsTrue(h.ptr());
  if (r < 0) throw nb::python_error();
  return r != 0;
}
// The UTF-8 text of a str (raises the Python error for strings that have none, e.g. lone surrogates).
inline const char* utf8(nb::handle h) {
  const char* s = PyUnicode_AsUTF8(h.ptr());
  if (!s) throw nb::python_error();
  return s;
}

// Python number -> Scalar (bool, int, float, or a 1-element tensor); TypeError otherwise.
bool is_scalar(nb::handle h);
Scalar to_scalar(nb::handle h, const char* fn);
// Whether h is a complex number: Python's complex or a number-like that converts only to complex (numpy.complex64).
bool is_complex_number(nb::handle h);
inline nb::object complex_to_py(Complex<double> z) { return nb::steal(PyComplex_FromDoubles(z.re, z.im)); }
nb::object scalar_to_py(const Scalar& s);

// Sizes given as f(2, 3), f((2, 3)), f([2, 3]) or f(ember.Size([2, 3])); `first` skips leading args.
DimVector parse_size(const nb::args& args, size_t first, const char* fn);
// The size of a factory given as varargs (zeros(2, 3), zeros((2, 3))) or, as PyTorch also accepts, as the keyword
// `size` (zeros(size=(2, 3)), size_kw valid), not both.
DimVector size_arg(const nb::args& args, nb::handle size_kw, const char* fn);
DimVector to_int_list(nb::handle h, const char* fn, const char* what);
int64_t to_int(nb::handle h, const char* fn, const char* what);

// ember.Size objects (a tuple subclass defined in Python, filled here without calling Python code).
void set_size_type(nb::handle type);
nb::object make_size(IntArrayRef s);

// The device ember.set_default_device chose, if any (Note [Default device] in common.cpp).
std::optional<Device> default_device();

// ember.contiguous_format, channels_last, ...: None gives nullopt; anything else raises TypeError naming fn.
std::optional<MemoryFormat> to_memory_format(nb::handle h, const char* fn);

// Keyword arguments of factory functions.
struct FactoryArgs {
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  bool requires_grad = false;
  Generator* generator = nullptr;
  nb::handle out;
  bool pin_memory = false;
  std::optional<MemoryFormat> memory_format;
  TensorOptions options(ScalarType default_dtype) const;
  Tensor pinned(Tensor r) const;  // r, or a pinned copy of it with pin_memory=True
  TensorOptions options() const;  // dtype left unset
};
enum FactoryKw : unsigned { kDtype = 1, kDevice = 2, kRequiresGrad = 4, kGenerator = 8, kOut = 16, kLayout = 32 };
void parse_factory_kwargs(const nb::kwargs& kw, const char* fn, unsigned allowed, FactoryArgs& a,
                          std::initializer_list<std::pair<const char*, nb::handle*>> extra = {});

// Docstrings of Tensor methods bound from the same callable as a function (Note [Python surface],
// docs/architecture.md): the function's first line and "See :func:`ember.name`."; an in-place method's.
std::string method_doc(const char* function_doc, const char* name);
std::string inplace_doc(const char* name);

// ember._C._special, the C++ functions of ember.special (made by the first binding file that needs it).
nb::module_ special_module(nb::module_& m);
// The docstring of a unary op's row (ember/ops/unary.def), for the bindings of the ops with parameters.
const char* unary_doc(UnaryOp op);

// Writes into `out=` when given (resizing is not supported: shapes must match) or returns r.
nb::object finish_out(Tensor r, nb::handle out, const char* fn);

Tensor tensor_from_data(nb::handle data, std::optional<ScalarType> dtype, std::optional<Device> device);

void init_dtype(nb::module_& m);
void init_tensor(nb::module_& m);
void init_creation(nb::module_& m);
void init_random(nb::module_& m);
void init_indexing(nb::class_<Tensor>& cls);
void init_interop(nb::module_& m);  // NumPy and DLPack (interop.cpp)
void init_binary(nb::module_& m);
void init_unary(nb::module_& m);
void init_reduce(nb::module_& m);
void init_shape(nb::module_& m);      // dims and element order (shape.cpp)
void init_sort(nb::module_& m);       // sorting, selection, unique (sort.cpp)
void init_optim(nb::module_& m);      // optim.cpp: the fused optimizer steps
void init_serialize(nb::module_& m);  // serialize.cpp: ember's format and safetensors
void init_data(nb::module_& m);       // data.cpp: shared-memory tensors, the DataLoader's C++ parts
void init_vision(nb::module_& m);     // vision.cpp: image decoding and per-pixel transforms
void init_autograd(nb::module_& m);   // autograd.cpp
void init_cuda(nb::module_& m);       // cuda.cpp: ember.cuda, ember.backends
// nn.cpp: one init_nn_* per op family; m gets what PyTorch has at top level (torch.softmax), nn what it has in
// torch.nn.functional.
void init_nn(nb::module_& m, nb::module_& nn);
void init_tensor_autograd(nb::class_<Tensor>& cls);  // sorting, scans, and the remaining reductions (sort.cpp)
// Lets Python's garbage collector see a custom function's ctx through a tensor that is the only owner of that
// function's node (Note [Custom functions and the garbage collector], autograd.cpp).
int traverse_autograd(const Tensor& t, visitproc visit, void* arg);

// A tensor viewing the memory of a NumPy array or scalar of a dtype ember has (of a native, row-major copy
// when ember can't view its layout), or nullopt for anything else (interop.cpp).
std::optional<Tensor> numpy_to_tensor(nb::handle data);

}  // namespace ember::py
