// Bindings of the loss functions (torch.nn.functional's names, argument names and defaults into nn; the ones PyTorch
// also has at top level into m). The legacy size_average/reduce arguments map to a reduction as PyTorch's
// _Reduction.legacy_get_string does; broadcasting targets warn as torch.nn.functional does.
#include <algorithm>

#include "common.h"
#include "ember/nn/functional/loss.h"

namespace ember::py {

namespace {

using nb::arg;

nb::object none() { return nb::none(); }

Tensor opt_tensor(nb::handle h, const char* fn, const char* what) {
  if (!h.is_valid() || h.is_none()) return {};
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), fn, "(): argument '", what, "' must be Tensor, not ",
                   nb::inst_name(h).c_str());
  return nb::cast<Tensor>(h);
}

// A reduction given as 'none' / 'mean' / 'sum', or as PyTorch's enum value (0, 1, 2) at top level.
Reduction reduction_of(nb::handle h) {
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    const int64_t v = nb::cast<int64_t>(h);
    EMBER_CHECK_VALUE(v >= 0 && v <= 2, v, " is not a valid value for reduction");
    return static_cast<Reduction>(v);
  }
  EMBER_CHECK_TYPE(PyUnicode_Check(h.ptr()), "reduction must be a str, not ", nb::inst_name(h).c_str());
  return reduction_from(utf8(h));
}

const char* reduction_name(Reduction r) { return r == Reduction::None ? "none" : r == Reduction::Mean ? "mean" : "sum"; }

// PyTorch's _Reduction.legacy_get_string: size_average and reduce default to True; either given overrides reduction.
Reduction legacy_reduction(nb::handle size_average, nb::handle reduce, nb::handle reduction) {
  if (size_average.is_none() && reduce.is_none()) return reduction_of(reduction);
  const bool avg = size_average.is_none() || truthy(size_average);
  const bool red = reduce.is_none() || truthy(reduce);
  const Reduction r = !red ? Reduction::None : avg ? Reduction::Mean : Reduction::Sum;
  warn(std::string("size_average and reduce args will be deprecated, please use reduction='") + reduction_name(r) +
       "' instead.");
  return r;
}

std::string size_repr(IntArrayRef s) { return "ember.Size(" + shape_str(s) + ")"; }

// torch.nn.functional's warning for elementwise losses whose target broadcasts to the input.
void warn_broadcast(const Tensor& input, const Tensor& target) {
  if (std::ranges::equal(input.sizes(), target.sizes())) return;
  warn("Using a target size (" + size_repr(target.sizes()) + ") that is different to the input size (" +
       size_repr(input.sizes()) + "). This will likely lead to incorrect results due to broadcasting. Please ensure "
       "they have the same size.");
}

// Lengths for ctc_loss: a tensor, or a sequence of ints.
Tensor lengths_arg(nb::handle h, const char* what) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  DimVector v = PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()) ? to_int_list(h, "ctc_loss", what)
                                                                  : DimVector{to_int(h, "ctc_loss", what)};
  return from_blob_copy(v.data(), ScalarType::Int64, {{static_cast<int64_t>(v.size())}},
                        TensorOptions(ScalarType::Int64));
}

}  // namespace

void init_nn_loss(nb::module_& m, nb::module_& nn) {
  nn.def("cross_entropy", [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle size_average,
                             int64_t ignore_index, nb::handle reduce, nb::handle reduction, double label_smoothing) {
    return cross_entropy(input, target, opt_tensor(weight, "cross_entropy", "weight"), ignore_index,
                         legacy_reduction(size_average, reduce, reduction), label_smoothing);
  }, arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), arg("ignore_index") = -100,
     none_arg("reduce"), arg("reduction") = "mean", arg("label_smoothing") = 0.0);
  nn.def("nll_loss", [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle size_average,
                        int64_t ignore_index, nb::handle reduce, nb::handle reduction) {
    return nll_loss(input, target, opt_tensor(weight, "nll_loss", "weight"), ignore_index,
                    legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), arg("ignore_index") = -100,
     none_arg("reduce"), arg("reduction") = "mean");

  using Elementwise = Tensor (*)(const Tensor&, const Tensor&, Reduction);
  for (auto [name, f] : {std::pair<const char*, Elementwise>{"mse_loss", &mse_loss}, {"l1_loss", &l1_loss}}) {
    nn.def(name, [f](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce,
                     nb::handle reduction) {
      warn_broadcast(input, target);
      return f(input, target, legacy_reduction(size_average, reduce, reduction));
    }, arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean");
  }
  nn.def("smooth_l1_loss", [](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce,
                              nb::handle reduction, double beta) {
    warn_broadcast(input, target);
    return smooth_l1_loss(input, target, legacy_reduction(size_average, reduce, reduction), beta);
  }, arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean",
     arg("beta") = 1.0);
  nn.def("huber_loss", [](const Tensor& input, const Tensor& target, nb::handle reduction, double delta) {
    warn_broadcast(input, target);
    return huber_loss(input, target, reduction_of(reduction), delta);
  }, arg("input"), arg("target"), arg("reduction") = "mean", arg("delta") = 1.0);
  nn.def("binary_cross_entropy", [](const Tensor& input, const Tensor& target, nb::handle weight,
                                    nb::handle size_average, nb::handle reduce, nb::handle reduction) {
    return binary_cross_entropy(input, target, opt_tensor(weight, "binary_cross_entropy", "weight"),
                                legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), none_arg("reduce"),
     arg("reduction") = "mean");
  nn.def("binary_cross_entropy_with_logits", [](const Tensor& input, const Tensor& target, nb::handle weight,
                                                nb::handle size_average, nb::handle reduce, nb::handle reduction,
                                                nb::handle pos_weight) {
    const char* fn = "binary_cross_entropy_with_logits";
    return binary_cross_entropy_with_logits(input, target, opt_tensor(weight, fn, "weight"),
                                            legacy_reduction(size_average, reduce, reduction),
                                            opt_tensor(pos_weight, fn, "pos_weight"));
  }, arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), none_arg("reduce"),
     arg("reduction") = "mean", none_arg("pos_weight"));
  m.def("binary_cross_entropy_with_logits", [](const Tensor& input, const Tensor& target, nb::handle weight,
                                               nb::handle pos_weight, nb::handle reduction) {
    const char* fn = "binary_cross_entropy_with_logits";
    return binary_cross_entropy_with_logits(input, target, opt_tensor(weight, fn, "weight"), reduction_of(reduction),
                                            opt_tensor(pos_weight, fn, "pos_weight"));
  }, arg("input"), arg("target"), none_arg("weight"), none_arg("pos_weight"), arg("reduction") = 1);

  auto kl = [](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce,
               nb::handle reduction, bool log_target) {
    if (size_average.is_none() && reduce.is_none() && PyUnicode_Check(reduction.ptr())) {
      const std::string_view r = utf8(reduction);
      if (r == "batchmean") return kl_div(input, target, Reduction::Sum, log_target, true);
      if (r == "mean")
        warn("reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
             "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
             "behave the same as 'batchmean' in the next major release.");
    }
    return kl_div(input, target, legacy_reduction(size_average, reduce, reduction), log_target);
  };
  nn.def("kl_div", kl, arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"),
         arg("reduction") = "mean", arg("log_target") = false);
  m.def("kl_div", [](const Tensor& input, const Tensor& target, nb::handle reduction, bool log_target) {
    return kl_div(input, target, reduction_of(reduction), log_target);
  }, arg("input"), arg("target"), arg("reduction") = 1, arg("log_target") = false);

  nn.def("poisson_nll_loss", [](const Tensor& input, const Tensor& target, bool log_input, bool full,
                                nb::handle size_average, double eps, nb::handle reduce, nb::handle reduction) {
    return poisson_nll_loss(input, target, log_input, full, eps, legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), arg("log_input") = true, arg("full") = false, none_arg("size_average"),
     arg("eps") = 1e-8, none_arg("reduce"), arg("reduction") = "mean");
  m.def("poisson_nll_loss", [](const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                               nb::handle reduction) {
    return poisson_nll_loss(input, target, log_input, full, eps, reduction_of(reduction));
  }, arg("input"), arg("target"), arg("log_input"), arg("full"), arg("eps"), arg("reduction"));
  nn.def("gaussian_nll_loss", [](const Tensor& input, const Tensor& target, nb::handle var, bool full, double eps,
                                 nb::handle reduction) {
    // A number for var means one variance for every element (PyTorch >= 2.3).
    Tensor v = nb::isinstance<Tensor>(var) ? nb::cast<Tensor>(var)
                                           : full_like(input, to_scalar(var, "gaussian_nll_loss"));
    return gaussian_nll_loss(input, target, v, full, eps, reduction_of(reduction));
  }, arg("input"), arg("target"), arg("var"), arg("full") = false, arg("eps") = 1e-6, arg("reduction") = "mean");

  auto pair_loss = [&](const char* name, Tensor (*f)(const Tensor&, const Tensor&, const Tensor&, double, Reduction),
                       double margin) {
    nn.def(name, [f](const Tensor& a, const Tensor& b, const Tensor& target, double margin, nb::handle size_average,
                     nb::handle reduce, nb::handle reduction) {
      return f(a, b, target, margin, legacy_reduction(size_average, reduce, reduction));
    }, arg("input1"), arg("input2"), arg("target"), arg("margin") = margin, none_arg("size_average"),
       none_arg("reduce"), arg("reduction") = "mean");
    m.def(name, [f](const Tensor& a, const Tensor& b, const Tensor& target, double margin, nb::handle reduction) {
      return f(a, b, target, margin, reduction_of(reduction));
    }, arg("input1"), arg("input2"), arg("target"), arg("margin") = 0.0, arg("reduction") = 1);
  };
  pair_loss("cosine_embedding_loss", &cosine_embedding_loss, 0.0);
  pair_loss("margin_ranking_loss", &margin_ranking_loss, 0.0);

  nn.def("triplet_margin_loss", [](const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                                   double p, double eps, bool swap, nb::handle size_average, nb::handle reduce,
                                   nb::handle reduction) {
    return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                               legacy_reduction(size_average, reduce, reduction));
  }, arg("anchor"), arg("positive"), arg("negative"), arg("margin") = 1.0, arg("p") = 2.0, arg("eps") = 1e-6,
     arg("swap") = false, none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean");
  m.def("triplet_margin_loss", [](const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                                  double p, double eps, bool swap, nb::handle reduction) {
    return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_of(reduction));
  }, arg("anchor"), arg("positive"), arg("negative"), arg("margin") = 1.0, arg("p") = 2.0, arg("eps") = 1e-6,
     arg("swap") = false, arg("reduction") = 1);

  nn.def("triplet_margin_with_distance_loss", [](const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                                 nb::handle distance_function, double margin, bool swap,
                                                 nb::handle reduction) {
    EMBER_CHECK_VALUE(margin > 0, "triplet_margin_with_distance_loss: expected margin to be greater than 0, got ",
                      nb::repr(nb::cast(margin)).c_str(), " instead");
    DistanceFn dist;
    if (!distance_function.is_none()) {
      nb::object f = nb::borrow(distance_function);
      dist = [f](const Tensor& a, const Tensor& b) { return nb::cast<Tensor>(f(a, b)); };
    }
    return triplet_margin_with_distance_loss(anchor, positive, negative, dist, margin, swap, reduction_of(reduction));
  }, arg("anchor"), arg("positive"), arg("negative"), nb::kw_only(), none_arg("distance_function"),
     arg("margin") = 1.0, arg("swap") = false, arg("reduction") = "mean");
  nn.def("multilabel_margin_loss", [](const Tensor& input, const Tensor& target, nb::handle size_average,
                                      nb::handle reduce, nb::handle reduction) {
    return multilabel_margin_loss(input, target, legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"),
     arg("reduction") = "mean");
  nn.def("hinge_embedding_loss", [](const Tensor& input, const Tensor& target, double margin, nb::handle size_average,
                                    nb::handle reduce, nb::handle reduction) {
    return hinge_embedding_loss(input, target, margin, legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), arg("margin") = 1.0, none_arg("size_average"), none_arg("reduce"),
     arg("reduction") = "mean");
  m.def("hinge_embedding_loss", [](const Tensor& input, const Tensor& target, double margin, nb::handle reduction) {
    return hinge_embedding_loss(input, target, margin, reduction_of(reduction));
  }, arg("input"), arg("target"), arg("margin") = 1.0, arg("reduction") = 1);
  nn.def("soft_margin_loss", [](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce,
                                nb::handle reduction) {
    return soft_margin_loss(input, target, legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean");
  nn.def("multilabel_soft_margin_loss", [](const Tensor& input, const Tensor& target, nb::handle weight,
                                           nb::handle size_average, nb::handle reduce, nb::handle reduction) {
    return multilabel_soft_margin_loss(input, target, opt_tensor(weight, "multilabel_soft_margin_loss", "weight"),
                                       legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), none_arg("reduce"),
     arg("reduction") = "mean");
  nn.def("multi_margin_loss", [](const Tensor& input, const Tensor& target, int64_t p, double margin,
                                 nb::handle weight, nb::handle size_average, nb::handle reduce, nb::handle reduction) {
    return multi_margin_loss(input, target, p, margin, opt_tensor(weight, "multi_margin_loss", "weight"),
                             legacy_reduction(size_average, reduce, reduction));
  }, arg("input"), arg("target"), arg("p") = 1, arg("margin") = 1.0, none_arg("weight"),
     none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean");

  auto ctc = [](const Tensor& log_probs, const Tensor& targets, nb::handle input_lengths, nb::handle target_lengths,
                int64_t blank, nb::handle reduction, bool zero_infinity) {
    return ctc_loss(log_probs, targets, lengths_arg(input_lengths, "input_lengths"),
                    lengths_arg(target_lengths, "target_lengths"), blank, reduction_of(reduction), zero_infinity);
  };
  nn.def("ctc_loss", ctc, arg("log_probs"), arg("targets"), arg("input_lengths"), arg("target_lengths"),
         arg("blank") = 0, arg("reduction") = "mean", arg("zero_infinity") = false);
  m.def("ctc_loss", ctc, arg("log_probs"), arg("targets"), arg("input_lengths"), arg("target_lengths"),
        arg("blank") = 0, arg("reduction") = 1, arg("zero_infinity") = false);
}

}  // namespace ember::py
