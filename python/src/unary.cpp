// Bindings of the unary ops: ember.exp(x, out=), x.exp(), x.exp_(), and the operators -x, abs(x), ~x.
#include "common.h"
#include "ember/autograd/grad_mode.h"

namespace ember::py {

namespace {

struct UnaryDef {
  const char* name;
  UnaryOp op;
  bool inplace = true;
  std::initializer_list<const char*> aliases = {};
  bool public_fn = true;  // ember.name (else only ember._C._name, for ember.nn.functional)
  bool method = true;     // Tensor.name
};

nb::object call_unary(UnaryOp op, nb::handle self, const Tensor& x, nb::handle out, const UnaryArgs& args,
                      bool inplace) {
  if (inplace) {
    unary_op(op, x, x, args);
    return nb::borrow(self);
  }
  if (out.is_valid() && !out.is_none()) {
    unary_op(op, x, nb::cast<const Tensor&>(out), args);
    return nb::borrow(out);
  }
  return nb::cast(unary_op(op, x, {}, args));
}

void def_unary(nb::module_& m, nb::handle cls, const UnaryDef& d) {
  const UnaryOp op = d.op;
  auto fn = nb::cpp_function(
      [op](nb::handle x, nb::handle out) { return call_unary(op, x, nb::cast<const Tensor&>(x), out, {}, false); },
      nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  const std::string fname = d.public_fn ? d.name : std::string("_") + d.name;
  m.attr(fname.c_str()) = fn;
  for (const char* a : d.aliases) m.attr(a) = fn;
  if (!d.method) return;
  auto method = nb::cpp_function(
      [op](nb::handle x) { return call_unary(op, x, nb::cast<const Tensor&>(x), {}, {}, false); }, nb::is_method());
  cls.attr(d.name) = method;
  for (const char* a : d.aliases) cls.attr(a) = method;
  if (d.inplace) {
    auto imethod = nb::cpp_function(
        [op](nb::handle x) { return call_unary(op, x, nb::cast<const Tensor&>(x), {}, {}, true); }, nb::is_method());
    cls.attr((std::string(d.name) + "_").c_str()) = imethod;
    for (const char* a : d.aliases) cls.attr((std::string(a) + "_").c_str()) = imethod;
  }
}


// Bounds of clamp: None, a number, or a tensor.
std::optional<Scalar> bound(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_scalar(h, "clamp");
}

nb::object clamp_impl(nb::handle self, nb::handle lo, nb::handle hi, nb::handle out, bool inplace) {
  const Tensor& self_t = nb::cast<const Tensor&>(self);
  // clamp_ with a gradient: clamp's backward reads its input, so it reads a copy that the write below leaves intact.
  const Tensor x = inplace && self_t.requires_grad() && autograd::is_grad_enabled() ? self_t.clone() : self_t;
  Tensor r;
  if (nb::isinstance<Tensor>(lo) || nb::isinstance<Tensor>(hi)) {
    auto as_tensor = [&](nb::handle h) -> Tensor {
      if (h.is_none()) return {};
      if (nb::isinstance<Tensor>(h)) return nb::cast<const Tensor&>(h);
      // A number beside a tensor bound: a 0-d tensor of the number's kind, so that it promotes like a
      // Python number (clamp(int_tensor, tensor_min, 2.5) is float, as clamp(int_tensor, 0, 2.5)); a float
      // is held in float64 beside floating x, so that its value is not rounded before x's dtype reads it.
      const Scalar s = to_scalar(h, "clamp");
      const ScalarType st = s.is_floating() ? (is_floating(x.dtype()) ? ScalarType::Float64 : default_dtype())
                            : s.is_bool()   ? ScalarType::Bool
                                            : ScalarType::Int64;
      return full({}, s, TensorOptions(st).device(x.device()));
    };
    EMBER_CHECK(!lo.is_none() || !hi.is_none(), "torch.clamp: At least one of 'min' or 'max' must not be None");
    r = clamp(x, as_tensor(lo), as_tensor(hi));
  } else {
    r = clamp(x, bound(lo), bound(hi));
  }
  if (inplace) {  // as every in-place op: the result dtype must be storable in self's
    EMBER_CHECK(can_cast(r.dtype(), x.dtype()), "clamp_: result type ", type_label(r.dtype()),
                " can't be cast to the desired output type ", type_label(x.dtype()));
    copy_(self_t, r);
    return nb::borrow(self);
  }
  return finish_out(std::move(r), out, "clamp");
}

}  // namespace

void init_unary(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  using U = UnaryOp;
  const UnaryDef defs[] = {
      {"neg", U::Neg, true, {"negative"}}, {"abs", U::Abs, true, {"absolute"}}, {"sign", U::Sign, true, {"sgn"}},
      {"square", U::Square}, {"relu", U::Relu}, {"floor", U::Floor}, {"ceil", U::Ceil}, {"trunc", U::Trunc, true, {"fix"}},
      {"frac", U::Frac}, {"bitwise_not", U::BitNot}, {"reciprocal", U::Reciprocal}, {"sqrt", U::Sqrt},
      {"rsqrt", U::Rsqrt}, {"exp", U::Exp}, {"exp2", U::Exp2}, {"expm1", U::Expm1}, {"log", U::Log},
      {"log2", U::Log2}, {"log10", U::Log10}, {"log1p", U::Log1p}, {"sin", U::Sin}, {"cos", U::Cos}, {"tan", U::Tan},
      {"asin", U::Asin, true, {"arcsin"}}, {"acos", U::Acos, true, {"arccos"}}, {"atan", U::Atan, true, {"arctan"}},
      {"sinh", U::Sinh}, {"cosh", U::Cosh}, {"tanh", U::Tanh}, {"asinh", U::Asinh, true, {"arcsinh"}},
      {"acosh", U::Acosh, true, {"arccosh"}}, {"atanh", U::Atanh, true, {"arctanh"}}, {"sigmoid", U::Sigmoid},
      {"erf", U::Erf}, {"erfc", U::Erfc}, {"erfinv", U::Erfinv}, {"logical_not", U::LogicalNot},
      {"isnan", U::IsNan, false}, {"isinf", U::IsInf, false}, {"isposinf", U::IsPosInf, false},
      {"isneginf", U::IsNegInf, false}, {"isfinite", U::IsFinite, false}, {"signbit", U::SignBit, false},
      {"silu", U::Silu, true, {}, false}, {"mish", U::Mish, true, {}, false},
      // special functions (ember.special names the torch.special ones: python/ember/special.py)
      {"lgamma", U::Lgamma}, {"digamma", U::Digamma}, {"i0", U::I0}, {"sinc", U::Sinc}, {"deg2rad", U::Deg2Rad},
      {"rad2deg", U::Rad2Deg}, {"special_i0e", U::I0e, false, {}, false, false},
      {"special_i1", U::I1, false, {}, false, false}, {"special_i1e", U::I1e, false, {}, false, false},
      {"special_erfcx", U::Erfcx, false, {}, false, false}, {"special_ndtr", U::Ndtr, false, {}, false, false},
      {"special_ndtri", U::Ndtri, false, {}, false, false},
      {"special_log_ndtr", U::LogNdtr, false, {}, false, false}, {"special_entr", U::Entr, false, {}, false, false},
  };
  for (const UnaryDef& d : defs) def_unary(m, cls, d);

  cls.attr("__neg__") = nb::cpp_function([](const Tensor& x) { return neg(x); }, nb::is_method());
  cls.attr("__abs__") = nb::cpp_function([](const Tensor& x) { return abs(x); }, nb::is_method());
  cls.attr("__pos__") = nb::cpp_function([](nb::handle x) { return nb::borrow(x); }, nb::is_method());
  cls.attr("__invert__") = nb::cpp_function([](const Tensor& x) { return unary_op(UnaryOp::BitNot, x); },
                                            nb::is_method());

  // Ops with parameters.
  auto round_fn = [](nb::handle self, int64_t decimals, nb::handle out, bool inplace) {
    return call_unary(UnaryOp::Round, self, nb::cast<const Tensor&>(self), out,
                      UnaryArgs{static_cast<double>(decimals)}, inplace);
  };
  m.def("round", [round_fn](nb::handle x, int64_t d, nb::handle out) { return round_fn(x, d, out, false); },
        nb::arg("input"), nb::kw_only(), nb::arg("decimals") = 0, nb::arg("out") = nb::none());
  cls.attr("round") = nb::cpp_function([round_fn](nb::handle x, int64_t d) { return round_fn(x, d, {}, false); },
                                       nb::is_method(), nb::kw_only(), nb::arg("decimals") = 0);
  cls.attr("round_") = nb::cpp_function([round_fn](nb::handle x, int64_t d) { return round_fn(x, d, {}, true); },
                                        nb::is_method(), nb::kw_only(), nb::arg("decimals") = 0);

  for (const char* name : {"clamp", "clip"}) {
    m.def(name, [](nb::handle x, nb::handle lo, nb::handle hi, nb::handle out) { return clamp_impl(x, lo, hi, out, false); },
          nb::arg("input"), nb::arg("min") = nb::none(), nb::arg("max") = nb::none(), nb::kw_only(),
          nb::arg("out") = nb::none());
    cls.attr(name) = nb::cpp_function(
        [](nb::handle x, nb::handle lo, nb::handle hi) { return clamp_impl(x, lo, hi, {}, false); }, nb::is_method(),
        nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
    cls.attr((std::string(name) + "_").c_str()) = nb::cpp_function(
        [](nb::handle x, nb::handle lo, nb::handle hi) { return clamp_impl(x, lo, hi, {}, true); }, nb::is_method(),
        nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
  }
  m.def("clamp_min", [](const Tensor& x, nb::handle lo) { return clamp(x, to_scalar(lo, "clamp_min"), std::nullopt); });
  m.def("clamp_max", [](const Tensor& x, nb::handle hi) { return clamp(x, std::nullopt, to_scalar(hi, "clamp_max")); });

  auto nan_to_num_fn = [](nb::handle self, std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf, nb::handle out, bool inplace) -> nb::object {
    const Tensor& x = nb::cast<const Tensor&>(self);
    Tensor r = nan_to_num(x, nan, posinf, neginf);
    if (inplace) {
      copy_(x, r);
      return nb::borrow(self);
    }
    return finish_out(std::move(r), out, "nan_to_num");
  };
  m.def("nan_to_num", [nan_to_num_fn](nb::handle x, std::optional<double> n, std::optional<double> p,
                                      std::optional<double> q, nb::handle out) { return nan_to_num_fn(x, n, p, q, out, false); },
        nb::arg("input"), nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none(),
        nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("nan_to_num") = nb::cpp_function(
      [nan_to_num_fn](nb::handle x, std::optional<double> n, std::optional<double> p, std::optional<double> q) {
        return nan_to_num_fn(x, n, p, q, {}, false);
      },
      nb::is_method(), nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none());
  cls.attr("nan_to_num_") = nb::cpp_function(
      [nan_to_num_fn](nb::handle x, std::optional<double> n, std::optional<double> p, std::optional<double> q) {
        return nan_to_num_fn(x, n, p, q, {}, true);
      },
      nb::is_method(), nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none());

  auto logit_fn = [](const Tensor& x, std::optional<double> eps) {
    return unary_op(UnaryOp::Logit, x, {}, UnaryArgs{eps.value_or(-1.0)});
  };
  m.def("logit", logit_fn, nb::arg("input"), nb::arg("eps") = nb::none());
  cls.attr("logit") = nb::cpp_function(logit_fn, nb::is_method(), nb::arg("eps") = nb::none());
  // For ember.nn.functional (issue 5): gelu(approximate), softplus(beta, threshold).
  m.def("_gelu", [](const Tensor& x, const std::string& approximate) {
    EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                      "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
    return gelu(x, approximate == "tanh");
  }, nb::arg("input"), nb::arg("approximate") = "none");
  m.def("_softplus", [](const Tensor& x, double beta, double threshold) { return softplus(x, beta, threshold); },
        nb::arg("input"), nb::arg("beta") = 1.0, nb::arg("threshold") = 20.0);
}

}  // namespace ember::py
