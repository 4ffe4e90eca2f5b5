// Factory functions and ember.tensor(data): nested Python sequences are scanned once for their shape
// and dtype, then written straight into the new tensor's memory.
#include "common.h"
#include "ember/cuda.h"

namespace ember::py {

namespace {

using Leaves = SmallVector<PyObject*, 16>;

bool is_seq(PyObject* o) { return PyList_Check(o) || PyTuple_Check(o); }

// Shape from the first element at each depth.
DimVector infer_shape(PyObject* o) {
  DimVector shape;
  nb::object cur = nb::borrow(o);
  for (;;) {
    PyObject* c = cur.ptr();
    if (is_seq(c)) {
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(c);
      shape.push_back(n);
      if (n == 0) break;
      cur = nb::borrow(PySequence_Fast_ITEMS(c)[0]);
    } else if (!is_scalar(c) && !nb::isinstance<Tensor>(c) && PySequence_Check(c) && !PyUnicode_Check(c)) {
      cur = nb::steal(PySequence_List(c));  // other sequences (e.g. NumPy arrays) via their items
      if (!cur.is_valid()) throw nb::python_error();
    } else {
      break;
    }
  }
  return shape;
}

void collect(PyObject* o, const DimVector& shape, size_t d, Leaves& leaves, std::vector<nb::object>& keep) {
  if (d == shape.size()) {
    // A sequence where a number belongs, or a number where a sequence belongs, is a TypeError in
    // PyTorch; sequences of the wrong length (ragged lists) are ValueErrors.
    if (is_seq(o) || (!is_scalar(o) && !nb::isinstance<Tensor>(o) && PySequence_Check(o)))
      fail<TypeError>("tensor(): too many dimensions at depth ", d, " (expected a number, got a sequence of type ",
                      Py_TYPE(o)->tp_name, ")");
    leaves.push_back(o);
    return;
  }
  nb::object seq;
  if (!is_seq(o)) {
    EMBER_CHECK_TYPE(!is_scalar(o) && !nb::isinstance<Tensor>(o) && PySequence_Check(o),
                     "tensor(): expected a sequence of length ", shape[d], " at dim ", d, " (got ", Py_TYPE(o)->tp_name,
                     ")");
    seq = nb::steal(PySequence_List(o));
    if (!seq.is_valid()) throw nb::python_error();
    keep.push_back(seq);
    o = seq.ptr();
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  EMBER_CHECK_VALUE(n == shape[d], "expected sequence of length ", shape[d], " at dim ", d, " (got ", n, ")");
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i) collect(items[i], shape, d + 1, leaves, keep);
}

ScalarType infer_dtype(const Leaves& leaves) {
  ScalarType r = ScalarType::Bool;
  bool any = false;
  for (PyObject* o : leaves) {
    ScalarType t;
    if (PyBool_Check(o)) t = ScalarType::Bool;
    else if (PyLong_Check(o)) t = ScalarType::Int64;
    else if (PyFloat_Check(o)) t = default_dtype();
    else if (nb::isinstance<Tensor>(o)) t = nb::cast<const Tensor&>(nb::handle(o)).dtype();
    else if (PyIndex_Check(o)) t = ScalarType::Int64;
    else if (PyNumber_Check(o)) t = default_dtype();
    else fail<Error>("tensor(): Could not infer dtype of ", Py_TYPE(o)->tp_name);  // RuntimeError, as PyTorch
    r = any ? promote_types(r, t) : t;
    any = true;
  }
  return any ? r : default_dtype();
}

}  // namespace

Tensor tensor_from_data(nb::handle data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  if (nb::isinstance<Tensor>(data)) {
    const Tensor& t = nb::cast<const Tensor&>(data);
    return to(t, device.value_or(t.device()), dtype.value_or(t.dtype()), /*copy=*/true);
  }
  // NumPy arrays are copied from their memory in one strided copy, not element by element.
  if (auto t = numpy_to_tensor(data)) return to(*t, device.value_or(kCPU), dtype.value_or(t->dtype()), /*copy=*/true);
  PyObject* o = data.ptr();
  Leaves leaves;
  std::vector<nb::object> keep;  // temporaries made from non-list sequences
  DimVector shape;
  if (is_scalar(o)) {
    leaves.push_back(o);
  } else {
    EMBER_CHECK_TYPE(PySequence_Check(o) && !PyUnicode_Check(o), "tensor(): could not convert an object of type ",
                     Py_TYPE(o)->tp_name, " to a tensor");
    shape = infer_shape(o);
    collect(o, shape, 0, leaves, keep);
  }
  const ScalarType st = dtype.value_or(infer_dtype(leaves));
  Tensor out = empty(shape, st);
  dispatch_all(st, [&](auto v) {
    using T = decltype(v);
    T* p = static_cast<T*>(out.data_ptr());
    for (size_t i = 0; i < leaves.size(); ++i) {
      PyObject* x = leaves[i];
      if (PyFloat_CheckExact(x))
        p[i] = Scalar(PyFloat_AS_DOUBLE(x)).to<T>();
      else
        p[i] = to_scalar(x, "tensor").to<T>();
    }
  });
  if (device && !device->is_cpu()) return to(out, *device);
  return out;
}

namespace {

Tensor factory_fill(const nb::args& args, const nb::kwargs& kw, const char* fn, std::optional<Scalar> value,
                    nb::object* out_obj) {
  FactoryArgs a;
  parse_factory_kwargs(kw, fn, kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
  DimVector size = parse_size(args, 0, fn);
  Tensor r;
  if (a.memory_format == MemoryFormat::ChannelsLast || a.memory_format == MemoryFormat::ChannelsLast3d) {
    TensorOptions o = a.options(default_dtype());
    const bool grad = o.requires_grad_;
    o.requires_grad_ = false;  // set on the final tensor, which is then a leaf
    r = empty(size, o, *a.memory_format);
    if (value) fill_(r, *value);
    if (grad) r.set_requires_grad(true);
    r = a.pinned(r);
  } else {
    r = a.pinned(value ? full(size, *value, a.options(default_dtype())) : empty(size, a.options(default_dtype())));
  }
  if (a.out.is_valid() && !a.out.is_none()) *out_obj = finish_out(r, a.out, fn);
  return r;
}

nb::object like(const Tensor& t, const nb::kwargs& kw, const char* fn, std::optional<Scalar> value) {
  FactoryArgs a;
  parse_factory_kwargs(kw, fn, kDtype | kDevice | kRequiresGrad | kLayout, a);
  TensorOptions o = TensorOptions(a.dtype.value_or(t.dtype())).device(a.device.value_or(t.device()));
  // preserve_format (the default) keeps a dense t's strides (empty_like), other formats give theirs.
  const MemoryFormat mf = a.memory_format.value_or(MemoryFormat::Preserve);
  Tensor r = mf == MemoryFormat::Preserve ? empty_like(t, o) : empty(t.sizes(), o, mf);
  if (value) fill_(r, *value);
  if (a.requires_grad) r.set_requires_grad(true);
  return nb::cast(a.pinned(std::move(r)));
}

Scalar scalar_arg(nb::handle h, const char* fn) { return to_scalar(h, fn); }

}  // namespace

void init_creation(nb::module_& m) {
  m.def("tensor", [](nb::handle data, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "tensor", kDtype | kDevice | kRequiresGrad | kLayout, a);
    // Python data goes to the default device (Note [Default device]); a tensor keeps its own unless told.
    const bool is_tensor = nb::isinstance<Tensor>(data);
    Tensor t = tensor_from_data(data, a.dtype, a.device || is_tensor ? a.device : default_device());
    if (a.requires_grad) t.set_requires_grad(true);
    return a.pinned(t);
  }, nb::arg("data").none(), nb::arg("kwargs"));
  m.def("as_tensor", [](nb::handle data, nb::handle dtype, nb::handle device) -> nb::object {
    auto dt = to_dtype(dtype);
    auto dev = to_device(device);
    if (nb::isinstance<Tensor>(data)) {
      const Tensor& t = nb::cast<const Tensor&>(data);
      return nb::cast(to(t, dev.value_or(t.device()), dt.value_or(t.dtype())));
    }
    // A NumPy array shares its memory when dtype and device allow (torch.from_numpy's view), else it is converted.
    if (auto t = numpy_to_tensor(data)) return nb::cast(to(*t, dev.value_or(kCPU), dt.value_or(t->dtype())));
    return nb::cast(tensor_from_data(data, dt, dev ? dev : default_device()));
  }, nb::arg("data"), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none());

  m.def("empty", [](nb::args args, nb::kwargs kw) -> nb::object {
    nb::object out;
    Tensor r = factory_fill(args, kw, "empty", std::nullopt, &out);
    return out.is_valid() ? out : nb::cast(std::move(r));
  });
  m.def("zeros", [](nb::args args, nb::kwargs kw) -> nb::object {
    nb::object out;
    Tensor r = factory_fill(args, kw, "zeros", Scalar(0), &out);
    return out.is_valid() ? out : nb::cast(std::move(r));
  });
  m.def("ones", [](nb::args args, nb::kwargs kw) -> nb::object {
    nb::object out;
    Tensor r = factory_fill(args, kw, "ones", Scalar(1), &out);
    return out.is_valid() ? out : nb::cast(std::move(r));
  });
  m.def("full", [](nb::handle size, nb::handle value, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "full", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
    DimVector s = PyLong_Check(size.ptr()) ? DimVector{to_int(size, "full", "size")} : to_int_list(size, "full", "size");
    return finish_out(a.pinned(full(s, scalar_arg(value, "full"), a.options())), a.out, "full");
  }, nb::arg("size"), nb::arg("fill_value"), nb::arg("kwargs"));
  m.def("empty_strided", [](nb::handle size, nb::handle stride, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "empty_strided", kDtype | kDevice | kRequiresGrad | kLayout, a);
    return a.pinned(empty_strided(to_int_list(size, "empty_strided", "size"),
                                  to_int_list(stride, "empty_strided", "stride"), a.options(default_dtype())));
  }, nb::arg("size"), nb::arg("stride"), nb::arg("kwargs"));

  m.def("empty_like", [](const Tensor& t, nb::kwargs kw) { return like(t, kw, "empty_like", std::nullopt); },
        nb::arg("input"), nb::arg("kwargs"));
  m.def("zeros_like", [](const Tensor& t, nb::kwargs kw) { return like(t, kw, "zeros_like", Scalar(0)); },
        nb::arg("input"), nb::arg("kwargs"));
  m.def("ones_like", [](const Tensor& t, nb::kwargs kw) { return like(t, kw, "ones_like", Scalar(1)); },
        nb::arg("input"), nb::arg("kwargs"));
  m.def("full_like", [](const Tensor& t, nb::handle v, nb::kwargs kw) {
    return like(t, kw, "full_like", scalar_arg(v, "full_like"));
  }, nb::arg("input"), nb::arg("fill_value"), nb::arg("kwargs"));

  m.def("arange", [](nb::args args, nb::kwargs kw) {
    FactoryArgs a;
    nb::handle start, end, step;
    parse_factory_kwargs(kw, "arange", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a,
                         {{"start", &start}, {"end", &end}, {"step", &step}});
    const size_t n = args.size();
    EMBER_CHECK_TYPE(n <= 3, "arange() takes at most 3 positional arguments (", n, " given)");
    if (n == 1) end = args[0];
    if (n >= 2) start = args[0], end = args[1];
    if (n == 3) step = args[2];
    EMBER_CHECK_TYPE(end.is_valid(), "arange() missing required argument 'end'");
    Scalar s0 = start.is_valid() ? scalar_arg(start, "arange") : Scalar(0);
    Scalar s1 = scalar_arg(end, "arange");
    Scalar st = step.is_valid() ? scalar_arg(step, "arange") : Scalar(1);
    return finish_out(arange(s0, s1, st, a.options()), a.out, "arange");
  });
  m.def("linspace", [](nb::handle start, nb::handle end, int64_t steps, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "linspace", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
    return finish_out(linspace(scalar_arg(start, "linspace"), scalar_arg(end, "linspace"), steps, a.options()), a.out,
                      "linspace");
  }, nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::arg("kwargs"));
  m.def("logspace", [](nb::handle start, nb::handle end, int64_t steps, double base, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "logspace", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
    return finish_out(
        logspace(scalar_arg(start, "logspace"), scalar_arg(end, "logspace"), steps, base, a.options()), a.out,
        "logspace");
  }, nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::arg("base") = 10.0, nb::arg("kwargs"));
  m.def("eye", [](int64_t n, std::optional<int64_t> mcols, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "eye", kDtype | kDevice | kRequiresGrad | kOut | kLayout, a);
    return finish_out(eye(n, mcols, a.options()), a.out, "eye");
  }, nb::arg("n"), nb::arg("m") = nb::none(), nb::arg("kwargs"));

  // Tensor.new_*: dtype and device default to self's.
  auto cls = nb::type<Tensor>();
  auto new_opts = [](const Tensor& t, const FactoryArgs& a) {
    return TensorOptions(a.dtype.value_or(t.dtype())).device(a.device.value_or(t.device())).requires_grad(a.requires_grad);
  };
  cls.attr("new_empty") = nb::cpp_function([new_opts](const Tensor& t, nb::args args, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "new_empty", kDtype | kDevice | kRequiresGrad | kLayout, a);
    return empty(parse_size(args, 0, "new_empty"), new_opts(t, a));
  }, nb::is_method());
  cls.attr("new_zeros") = nb::cpp_function([new_opts](const Tensor& t, nb::args args, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "new_zeros", kDtype | kDevice | kRequiresGrad | kLayout, a);
    return zeros(parse_size(args, 0, "new_zeros"), new_opts(t, a));
  }, nb::is_method());
  cls.attr("new_ones") = nb::cpp_function([new_opts](const Tensor& t, nb::args args, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "new_ones", kDtype | kDevice | kRequiresGrad | kLayout, a);
    return ones(parse_size(args, 0, "new_ones"), new_opts(t, a));
  }, nb::is_method());
  cls.attr("new_full") = nb::cpp_function([new_opts](const Tensor& t, nb::handle size, nb::handle v, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "new_full", kDtype | kDevice | kRequiresGrad | kLayout, a);
    return full(to_int_list(size, "new_full", "size"), to_scalar(v, "new_full"), new_opts(t, a));
  }, nb::is_method());
  // The legacy x.new(...): as the legacy constructor (ember.Tensor(...)) with x's dtype and device: sizes give an
  // uninitialized tensor, a sequence is data, a tensor is aliased, nothing gives an empty one.
  cls.attr("new") = nb::cpp_function([](const Tensor& t, nb::args args, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "new", kDevice, a);
    const TensorOptions o = TensorOptions(t.dtype()).device(a.device.value_or(t.device()));
    if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) {
      const Tensor& src = nb::cast<const Tensor&>(args[0]);
      EMBER_CHECK_TYPE(src.dtype() == t.dtype() && src.device() == o.device_, "new(): expected a tensor of dtype ",
                       t.dtype(), " on ", o.device_, " (as self), got ", src.dtype(), " on ", src.device());
      return alias(src);
    }
    if (args.size() == 1 && !PyLong_Check(args[0].ptr()) &&
        (PyTuple_CheckExact(args[0].ptr()) || (!PyTuple_Check(args[0].ptr()) && PySequence_Check(args[0].ptr()))))
      return tensor_from_data(args[0], t.dtype(), o.device_);
    return empty(args.size() ? parse_size(args, 0, "new") : DimVector{0}, o);
  }, nb::is_method());
  cls.attr("new_tensor") = nb::cpp_function([](const Tensor& t, nb::handle data, nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "new_tensor", kDtype | kDevice | kRequiresGrad | kLayout, a);
    Tensor r = tensor_from_data(data, a.dtype.value_or(t.dtype()), a.device.value_or(t.device()));
    if (a.requires_grad) r.set_requires_grad(true);
    return r;
  }, nb::is_method());
}

}  // namespace ember::py
