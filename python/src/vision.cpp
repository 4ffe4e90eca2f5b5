// Bindings of ember.vision's C++ side (ember/vision/vision.h) as ember._C._vision; python/ember/vision wraps them.
#include <nanobind/stl/string.h>

#include <cerrno>
#include <cstring>

#include "common.h"
#include "ember/vision/ops.h"
#include "ember/vision/vision.h"

namespace ember::py {

namespace {

namespace ev = ember::vision;

// The bytes of a uint8 1-d CPU tensor, or of a Python bytes object.
struct ByteView {
  const uint8_t* data;
  size_t size;
  Tensor keep;  // holds a contiguous copy when the tensor was not contiguous
};

ByteView bytes_of(nb::handle h, const char* fn) {
  if (nb::isinstance<nb::bytes>(h)) {
    nb::bytes b = nb::borrow<nb::bytes>(h);
    return {reinterpret_cast<const uint8_t*>(b.c_str()), b.size(), {}};
  }
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), "[", fn, "] expected a uint8 tensor or bytes, got ",
                   nb::inst_name(h).c_str());
  const Tensor& t = nb::cast<const Tensor&>(h);
  EMBER_CHECK_TYPE(t.dtype() == ScalarType::UInt8, "[", fn, "] expected a uint8 tensor, got ", t.dtype());
  EMBER_CHECK_VALUE(t.dim() == 1, "[", fn, "] expected a 1-d tensor of bytes, got shape ", shape_str(t.sizes()));
  EMBER_CHECK(t.device().is_cpu(), "[", fn, "] expected a CPU tensor, got one on ", t.device());
  Tensor c = t.contiguous();
  return {static_cast<const uint8_t*>(c.data_ptr()), static_cast<size_t>(c.numel()), c};
}

Tensor bytes_tensor(const std::vector<uint8_t>& v) {
  Tensor out = empty({{static_cast<int64_t>(v.size())}}, TensorOptions(ScalarType::UInt8));
  if (!v.empty()) std::memcpy(out.data_ptr(), v.data(), v.size());
  return out;
}

// A file name (str or bytes, as os.fspath gives) in the file system's encoding; str names with undecodable bytes
// (surrogate escapes) round-trip as os.fsencode does.
std::string fs_path(nb::handle h) {
  if (nb::isinstance<nb::bytes>(h)) return std::string(nb::borrow<nb::bytes>(h).c_str(), nb::len(h));
  EMBER_CHECK_TYPE(nb::isinstance<nb::str>(h), "[vision] expected a file name (str or bytes), got ",
                   nb::inst_name(h).c_str());
  nb::object b = nb::steal(PyUnicode_EncodeFSDefault(h.ptr()));
  if (!b.is_valid()) throw nb::python_error();
  return std::string(PyBytes_AS_STRING(b.ptr()), PyBytes_GET_SIZE(b.ptr()));
}

ev::ImageMode image_mode(int mode) {
  EMBER_CHECK_VALUE(mode >= 0 && mode <= 4, "[vision] unknown image read mode ", mode,
                    " (expected ImageReadMode.UNCHANGED 0, GRAY 1, GRAY_ALPHA "
                    "2, RGB 3 or RGB_ALPHA 4)");
  return static_cast<ev::ImageMode>(mode);
}

}  // namespace

void init_vision(nb::module_& m) {
  // A file error becomes OSError with its errno (so a missing file raises FileNotFoundError) and file name. Registered
  // after the generic translator in main.cpp, so it is tried first.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ev::FileError& e) {
      // The path in the file system's encoding, the message with undecodable bytes replaced: never a second error.
      const std::string reason = "[vision] " + e.reason;
      nb::object msg = nb::steal(PyUnicode_DecodeUTF8(reason.data(), reason.size(), "replace"));
      nb::object path = nb::steal(PyUnicode_DecodeFSDefault(e.path.c_str()));
      if (!msg.is_valid() || !path.is_valid()) return;  // a Python error (MemoryError) is already set
      nb::object args = nb::make_tuple(e.errno_value, msg, path);
      PyObject* exc = PyObject_Call(PyExc_OSError, args.ptr(), nullptr);  // OSError picks the errno's subclass
      if (exc) {
        PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
        Py_DECREF(exc);
      }
    }
  });
  nb::module_ v = m.def_submodule("_vision", "ember.vision's C++ side: dataset files, image codecs, color kernels");
  v.def(
      "read_file",
      [](nb::handle path_obj) {
        const std::string path = fs_path(path_obj);
        std::vector<uint8_t> b;
        {
          nb::gil_scoped_release release;
          b = ev::read_file(path);
        }
        return bytes_tensor(b);
      },
      nb::arg("path"));
  v.def(
      "write_file",
      [](nb::handle path, nb::handle data) {
        ByteView b = bytes_of(data, "write_file");
        ev::write_file(fs_path(path), b.data, b.size);
      },
      nb::arg("path"), nb::arg("data"));
  v.def(
      "read_idx",
      [](nb::handle path_obj) {
        const std::string path = fs_path(path_obj);
        nb::gil_scoped_release release;
        return ev::read_idx(path);
      },
      nb::arg("path"));
  v.def(
      "parse_idx",
      [](nb::handle data, const std::string& what) {
        ByteView b = bytes_of(data, "parse_idx");
        return ev::parse_idx(b.data, b.size, what);
      },
      nb::arg("data"), nb::arg("what") = "IDX data");
  v.def(
      "gunzip",
      [](nb::handle data, int64_t max_size) {
        ByteView b = bytes_of(data, "gunzip");
        EMBER_CHECK_VALUE(max_size >= 0, "[gunzip] max_size must be non-negative, got ", max_size);
        return bytes_tensor(ev::gunzip(b.data, b.size, static_cast<size_t>(max_size), "gzip data"));
      },
      nb::arg("data"), nb::arg("max_size"));
  // Decoders return uint8 [H, W, C].
  v.def(
      "decode_png",
      [](nb::handle data, int mode) {
        ByteView b = bytes_of(data, "decode_png");
        return ev::decode_png(b.data, b.size, image_mode(mode));
      },
      nb::arg("data"), nb::arg("mode") = 0);
  v.def(
      "decode_jpeg",
      [](nb::handle data, int mode) {
        ByteView b = bytes_of(data, "decode_jpeg");
        return ev::decode_jpeg(b.data, b.size, image_mode(mode));
      },
      nb::arg("data"), nb::arg("mode") = 0);
  v.def(
      "decode_pnm",
      [](nb::handle data, int mode) {
        ByteView b = bytes_of(data, "decode_pnm");
        return ev::decode_pnm(b.data, b.size, image_mode(mode));
      },
      nb::arg("data"), nb::arg("mode") = 0);
  v.def(
      "decode_image",
      [](nb::handle data, int mode) {
        ByteView b = bytes_of(data, "decode_image");
        return ev::decode_image(b.data, b.size, image_mode(mode));
      },
      nb::arg("data"), nb::arg("mode") = 0);
  v.def(
      "read_image",
      [](nb::handle path_obj, int mode) {
        const std::string path = fs_path(path_obj);
        const ev::ImageMode m = image_mode(mode);
        nb::gil_scoped_release release;
        std::vector<uint8_t> b = ev::read_file(path);
        return ev::decode_image(b.data(), b.size(), m, "'" + path + "'");
      },
      nb::arg("path"), nb::arg("mode") = 0);
  v.def(
      "encode_png",
      [](const Tensor& image, int compression_level) { return bytes_tensor(ev::encode_png(image, compression_level)); },
      nb::arg("image"), nb::arg("compression_level") = 6);
  v.def(
      "encode_jpeg", [](const Tensor& image, int quality) { return bytes_tensor(ev::encode_jpeg(image, quality)); },
      nb::arg("image"), nb::arg("quality") = 75);
  v.def("rgb_to_grayscale", &ev::rgb_to_grayscale, nb::arg("image"), nb::arg("num_output_channels") = 1);
  v.def("adjust_hue", &ev::adjust_hue, nb::arg("image"), nb::arg("hue_factor"));
  // torchvision.ops' kernels (ember/vision/ops.h); ember.vision.ops takes torchvision's arguments and calls these.
  v.def("roi_align", &ev::roi_align, nb::arg("input"), nb::arg("rois"), nb::arg("spatial_scale"),
        nb::arg("pooled_height"), nb::arg("pooled_width"), nb::arg("sampling_ratio"), nb::arg("aligned"));
  v.def("ps_roi_align", &ev::ps_roi_align, nb::arg("input"), nb::arg("rois"), nb::arg("spatial_scale"),
        nb::arg("pooled_height"), nb::arg("pooled_width"), nb::arg("sampling_ratio"));
  v.def("roi_pool", &ev::roi_pool, nb::arg("input"), nb::arg("rois"), nb::arg("spatial_scale"),
        nb::arg("pooled_height"), nb::arg("pooled_width"));
  v.def("ps_roi_pool", &ev::ps_roi_pool, nb::arg("input"), nb::arg("rois"), nb::arg("spatial_scale"),
        nb::arg("pooled_height"), nb::arg("pooled_width"));
  v.def("nms", &ev::nms, nb::arg("boxes"), nb::arg("scores"), nb::arg("iou_threshold"));
}

}  // namespace ember::py
