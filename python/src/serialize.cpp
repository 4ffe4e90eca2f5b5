// ember.save / ember.load (ember's format) and ember.safetensors: Python objects <-> the object tree of
// ember/serialize/value.h; the formats themselves are in ember/serialize/. Also ember.frombuffer.
#include <map>
#include <unordered_map>

#include "common.h"
#include "ember/serialize/checksum.h"
#include "ember/serialize/format.h"
#include "ember/serialize/safetensors.h"
#include "interop.h"

namespace ember::py {

namespace {

using serialize::Document;
using serialize::Value;

constexpr const char* kSavable =
    "ember.save stores tensors, None, bool, int, float, complex, str, bytes, dict, OrderedDict, list, tuple, "
    "namedtuple, ember.dtype, ember.device, ember.Size and slice (it never pickles other objects)";

// The UTF-8 text of a str, embedded NULs included (raises the Python error for lone surrogates).
std::string utf8_string(nb::handle h) {
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(h.ptr(), &n);
  if (!s) throw nb::python_error();
  return std::string(s, static_cast<size_t>(n));
}

// The class ember.load makes for a saved namedtuple: collections.namedtuple(name, fields, rename=True) (rename
// keeps the "_1" names that rename=True gave at save time), or null with the reason when it can't be made with
// exactly those fields. ember.save calls it too, so that no namedtuple is saved that can't be loaded.
nb::object namedtuple_class(nb::handle namedtuple_fn, const std::string& name, const std::vector<std::string>& fields,
                            std::string& why) {
  nb::list names;
  for (const auto& f : fields) names.append(nb::str(f.data(), f.size()));
  nb::dict kwargs;
  kwargs["rename"] = true;
  PyObject* c = PyObject_Call(namedtuple_fn.ptr(), nb::make_tuple(nb::str(name.data(), name.size()), names).ptr(),
                              kwargs.ptr());
  if (!c) {
    nb::python_error e;
    why = e.what();
    return {};
  }
  nb::object cls = nb::steal(c);
  std::vector<std::string> got;
  for (nb::handle f : cls.attr("_fields")) got.push_back(nb::cast<std::string>(f));
  if (got != fields) {
    why = "its field names are not all valid identifiers (collections.namedtuple would rename them)";
    return {};
  }
  return cls;
}

// Python object -> Value. `path` spells where we are ("obj['model']['x']") for the error message.
struct ToValue {
  nb::handle parameter_type, ordered_dict_type, size_type, namedtuple_fn;
  Document& doc;
  std::map<std::pair<std::string, std::vector<std::string>>, std::string> checked_namedtuples;  // -> why not
  std::unordered_map<const TensorImpl*, int64_t> seen;  // one tensor object saved twice is stored once

  Value operator()(nb::handle h, const std::string& path, int depth) {
    EMBER_CHECK_VALUE(depth <= serialize::kMaxDepth, "ember.save: ", path, " nests deeper than ", serialize::kMaxDepth,
                      " levels (does the object contain itself?)");
    PyObject* o = h.ptr();
    Value v;
    if (o == Py_None) return v;
    if (PyBool_Check(o)) {
      v.kind = Value::Kind::Bool, v.b = o == Py_True;
    } else if (PyLong_Check(o)) {
      int overflow = 0;
      const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) {
        v.kind = Value::Kind::BigInt, v.s = nb::cast<std::string>(nb::str(h));
      } else {
        if (x == -1 && PyErr_Occurred()) throw nb::python_error();
        v.kind = Value::Kind::Int, v.i = x;
      }
    } else if (PyFloat_Check(o)) {
      v.kind = Value::Kind::Float, v.re = PyFloat_AsDouble(o);
    } else if (PyComplex_Check(o)) {
      v.kind = Value::Kind::Complex, v.re = PyComplex_RealAsDouble(o), v.im = PyComplex_ImagAsDouble(o);
    } else if (PyUnicode_Check(o)) {
      v = Value::str(utf8_string(h));
    } else if (PyBytes_Check(o)) {
      v.kind = Value::Kind::Bytes, v.s.assign(PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o));
    } else if (nb::isinstance<Tensor>(h)) {
      const Tensor& t = nb::cast<const Tensor&>(h);
      auto [it, fresh] = seen.try_emplace(t.impl(), static_cast<int64_t>(doc.tensors.size()));
      if (fresh) doc.tensors.push_back({t, PyObject_IsInstance(o, parameter_type.ptr()) == 1});
      v = Value::tensor(it->second);
    } else if (nb::isinstance<DType>(h)) {
      v.kind = Value::Kind::DType, v.dtype = nb::inst_ptr<DType>(h)->st;
    } else if (nb::isinstance<Device>(h)) {
      v.kind = Value::Kind::Device, v.s = nb::inst_ptr<Device>(h)->str();
    } else if (PyObject_IsInstance(o, size_type.ptr()) == 1) {
      const DimVector dims = to_int_list(h, "ember.save", "Size");
      v.kind = Value::Kind::Size, v.ints.assign(dims.begin(), dims.end());
    } else if (PySlice_Check(o)) {
      v.kind = Value::Kind::Slice;
      for (const char* part : {"start", "stop", "step"})
        v.items.push_back((*this)(h.attr(part), path + "." + part, depth + 1));
    } else if (PyDict_Check(o)) {
      v.kind = PyObject_IsInstance(o, ordered_dict_type.ptr()) == 1 ? Value::Kind::OrderedDict : Value::Kind::Dict;
      nb::list keys = nb::steal<nb::list>(PyDict_Keys(o));  // a snapshot: no Python code runs below to change it
      for (nb::handle k : keys) {
        PyObject* val = PyDict_GetItemWithError(o, k.ptr());
        if (!val) {
          if (PyErr_Occurred()) throw nb::python_error();
          continue;
        }
        const std::string sub = path + "[" + nb::cast<std::string>(nb::repr(k)) + "]";
        v.items.push_back((*this)(k, sub + " (the key)", depth + 1));
        v.items.push_back((*this)(val, sub, depth + 1));
      }
    } else if (PyList_Check(o) || PyTuple_Check(o)) {
      const bool named = PyTuple_Check(o) && nb::hasattr(h, "_fields");
      v.kind = PyList_Check(o) ? Value::Kind::List : named ? Value::Kind::NamedTuple : Value::Kind::Tuple;
      nb::tuple items = nb::steal<nb::tuple>(PySequence_Tuple(o));
      if (!items.is_valid()) throw nb::python_error();
      if (named) {
        v.s = nb::cast<std::string>(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(o))).attr("__name__"));
        for (nb::handle f : h.attr("_fields")) v.fields.push_back(nb::cast<std::string>(f));
        EMBER_CHECK_TYPE(v.fields.size() == items.size(), "ember.save: ", path, ": namedtuple ", v.s, " has ",
                         v.fields.size(), " _fields but ", items.size(), " items");
        auto [it, fresh] = checked_namedtuples.try_emplace({v.s, v.fields});
        if (fresh) (void)namedtuple_class(namedtuple_fn, v.s, v.fields, it->second);
        EMBER_CHECK_VALUE(it->second.empty(), "ember.save: ", path, ": ember.load could not rebuild namedtuple '", v.s,
                          "' with these fields: ", it->second);
      }
      for (size_t k = 0; k < items.size(); ++k)
        v.items.push_back(
            (*this)(items[k], named ? path + "." + v.fields[k] : path + "[" + std::to_string(k) + "]", depth + 1));
    } else {
      fail<TypeError>("ember.save: can't save ", path, " of type '", nb::inst_name(h).c_str(), "': ", kSavable);
    }
    return v;
  }
};

// Value -> Python object.
struct FromValue {
  const Document& doc;
  const std::string& file;
  nb::handle parameter_type, ordered_dict_type, namedtuple_fn;
  std::vector<nb::object> tensors;  // one Python object per saved tensor
  std::map<std::pair<std::string, std::vector<std::string>>, nb::object> namedtuples;

  nb::object operator()(const Value& v) {
    switch (v.kind) {
      case Value::Kind::None: return nb::none();
      case Value::Kind::Bool: return nb::bool_(v.b);
      case Value::Kind::Int: return nb::int_(v.i);
      case Value::Kind::BigInt: return nb::steal(PyLong_FromString(v.s.c_str(), nullptr, 10));
      case Value::Kind::Float: return nb::float_(v.re);
      case Value::Kind::Complex: return nb::steal(PyComplex_FromDoubles(v.re, v.im));
      case Value::Kind::Str: return nb::str(v.s.data(), v.s.size());
      case Value::Kind::Bytes: return nb::bytes(v.s.data(), v.s.size());
      case Value::Kind::List: {
        nb::list out;
        for (const Value& x : v.items) out.append((*this)(x));
        return out;
      }
      case Value::Kind::Tuple: return tuple_of(v.items);
      case Value::Kind::Dict:
      case Value::Kind::OrderedDict: {
        nb::object out = v.kind == Value::Kind::Dict ? nb::dict() : ordered_dict_type();
        for (size_t k = 0; k + 1 < v.items.size(); k += 2) {
          nb::object key = (*this)(v.items[k]);
          nb::object val = (*this)(v.items[k + 1]);
          if (PyObject_SetItem(out.ptr(), key.ptr(), val.ptr()) != 0) {
            PyErr_Clear();
            fail<Error>("ember.load: '", file, "': a dict key of type '", nb::inst_name(key).c_str(),
                        "' is not hashable: the file is corrupt");
          }
        }
        return out;
      }
      case Value::Kind::NamedTuple: {
        auto& cls = namedtuples[{v.s, v.fields}];
        if (!cls.is_valid()) {
          std::string why;
          cls = namedtuple_class(namedtuple_fn, v.s, v.fields, why);
          if (!cls.is_valid()) fail<Error>("ember.load: '", file, "': can't make namedtuple '", v.s, "': ", why);
        }
        return cls(*tuple_of(v.items));
      }
      case Value::Kind::DType: return dtype_object(v.dtype);
      case Value::Kind::Device: return nb::cast(Device(v.s));
      case Value::Kind::Size: return make_size(v.ints);
      case Value::Kind::Slice: {
        nb::object a = (*this)(v.items[0]), b = (*this)(v.items[1]), c = (*this)(v.items[2]);
        return nb::steal(PySlice_New(a.ptr(), b.ptr(), c.ptr()));
      }
      case Value::Kind::Tensor: {
        nb::object& obj = tensors[v.i];
        if (!obj.is_valid()) {
          const auto& rec = doc.tensors[v.i];
          obj = rec.parameter ? parameter_type(rec.tensor, rec.tensor.requires_grad()) : nb::cast(rec.tensor);
        }
        return obj;
      }
    }
    fail<Error>("ember.load: unknown value kind");
  }

  nb::tuple tuple_of(const std::vector<Value>& xs) {
    nb::list l;
    for (const Value& x : xs) l.append((*this)(x));
    return nb::tuple(l);
  }
};

// Bytes-like objects are read in place: the buffer is held (so it can't be resized) for the call.
struct BufferView {
  Py_buffer view{};
  explicit BufferView(nb::handle h) {
    if (PyObject_GetBuffer(h.ptr(), &view, PyBUF_SIMPLE) != 0) throw nb::python_error();
  }
  ~BufferView() { PyBuffer_Release(&view); }
};

std::unique_ptr<serialize::Source> open_source(nb::handle src, bool mmap, std::optional<BufferView>& buf) {
  if (PyUnicode_Check(src.ptr())) {
    const std::string path = utf8(src);
    nb::gil_scoped_release unlocked;
    return mmap ? serialize::map_file(path) : serialize::open_file(path);
  }
  buf.emplace(src);
  return serialize::buffer_source(buf->view.buf, static_cast<size_t>(buf->view.len), "<buffer>");
}

// serialize::AtomicFile as a Python file object that zipfile can write to (write and tell; no seek).
class AtomicFileHolder {
 public:
  explicit AtomicFileHolder(const std::string& path) : file_(std::make_unique<serialize::AtomicFile>(path)) {}
  size_t write(nb::handle data) {
    BufferView buf(data);
    serialize::AtomicFile& f = open("write");
    {
      nb::gil_scoped_release unlocked;
      f.write(buf.view.buf, static_cast<size_t>(buf.view.len));
    }
    return static_cast<size_t>(buf.view.len);
  }
  uint64_t tell() { return open("tell").position(); }
  void commit() {
    serialize::AtomicFile& f = open("commit");
    {
      nb::gil_scoped_release unlocked;
      f.commit();
    }
    file_.reset();
  }
  void discard() { file_.reset(); }
  std::string temp_path() { return open("temp_path").temp_path(); }

 private:
  serialize::AtomicFile& open(const char* what) {
    if (!file_) fail<ValueError>("ember.save: ", what, " on a closed atomic file");
    return *file_;
  }
  std::unique_ptr<serialize::AtomicFile> file_;
};

nb::object save_ember(nb::handle obj, std::optional<std::string> path) {
  Document doc;
  nb::module_ nn = nb::module_::import_("ember.nn");
  nb::module_ collections = nb::module_::import_("collections");
  nb::module_ ember = nb::module_::import_("ember");
  ToValue conv{nn.attr("Parameter"), collections.attr("OrderedDict"), ember.attr("Size"),
               collections.attr("namedtuple"), doc};
  doc.root = conv(obj, "obj", 0);
  serialize::StringSink out;
  {
    nb::gil_scoped_release unlocked;
    // Every limit is checked before a file is created (Note [Checkpoint limits]).
    const serialize::PreparedDocument prepared = serialize::prepare_document(doc);
    if (path) {
      serialize::AtomicFile file(*path);
      serialize::write_document(prepared, file);
      file.commit();
    } else {
      serialize::write_document(prepared, out);
    }
  }
  if (path) return nb::none();
  return nb::bytes(out.str().data(), out.str().size());
}

nb::object load_ember(nb::handle src, bool mmap, bool verify, nb::object restore) {
  std::optional<BufferView> buf;
  auto in = open_source(src, mmap, buf);
  Document doc;
  {
    nb::gil_scoped_release unlocked;
    doc = serialize::read_document(*in, "ember.load", verify);
  }
  if (!restore.is_none())
    serialize::relocate(
        doc, [&](const Tensor& bytes, const std::string& tag) { return nb::cast<Tensor>(restore(bytes, tag)); });
  nb::module_ nn = nb::module_::import_("ember.nn");
  nb::module_ collections = nb::module_::import_("collections");
  FromValue conv{doc, in->name(), nn.attr("Parameter"), collections.attr("OrderedDict"),
                 collections.attr("namedtuple")};
  conv.tensors.resize(doc.tensors.size());
  return conv(doc.root);
}

nb::object save_safetensors(nb::dict tensors, std::optional<nb::dict> metadata, std::optional<std::string> path) {
  safetensors::NamedTensors named;
  for (auto [k, v] : tensors) {
    EMBER_CHECK_VALUE(PyUnicode_Check(k.ptr()), "Key `", nb::cast<std::string>(nb::repr(k)),
                      "` is invalid, expected str but received ", nb::inst_name(k).c_str());
    EMBER_CHECK_VALUE(nb::isinstance<Tensor>(v), "Key `", utf8(k), "` is invalid, expected ember.Tensor but received ",
                      nb::inst_name(v).c_str());
    named.emplace_back(utf8_string(k), nb::cast<Tensor>(v));
  }
  std::optional<safetensors::Metadata> md;
  if (metadata) {
    md.emplace();
    for (auto [k, v] : *metadata) {
      EMBER_CHECK_VALUE(PyUnicode_Check(k.ptr()) && PyUnicode_Check(v.ptr()),
                        "metadata must be a dict of str to str, got the entry ", nb::cast<std::string>(nb::repr(k)),
                        ": ", nb::cast<std::string>(nb::repr(v)));
      md->emplace_back(utf8_string(k), utf8_string(v));
    }
  }
  serialize::StringSink out;
  {
    nb::gil_scoped_release unlocked;
    if (path)
      safetensors::save_file(named, *path, md);
    else
      safetensors::write(named, md, out);
  }
  if (path) return nb::none();
  return nb::bytes(out.str().data(), out.str().size());
}

nb::tuple load_safetensors(nb::handle src, bool mmap) {
  std::optional<BufferView> buf;
  auto in = open_source(src, mmap, buf);
  safetensors::File f;
  {
    nb::gil_scoped_release unlocked;
    f = safetensors::read(*in, PyUnicode_Check(src.ptr()) ? "safetensors.load_file" : "safetensors.load");
  }
  nb::list tensors;
  {
    // A million (name, tensor) pairs would trigger the cyclic GC over and over (each pass walks them all); none
    // of them can be in a cycle.
    struct GcOff {
      int was_on = PyGC_Disable();
      ~GcOff() {
        if (was_on) PyGC_Enable();
      }
    } off;
    for (auto& [name, t] : f.tensors) tensors.append(nb::make_tuple(nb::str(name.data(), name.size()), t));
  }
  nb::object md = nb::none();
  if (f.metadata) {
    nb::dict d;
    for (auto& [k, v] : *f.metadata) d[nb::str(k.data(), k.size())] = nb::str(v.data(), v.size());
    md = d;
  }
  return nb::make_tuple(tensors, md);
}

// torch.frombuffer: a 1-D tensor over an object's buffer, sharing its memory and keeping it alive.
Tensor frombuffer(nb::handle buffer, nb::handle dtype_h, int64_t count, int64_t offset, bool requires_grad) {
  const ScalarType dtype = to_dtype_required(dtype_h, "frombuffer");
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(buffer.ptr(), view, PyBUF_WRITABLE) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(buffer.ptr(), view, PyBUF_SIMPLE) != 0) {
      delete view;
      throw nb::python_error();
    }
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The given buffer is not writable, and ember does not support non-writable tensors. This means "
                     "you can write to the underlying (supposedly non-writable) buffer using the tensor. You may want "
                     "to copy the buffer to protect its data or make it writable before converting it to a tensor.",
                     1) < 0) {
      PyBuffer_Release(view);
      delete view;
      throw nb::python_error();
    }
  }
  auto release = [view] {
    with_gil([view] {
      PyBuffer_Release(view);
      delete view;
    });
  };
  const int64_t len = view->len, es = static_cast<int64_t>(element_size(dtype));
  try {
    EMBER_CHECK_VALUE(len > 0 && count != 0, "both buffer length (", len, ") and count (", count, ") must not be 0");
    EMBER_CHECK_VALUE(offset >= 0 && offset < len, "offset (", offset,
                      " bytes) must be non-negative and no greater than buffer length (", len, " bytes) minus 1");
    EMBER_CHECK_VALUE(count > 0 || (len - offset) % es == 0, "buffer length (", len - offset, " bytes) after offset (",
                      offset, " bytes) must be a multiple of element size (", es, ")");
    if (count < 0) count = (len - offset) / es;
    EMBER_CHECK_VALUE(count <= (len - offset) / es, "requested buffer length (", count, " * ", es,
                      " bytes) after offset (", offset, " bytes) must not be greater than actual buffer length (", len,
                      " bytes)");
  } catch (...) {
    release();
    throw;
  }
  const int64_t size[1] = {count}, stride[1] = {1};
  Tensor t = from_blob(static_cast<char*>(view->buf) + offset, dtype, size, stride, kCPU, release,
                       static_cast<size_t>(count * es));
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

}  // namespace

void init_serialize(nb::module_& m) {
  m.def("_save", &save_ember, nb::arg("obj").none(), nb::arg("path").none());
  // Note [Atomic save] for Python writers (ember.save's PyTorch zip format): write() then commit(); a file that is
  // discarded (or dropped) before commit() removes its temporary file and leaves the target as it was.
  nb::class_<AtomicFileHolder>(m, "_AtomicFile")
      .def(nb::init<std::string>(), nb::arg("path"))
      .def("write", &AtomicFileHolder::write, nb::arg("data"))
      .def("tell", &AtomicFileHolder::tell)
      .def("flush", [](AtomicFileHolder&) {})
      .def("commit", &AtomicFileHolder::commit)
      .def("discard", &AtomicFileHolder::discard)
      .def_prop_ro("temp_path", &AtomicFileHolder::temp_path);
  m.def("_load", &load_ember, nb::arg("source"), nb::arg("mmap"), nb::arg("verify"), nb::arg("restore").none());
  // zlib.crc32's contract (a bytes-like object, a running value) at ISA-L's speed (ember/serialize/checksum.h): the
  // CRC-32s of the zip members ember.save writes and ember.load checks.
  m.def(
      "_crc32",
      [](nb::handle data, uint32_t value) {
        BufferView buf(data);
        nb::gil_scoped_release unlocked;
        return serialize::crc32(value, buf.view.buf, static_cast<size_t>(buf.view.len));
      },
      nb::arg("data"), nb::arg("value") = 0);
  nb::dict limits;  // Note [Checkpoint limits]
  limits["dims"] = serialize::CheckpointLimits::kDims;
  limits["manifest_depth"] = serialize::CheckpointLimits::kManifestDepth;
  limits["safetensors_depth"] = serialize::CheckpointLimits::kSafetensorsDepth;
  limits["safetensors_header_bytes"] = serialize::CheckpointLimits::kSafetensorsHeaderBytes;
  limits["int_digits"] = serialize::CheckpointLimits::kIntDigits;
  m.attr("_checkpoint_limits") = limits;
  m.def("_is_ember_checkpoint",
        [](nb::bytes head) { return serialize::is_ember_checkpoint(head.c_str(), head.size()); });
  m.def("_safetensors_save", &save_safetensors, nb::arg("tensors"), nb::arg("metadata").none(), nb::arg("path").none());
  m.def("_safetensors_load", &load_safetensors, nb::arg("source"), nb::arg("mmap"));
  m.def("frombuffer", &frombuffer, nb::arg("buffer"), nb::kw_only(), nb::arg("dtype"), nb::arg("count") = -1,
        nb::arg("offset") = 0, nb::arg("requires_grad") = false,
        nb::sig("def frombuffer(buffer: Buffer, *, dtype: dtype, count: int = -1, offset: int = 0, requires_grad: bool "
                "= False) -> Tensor"),
        R"(Creates a 1-D tensor that views the memory of an object that exposes the Python buffer protocol.

The tensor shares the buffer's memory (writes show in both) and keeps the object alive. A read-only buffer (such as
``bytes``) gives a warning, since writing to the tensor would change it.

Args:
    buffer (object): an object with the buffer protocol (``bytearray``, ``memoryview``, ``array.array``, ...).

Keyword args:
    dtype (:class:`ember.dtype`): the dtype of the elements.
    count (int, optional): the number of elements to read; ``-1`` reads to the end of the buffer. Default: ``-1``.
    offset (int, optional): the number of bytes to skip at the start of the buffer. Default: ``0``.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: ``False``.

Example::

    >>> import array
    >>> a = array.array("i", [1, 2, 3])
    >>> t = ember.frombuffer(a, dtype=ember.int32)
    >>> t[0] = -1
    >>> a
    array('i', [-1, 2, 3]))");
}

}  // namespace ember::py
