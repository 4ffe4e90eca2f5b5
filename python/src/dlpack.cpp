// DLPack interop: Tensor.__dlpack__/__dlpack_device__, ember.from_dlpack. Capsules follow the Python
// specification (https://dmlc.github.io/dlpack/latest/python_spec.html); the structs are declared here
// from dlpack.h.
#include <bit>
#include <cstddef>
#include <cstring>

#include "ember/cuda.h"
#include "ember/storage_watch.h"
#include "interop.h"

namespace ember::py {

namespace {

// ---- DLPack ABI (dlpack.h, v1.0)
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2 };
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means row-major contiguous
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
constexpr uint64_t kDLFlagReadOnly = 1ull << 0;
constexpr uint64_t kDLFlagIsCopied = 1ull << 1;
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint32_t kDLPackMajor = 1, kDLPackMinor = 0;
constexpr const char* kCapsule = "dltensor";
constexpr const char* kCapsuleVersioned = "dltensor_versioned";
constexpr const char* kUsedCapsule = "used_dltensor";
constexpr const char* kUsedCapsuleVersioned = "used_dltensor_versioned";

// ---- DLPack export

template <class M>
struct ExportCtx {
  Tensor tensor;  // keeps the memory alive until the consumer calls the deleter
  DimVector shape, strides;
  M managed{};
};

template <class M>
void export_deleter(M* m) {
  if (!m) return;
  // Consumers may call this without the GIL; the tensor's storage may own a NumPy buffer, whose
  // release takes the GIL itself (with_gil above).
  delete static_cast<ExportCtx<M>*>(m->manager_ctx);
}

bool to_dl_dtype(ScalarType st, DLDataType& d) {
  const uint8_t bits = static_cast<uint8_t>(element_size(st) * 8);
  switch (st) {
    case ScalarType::Bool: d = {kDLBool, 8, 1}; return true;
    case ScalarType::UInt8: d = {kDLUInt, bits, 1}; return true;
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64: d = {kDLInt, bits, 1}; return true;
    case ScalarType::BFloat16: d = {kDLBfloat, 16, 1}; return true;
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64: d = {kDLFloat, bits, 1}; return true;
    case ScalarType::ComplexHalf:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: d = {kDLComplex, bits, 1}; return true;
  }
  return false;
}

std::optional<ScalarType> from_dl_dtype(DLDataType d) {
  if (d.lanes != 1) return std::nullopt;
  switch (d.code) {
    case kDLBool:
      if (d.bits == 8) return ScalarType::Bool;
      break;
    case kDLUInt:
      if (d.bits == 8) return ScalarType::UInt8;
      break;
    case kDLInt:
      switch (d.bits) {
        case 8: return ScalarType::Int8;
        case 16: return ScalarType::Int16;
        case 32: return ScalarType::Int32;
        case 64: return ScalarType::Int64;
      }
      break;
    case kDLFloat:
      switch (d.bits) {
        case 16: return ScalarType::Float16;
        case 32: return ScalarType::Float32;
        case 64: return ScalarType::Float64;
      }
      break;
    case kDLBfloat:
      if (d.bits == 16) return ScalarType::BFloat16;
      break;
    case kDLComplex:
      if (d.bits == 32) return ScalarType::ComplexHalf;
      if (d.bits == 64) return ScalarType::ComplexFloat;
      if (d.bits == 128) return ScalarType::ComplexDouble;
      break;
  }
  return std::nullopt;
}

DLDevice to_dl_device(Device d) {
  EMBER_CHECK_TYPE(!d.is_meta(), "Cannot export a meta tensor through DLPack: it has no data");
  if (d.is_cuda()) return {kDLCUDA, d.has_index() ? d.index : cuda::current_device()};
  return {kDLCPU, 0};
}

template <class M>
void capsule_destructor(PyObject* cap) {
  constexpr const char* name = std::is_same_v<M, DLManagedTensor> ? kCapsule : kCapsuleVersioned;
  // A consumer renames the capsule to used_*; only an unconsumed capsule still owns the tensor.
  if (!PyCapsule_IsValid(cap, name)) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  auto* m = static_cast<M*>(PyCapsule_GetPointer(cap, name));
  if (m && m->deleter) m->deleter(m);
  PyErr_Restore(type, value, tb);
}

template <class M>
nb::object make_capsule(const Tensor& t, bool copied) {
  auto ctx = std::make_unique<ExportCtx<M>>();
  ctx->tensor = t;
  if (!copied) mark_shared_outside(t.impl()->storage().get());  // Note [Caches derived from a storage]
  ctx->shape = DimVector(t.sizes());
  ctx->strides = DimVector(t.strides());
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = t.data_ptr() ? t.data_ptr() : g_empty_data;
  dl.device = to_dl_device(t.device());
  dl.ndim = static_cast<int32_t>(t.dim());
  to_dl_dtype(t.dtype(), dl.dtype);
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &export_deleter<M>;
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    ctx->managed.version = {kDLPackMajor, kDLPackMinor};
    ctx->managed.flags = copied ? kDLFlagIsCopied : 0;
  }
  PyObject* cap = PyCapsule_New(&ctx->managed, std::is_same_v<M, DLManagedTensor> ? kCapsule : kCapsuleVersioned,
                                &capsule_destructor<M>);
  if (!cap) throw nb::python_error();
  ctx.release();
  return nb::steal(cap);
}

// Makes the data of a CUDA tensor safe to read on the consumer's stream (an int per the spec: 1 the
// legacy default stream, 2 the per-thread default stream, -1 no synchronization, else a cudaStream_t).
void sync_for_consumer(const Tensor& t, nb::handle stream) {
  if (!t.is_cuda()) return;
  const int dev = t.device().has_index() ? t.device().index : cuda::current_device();
  int64_t s = 1;  // None: the legacy default stream
  if (!stream.is_none()) s = nb::cast<int64_t>(stream);
  EMBER_CHECK_VALUE(s != 0, "__dlpack__(): stream 0 is ambiguous for CUDA; pass 1 for the legacy default stream");
  if (s == -1) return;
  const void* producer = cuda::current_stream(dev).handle;
  const bool same = (producer == nullptr && s == 1) || reinterpret_cast<intptr_t>(producer) == s;
  // ember exposes no events yet: waiting for the device orders all prior work before the consumer's.
  if (!same) cuda::synchronize(dev);
}

nb::object tensor_dlpack(const Tensor& self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                         nb::handle copy) {
  EMBER_CHECK_TYPE(stream.is_none() || (PyLong_Check(stream.ptr()) && !PyBool_Check(stream.ptr())),
                   "__dlpack__(): stream must be ``int`` or ``None``, not ", nb::inst_name(stream).c_str());
  EMBER_CHECK(!self.requires_grad(), "Can't export tensors that require gradient, use tensor.detach()");
  if (self.is_conj()) buffer_error("Can't export tensors with the conjugate bit set");  // DLPack has no such bit
  bool versioned = false;
  if (!max_version.is_none()) {
    EMBER_CHECK_TYPE(PyTuple_Check(max_version.ptr()) && PyTuple_GET_SIZE(max_version.ptr()) == 2,
                     "__dlpack__(): max_version must be a tuple (major, minor) or None, got ",
                     nb::inst_name(max_version).c_str());
    versioned = to_int(max_version[0], "__dlpack__", "max_version[0]") >= 1;
  }
  const bool copy_true = !copy.is_none() && truthy(copy);
  const bool copy_false = !copy.is_none() && !copy_true;
  Tensor t = self;
  bool copied = false;
  if (!dl_device.is_none()) {
    EMBER_CHECK_TYPE(PyTuple_Check(dl_device.ptr()) && PyTuple_GET_SIZE(dl_device.ptr()) == 2,
                     "__dlpack__(): dl_device must be a tuple (device_type, device_id) or None, got ",
                     nb::inst_name(dl_device).c_str());
    const int64_t type = to_int(dl_device[0], "__dlpack__", "dl_device[0]");
    const int64_t id = to_int(dl_device[1], "__dlpack__", "dl_device[1]");
    const DLDevice own = to_dl_device(t.device());
    if (type != own.device_type || id != own.device_id) {
      if (type != kDLCPU)
        buffer_error("__dlpack__(): can't export a tensor on ", t.device(), " to DLPack device (", type, ", ", id, ")");
      if (copy_false)
        buffer_error("__dlpack__(): exporting a tensor on ", t.device(), " to the CPU needs a copy, but copy=False");
      t = to(t, kCPU);
      copied = true;
    }
  }
  if (copy_true && !copied) {
    t = clone(t);
    copied = true;
  }
  sync_for_consumer(t, stream);
  if (versioned) return make_capsule<DLManagedTensorVersioned>(t, copied);
  return make_capsule<DLManagedTensor>(t, copied);
}

// ---- DLPack import

// Owns an imported DLManagedTensor(Versioned) until ember's storage lets it go.
struct Imported {
  void* managed;
  bool versioned;
  bool armed = false;  // set once the capsule is renamed, i.e. once ember owns the tensor
  void release() const {
    if (!armed) return;
    // Producers' deleters may run Python code (NumPy's does), so they get the GIL.
    with_gil([this] {
      if (versioned) {
        auto* m = static_cast<DLManagedTensorVersioned*>(managed);
        if (m->deleter) m->deleter(m);
      } else {
        auto* m = static_cast<DLManagedTensor*>(managed);
        if (m->deleter) m->deleter(m);
      }
    });
  }
};

Tensor from_capsule(nb::handle cap) {
  const char* name = PyCapsule_GetName(cap.ptr());
  if (!name) throw nb::python_error();
  const bool versioned = !std::strcmp(name, kCapsuleVersioned);
  if (!versioned && std::strcmp(name, kCapsule)) {
    if (!std::strcmp(name, kUsedCapsule) || !std::strcmp(name, kUsedCapsuleVersioned))
      fail<Error>(
          "from_dlpack(): received an invalid capsule. Note that DLTensor capsules can be consumed only "
          "once, so you might have already constructed a tensor from it once.");
    fail<Error>("from_dlpack(): expected a capsule named 'dltensor' or 'dltensor_versioned', got '", name, "'");
  }
  void* managed = PyCapsule_GetPointer(cap.ptr(), name);
  if (!managed) throw nb::python_error();
  const DLTensor* dl;
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(managed);
    if (m->version.major != kDLPackMajor)
      buffer_error("from_dlpack(): unsupported DLPack version ", m->version.major, ".", m->version.minor,
                   " (ember supports ", kDLPackMajor, ".x)");
    dl = &m->dl_tensor;
    // ember has no read-only tensors; like PyTorch it imports read-only data (kDLFlagReadOnly) as is.
    if (m->deleter == &export_deleter<DLManagedTensorVersioned>) {
      Tensor t = alias(static_cast<ExportCtx<DLManagedTensorVersioned>*>(m->manager_ctx)->tensor);
      if (PyCapsule_SetName(cap.ptr(), kUsedCapsuleVersioned) != 0) throw nb::python_error();
      m->deleter(m);
      return t;
    }
  } else {
    auto* m = static_cast<DLManagedTensor*>(managed);
    dl = &m->dl_tensor;
    // A capsule of ember's own: share its storage, and so its version counter, rather than wrap it.
    if (m->deleter == &export_deleter<DLManagedTensor>) {
      Tensor t = alias(static_cast<ExportCtx<DLManagedTensor>*>(m->manager_ctx)->tensor);
      if (PyCapsule_SetName(cap.ptr(), kUsedCapsule) != 0) throw nb::python_error();
      m->deleter(m);
      return t;
    }
  }
  const std::optional<ScalarType> st = from_dl_dtype(dl->dtype);
  if (!st)
    buffer_error("from_dlpack(): unsupported DLPack dtype (code ", int(dl->dtype.code), ", bits ", int(dl->dtype.bits),
                 ", lanes ", dl->dtype.lanes,
                 "); ember supports bool, uint8, int8, int16, int32, int64, float16, "
                 "bfloat16, float32 and float64");
  Device device = kCPU;
  if (dl->device.device_type == kDLCUDA) {
    if (!cuda::is_built()) buffer_error("from_dlpack(): the tensor is on CUDA, but ember was built without CUDA");
    if (dl->device.device_id < 0 || dl->device.device_id >= cuda::device_count())
      buffer_error("from_dlpack(): the tensor is on CUDA device ", dl->device.device_id, ", but ember sees ",
                   cuda::device_count(), " CUDA device(s)");
    device = Device(DeviceType::CUDA, dl->device.device_id);
  } else if (dl->device.device_type != kDLCPU) {
    buffer_error("from_dlpack(): unsupported DLPack device type ", dl->device.device_type,
                 "; ember supports kDLCPU (1) and kDLCUDA (2)");
  }
  const int nd = dl->ndim;
  if (nd < 0 || (nd > 0 && !dl->shape)) buffer_error("from_dlpack(): invalid DLTensor (ndim ", nd, ")");
  DimVector sizes(nd), strides(nd);
  int64_t numel = 1, extent = 1, expected = 1;
  for (int i = 0; i < nd; ++i) {
    if (dl->shape[i] < 0) buffer_error("from_dlpack(): invalid DLTensor (negative size ", dl->shape[i], ")");
    sizes[i] = dl->shape[i];
    numel *= sizes[i];
  }
  for (int i = nd - 1; i >= 0; --i) {
    strides[i] = dl->strides ? dl->strides[i] : expected;
    if (sizes[i] == 1 || numel == 0) {
      strides[i] = expected;
    } else {
      if (strides[i] < 0)
        buffer_error("from_dlpack(): tensors with negative strides are not supported (strides ",
                     shape_str(IntArrayRef(dl->strides, nd)), ")");
      extent += (sizes[i] - 1) * strides[i];
    }
    expected *= std::max<int64_t>(sizes[i], 1);
  }
  char* data = static_cast<char*>(dl->data) + dl->byte_offset;
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(extent) * element_size(*st);
  auto owner = std::make_shared<Imported>(Imported{managed, versioned});
  Tensor t = from_blob(
      data, *st, sizes, strides, device, [owner] { owner->release(); }, nbytes);
  if (PyCapsule_SetName(cap.ptr(), versioned ? kUsedCapsuleVersioned : kUsedCapsule) != 0) throw nb::python_error();
  owner->armed = true;
  return t;
}

nb::object dlpack_device_tuple(Device d) {
  const DLDevice dl = to_dl_device(d);
  return nb::make_tuple(dl.device_type, dl.device_id);
}

Tensor from_dlpack(nb::handle obj, nb::handle device_h, nb::handle copy) {
  if (PyCapsule_CheckExact(obj.ptr())) {
    Tensor t = from_capsule(obj);
    if (auto d = to_device(device_h)) t = to(t, *d);
    if (!copy.is_none() && truthy(copy)) t = clone(t);
    return t;
  }
  EMBER_CHECK_TYPE(nb::hasattr(obj, "__dlpack__"),
                   "from_dlpack(): expected an object with __dlpack__ or a DLPack "
                   "capsule, got ",
                   nb::inst_name(obj).c_str());
  const std::optional<Device> target = to_device(device_h);
  nb::dict kw;
  kw["max_version"] = nb::make_tuple(kDLPackMajor, kDLPackMinor);
  nb::object dev = obj.attr("__dlpack_device__")();
  const int64_t dev_type = to_int(dev[0], "from_dlpack", "__dlpack_device__()[0]");
  if (dev_type == kDLCUDA && cuda::is_available()) {
    const int idx = static_cast<int>(to_int(dev[1], "from_dlpack", "__dlpack_device__()[1]"));
    const void* s = cuda::current_stream(idx).handle;
    kw["stream"] = s ? reinterpret_cast<intptr_t>(s) : intptr_t(1);
  }
  nb::dict full = nb::steal<nb::dict>(PyDict_Copy(kw.ptr()));
  if (!copy.is_none()) full["copy"] = copy;
  if (target) full["dl_device"] = dlpack_device_tuple(*target);
  nb::object cap;
  bool handled = true;  // whether the producer took care of copy= and device=
  try {
    cap = obj.attr("__dlpack__")(**full);
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    // Producers of the pre-1.0 protocol take only stream=.
    kw.attr("pop")("max_version");
    cap = obj.attr("__dlpack__")(**kw);
    handled = copy.is_none() && !target;
  }
  Tensor t = from_capsule(cap);
  if (!handled) {
    if (target && t.device() != *target) {
      EMBER_CHECK(copy.is_none() || truthy(copy), "from_dlpack(): moving the tensor from ", t.device(), " to ", *target,
                  " needs a copy, but copy=False");
      t = to(t, *target);
    } else if (!copy.is_none() && truthy(copy)) {
      t = clone(t);
    }
  }
  return t;
}

}  // namespace

constexpr const char* kFromDlpackDoc = R"(
Converts a tensor from another library into an ember tensor through the DLPack protocol, sharing its memory.

``ext_tensor`` is an object with a ``__dlpack__`` method (a NumPy array, a tensor of another framework, an ember
tensor) or a DLPack capsule (which can be consumed once). The result views the producer's memory: writes to one show
in the other. For a CUDA producer, ember passes its current stream so that the producer orders its pending work
before ember's. Supported dtypes: bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 and float64; on
the CPU and on CUDA.

Args:
    ext_tensor (object): the tensor, or a DLPack capsule, to convert.

Keyword args:
    device (:class:`ember.device`, optional): the device of the result; a copy is made when it is not the
        producer's. Default: the producer's device.
    copy (bool, optional): ``True`` always copies, ``False`` never does (and raises where a copy is needed),
        ``None`` copies only where needed. Default: ``None``.

Example::

    >>> a = numpy.arange(4)
    >>> t = ember.from_dlpack(a)
    >>> a[0] = 9
    >>> t
    tensor([9, 1, 2, 3])
)";

void init_dlpack(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  cls.attr("__dlpack__") = nb::cpp_function(&tensor_dlpack, nb::is_method(), nb::arg("stream") = nb::none(),
                                            nb::kw_only(), nb::arg("max_version") = nb::none(),
                                            nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none(),
                                            nb::name("__dlpack__"), nb::scope(cls));
  cls.attr("__dlpack_device__") = nb::cpp_function([](const Tensor& t) { return dlpack_device_tuple(t.device()); },
                                                   nb::is_method(), nb::name("__dlpack_device__"), nb::scope(cls));
  m.def("from_dlpack", &from_dlpack, nb::arg("ext_tensor").none(), nb::kw_only(), nb::arg("device") = nb::none(),
        nb::arg("copy") = nb::none(),
        nb::sig("def from_dlpack(ext_tensor: Any, *, device: device | None = None, copy: bool | None = None) -> "
                "Tensor"),
        kFromDlpackDoc);
  m.def(
      "_to_dlpack", [](const Tensor& t) { return tensor_dlpack(t, nb::none(), nb::none(), nb::none(), nb::none()); },
      nb::arg("tensor"));
}

}  // namespace ember::py
