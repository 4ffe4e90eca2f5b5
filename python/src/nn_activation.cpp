// Bindings of the activations, softmax and dropout (torch.nn.functional's names and defaults into nn; what PyTorch
// also has at top level into m, and Tensor methods where PyTorch has them). The normalization, embedding and
// padding ops are in nn_norm.cpp, registered from here.
#include <nanobind/stl/pair.h>

#include "common.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/dropout.h"

namespace ember::py {

void init_nn_norm(nb::module_& m, nb::module_& nn);  // nn_norm.cpp

namespace {

using nb::arg;

nb::none none() { return nb::none(); }

// softmax's dim=None: PyTorch's legacy choice, with its deprecation warning.
int64_t softmax_dim(nb::handle dim, const Tensor& x, const char* name) {
  if (!dim.is_none()) return to_int(dim, name, "dim");
  warn(std::string("Implicit dimension choice for ") + name + " has been deprecated. Change the call to include "
       "dim=X as an argument.");
  return softmax_default_dim(x.dim());
}

using SoftmaxFn = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);

void def_softmax(nb::module_& m, nb::module_& nn, nb::handle cls, const char* name, SoftmaxFn f, bool top) {
  nn.def(name, [f, name](const Tensor& x, nb::handle dim, int, nb::handle dtype) {
    return f(x, softmax_dim(dim, x, name), to_dtype(dtype));
  }, arg("input"), arg("dim") = none(), arg("_stacklevel") = 3, arg("dtype") = none());
  if (!top) return;
  auto fixed = [f](const Tensor& x, int64_t dim, nb::handle dtype) { return f(x, dim, to_dtype(dtype)); };
  m.def(name, fixed, arg("input"), arg("dim"), arg("dtype") = none());
  cls.attr(name) = nb::cpp_function(fixed, nb::is_method(), arg("dim"), arg("dtype") = none());
}

// name(input, inplace=False); with `underscore` also name_(input) (relu_ and selu_, as PyTorch); with `top` also
// torch.name(input) and torch.name_(input).
using InplaceFn = Tensor (*)(const Tensor&, bool);
void def_inplace_act(nb::module_& nn, const char* name, InplaceFn f, bool underscore = false,
                     nb::module_* top = nullptr) {
  nn.def(name, f, arg("input"), arg("inplace") = false);
  const std::string iname = std::string(name) + "_";
  auto in_place = [f](const Tensor& x) { return f(x, true); };
  if (underscore) nn.def(iname.c_str(), in_place, arg("input"));
  if (top) {
    top->def(name, [f](const Tensor& x) { return f(x, false); }, arg("input"));
    top->def(iname.c_str(), in_place, arg("input"));
  }
}

// dropout1d/2d/3d: torch.nn.functional's deprecation warnings (ember's C++ core has no warning channel), then the
// C++ op (its checks and the unbatched-input rule).
Tensor feature_dropout_nd(const Tensor& x, double p, bool training, bool inplace, int spatial) {
  using Fn = Tensor (*)(const Tensor&, double, bool, bool, Generator*);
  const Fn fn = spatial == 1 ? &dropout1d : spatial == 2 ? &dropout2d : &dropout3d;
  const int64_t nd = x.dim();
  const std::string name = "dropout" + std::to_string(spatial) + "d";
  const bool valid_p = p >= 0 && p <= 1;  // an invalid p raises in the op, before any warning (as PyTorch)
  if (valid_p && spatial != 1 && nd != spatial + 1 && nd != spatial + 2)
    warn(name + ": Received a " + std::to_string(nd) + "-D input to " + name + ", which is deprecated and will result "
         "in an error in a future release. To retain the behavior and silence this warning, please use dropout "
         "instead. Note that " + name + " exists to provide channel-wise dropout on inputs with " +
         std::to_string(spatial) + " spatial dimensions, a channel dimension, and an optional batch dimension (i.e. " +
         std::to_string(spatial + 1) + "D or " + std::to_string(spatial + 2) + "D inputs).");
  if (valid_p && spatial == 2 && nd == 3)
    warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
         "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
         "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
         "channel-wise dropout behavior, please switch to using dropout1d instead.");
  return fn(x, p, training, inplace, nullptr);
}

}  // namespace

void init_nn_activation(nb::module_& m, nb::module_& nn) {
  nb::handle cls = nb::type<Tensor>();
  // ---- elementwise activations
  def_inplace_act(nn, "relu", [](const Tensor& x, bool i) { return relu(x, i); }, true);
  m.def("relu_", [](const Tensor& x) { return relu(x, true); }, arg("input"));
  def_inplace_act(nn, "relu6", [](const Tensor& x, bool i) { return relu6(x, i); });
  def_inplace_act(nn, "selu", [](const Tensor& x, bool i) { return selu(x, i); }, true, &m);
  def_inplace_act(nn, "hardswish", [](const Tensor& x, bool i) { return hardswish(x, i); });
  def_inplace_act(nn, "hardsigmoid", [](const Tensor& x, bool i) { return hardsigmoid(x, i); });
  def_inplace_act(nn, "silu", [](const Tensor& x, bool i) { return silu(x, i); });
  def_inplace_act(nn, "mish", [](const Tensor& x, bool i) { return mish(x, i); });
  nn.def("hardtanh", [](const Tensor& x, double lo, double hi, bool i) { return hardtanh(x, lo, hi, i); },
         arg("input"), arg("min_val") = -1.0, arg("max_val") = 1.0, arg("inplace") = false);
  nn.def("hardtanh_", [](const Tensor& x, double lo, double hi) { return hardtanh(x, lo, hi, true); }, arg("input"),
         arg("min_val") = -1.0, arg("max_val") = 1.0);
  nn.def("elu", [](const Tensor& x, double a, bool i) { return elu(x, a, 1, 1, i); }, arg("input"),
         arg("alpha") = 1.0, arg("inplace") = false);
  nn.def("elu_", [](const Tensor& x, double a) { return elu(x, a, 1, 1, true); }, arg("input"), arg("alpha") = 1.0);
  nn.def("celu", [](const Tensor& x, double a, bool i) { return celu(x, a, i); }, arg("input"), arg("alpha") = 1.0,
         arg("inplace") = false);
  for (nb::module_* mod : {&nn, &m})
    mod->def("celu_", [](const Tensor& x, double a) { return celu(x, a, true); }, arg("input"), arg("alpha") = 1.0);
  m.def("celu", [](const Tensor& x, double a) { return celu(x, a, false); }, arg("input"), arg("alpha") = 1.0);
  nn.def("leaky_relu", [](const Tensor& x, double s, bool i) { return leaky_relu(x, s, i); }, arg("input"),
         arg("negative_slope") = 0.01, arg("inplace") = false);
  nn.def("leaky_relu_", [](const Tensor& x, double s) { return leaky_relu(x, s, true); }, arg("input"),
         arg("negative_slope") = 0.01);
  nn.def("threshold", [](const Tensor& x, double t, double v, bool i) { return threshold(x, t, v, i); },
         arg("input"), arg("threshold"), arg("value"), arg("inplace") = false);
  for (nb::module_* mod : {&nn, &m})
    mod->def("threshold_", [](const Tensor& x, double t, double v) { return threshold(x, t, v, true); }, arg("input"),
             arg("threshold"), arg("value"));
  m.def("threshold", [](const Tensor& x, double t, double v) { return threshold(x, t, v, false); }, arg("input"),
        arg("threshold"), arg("value"));
  nn.def("rrelu", [](const Tensor& x, double lo, double hi, bool training, bool i) {
    return rrelu(x, lo, hi, training, i);
  }, arg("input"), arg("lower") = 1.0 / 8, arg("upper") = 1.0 / 3, arg("training") = false, arg("inplace") = false);
  for (nb::module_* mod : {&nn, &m})
    mod->def("rrelu_", [](const Tensor& x, double lo, double hi, bool training) {
      return rrelu(x, lo, hi, training, true);
    }, arg("input"), arg("lower") = 1.0 / 8, arg("upper") = 1.0 / 3, arg("training") = false);
  m.def("rrelu", [](const Tensor& x, double lo, double hi, bool training) { return rrelu(x, lo, hi, training); },
        arg("input"), arg("lower") = 1.0 / 8, arg("upper") = 1.0 / 3, arg("training") = false);
  nn.def("gelu", [](const Tensor& x, const std::string& approximate) {
    EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                      "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
    return gelu(x, approximate == "tanh");
  }, arg("input"), arg("approximate") = "none");
  nn.def("softplus", [](const Tensor& x, double beta, double threshold) { return softplus(x, beta, threshold); },
         arg("input"), arg("beta") = 1.0, arg("threshold") = 20.0);
  nn.def("sigmoid", [](const Tensor& x) { return sigmoid(x); }, arg("input"));
  nn.def("tanh", [](const Tensor& x) { return tanh(x); }, arg("input"));
  nn.def("logsigmoid", &logsigmoid, arg("input"));
  nn.def("softsign", &softsign, arg("input"));
  nn.def("tanhshrink", &tanhshrink, arg("input"));
  nn.def("softshrink", &softshrink, arg("input"), arg("lambd") = 0.5);
  for (nb::module_* mod : {&nn, &m}) {
    mod->def("hardshrink", &hardshrink, arg("input"), arg("lambd") = 0.5);
    mod->def("prelu", &prelu, arg("input"), arg("weight"));
  }
  cls.attr("hardshrink") = nb::cpp_function(&hardshrink, nb::is_method(), arg("lambd") = 0.5);
  cls.attr("prelu") = nb::cpp_function(&prelu, nb::is_method(), arg("weight"));
  nn.def("glu", &glu, arg("input"), arg("dim") = -1);

  // ---- softmax
  def_softmax(m, nn, cls, "softmax", &softmax, true);
  def_softmax(m, nn, cls, "log_softmax", &log_softmax, true);
  def_softmax(m, nn, cls, "softmin", &softmin, false);
  nn.def("gumbel_softmax", [](const Tensor& logits, double tau, bool hard, double eps, int64_t dim) {
    return gumbel_softmax(logits, tau, hard, eps, dim);
  }, arg("logits"), arg("tau") = 1.0, arg("hard") = false,
         arg("eps") = 1e-10, arg("dim") = -1);

  // ---- dropout
  using DropoutFn = Tensor (*)(const Tensor&, double, bool, bool, Generator*);
  const std::tuple<const char*, DropoutFn, bool> dropouts[] = {
      {"dropout", &dropout, true}, {"alpha_dropout", &alpha_dropout, false},
      {"feature_alpha_dropout", &feature_alpha_dropout, false}, {"feature_dropout", &feature_dropout, true}};
  for (auto [name, f, train_default] : dropouts) {
    if (std::string_view(name) != "feature_dropout")
      nn.def(name, [f](const Tensor& x, double p, bool training, bool inplace) {
        return f(x, p, training, inplace, nullptr);
      }, arg("input"), arg("p") = 0.5, arg("training") = train_default, arg("inplace") = false);
    // torch.dropout(input, p, train) and torch.dropout_(input, p, train)
    m.def(name, [f](const Tensor& x, double p, bool train) { return f(x, p, train, false, nullptr); }, arg("input"),
          arg("p"), arg("train"));
    m.def((std::string(name) + "_").c_str(), [f](const Tensor& x, double p, bool train) {
      return f(x, p, train, true, nullptr);
    }, arg("input"), arg("p"), arg("train"));
  }
  m.def("native_dropout", [](const Tensor& x, double p, std::optional<bool> train) {
    return native_dropout(x, p, train);
  }, arg("input"), arg("p"), arg("train").none());
  m.def("native_dropout_backward", &native_dropout_backward, arg("grad_output"), arg("mask"), arg("scale"));
  for (int spatial : {1, 2, 3})
    nn.def(("dropout" + std::to_string(spatial) + "d").c_str(), [spatial](const Tensor& x, double p, bool training,
                                                                         bool inplace) {
      return feature_dropout_nd(x, p, training, inplace, spatial);
    }, arg("input"), arg("p") = 0.5, arg("training") = true, arg("inplace") = false);

  init_nn_norm(m, nn);
}

}  // namespace ember::py
