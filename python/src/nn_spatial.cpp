// Bindings of the spatial ops (interpolate, grid_sample, affine_grid, pixel_shuffle, unfold/fold) and the distances:
// torch.nn.functional's names and defaults into nn, the ones PyTorch also has at top level (torch.cdist,
// torch.pixel_shuffle, ...) into m. The attention ops are in nn_attention.cpp, registered from here.
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/spatial.h"

namespace ember::py {

void init_nn_attention(nb::module_& m, nb::module_& nn);  // nn_attention.cpp

namespace {

using nb::arg;

nb::object none() { return nb::none(); }

bool is_sequence(nb::handle h) { return PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()); }

// An int or a sequence of ints, as a vector (empty for None).
std::vector<int64_t> ints_of(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  DimVector v = is_sequence(h) ? to_int_list(h, fn, what) : DimVector{to_int(h, fn, what)};
  return std::vector<int64_t>(v.begin(), v.end());
}

std::vector<double> floats_of(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  std::vector<double> r;
  if (is_sequence(h)) {
    for (nb::handle item : nb::borrow<nb::sequence>(h)) r.push_back(to_scalar(item, fn).to_double());
  } else {
    r.push_back(to_scalar(h, fn).to_double());
  }
  EMBER_CHECK_TYPE(!r.empty(), fn, "(): ", what, " must not be empty");
  return r;
}

std::optional<bool> opt_bool(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return truthy(h);
}

Tensor interpolate_py(const Tensor& input, nb::handle size, nb::handle scale_factor, const std::string& mode,
                      nb::handle align_corners, nb::handle recompute_scale_factor, bool antialias) {
  if (!size.is_none() && is_sequence(size))
    for (nb::handle item : nb::borrow<nb::sequence>(size))
      EMBER_CHECK_TYPE(PyLong_Check(item.ptr()) || nb::isinstance<Tensor>(item), "expected size to be one of int or "
                       "Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got size with types [",
                       nb::inst_name(item).c_str(), ", ...]");
  // A sequence must name every spatial dim (a single number applies to all of them).
  const int64_t dims = input.dim() - 2;
  const std::string spatial = shape_str(input.dim() >= 2 ? input.sizes().subspan(2) : input.sizes());
  EMBER_CHECK_VALUE(size.is_none() || !is_sequence(size) || static_cast<int64_t>(nb::len(size)) == dims,
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    "dimensions of ", spatial, " and output size of ", nb::repr(size).c_str(), ". Please provide input "
                    "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.");
  EMBER_CHECK_VALUE(scale_factor.is_none() || !is_sequence(scale_factor) ||
                        static_cast<int64_t>(nb::len(scale_factor)) == dims,
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    "spatial dimensions of ", spatial, " and scale_factor of shape ", nb::repr(scale_factor).c_str(),
                    ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                    "...,sK) format.");
  return interpolate(input, ints_of(size, "interpolate", "size"), floats_of(scale_factor, "interpolate", "scale_factor"),
                     mode, opt_bool(align_corners), opt_bool(recompute_scale_factor), antialias);
}

}  // namespace

void init_nn_spatial(nb::module_& m, nb::module_& nn) {
  // ---- interpolate and the deprecated upsample forms
  nn.def("interpolate", &interpolate_py, arg("input"), none_arg("size"), none_arg("scale_factor"),
         arg("mode") = "nearest", none_arg("align_corners"), none_arg("recompute_scale_factor"),
         arg("antialias") = false);
  nn.def("upsample", [](const Tensor& input, nb::handle size, nb::handle scale_factor, const std::string& mode,
                        nb::handle align_corners) {
    warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.");
    return interpolate_py(input, size, scale_factor, mode, align_corners, none(), false);
  }, arg("input"), none_arg("size"), none_arg("scale_factor"), arg("mode") = "nearest",
     none_arg("align_corners"));
  nn.def("upsample_nearest", [](const Tensor& input, nb::handle size, nb::handle scale_factor) {
    warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.");
    return interpolate_py(input, size, scale_factor, "nearest", none(), none(), false);
  }, arg("input"), none_arg("size"), none_arg("scale_factor"));
  nn.def("upsample_bilinear", [](const Tensor& input, nb::handle size, nb::handle scale_factor) {
    warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.");
    return interpolate_py(input, size, scale_factor, "bilinear", nb::bool_(true), none(), false);
  }, arg("input"), none_arg("size"), none_arg("scale_factor"));

  // ---- sampling grids
  nn.def("grid_sample", [](const Tensor& input, const Tensor& grid, const std::string& mode,
                           const std::string& padding_mode, nb::handle align_corners) {
    return grid_sample(input, grid, mode, padding_mode, opt_bool(align_corners).value_or(false));
  }, arg("input"), arg("grid"), arg("mode") = "bilinear", arg("padding_mode") = "zeros", none_arg("align_corners"));
  nn.def("affine_grid", [](const Tensor& theta, nb::handle size, nb::handle align_corners) {
    return affine_grid(theta, ints_of(size, "affine_grid", "size"), opt_bool(align_corners).value_or(false));
  }, arg("theta"), arg("size"), none_arg("align_corners"));

  // ---- pixel shuffle, unfold, fold
  for (nb::module_* mod : {&m, &nn}) {
    mod->def("pixel_shuffle", &pixel_shuffle, arg("input"), arg("upscale_factor"));
    mod->def("pixel_unshuffle", &pixel_unshuffle, arg("input"), arg("downscale_factor"));
  }
  nn.def("unfold", [](const Tensor& input, nb::handle kernel_size, nb::handle dilation, nb::handle padding,
                      nb::handle stride) {
    const char* fn = "unfold";
    return im2col(input, ints_of(kernel_size, fn, "kernel_size"), ints_of(dilation, fn, "dilation"),
                  ints_of(padding, fn, "padding"), ints_of(stride, fn, "stride"));
  }, arg("input"), arg("kernel_size"), arg("dilation") = 1, arg("padding") = 0, arg("stride") = 1);
  nn.def("fold", [](const Tensor& input, nb::handle output_size, nb::handle kernel_size, nb::handle dilation,
                    nb::handle padding, nb::handle stride) {
    const char* fn = "fold";
    return col2im(input, ints_of(output_size, fn, "output_size"), ints_of(kernel_size, fn, "kernel_size"),
                  ints_of(dilation, fn, "dilation"), ints_of(padding, fn, "padding"), ints_of(stride, fn, "stride"));
  }, arg("input"), arg("output_size"), arg("kernel_size"), arg("dilation") = 1, arg("padding") = 0, arg("stride") = 1);

  // ---- distances
  for (nb::module_* mod : {&m, &nn}) {
    mod->def("cosine_similarity", &cosine_similarity, arg("x1"), arg("x2"), arg("dim") = 1, arg("eps") = 1e-8);
    mod->def("pairwise_distance", &pairwise_distance, arg("x1"), arg("x2"), arg("p") = 2.0, arg("eps") = 1e-6,
             arg("keepdim") = false);
    mod->def("pdist", &pdist, arg("input"), arg("p") = 2.0);
  }
  m.def("cdist", [](const Tensor& x1, const Tensor& x2, double p, nb::handle compute_mode) {
    return cdist(x1, x2, p, compute_mode.is_none() ? "use_mm_for_euclid_dist_if_necessary" : utf8(compute_mode));
  }, arg("x1"), arg("x2"), arg("p") = 2.0, none_arg("compute_mode"));

  init_nn_attention(m, nn);
}

}  // namespace ember::py
