// Bindings of the normalization ops, embeddings and padding (torch.nn.functional's signatures into nn; torch's
// top-level forms, whose argument orders differ, into m). Registered from nn_activation.cpp.
#include <nanobind/stl/optional.h>

#include "common.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/padding.h"

namespace ember::py {

namespace {

using nb::arg;

nb::none none() { return nb::none(); }

// An optional tensor argument: None gives an undefined tensor.
Tensor opt(nb::handle h) { return h.is_none() ? Tensor() : nb::cast<Tensor>(h); }

DimVector int_list(nb::handle h, const char* fn, const char* what) {
  if (PyLong_Check(h.ptr())) return {to_int(h, fn, what)};
  return to_int_list(h, fn, what);
}

[[noreturn]] void assertion(const char* msg) {
  PyErr_SetString(PyExc_AssertionError, msg);
  throw nb::python_error();
}

// F.embedding's padding_idx: None gives -1, a negative one counts from the end.
int64_t padding_index(nb::handle padding_idx, const Tensor& weight) {
  if (padding_idx.is_none()) return -1;
  int64_t p = to_int(padding_idx, "embedding", "padding_idx");
  const int64_t rows = weight.dim() ? weight.size(0) : 0;
  if (p > 0 && p >= rows) assertion("Padding_idx must be within num_embeddings");
  if (p < 0) {
    if (p < -rows) assertion("Padding_idx must be within num_embeddings");
    p += rows;
  }
  return p;
}

}  // namespace

void init_nn_norm(nb::module_& m, nb::module_& nn) {
  // ---- normalization
  nn.def("layer_norm", [](const Tensor& x, nb::handle shape, nb::handle w, nb::handle b, double eps) {
    return layer_norm(x, int_list(shape, "layer_norm", "normalized_shape"), opt(w), opt(b), eps);
  }, arg("input"), arg("normalized_shape"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5);
  m.def("layer_norm", [](const Tensor& x, nb::handle shape, nb::handle w, nb::handle b, double eps, bool) {
    return layer_norm(x, int_list(shape, "layer_norm", "normalized_shape"), opt(w), opt(b), eps);
  }, arg("input"), arg("normalized_shape"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5,
        arg("cudnn_enable") = true);
  nn.def("rms_norm", [](const Tensor& x, nb::handle shape, nb::handle w, std::optional<double> eps) {
    return rms_norm(x, int_list(shape, "rms_norm", "normalized_shape"), opt(w), eps);
  }, arg("input"), arg("normalized_shape"), arg("weight") = none(), arg("eps") = none());
  m.def("rms_norm", [](const Tensor& x, nb::handle shape, nb::handle w, std::optional<double> eps) {
    return rms_norm(x, int_list(shape, "rms_norm", "normalized_shape"), opt(w), eps);
  }, arg("input"), arg("normalized_shape"), arg("weight") = none(), arg("eps") = none());
  nn.def("batch_norm", [](const Tensor& x, nb::handle rm, nb::handle rv, nb::handle w, nb::handle b, bool training,
                          double momentum, double eps) {
    return batch_norm(x, opt(rm), opt(rv), opt(w), opt(b), training, momentum, eps);
  }, arg("input"), arg("running_mean").none(), arg("running_var").none(), arg("weight") = none(),
         arg("bias") = none(), arg("training") = false, arg("momentum") = 0.1, arg("eps") = 1e-5);
  m.def("batch_norm", [](const Tensor& x, nb::handle w, nb::handle b, nb::handle rm, nb::handle rv, bool training,
                         double momentum, double eps, bool) {
    return batch_norm(x, opt(rm), opt(rv), opt(w), opt(b), training, momentum, eps);
  }, arg("input"), arg("weight").none(), arg("bias").none(), arg("running_mean").none(), arg("running_var").none(),
        arg("training"), arg("momentum"), arg("eps"), arg("cudnn_enabled"));
  nn.def("group_norm", [](const Tensor& x, int64_t groups, nb::handle w, nb::handle b, double eps) {
    return group_norm(x, groups, opt(w), opt(b), eps);
  }, arg("input"), arg("num_groups"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5);
  m.def("group_norm", [](const Tensor& x, int64_t groups, nb::handle w, nb::handle b, double eps, bool) {
    return group_norm(x, groups, opt(w), opt(b), eps);
  }, arg("input"), arg("num_groups"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5,
        arg("cudnn_enabled") = true);
  nn.def("instance_norm", [](const Tensor& x, nb::handle rm, nb::handle rv, nb::handle w, nb::handle b,
                             bool use_input_stats, double momentum, double eps) {
    return instance_norm(x, opt(rm), opt(rv), opt(w), opt(b), use_input_stats, momentum, eps);
  }, arg("input"), arg("running_mean") = none(), arg("running_var") = none(), arg("weight") = none(),
         arg("bias") = none(), arg("use_input_stats") = true, arg("momentum") = 0.1, arg("eps") = 1e-5);
  m.def("instance_norm", [](const Tensor& x, nb::handle w, nb::handle b, nb::handle rm, nb::handle rv,
                            bool use_input_stats, double momentum, double eps, bool) {
    return instance_norm(x, opt(rm), opt(rv), opt(w), opt(b), use_input_stats, momentum, eps);
  }, arg("input"), arg("weight").none(), arg("bias").none(), arg("running_mean").none(), arg("running_var").none(),
        arg("use_input_stats"), arg("momentum"), arg("eps"), arg("cudnn_enabled"));
  nn.def("local_response_norm", &local_response_norm, arg("input"), arg("size"), arg("alpha") = 1e-4,
         arg("beta") = 0.75, arg("k") = 1.0);
  nn.def("normalize", [](const Tensor& x, double p, int64_t dim, double eps, nb::handle out) {
    return finish_out(normalize(x, p, dim, eps), out, "normalize");
  }, arg("input"), arg("p") = 2.0, arg("dim") = 1, arg("eps") = 1e-12, arg("out") = none());

  // ---- embeddings
  nn.def("embedding", [](const Tensor& indices, const Tensor& weight, nb::handle padding_idx,
                         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
    return embedding(weight, indices, padding_index(padding_idx, weight), scale_grad_by_freq, sparse, max_norm,
                     norm_type);
  }, arg("input"), arg("weight"), arg("padding_idx") = none(), arg("max_norm") = none(), arg("norm_type") = 2.0,
         arg("scale_grad_by_freq") = false, arg("sparse") = false);
  m.def("embedding", [](const Tensor& weight, const Tensor& input, int64_t padding_idx, bool scale_grad_by_freq,
                        bool sparse) { return embedding(weight, input, padding_idx, scale_grad_by_freq, sparse); },
        arg("weight"), arg("input"), arg("padding_idx") = -1, arg("scale_grad_by_freq") = false,
        arg("sparse") = false);
  nn.def("embedding_bag", [](const Tensor& indices, const Tensor& weight, nb::handle offsets,
                             std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
                             const std::string& mode, bool sparse, nb::handle psw, bool include_last_offset,
                             nb::handle padding_idx) {
    return embedding_bag(indices, weight, opt(offsets), max_norm, norm_type, scale_grad_by_freq, mode, sparse, opt(psw),
                         include_last_offset, padding_index(padding_idx, weight));
  }, arg("input"), arg("weight"), arg("offsets") = none(), arg("max_norm") = none(), arg("norm_type") = 2.0,
         arg("scale_grad_by_freq") = false, arg("mode") = "mean", arg("sparse") = false,
         arg("per_sample_weights") = none(), arg("include_last_offset") = false, arg("padding_idx") = none());

  // ---- padding
  nn.def("pad", [](const Tensor& x, nb::handle p, const std::string& mode, std::optional<double> value) {
    return pad(x, to_int_list(p, "pad", "pad"), mode, value);
  }, arg("input"), arg("pad"), arg("mode") = "constant", arg("value") = none());
  m.def("constant_pad_nd", [](const Tensor& x, nb::handle p, nb::handle value) {
    return constant_pad_nd(x, to_int_list(p, "constant_pad_nd", "pad"), to_scalar(value, "constant_pad_nd"));
  }, arg("input"), arg("pad"), arg("value") = 0);
}

}  // namespace ember::py
