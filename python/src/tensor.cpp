// ember.Tensor: metadata, views, conversions. Methods that take a variable number of ints (view,
// reshape, permute, expand ...) accept them as varargs or as one sequence, as PyTorch does.
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/autograd/node.h"
#include "ember/cuda.h"
#include "ember/format.h"

namespace ember::py {

namespace {

nb::object tolist_rec(const char* p, ScalarType st, IntArrayRef sizes, IntArrayRef strides, size_t d) {
  const int64_t es = static_cast<int64_t>(element_size(st));
  if (d == sizes.size()) {
    return dispatch_all(st, [&](auto v) -> nb::object {
      using T = decltype(v);
      T x;
      std::memcpy(&x, p, sizeof(T));
      if constexpr (std::is_same_v<T, bool>)
        return nb::bool_(x);
      else if constexpr (std::is_integral_v<T>)
        return nb::int_(static_cast<int64_t>(x));
      else
        return nb::float_(static_cast<double>(x));
    });
  }
  nb::list l;
  for (int64_t i = 0; i < sizes[d]; ++i) l.append(tolist_rec(p + i * strides[d] * es, st, sizes, strides, d + 1));
  return l;
}

// r in the memory format a conversion asked for (none, or preserve_format: as it is).
Tensor in_format(const Tensor& r, std::optional<MemoryFormat> f) {
  return f && *f != MemoryFormat::Preserve ? contiguous(r, *f) : r;
}

// .to(...) accepts: to(dtype), to(device, dtype=None), to(tensor), plus keywords dtype, device,
// non_blocking, copy, memory_format.
nb::object to_method(nb::handle py_self, nb::args args, nb::kwargs kw) {
  const Tensor& self = nb::cast<const Tensor&>(py_self);
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  bool copy = false, non_blocking = false;
  std::optional<MemoryFormat> format;
  for (nb::handle a : args) {
    if (nb::isinstance<DType>(a) || a.ptr() == (PyObject*)&PyFloat_Type || a.ptr() == (PyObject*)&PyLong_Type ||
        a.ptr() == (PyObject*)&PyBool_Type)
      dtype = to_dtype(a);
    else if (nb::isinstance<Tensor>(a)) {
      const Tensor& o = nb::cast<const Tensor&>(a);
      dtype = o.dtype();
      device = o.device();
    } else if (!a.is_none())
      device = to_device(a);
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(kw.ptr(), &pos, &key, &value)) {
    std::string_view k = utf8(key);
    if (k == "dtype") dtype = to_dtype(value);
    else if (k == "device") device = to_device(value);
    else if (k == "copy") copy = truthy(value);
    else if (k == "non_blocking") non_blocking = truthy(value);
    else if (k == "memory_format") format = to_memory_format(value, "to");
    else fail<TypeError>("to() got an unexpected keyword argument '", k, "'");
  }
  if (device) return nb::cast(in_format(to(self, *device, dtype, copy, non_blocking), format));
  return nb::cast(in_format(to(self, dtype.value_or(self.dtype()), copy), format));
}

DimVector dims_arg(const nb::args& args, const char* fn) { return parse_size(args, 0, fn); }

}  // namespace

void init_tensor(nb::module_& m) {
  auto cls = nb::class_<Tensor>(m, "Tensor", nb::dynamic_attr());
  init_tensor_autograd(cls);
  cls.def_prop_ro("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def_prop_ro("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_prop_ro("device", [](const Tensor& t) { return t.device(); })
      .def_prop_ro("ndim", &Tensor::dim)
      .def_prop_ro("is_cuda", &Tensor::is_cuda)
      .def_prop_ro("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def_prop_ro("itemsize", &Tensor::element_size)
      .def_prop_ro("nbytes", &Tensor::nbytes)
      .def_prop_ro("is_leaf", &Tensor::is_leaf)
      .def_prop_ro("_version", &Tensor::version)
      .def_prop_rw("requires_grad", &Tensor::requires_grad,
                   [](const Tensor& t, bool r) { t.set_requires_grad(r); })
      .def_prop_rw("grad", [](const Tensor& t) -> nb::object {
                     Tensor g = t.grad();
                     return g.defined() ? nb::cast(g) : nb::none();
                   },
                   [](const Tensor& t, std::optional<Tensor> g) { t.set_grad(g ? *g : Tensor()); }, nb::arg().none())
      .def_prop_rw("data", [](const Tensor& t) { return alias(t); },
                   [](const Tensor& t, const Tensor& src) {
                     // As PyTorch, the new data may have another dtype or device (Module.to/double/cuda use it);
                     // a .grad of the old kind no longer fits and is dropped.
                     if (t.grad().defined() && (t.grad().dtype() != src.dtype() || t.grad().device() != src.device()))
                       t.set_grad(Tensor());
                     t.impl()->set_data(*src.impl());
                   })
      .def("size", [](const Tensor& t, std::optional<int64_t> d) -> nb::object {
             if (d) return nb::int_(t.size(*d));
             return make_size(t.sizes());
           }, nb::arg("dim") = nb::none())
      .def("stride", [](const Tensor& t, std::optional<int64_t> d) -> nb::object {
             if (d) return nb::int_(t.stride(*d));
             nb::list l;
             for (int64_t s : t.strides()) l.append(s);
             return nb::tuple(l);
           }, nb::arg("dim") = nb::none())
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", [](const Tensor& t, nb::handle f) {
             return is_contiguous(t, to_memory_format(f, "is_contiguous").value_or(MemoryFormat::Contiguous));
           },
           nb::arg("memory_format") = nb::none())
      .def("is_floating_point", &Tensor::is_floating_point)
      .def("is_complex", [](const Tensor&) { return false; })
      .def("get_device", [](const Tensor& t) { return t.is_cuda() ? int(t.device().index) : -1; })
      .def("__len__", [](const Tensor& t) {
        EMBER_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
        return t.sizes()[0];
      });

  // Views.
  cls.def("view", [](const Tensor& t, nb::args a) {
        if (a.size() == 1 && (nb::isinstance<DType>(a[0]))) return view(t, nb::cast<DType>(a[0]).st);
        return view(t, dims_arg(a, "view"));
      })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); })
      .def("reshape", [](const Tensor& t, nb::args a) { return reshape(t, dims_arg(a, "reshape")); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); })
      .def("permute", [](const Tensor& t, nb::args a) { return permute(t, dims_arg(a, "permute")); })
      .def("transpose", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("dim0"),
           nb::arg("dim1"))
      .def("swapaxes", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); })
      .def("swapdims", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); })
      .def("t", [](const Tensor& x) { return t(x); })
      .def_prop_ro("T", [](const Tensor& x) {
        DimVector dims;
        for (int64_t d = x.dim() - 1; d >= 0; --d) dims.push_back(d);
        return permute(x, dims);
      })
      .def_prop_ro("mT", [](const Tensor& x) {
        EMBER_CHECK(x.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ", x.dim(), "-D tensor.");
        return transpose(x, -2, -1);
      })
      // The conjugate transposes: plain transposes, ember's tensors being real.
      .def_prop_ro("mH", [](const Tensor& x) {
        EMBER_CHECK(x.dim() >= 2, "tensor.mH is only supported on matrices or batches of matrices. Got ", x.dim(), "-D tensor.");
        return transpose(x, -2, -1);
      })
      .def("adjoint", [](const Tensor& x) {
        EMBER_CHECK(x.dim() >= 2, "adjoint() is only supported on matrices or batches of matrices. Got ", x.dim(), "-D tensor.");
        return transpose(x, -2, -1);
      })
      .def_prop_ro("H", [](const Tensor& x) {
        EMBER_CHECK(x.dim() == 2 || x.dim() == 0, "tensor.H is only supported on matrices (2-D tensors). Got ",
                    x.dim(), "-D tensor.");
        return x.dim() == 2 ? transpose(x, 0, 1) : x;
      })
      .def("expand", [](const Tensor& t, nb::args a) { return expand(t, dims_arg(a, "expand")); })
      .def("expand_as", [](const Tensor& t, const Tensor& o) { return expand_as(t, o); })
      .def("squeeze", [](const Tensor& t, nb::handle dim) {
             if (dim.is_none()) return squeeze(t);
             if (PyTuple_Check(dim.ptr()) || PyList_Check(dim.ptr())) return squeeze(t, to_int_list(dim, "squeeze", "dim"));
             return squeeze(t, to_int(dim, "squeeze", "dim"));
           }, nb::arg("dim") = nb::none())
      .def("unsqueeze", [](const Tensor& t, int64_t d) { return unsqueeze(t, d); }, nb::arg("dim"))
      .def("flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); },
           nb::arg("start_dim") = 0, nb::arg("end_dim") = -1)
      .def("unflatten", [](const Tensor& t, int64_t d, nb::handle sizes) {
             return unflatten(t, d, to_int_list(sizes, "unflatten", "sizes"));
           }, nb::arg("dim"), nb::arg("sizes"))
      .def("narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); },
           nb::arg("dim"), nb::arg("start"), nb::arg("length"))
      .def("select", [](const Tensor& t, int64_t d, int64_t i) { return select(t, d, i); }, nb::arg("dim"),
           nb::arg("index"))
      .def("as_strided", [](const Tensor& t, nb::handle size, nb::handle stride, std::optional<int64_t> off) {
             return as_strided(t, to_int_list(size, "as_strided", "size"), to_int_list(stride, "as_strided", "stride"), off);
           }, nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none())
      .def("diagonal", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diagonal(t, o, a, b); },
           nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1)
      .def("unfold", [](const Tensor& t, int64_t d, int64_t s, int64_t st) { return unfold(t, d, s, st); },
           nb::arg("dimension"), nb::arg("size"), nb::arg("step"))
      .def("contiguous", [](nb::handle self, nb::handle f) {
             const Tensor& t = nb::cast<const Tensor&>(self);
             const MemoryFormat mf = to_memory_format(f, "contiguous").value_or(MemoryFormat::Contiguous);
             EMBER_CHECK(mf != MemoryFormat::Preserve, "contiguous(): preserve memory format is unsupported by the "
                         "contiguous operator");
             const Tensor r = contiguous(t, mf);
             return r.impl() == t.impl() ? nb::borrow(self) : nb::cast(r);  // self when nothing changes
           },
           nb::arg("memory_format") = nb::none())
      .def("clone", [](const Tensor& t, nb::handle f) { return clone(t, to_memory_format(f, "clone").value_or(MemoryFormat::Preserve)); },
           nb::arg("memory_format") = nb::none())
      .def("detach", [](const Tensor& t) { return alias(t); })
      .def("requires_grad_", [](nb::handle self, bool r) {
             nb::cast<const Tensor&>(self).set_requires_grad(r);
             return nb::borrow(self);
           }, nb::arg("requires_grad") = true);

  // Conversions.
  cls.def("to", &to_method)
      .def("type", [](nb::handle self, nb::handle dtype) -> nb::object {
        const Tensor& t = nb::cast<const Tensor&>(self);
        if (dtype.is_none()) return nb::str(("ember." + std::string(dtype_name(t.dtype()))).c_str());
        return nb::cast(to(t, to_dtype_required(dtype, "type")));
      }, nb::arg("dtype") = nb::none())
      .def("cpu", [](nb::handle self) { return nb::cast(to(nb::cast<const Tensor&>(self), kCPU)); })
      .def("cuda", [](nb::handle self, nb::handle device, bool non_blocking) {
             auto d = to_device(device);
             return nb::cast(to(nb::cast<const Tensor&>(self), d ? *d : Device(DeviceType::CUDA), std::nullopt, false,
                                non_blocking));
           }, nb::arg("device") = nb::none(), nb::arg("non_blocking") = false)
      .def("item",
           [](const Tensor& t) {
             if (!t.is_cuda()) return scalar_to_py(item(t));
             Scalar v;
             {
               nb::gil_scoped_release r;  // it waits for the GPU: let other Python threads run
               v = item(t);
             }
             return scalar_to_py(v);
           })
      .def("tolist", [](const Tensor& t) {
        Tensor c = t.is_cuda() ? to(t, kCPU) : t;
        return tolist_rec(static_cast<const char*>(c.data_ptr()), c.dtype(), c.sizes(), c.strides(), 0);
      })
      .def("__bool__", [](const Tensor& t) {
        EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
        return item(t).to_bool();
      })
      .def("__float__", [](const Tensor& t) { return item(t).to_double(); })
      .def("__int__", [](const Tensor& t) { return item(t).to_int(); })
      .def("__index__", [](const Tensor& t) {
        EMBER_CHECK_TYPE(is_integral(t.dtype(), true) && t.numel() == 1,
                         "only integer tensors of a single element can be converted to an index");
        return item(t).to_int();
      })
      .def("__repr__", [](const Tensor& t) {
        auto& fn = autograd::grad_fn(t);
        return tensor_repr(t, fn ? fn->name() : std::string());
      })
      .def("_repr", [](const Tensor& t, std::string_view grad_fn, std::string_view prefix) {
        return tensor_repr(t, grad_fn, prefix);
      })
      .def("fill_", [](nb::handle self, nb::handle v) {
        const Tensor& t = nb::cast<const Tensor&>(self);
        if (nb::isinstance<Tensor>(v)) {
          const Tensor& s = nb::cast<const Tensor&>(v);
          EMBER_CHECK(s.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", s.dim(),
                      " dimensions.");
          fill_(t, item(s));
        } else {
          fill_(t, to_scalar(v, "fill_"));
        }
        return nb::borrow(self);
      }, nb::arg("value"))
      .def("zero_", [](nb::handle self) {
        fill_(nb::cast<const Tensor&>(self), 0);
        return nb::borrow(self);
      })
      .def("copy_", [](nb::handle self, const Tensor& src, bool non_blocking) {
        copy_(nb::cast<const Tensor&>(self), src, non_blocking);
        return nb::borrow(self);
      }, nb::arg("src"), nb::arg("non_blocking") = false);

  const std::pair<const char*, ScalarType> casts[] = {
      {"float", ScalarType::Float32}, {"double", ScalarType::Float64}, {"half", ScalarType::Float16},
      {"bfloat16", ScalarType::BFloat16}, {"long", ScalarType::Int64}, {"int", ScalarType::Int32},
      {"short", ScalarType::Int16}, {"char", ScalarType::Int8}, {"byte", ScalarType::UInt8},
      {"bool", ScalarType::Bool}};
  for (auto [name, st] : casts)
    cls.def(name, [st, name](nb::handle self, nb::handle f) {
      return nb::cast(in_format(to(nb::cast<const Tensor&>(self), st), to_memory_format(f, name)));
    }, nb::arg("memory_format") = nb::none());

  // Module-level forms of the view ops.
  m.def("reshape", [](const Tensor& t, nb::handle s) { return reshape(t, to_int_list(s, "reshape", "shape")); });
  m.def("permute", [](const Tensor& t, nb::handle d) { return permute(t, to_int_list(d, "permute", "dims")); });
  m.def("transpose", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); });
  m.def("swapaxes", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); });
  m.def("t", [](const Tensor& x) { return t(x); });
  m.def("adjoint", [](const Tensor& x) {
    EMBER_CHECK(x.dim() >= 2, "adjoint() is only supported on matrices or batches of matrices. Got ", x.dim(), "-D tensor.");
    return transpose(x, -2, -1);
  });
  m.def("squeeze", [](const Tensor& t, nb::handle dim) {
    if (dim.is_none()) return squeeze(t);
    if (PyTuple_Check(dim.ptr()) || PyList_Check(dim.ptr())) return squeeze(t, to_int_list(dim, "squeeze", "dim"));
    return squeeze(t, to_int(dim, "squeeze", "dim"));
  }, nb::arg("input"), nb::arg("dim") = nb::none());
  m.def("unsqueeze", [](const Tensor& t, int64_t d) { return unsqueeze(t, d); });
  m.def("flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); }, nb::arg("input"),
        nb::arg("start_dim") = 0, nb::arg("end_dim") = -1);
  m.def("unflatten", [](const Tensor& t, int64_t d, nb::handle s) {
    return unflatten(t, d, to_int_list(s, "unflatten", "sizes"));
  });
  m.def("narrow", [](const Tensor& t, int64_t d, int64_t s, int64_t l) { return narrow(t, d, s, l); });
  m.def("select", [](const Tensor& t, int64_t d, int64_t i) { return select(t, d, i); });
  m.def("diagonal", [](const Tensor& t, int64_t o, int64_t a, int64_t b) { return diagonal(t, o, a, b); },
        nb::arg("input"), nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1);
  m.def("as_strided", [](const Tensor& t, nb::handle size, nb::handle stride, std::optional<int64_t> off) {
    return as_strided(t, to_int_list(size, "as_strided", "size"), to_int_list(stride, "as_strided", "stride"), off);
  }, nb::arg("input"), nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none());
  m.def("clone", [](const Tensor& t, nb::handle f) { return clone(t, to_memory_format(f, "clone").value_or(MemoryFormat::Preserve)); },
        nb::arg("input"), nb::arg("memory_format") = nb::none());
  m.def("broadcast_shapes", [](nb::args shapes) {
    DimVector r;
    for (nb::handle s : shapes) {
      DimVector d = PyLong_Check(s.ptr()) ? DimVector{to_int(s, "broadcast_shapes", "shape")}
                                          : to_int_list(s, "broadcast_shapes", "shape");
      r = broadcast_shapes(r, d, "broadcast_shapes");
    }
    return make_size(r);
  });
  m.def("is_tensor", [](nb::handle h) { return nb::isinstance<Tensor>(h); });
  m.def("numel", [](const Tensor& t) { return t.numel(); });
  m.def("is_floating_point", [](const Tensor& t) { return t.is_floating_point(); });
  m.def("set_printoptions", [](std::optional<int> precision, std::optional<int64_t> threshold,
                               std::optional<int64_t> edgeitems, std::optional<int> linewidth, nb::handle profile,
                               nb::handle sci_mode) {
    PrintOptions& o = print_options();
    if (!profile.is_none()) {
      std::string p = nb::cast<std::string>(profile);
      if (p == "default") o = PrintOptions();
      else if (p == "short") o = PrintOptions{2, 1000, 2, 80, std::nullopt};
      else if (p == "full") o = PrintOptions{4, INT64_MAX, 3, 80, std::nullopt};
      else fail<ValueError>("set_printoptions: unknown profile '", p, "'");
    }
    if (precision) o.precision = *precision;
    if (threshold) o.threshold = *threshold;
    if (edgeitems) o.edgeitems = *edgeitems;
    if (linewidth) o.linewidth = *linewidth;
    o.sci_mode = sci_mode.is_none() ? std::nullopt : std::optional<bool>(nb::cast<bool>(sci_mode));
  }, nb::arg("precision") = nb::none(), nb::arg("threshold") = nb::none(), nb::arg("edgeitems") = nb::none(),
     nb::arg("linewidth") = nb::none(), nb::arg("profile") = nb::none(), nb::arg("sci_mode") = nb::none());

  // The legacy constructor: ember.Tensor(2, 3) is uninitialized, ember.Tensor([1, 2]) copies data, both in
  // the default dtype; ember.Tensor() is empty.
  cls.def("__init__", [](Tensor* self, nb::args args, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "Tensor", kDevice, a);
    const TensorOptions opts = TensorOptions(default_dtype()).device(a.device.value_or(default_device().value_or(kCPU)));
    if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) {
      new (self) Tensor(alias(nb::cast<const Tensor&>(args[0])));
    } else if (args.size() == 1 && !PyLong_Check(args[0].ptr()) &&
               (PyTuple_CheckExact(args[0].ptr()) || (!PyTuple_Check(args[0].ptr()) && PySequence_Check(args[0].ptr())))) {
      // A list, a plain tuple or an array is data; ember.Size (a tuple subclass) is a shape.
      new (self) Tensor(tensor_from_data(args[0], opts.dtype_, opts.device_));
    } else {
      new (self) Tensor(empty(args.size() ? parse_size(args, 0, "Tensor") : DimVector{0}, opts));
    }
    self->impl()->pyobj = self;  // Note [One Python object per tensor]: this instance (maybe a subclass) is the wrapper
  });
  // f"{loss:.4f}" formats a 0-d tensor's value, as PyTorch does; other tensors take only an empty spec.
  cls.def("__format__", [](nb::handle self, nb::handle spec) -> nb::object {
    const Tensor& t = nb::cast<const Tensor&>(self);
    if (t.dim() == 0) return nb::steal(PyObject_Format(scalar_to_py(item(t)).ptr(), spec.ptr()));
    EMBER_CHECK_TYPE(PyUnicode_GetLength(spec.ptr()) == 0, "unsupported format string passed to Tensor.__format__");
    return nb::str(self);
  });
  // Pickling (and so copy.deepcopy and multiprocessing) ships the values, dtype, shape, device and
  // requires_grad; views are rebuilt as independent tensors. ember.save (issue 6) keeps storage sharing.
  cls.def("__reduce_ex__", [](const Tensor& t, int) {
    Tensor c = contiguous(to(t, kCPU));
    nb::bytes data(static_cast<const char*>(c.data_ptr()), c.nbytes());
    return nb::make_tuple(nb::module_::import_("ember").attr("_rebuild_tensor"),
                          nb::make_tuple(data, std::string(dtype_name(t.dtype())), make_size(t.sizes()),
                                         t.device().str(), t.requires_grad()));
  });
  m.def("_rebuild_tensor", [](nb::bytes data, const std::string& dtype, nb::handle shape, const std::string& device,
                              bool requires_grad) {
    std::optional<ScalarType> st;
    for (int i = 0; i < kNumScalarTypes; ++i)
      if (dtype_name(static_cast<ScalarType>(i)) == dtype) st = static_cast<ScalarType>(i);
    EMBER_CHECK_VALUE(st.has_value(), "_rebuild_tensor: unknown dtype '", dtype, "'");
    DimVector size = to_int_list(shape, "_rebuild_tensor", "shape");
    int64_t n = 1;
    for (int64_t s : size) n *= s;
    EMBER_CHECK_VALUE(n >= 0 && static_cast<size_t>(n) * element_size(*st) == data.size(), "_rebuild_tensor: ",
                      data.size(), " bytes do not hold a ", dtype, " tensor of shape ", shape_str(size));
    Tensor t = from_blob_copy(data.c_str(), *st, size, TensorOptions(*st).device(Device(device)));
    if (requires_grad) t.set_requires_grad(true);
    return t;
  });
  cls.def("__contains__", [](const Tensor& t, nb::handle element) {
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(element) || is_scalar(element),
                     "Tensor.__contains__ only supports Tensor or scalar, but you passed in a ",
                     nb::inst_name(element).c_str());
    Tensor hit = nb::isinstance<Tensor>(element) ? eq(t, nb::cast<const Tensor&>(element))
                                                 : eq(t, to_scalar(element, "__contains__"));
    return item(any(hit)).to_bool();
  });
  init_indexing(cls);
}

}  // namespace ember::py
