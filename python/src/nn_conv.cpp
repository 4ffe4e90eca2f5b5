// Bindings of the convolution and pooling ops (ember/nn/conv.h, ember/nn/pooling.h) with PyTorch's signatures:
// torch.nn.functional's forms in ember._C._nn, and those PyTorch also has at top level (torch.conv2d,
// torch.max_pool2d, torch.avg_pool1d, ...) in ember._C.
#include <nanobind/stl/pair.h>

#include "common.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/pooling.h"

namespace ember::py {

namespace {

// An int or a sequence of ints; None (or an empty sequence) gives an empty list, which the ops read as the default.
DimVector ints(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) return to_int_list(h, fn, what);
  return {to_int(h, fn, what)};
}

Tensor opt_tensor(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), fn, "(): argument '", what, "' must be Tensor, not ",
                   nb::inst_name(h).c_str());
  return nb::cast<Tensor>(h);
}

std::optional<int64_t> opt_int(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return std::nullopt;
  return to_int(h, fn, what);
}

// Adaptive pooling's output_size: an int, or a sequence whose None entries keep the input's size.
DimVector output_size(const Tensor& x, nb::handle h, size_t nsp, const char* fn) {
  if (!(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()))) return {to_int(h, fn, "output_size")};
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(h.ptr());
  PyObject** items = PySequence_Fast_ITEMS(h.ptr());
  DimVector r;
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::handle item(items[i]);
    const int64_t dim = x.dim() - static_cast<int64_t>(nsp) + i;
    r.push_back(item.is_none() && dim >= 0 && dim < x.dim() ? x.size(dim) : to_int(item, fn, "output_size"));
  }
  return r;
}

nb::object values_or_pair(std::pair<Tensor, Tensor> r, bool return_indices) {
  if (return_indices) return nb::make_tuple(std::move(r.first), std::move(r.second));
  return nb::cast(std::move(r.first));
}

using Conv = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, int64_t);
using ConvStr = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, std::string_view, IntArrayRef,
                           int64_t);
using ConvT = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, int64_t,
                         IntArrayRef);
using MaxPool = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
using MaxPoolValues = Tensor (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
using AdaptiveAvg = Tensor (*)(const Tensor&, IntArrayRef);
using AdaptiveMax = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef);
using Unpool = Tensor (*)(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef);

struct Family {
  size_t nsp;
  const char *conv, *conv_t, *max_pool, *max_pool_wi, *avg_pool, *adaptive_avg, *adaptive_max, *adaptive_max_wi,
      *unpool;
  Conv conv_fn;
  ConvStr conv_str_fn;
  ConvT conv_t_fn;
  MaxPool max_pool_fn;
  MaxPoolValues max_pool_values_fn;
  AdaptiveAvg adaptive_avg_fn;
  AdaptiveMax adaptive_max_fn;
  Unpool unpool_fn;
};

const Family kFamilies[] = {
    {1, "conv1d", "conv_transpose1d", "max_pool1d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d",
     "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "max_unpool1d", &conv1d, &conv1d, &conv_transpose1d,
     &max_pool1d_with_indices, &max_pool1d, &adaptive_avg_pool1d, &adaptive_max_pool1d, &max_unpool1d},
    {2, "conv2d", "conv_transpose2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d",
     "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "max_unpool2d", &conv2d, &conv2d, &conv_transpose2d,
     &max_pool2d_with_indices, &max_pool2d, &adaptive_avg_pool2d, &adaptive_max_pool2d, &max_unpool2d},
    {3, "conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d",
     "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool3d", &conv3d, &conv3d, &conv_transpose3d,
     &max_pool3d_with_indices, &max_pool3d, &adaptive_avg_pool3d, &adaptive_max_pool3d, &max_unpool3d},
};

void def_family(nb::module_& m, nb::module_& nn, const Family& f) {
  auto conv = nb::cpp_function(
      [f](const Tensor& x, const Tensor& w, nb::handle bias, nb::handle stride, nb::handle padding,
          nb::handle dilation, int64_t groups) {
        const Tensor b = opt_tensor(bias, f.conv, "bias");
        const DimVector s = ints(stride, f.conv, "stride"), d = ints(dilation, f.conv, "dilation");
        if (PyUnicode_Check(padding.ptr())) return f.conv_str_fn(x, w, b, s, utf8(padding), d, groups);
        return f.conv_fn(x, w, b, s, ints(padding, f.conv, "padding"), d, groups);
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(), nb::arg("stride") = 1,
      nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("groups") = 1);
  auto conv_t = nb::cpp_function(
      [f](const Tensor& x, const Tensor& w, nb::handle bias, nb::handle stride, nb::handle padding,
          nb::handle output_padding, int64_t groups, nb::handle dilation) {
        const char* fn = f.conv_t;
        return f.conv_t_fn(x, w, opt_tensor(bias, fn, "bias"), ints(stride, fn, "stride"),
                           ints(padding, fn, "padding"), ints(output_padding, fn, "output_padding"), groups,
                           ints(dilation, fn, "dilation"));
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(), nb::arg("stride") = 1,
      nb::arg("padding") = 0, nb::arg("output_padding") = 0, nb::arg("groups") = 1, nb::arg("dilation") = 1);
  for (nb::module_* mod : {&m, &nn}) {
    mod->attr(f.conv) = conv;
    mod->attr(f.conv_t) = conv_t;
  }

  // (values, indices) when `indices`, else the values alone (computed without indices where no gradient needs them).
  auto max_pool = [f](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, nb::handle dilation,
                      bool ceil_mode, bool indices) -> nb::object {
    const char* fn = f.max_pool;
    const DimVector ks = ints(k, fn, "kernel_size"), s = ints(stride, fn, "stride"), p = ints(padding, fn, "padding"),
                    d = ints(dilation, fn, "dilation");
    if (indices) return values_or_pair(f.max_pool_fn(x, ks, s, p, d, ceil_mode), true);
    return nb::cast(f.max_pool_values_fn(x, ks, s, p, d, ceil_mode));
  };
  // torch.nn.functional.max_pool*d(..., return_indices=False) and *_with_indices (always the pair).
  for (bool with_indices : {false, true})
    nn.attr(with_indices ? f.max_pool_wi : f.max_pool) = nb::cpp_function(
        [max_pool, with_indices](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding,
                                 nb::handle dilation, bool ceil_mode, bool return_indices) {
          return max_pool(x, k, stride, padding, dilation, ceil_mode, with_indices || return_indices);
        },
        nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
        nb::arg("dilation") = 1, nb::arg("ceil_mode") = false, nb::arg("return_indices") = false);
  // torch.max_pool*d has no return_indices; torch.max_pool1d_with_indices returns the pair.
  for (bool with_indices : {false, true}) {
    if (with_indices && f.nsp != 1) continue;
    m.attr(with_indices ? f.max_pool_wi : f.max_pool) = nb::cpp_function(
        [max_pool, with_indices](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding,
                                 nb::handle dilation, bool ceil_mode) {
          return max_pool(x, k, stride, padding, dilation, ceil_mode, with_indices);
        },
        nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::tuple(), nb::arg("padding") = 0,
        nb::arg("dilation") = 1, nb::arg("ceil_mode") = false);
  }

  if (f.nsp == 1) {
    auto avg = nb::cpp_function(
        [](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, bool ceil_mode, bool include_pad) {
          const char* fn = "avg_pool1d";
          return avg_pool1d(x, ints(k, fn, "kernel_size"), ints(stride, fn, "stride"), ints(padding, fn, "padding"),
                            ceil_mode, include_pad);
        },
        nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
        nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true);
    m.attr("avg_pool1d") = avg;
    nn.attr("avg_pool1d") = avg;
  } else {
    const auto fn_ptr = f.nsp == 2 ? &avg_pool2d : &avg_pool3d;
    nn.attr(f.avg_pool) = nb::cpp_function(
        [f, fn_ptr](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, bool ceil_mode,
                    bool include_pad, nb::handle divisor_override) {
          const char* fn = f.avg_pool;
          return fn_ptr(x, ints(k, fn, "kernel_size"), ints(stride, fn, "stride"), ints(padding, fn, "padding"),
                        ceil_mode, include_pad, opt_int(divisor_override, fn, "divisor_override"));
        },
        nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
        nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true, nb::arg("divisor_override") = nb::none());
  }

  auto adaptive_avg = nb::cpp_function(
      [f](const Tensor& x, nb::handle size) {
        return f.adaptive_avg_fn(x, output_size(x, size, f.nsp, f.adaptive_avg));
      },
      nb::arg("input"), nb::arg("output_size"));
  nn.attr(f.adaptive_avg) = adaptive_avg;
  auto adaptive_max = [f](const Tensor& x, nb::handle size) {
    return f.adaptive_max_fn(x, output_size(x, size, f.nsp, f.adaptive_max));
  };
  for (bool with_indices : {false, true})
    nn.attr(with_indices ? f.adaptive_max_wi : f.adaptive_max) = nb::cpp_function(
        [adaptive_max, with_indices](const Tensor& x, nb::handle size, bool return_indices) {
          return values_or_pair(adaptive_max(x, size), with_indices || return_indices);
        },
        nb::arg("input"), nb::arg("output_size"), nb::arg("return_indices") = false);
  if (f.nsp == 1) {
    m.attr(f.adaptive_avg) = adaptive_avg;
    m.attr(f.adaptive_max) = nb::cpp_function(
        [adaptive_max](const Tensor& x, nb::handle size) { return values_or_pair(adaptive_max(x, size), true); },
        nb::arg("input"), nb::arg("output_size"));
  }

  nn.attr(f.unpool) = nb::cpp_function(
      [f](const Tensor& x, const Tensor& indices, nb::handle k, nb::handle stride, nb::handle padding,
          nb::handle out_size) {
        const char* fn = f.unpool;
        return f.unpool_fn(x, indices, ints(k, fn, "kernel_size"), ints(stride, fn, "stride"),
                           ints(padding, fn, "padding"), ints(out_size, fn, "output_size"));
      },
      nb::arg("input"), nb::arg("indices"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(),
      nb::arg("padding") = 0, nb::arg("output_size") = nb::none());
}

}  // namespace

void init_nn_conv(nb::module_& m, nb::module_& nn) {
  for (const Family& f : kFamilies) def_family(m, nn, f);
}

}  // namespace ember::py
