// Python indexing: t[...] and t[...] = v with PyTorch's semantics for basic indices (ints, slices
// with steps, None, Ellipsis, bools). Basic indexing returns views.
#include "common.h"

namespace ember::py {

namespace {

bool is_int_like(PyObject* o) {
  // Tensors define __index__ but are not ints: a 1-element tensor index is advanced indexing (it keeps
  // its dim), and 0-d integer tensors are handled on their own in apply_index.
  return (PyLong_Check(o) && !PyBool_Check(o)) ||
         (!PyBool_Check(o) && !PyFloat_Check(o) && !nb::isinstance<Tensor>(o) && PyIndex_Check(o));
}

[[noreturn]] void unsupported(nb::handle h) {
  if (nb::isinstance<Tensor>(h) || PyList_Check(h.ptr()))
    fail<NotImplementedError>("indexing with tensors, lists or boolean masks (advanced indexing) is not supported "
                              "yet; use ints, slices, None and Ellipsis");
  fail<IndexError>("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                   "indices (got ", nb::inst_name(h).c_str(), ")");
}

// `dim` is the dim of the partly indexed tensor t; `input_dim` the same dim of the tensor being indexed.
Tensor index_int(const Tensor& t, int64_t dim, int64_t i, int64_t input_dim) {
  EMBER_CHECK_INDEX(dim < t.dim(), "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  const int64_t size = t.sizes()[dim];
  EMBER_CHECK_INDEX(i >= -size && i < size, "index ", i, " is out of bounds for dimension ", input_dim, " with size ",
                    size);
  return select(t, dim, i);
}

Tensor index_slice(const Tensor& t, int64_t dim, PyObject* s) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(s, &start, &stop, &step) < 0) throw nb::python_error();
  EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
  EMBER_CHECK_INDEX(dim < t.dim(), "too many indices for tensor of dimension ", t.dim());
  PySlice_AdjustIndices(t.sizes()[dim], &start, &stop, step);
  if (start == 0 && stop == t.sizes()[dim] && step == 1) return t;
  return slice(t, dim, start, stop, step);
}

int64_t consumed(PyObject* o) {
  return (o == Py_None || o == Py_Ellipsis || PyBool_Check(o)) ? 0 : 1;
}

}  // namespace

Tensor apply_index(const Tensor& self, nb::handle index) {
  PyObject* o = index.ptr();
  if (PyLong_CheckExact(o)) [[likely]] {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK_INDEX(!overflow, "index is out of range for int64");
    return index_int(self, 0, i, 0);
  }
  if (PySlice_Check(o)) return index_slice(self, 0, o);
  if (!PyTuple_Check(o)) {
    nb::object tup = nb::make_tuple(index);
    return apply_index(self, tup);
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(o);
  int64_t used = 0;
  bool ellipsis = false;
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* it = PyTuple_GET_ITEM(o, k);
    if (it == Py_Ellipsis) {
      EMBER_CHECK_INDEX(!ellipsis, "an index can only have a single ellipsis ('...')");
      ellipsis = true;
    }
    used += consumed(it);
  }
  EMBER_CHECK_INDEX(used <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Tensor t = self;
  int64_t dim = 0, input_dim = 0;  // the next dim of t, and the same dim of self
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* it = PyTuple_GET_ITEM(o, k);
    if (PySlice_Check(it)) {
      t = index_slice(t, dim, it);
      ++dim;
      ++input_dim;
    } else if (it == Py_None) {
      t = unsqueeze(t, dim);
      ++dim;
    } else if (it == Py_Ellipsis) {
      dim += self.dim() - used;
      input_dim += self.dim() - used;
    } else if (PyBool_Check(it)) {  // True adds a dim of size 1; False one of size 0
      t = unsqueeze(t, dim);
      if (it == Py_False) t = slice(t, dim, 0, 0, 1);
      ++dim;
    } else if (is_int_like(it)) {
      t = index_int(t, dim, to_int(it, "__getitem__", "index"), input_dim++);
    } else if (nb::isinstance<Tensor>(it) && nb::cast<const Tensor&>(nb::handle(it)).dim() == 0 &&
               is_integral(nb::cast<const Tensor&>(nb::handle(it)).dtype(), false)) {
      t = index_int(t, dim, item(nb::cast<const Tensor&>(nb::handle(it))).to_int(), input_dim++);
    } else {
      unsupported(it);
    }
  }
  return t.is_same(self) ? alias(self) : t;
}

void init_indexing(nb::class_<Tensor>& cls) {
  // (.none(): nanobind refuses None for an argument unless told; t[None] is a valid index.)
  cls.def("__getitem__", [](const Tensor& t, nb::handle index) { return apply_index(t, index); },
          nb::arg("index").none());
  cls.def("__setitem__", [](const Tensor& t, nb::handle index, nb::handle value) {
    Tensor dst = apply_index(t, index);
    if (nb::isinstance<Tensor>(value)) {
      // As PyTorch's copy_to (and NumPy): leading dims of size 1 of the value are dropped first.
      Tensor src = nb::cast<const Tensor&>(value);
      while (src.dim() > dst.dim() && src.sizes()[0] == 1) src = squeeze(src, 0);
      copy_(dst, src);
    } else if (is_scalar(value))
      fill_(dst, to_scalar(value, "__setitem__"));
    else {
      Tensor src = tensor_from_data(value, dst.dtype(), dst.device());
      while (src.dim() > dst.dim() && src.sizes()[0] == 1) src = squeeze(src, 0);
      copy_(dst, src);
    }
  }, nb::arg("index").none(), nb::arg("value"));
  cls.def("__iter__", [](nb::handle self) {
    const Tensor& t = nb::cast<const Tensor&>(self);
    EMBER_CHECK_TYPE(t.dim() > 0, "iteration over a 0-d tensor");
    nb::list l;
    for (int64_t i = 0; i < t.sizes()[0]; ++i) l.append(select(t, 0, i));
    return nb::iter(l);
  });
}

}  // namespace ember::py
