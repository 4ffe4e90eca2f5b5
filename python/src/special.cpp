// Bindings of the special functions that take parameters or return several tensors (the plain elementwise ones are
// rows of the unary.cpp and binary.cpp tables): polygamma, mvlgamma, frexp, ldexp, float_power, the windows.
#include "common.h"
#include "ember/ops/special.h"

namespace ember::py {

namespace {

nb::handle g_frexp_type;  // torch.return_types.frexp

bool has_arg(nb::handle h) { return h.is_valid() && !h.is_none(); }

// The result of an op into out= (a tensor), into self (in-place, dtype kept), or returned.
nb::object finish(Tensor r, nb::handle self, nb::handle out, bool inplace, const char* fn) {
  if (!inplace) return finish_out(std::move(r), out, fn);
  const Tensor& t = nb::cast<const Tensor&>(self);
  EMBER_CHECK(can_cast(r.dtype(), t.dtype()), fn, "_: result type ", type_label(r.dtype()),
              " can't be cast to the desired output type ", type_label(t.dtype()));
  copy_(t, r);
  return nb::borrow(self);
}

Operand operand(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) return Operand(nb::cast<const Tensor&>(h));
  return Operand(to_scalar(h, fn));
}

void def_windows(nb::module_& m) {
  auto opts = [](nb::kwargs kw, const char* fn) {
    FactoryArgs a;
    parse_factory_kwargs(kw, fn, kDtype | kDevice | kRequiresGrad | kLayout, a);
    return WindowOptions{a.dtype, a.device.value_or(kCPU), a.requires_grad};
  };
  m.def("hann_window", [opts](int64_t n, bool periodic, nb::kwargs kw) {
    return hann_window(n, periodic, opts(kw, "hann_window"));
  }, nb::arg("window_length"), nb::arg("periodic") = true, nb::arg("kwargs"));
  m.def("hamming_window", [opts](int64_t n, bool periodic, double alpha, double beta, nb::kwargs kw) {
    return hamming_window(n, periodic, alpha, beta, opts(kw, "hamming_window"));
  }, nb::arg("window_length"), nb::arg("periodic") = true, nb::arg("alpha") = 0.54, nb::arg("beta") = 0.46,
     nb::arg("kwargs"));
  m.def("blackman_window", [opts](int64_t n, bool periodic, nb::kwargs kw) {
    return blackman_window(n, periodic, opts(kw, "blackman_window"));
  }, nb::arg("window_length"), nb::arg("periodic") = true, nb::arg("kwargs"));
  m.def("bartlett_window", [opts](int64_t n, bool periodic, nb::kwargs kw) {
    return bartlett_window(n, periodic, opts(kw, "bartlett_window"));
  }, nb::arg("window_length"), nb::arg("periodic") = true, nb::arg("kwargs"));
  m.def("kaiser_window", [opts](int64_t n, bool periodic, double beta, nb::kwargs kw) {
    return kaiser_window(n, periodic, beta, opts(kw, "kaiser_window"));
  }, nb::arg("window_length"), nb::arg("periodic") = true, nb::arg("beta") = 12.0, nb::arg("kwargs"));
}

}  // namespace

void init_special(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();

  // polygamma(n, input, *, out=None); Tensor.polygamma(n), polygamma_(n). In place, the op writes self directly
  // (unary_op's in-place path: the gradient is recorded, a negative n raises before anything is written).
  auto polygamma_fn = [](int64_t n, nb::handle self, nb::handle out, bool inplace) -> nb::object {
    const Tensor& x = nb::cast<const Tensor&>(self);
    const UnaryArgs args{static_cast<double>(n)};
    if (inplace) {
      unary_op(UnaryOp::Polygamma, x, x, args);
      return nb::borrow(self);
    }
    if (has_arg(out)) {
      unary_op(UnaryOp::Polygamma, x, nb::cast<const Tensor&>(out), args);
      return nb::borrow(out);
    }
    return nb::cast(polygamma(n, x));
  };
  m.def("polygamma", [polygamma_fn](int64_t n, nb::handle x, nb::handle out) { return polygamma_fn(n, x, out, false); },
        nb::arg("n"), nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("polygamma") = nb::cpp_function(
      [polygamma_fn](nb::handle x, int64_t n) { return polygamma_fn(n, x, {}, false); }, nb::is_method(), nb::arg("n"));
  cls.attr("polygamma_") = nb::cpp_function(
      [polygamma_fn](nb::handle x, int64_t n) { return polygamma_fn(n, x, {}, true); }, nb::is_method(), nb::arg("n"));

  // mvlgamma(input, p, *, out=None) (special.multigammaln); Tensor.mvlgamma(p), mvlgamma_(p).
  m.def("mvlgamma",
        [](const Tensor& x, int64_t p, nb::handle out) { return finish_out(mvlgamma(x, p), out, "mvlgamma"); },
        nb::arg("input"), nb::arg("p"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("mvlgamma") = nb::cpp_function([](const Tensor& x, int64_t p) { return mvlgamma(x, p); }, nb::is_method(),
                                          nb::arg("p"));
  cls.attr("mvlgamma_") = nb::cpp_function([](nb::handle self, int64_t p) {
    return finish(mvlgamma(nb::cast<const Tensor&>(self), p), self, {}, true, "mvlgamma");
  }, nb::is_method(), nb::arg("p"));

  // frexp(input, *, out=None) -> (mantissa, exponent), a torch.return_types.frexp-like namedtuple.
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  nb::object frexp_type = namedtuple("frexp", nb::make_tuple("mantissa", "exponent"));
  m.attr("_frexp_return_type") = frexp_type;
  g_frexp_type = frexp_type;
  auto frexp_fn = [](const Tensor& x, nb::handle out) -> nb::object {
    auto [mant, expo] = frexp(x);
    if (!has_arg(out)) return g_frexp_type(nb::cast(std::move(mant)), nb::cast(std::move(expo)));
    const bool ok = (PyTuple_Check(out.ptr()) || PyList_Check(out.ptr())) && PySequence_Size(out.ptr()) == 2;
    nb::object a = ok ? nb::steal(PySequence_GetItem(out.ptr(), 0)) : nb::none();
    nb::object b = ok ? nb::steal(PySequence_GetItem(out.ptr(), 1)) : nb::none();
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(a) && nb::isinstance<Tensor>(b),
                     "frexp(): out= must be a tuple of two tensors (mantissa, exponent)");
    return g_frexp_type(finish_out(std::move(mant), a, "frexp"), finish_out(std::move(expo), b, "frexp"));
  };
  m.def("frexp", frexp_fn, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("frexp") = nb::cpp_function([frexp_fn](const Tensor& x) { return frexp_fn(x, {}); }, nb::is_method());

  // ldexp(input, other, *, out=None); Tensor.ldexp(other), ldexp_(other).
  m.def("ldexp", [](const Tensor& x, const Tensor& e, nb::handle out) { return finish_out(ldexp(x, e), out, "ldexp"); },
        nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("ldexp") = nb::cpp_function([](const Tensor& x, const Tensor& e) { return ldexp(x, e); }, nb::is_method(),
                                       nb::arg("other"));
  cls.attr("ldexp_") = nb::cpp_function([](nb::handle self, const Tensor& e) {
    const Tensor& x = nb::cast<const Tensor&>(self);
    ldexp(x, e, x);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("other"));

  // float_power(input, exponent, *, out=None): numbers either side; the in-place form needs a float64 self.
  m.def("float_power", [](nb::handle a, nb::handle b, nb::handle out) {
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(a) || nb::isinstance<Tensor>(b),
                     "float_power(): expected at least one tensor argument");
    return finish_out(float_power(operand(a, "float_power"), operand(b, "float_power")), out, "float_power");
  }, nb::arg("input"), nb::arg("exponent"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("float_power") = nb::cpp_function([](const Tensor& x, nb::handle b) {
    return float_power(x, operand(b, "float_power"));
  }, nb::is_method(), nb::arg("exponent"));
  cls.attr("float_power_") = nb::cpp_function([](nb::handle self, nb::handle b) {
    const Tensor& x = nb::cast<const Tensor&>(self);
    EMBER_CHECK(x.dtype() == ScalarType::Float64, "the base given to float_power_ has dtype ", type_label(x.dtype()),
                " but the operation's result requires dtype Double");
    const Operand e = operand(b, "float_power_");
    const Tensor wide = e.t ? to(*e.t, ScalarType::Float64) : Tensor();
    binary_op(BinaryOp::Pow, x, e.t ? Operand(wide) : Operand(e.s.to_double()), x);
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("exponent"));

  def_windows(m);

  // torch.special's orthogonal polynomials, as ember._C._special_<name>(input, n, *, out=None) for ember.special.
  static const std::pair<const char*, Polynomial> polynomials[] = {
      {"chebyshev_polynomial_t", Polynomial::ChebyshevT}, {"chebyshev_polynomial_u", Polynomial::ChebyshevU},
      {"chebyshev_polynomial_v", Polynomial::ChebyshevV}, {"chebyshev_polynomial_w", Polynomial::ChebyshevW},
      {"shifted_chebyshev_polynomial_t", Polynomial::ShiftedChebyshevT},
      {"shifted_chebyshev_polynomial_u", Polynomial::ShiftedChebyshevU},
      {"shifted_chebyshev_polynomial_v", Polynomial::ShiftedChebyshevV},
      {"shifted_chebyshev_polynomial_w", Polynomial::ShiftedChebyshevW},
      {"hermite_polynomial_h", Polynomial::HermiteH}, {"hermite_polynomial_he", Polynomial::HermiteHe},
      {"laguerre_polynomial_l", Polynomial::LaguerreL}, {"legendre_polynomial_p", Polynomial::LegendreP},
  };
  for (const auto& [name, family] : polynomials) {
    const char* fn = name;
    const Polynomial p = family;
    m.def((std::string("_special_") + name).c_str(), [fn, p](nb::handle x, nb::handle n, nb::handle out) {
      EMBER_CHECK_TYPE(nb::isinstance<Tensor>(x) || nb::isinstance<Tensor>(n), fn,
                       "(): expected at least one tensor argument");
      return finish_out(special_polynomial(p, operand(x, fn), operand(n, fn)), out, fn);
    }, nb::arg("input"), nb::arg("n"), nb::kw_only(), nb::arg("out") = nb::none());
  }

  // PyTorch's functional in-place forms of these: ember.i0_(x) is x.i0_().
  for (const char* name : {"xlogy_", "gcd_", "lcm_", "ldexp_"})
    m.attr(name) = cls.attr(name);
}

}  // namespace ember::py
