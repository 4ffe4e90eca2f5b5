// Python indexing: t[...] and t[...] = v with PyTorch's semantics. Basic indices (ints, slices with steps,
// None, Ellipsis) are applied first and give views; advanced indices (integer tensors and lists, bool masks) are
// then handed to ember::index / index_put_ with one entry per dim of that view. As in PyTorch, ints select even
// beside advanced indices, and a scalar bool is a new dim indexed by [0] or [] when the index has other advanced
// indices or other bools (so that they broadcast into one dim), else a view of size 1 or 0.
#include "common.h"
#include "ember/dispatch_hook.h"

namespace ember::py {

namespace {

bool is_int_like(PyObject* o) {
  // Tensors define __index__ but are not ints: a 1-element tensor index is advanced indexing (it keeps
  // its dim), and 0-d integer tensors are handled on their own in classify.
  return (PyLong_Check(o) && !PyBool_Check(o)) ||
         (!PyBool_Check(o) && !PyFloat_Check(o) && !nb::isinstance<Tensor>(o) && PyIndex_Check(o));
}

[[noreturn]] void unsupported(nb::handle h) {
  fail<IndexError>(
      "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
      "indices (got ",
      nb::inst_name(h).c_str(), ")");
}

// `dim` is the dim of the partly indexed tensor t; `input_dim` the same dim of the tensor being indexed.
Tensor index_int(const Tensor& t, int64_t dim, int64_t i, int64_t input_dim) {
  EMBER_CHECK_INDEX(dim < t.dim(),
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
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

enum class Kind : uint8_t { Int, Slice, None, Ellipsis, Bool, Advanced };

struct Item {
  Kind kind;
  PyObject* obj;
  int64_t value = 0;  // Int: the index; Bool: 0 or 1
  Tensor tensor;      // Advanced: integer indices or a bool mask
};

bool is_mask(const Tensor& t) { return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8; }

// A list, tuple or array used as an index, as PyTorch's indexing tensors: bool (or uint8) stay masks, anything
// else becomes int64; an empty list is an empty int64 index.
Tensor sequence_index(nb::handle h) {
  Tensor t = tensor_from_data(h, std::nullopt, std::nullopt);
  if (is_mask(t)) return t;
  EMBER_CHECK_INDEX(is_integral(t.dtype(), false) || t.numel() == 0,
                    "tensors used as indices must be long, int, byte or bool tensors (got a sequence of ", t.dtype(),
                    ")");
  return to(t, ScalarType::Int64);
}

Item classify_tensor(PyObject* o, const Tensor& t) {
  if (t.dim() == 0 && is_mask(t)) return {Kind::Bool, o, item(t).to_bool()};
  if (t.dim() == 0 && is_integral(t.dtype(), false)) return {Kind::Int, o, item(t).to_int()};
  EMBER_CHECK_INDEX(is_integral(t.dtype(), true),
                    "tensors used as indices must be long, int, byte or bool tensors "
                    "(got a tensor of dtype ",
                    t.dtype(), ")");
  return {Kind::Advanced, o, 0, t};
}

Item classify(PyObject* o) {
  if (PySlice_Check(o)) return {Kind::Slice, o};
  if (o == Py_None) return {Kind::None, o};
  if (o == Py_Ellipsis) return {Kind::Ellipsis, o};
  if (PyBool_Check(o)) return {Kind::Bool, o, o == Py_True};
  if (PyLong_Check(o)) return {Kind::Int, o, to_int(o, "__getitem__", "index")};
  if (nb::isinstance<Tensor>(o)) return classify_tensor(o, nb::cast<const Tensor&>(nb::handle(o)));
  // NumPy arrays and scalars index like the tensors they view (they define __index__ too, so come first).
  if (auto t = numpy_to_tensor(o)) return classify_tensor(o, *t);
  if (is_int_like(o)) return {Kind::Int, o, to_int(o, "__getitem__", "index")};
  if (PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o)) return {Kind::Advanced, o, 0, sequence_index(o)};
  unsupported(o);
}

// PyTorch's rule for a list index: read as a tuple of indices when it holds slices, None, Ellipsis, tensors or
// sequences (x[[0, slice(None)]] is x[0, :]), else as one integer or bool index.
bool list_as_tuple(PyObject* o) {
  const Py_ssize_t n = PyList_GET_SIZE(o);
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PyList_GET_ITEM(o, i);
    if (nb::isinstance<Tensor>(it) || PySlice_Check(it) || it == Py_None || it == Py_Ellipsis ||
        (PySequence_Check(it) && !PyUnicode_Check(it)))
      return true;
  }
  return false;
}

std::vector<Item> parse_items(nb::handle index) {
  PyObject* o = index.ptr();
  std::vector<Item> items;
  if (PyTuple_Check(o) || (PyList_Check(o) && list_as_tuple(o))) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** objs = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t k = 0; k < n; ++k) items.push_back(classify(objs[k]));
  } else {
    items.push_back(classify(o));
  }
  return items;
}

int64_t consumed(const Item& it) {
  switch (it.kind) {
    case Kind::Int:
    case Kind::Slice: return 1;
    case Kind::Advanced: return is_mask(it.tensor) ? std::max<int64_t>(it.tensor.dim(), 1) : 1;
    default: return 0;
  }
}

// The result of the basic indices, and the advanced ones to apply to it: one entry per dim of `view` up to the
// last indexed one (undefined: not indexed; a mask covers as many dims as it has).
struct Parsed {
  Tensor view;
  std::vector<Tensor> advanced;
};

Parsed parse(const Tensor& self, nb::handle index) {
  std::vector<Item> items = parse_items(index);
  int64_t used = 0, bools = 0, advanced = 0;
  bool ellipsis = false;
  for (const Item& it : items) {
    if (it.kind == Kind::Ellipsis) {
      EMBER_CHECK_INDEX(!ellipsis, "an index can only have a single ellipsis ('...')");
      ellipsis = true;
    }
    used += consumed(it);
    bools += it.kind == Kind::Bool;
    advanced += it.kind == Kind::Advanced;
  }
  EMBER_CHECK_INDEX(used <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  const bool bools_advanced = bools > 1 || (bools && advanced);
  Parsed p;
  Tensor t = self;
  int64_t dim = 0, input_dim = 0;  // the next dim of t, and the same dim of self
  std::vector<std::pair<int64_t, Tensor>> recorded;
  for (const Item& it : items) {
    switch (it.kind) {
      case Kind::Slice:
        t = index_slice(t, dim++, it.obj);
        ++input_dim;
        break;
      case Kind::None: t = unsqueeze(t, dim++); break;
      case Kind::Ellipsis:
        dim += self.dim() - used;
        input_dim += self.dim() - used;
        break;
      case Kind::Bool:
        t = unsqueeze(t, dim);
        if (bools_advanced) {
          TensorOptions o = TensorOptions(ScalarType::Int64).device(self.device());
          recorded.emplace_back(dim, it.value ? zeros({{1}}, o) : empty({{0}}, o));
        } else if (!it.value) {
          t = slice(t, dim, 0, 0, 1);
        }
        ++dim;
        break;
      case Kind::Int: t = index_int(t, dim, it.value, input_dim++); break;
      case Kind::Advanced:
        recorded.emplace_back(dim, it.tensor);
        dim += consumed(it);
        input_dim += consumed(it);
        break;
    }
  }
  p.view = t;
  int64_t next = 0;
  for (auto& [d, tensor] : recorded) {
    for (; next < d; ++next) p.advanced.emplace_back();
    next += is_mask(tensor) ? std::max<int64_t>(tensor.dim(), 1) : 1;
    p.advanced.push_back(std::move(tensor));
  }
  return p;
}

// A value assigned to t[index], as a tensor of dst's dtype and device without leading size-1 dims (dropped as
// PyTorch's copy_to and NumPy do).
Tensor value_tensor(const Tensor& dst, nb::handle value) {
  Tensor v;
  if (nb::isinstance<Tensor>(value))
    v = to(nb::cast<const Tensor&>(value), dst.device(), dst.dtype());
  else if (is_scalar(value))
    return full({}, to_scalar(value, "__setitem__"), TensorOptions(dst.dtype()).device(dst.device()));
  else
    v = tensor_from_data(value, dst.dtype(), dst.device());
  while (v.dim() > 0 && v.sizes()[0] == 1) v = squeeze(v, 0);
  return v;
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
  // x[:] and x[...] are new views of x (with history), as in PyTorch.
  if (PySlice_Check(o)) {
    Tensor r = index_slice(self, 0, o);
    return r.is_same(self) ? view_alias(self) : r;
  }
  Parsed p = parse(self, index);
  if (!p.advanced.empty()) return ember::index(p.view, p.advanced);
  return p.view.is_same(self) ? view_alias(self) : p.view;
}

namespace {

// PyTorch's __setitem__ of a number through one index tensor: masked_fill_ for a bool mask (its trailing dims added),
// index_fill_ along its dim for int64 indices (flattened), the ops a mode sees in PyTorch (Note [Python dispatch]) and
// the nodes autograd records there; the values are index_put_'s, without the mask's nonzero (x[x > 0] = 1.0 over
// [64, 1024]: 540 -> 40 us at one thread). False (index_put_ then writes, or raises its errors) for other indices, a
// mask whose shape is not the indexed dims', or an index out of range.
bool fill_index(const Parsed& p, nb::handle value) {
  if (!is_scalar(value) || nb::isinstance<Tensor>(value)) return false;
  int64_t pos = -1, n = 0;
  for (size_t k = 0; k < p.advanced.size(); ++k)
    if (p.advanced[k].defined()) pos = static_cast<int64_t>(k), ++n;
  if (n != 1) return false;
  const Tensor& idx = p.advanced[static_cast<size_t>(pos)];
  if (idx.device() != p.view.device() || idx.dim() == 0) return false;
  Scalar s = to_scalar(value, "__setitem__");
  if (s.is_bool() && p.view.dtype() != ScalarType::Bool) s = Scalar(static_cast<int64_t>(s.to_bool()));  // as PyTorch
  if (idx.dtype() == ScalarType::Bool) {
    if (pos + idx.dim() > p.view.dim()) return false;
    for (int64_t k = 0; k < idx.dim(); ++k)
      if (idx.sizes()[k] != p.view.sizes()[pos + k]) return false;
    Tensor m = idx;
    for (int64_t k = pos + idx.dim(); k < p.view.dim(); ++k) m = unsqueeze(m, -1);
    masked_fill_(p.view, m, s);
    return true;
  }
  if (idx.dtype() != ScalarType::Int64 || !idx.device().is_cpu() || pos >= p.view.dim()) return false;
  const Tensor flat = contiguous(idx);
  const int64_t size = p.view.sizes()[pos];
  const int64_t* d = flat.data<int64_t>();
  for (int64_t k = 0; k < flat.numel(); ++k)
    if (d[k] < -size || d[k] >= size) return false;
  index_fill_(p.view, pos, idx.dim() == 1 ? idx : reshape(idx, {{-1}}), s);
  return true;
}

}  // namespace

void assign_index(const Tensor& self, nb::handle index, nb::handle value) {
  Parsed p = parse(self, index);
  if (!p.advanced.empty()) {
    if (fill_index(p, value)) return;
    index_put_(p.view, p.advanced, value_tensor(p.view, value));
    return;
  }
  const Tensor& dst = p.view;
  if (is_scalar(value)) {
    fill_(dst, to_scalar(value, "__setitem__"));
    return;
  }
  Tensor src = nb::isinstance<Tensor>(value) ? nb::cast<const Tensor&>(value)
                                             : tensor_from_data(value, dst.dtype(), dst.device());
  // As PyTorch's copy_to (and NumPy): leading dims of size 1 of the value are dropped first.
  while (src.dim() > dst.dim() && src.sizes()[0] == 1) src = squeeze(src, 0);
  copy_(dst, src);
}

void init_indexing(nb::class_<Tensor>& cls) {
  // (.none(): nanobind refuses None for an argument unless told; t[None] is a valid index.)
  cls.def(
      "__getitem__", [](const Tensor& t, nb::handle index) { return apply_index(t, index); }, nb::arg("index").none());
  cls.def(
      "__setitem__", [](const Tensor& t, nb::handle index, nb::handle value) { assign_index(t, index, value); },
      nb::arg("index").none(), nb::arg("value"));
  cls.def("__iter__", [](nb::handle self) {
    const Tensor& t = nb::cast<const Tensor&>(self);
    EMBER_CHECK_TYPE(t.dim() > 0, "iteration over a 0-d tensor");
    nb::list l;
    for (int64_t i = 0; i < t.sizes()[0]; ++i) l.append(select(t, 0, i));
    return nb::iter(l);
  });
}

}  // namespace ember::py
