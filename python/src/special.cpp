// Bindings of the special functions that take parameters or return several tensors (the plain elementwise ones are
// rows of the unary.cpp and binary.cpp tables): polygamma (also ember.special.polygamma), mvlgamma
// (ember.special.multigammaln), frexp, ldexp, float_power and the window functions, with PyTorch's signatures and
// docstrings.
#include <string>

#include "common.h"
#include "ember/cuda.h"
#include "ember/ops/special.h"

namespace ember::py {

namespace {

nb::handle g_frexp_type;  // torch.return_types.frexp

bool has_arg(nb::handle h) { return h.is_valid() && !h.is_none(); }

Operand operand(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) return Operand(nb::cast<const Tensor&>(h));
  return Operand(to_scalar(h, fn));
}

constexpr const char* kMvlgammaDoc =
    R"doc(Returns the multivariate log-gamma function of dimension `p` of each element of `input`.

.. math::
    \text{out}_i = \frac{p (p - 1)}{4} \log \pi + \sum_{j=0}^{p-1} \log \Gamma\left(\text{input}_i - \frac{j}{2}\right)

It is the logarithm of the multivariate gamma function of the Wishart distribution's normalizer. `p` must be at
least 1; the elements are expected to be greater than (p - 1) / 2 (elsewhere the terms are log-gamma values of
negative arguments, not checked, as in PyTorch). Integer inputs compute in the default float dtype.

Args:
    input (Tensor): the input tensor.
    p (int): the dimension.

Keyword args:
    out (Tensor, optional): the output tensor.)doc";

constexpr const char* kLdexpDoc = R"doc(Multiplies `input` by 2 raised to the power `other`.

.. math::
    \text{out}_i = \text{input}_i \times 2^{\text{other}_i}

With integer exponents this builds floating-point numbers from mantissas and exponents (the inverse of
:func:`ember.frexp`). The operands broadcast and promote as in :func:`ember.mul`; integer operands give a floating
result.

Args:
    input (Tensor): the mantissas.
    other (Tensor): the exponents, usually integers.

Keyword args:
    out (Tensor, optional): the output tensor.)doc";

constexpr const char* kFloatPowerDoc = R"doc(Raises `input` to the power `exponent` in double precision.

.. math::
    \text{out}_i = \text{input}_i^{\text{exponent}_i}

Both operands are converted to float64 and the result is float64, whatever their dtypes: an integer base with a
negative integer exponent gives a fraction, where :func:`ember.pow` would stay in integers. Either operand may be a
number. The in-place ``Tensor.float_power_`` needs a float64 tensor.

Args:
    input (Tensor or Number): the base.
    exponent (Tensor or Number): the exponent. At least one of the two is a tensor.

Keyword args:
    out (Tensor, optional): the output tensor.)doc";

// The windows' shared text: the keyword arguments of a factory.
constexpr const char* kWindowKeywords = R"doc(

Keyword args:
    dtype (:class:`ember.dtype`, optional): a floating dtype. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided`` is supported.
    device (:class:`ember.device`, optional): the device of the result. Default: the CPU.
    pin_memory (bool, optional): whether the result is in pinned memory (CUDA builds). Default: False.
    requires_grad (bool, optional): whether autograd records operations on the result. Default: False.)doc";

constexpr const char* kHannDoc = R"doc(Returns the Hann window of `window_length` points.

.. math::
    w_k = \frac{1}{2} \left(1 - \cos\frac{2 \pi k}{N - 1}\right) = \sin^2\frac{\pi k}{N - 1}, \quad
    0 \le k < \text{window\_length}

With ``periodic=True`` (for spectral analysis) N is `window_length` + 1 and the last point of that symmetric window
is dropped; with ``periodic=False`` (for filter design) N is `window_length`. A window of length 1 is ``[1]`` and
one of length 0 is empty.

Args:
    window_length (int): the number of points.
    periodic (bool, optional): a periodic window rather than a symmetric one. Default: True.)doc";

constexpr const char* kHammingDoc = R"doc(Returns the generalized Hamming window of `window_length` points.

.. math::
    w_k = \alpha - \beta \cos\frac{2 \pi k}{N - 1}, \quad 0 \le k < \text{window\_length}

The defaults give Hamming's window; ``alpha=0.5, beta=0.5`` gives Hann's. N is `window_length` + 1 with
``periodic=True`` (the last point dropped) and `window_length` otherwise.

Args:
    window_length (int): the number of points.
    periodic (bool, optional): a periodic window rather than a symmetric one. Default: True.
    alpha (float, optional): the coefficient :math:`\alpha`. Default: 0.54.
    beta (float, optional): the coefficient :math:`\beta`. Default: 0.46.)doc";

constexpr const char* kBlackmanDoc = R"doc(Returns the Blackman window of `window_length` points.

.. math::
    w_k = 0.42 - 0.5 \cos\frac{2 \pi k}{N - 1} + 0.08 \cos\frac{4 \pi k}{N - 1}, \quad 0 \le k < \text{window\_length}

N is `window_length` + 1 with ``periodic=True`` (the last point dropped) and `window_length` otherwise.

Args:
    window_length (int): the number of points.
    periodic (bool, optional): a periodic window rather than a symmetric one. Default: True.)doc";

constexpr const char* kBartlettDoc = R"doc(Returns the Bartlett (triangular) window of `window_length` points.

.. math::
    w_k = 1 - \left|\frac{2k}{N - 1} - 1\right|, \quad 0 \le k < \text{window\_length}

N is `window_length` + 1 with ``periodic=True`` (the last point dropped) and `window_length` otherwise.

Args:
    window_length (int): the number of points.
    periodic (bool, optional): a periodic window rather than a symmetric one. Default: True.)doc";

constexpr const char* kKaiserDoc =
    R"doc(Returns the Kaiser window of `window_length` points with shape parameter `beta`.

.. math::
    w_k = \frac{I_0\left(\beta \sqrt{1 - \left(\frac{k - m}{m}\right)^2}\right)}{I_0(\beta)}, \quad
    m = \frac{N - 1}{2}, \quad 0 \le k < \text{window\_length}

:math:`I_0` is the modified Bessel function of order 0 (:func:`ember.i0`); a larger `beta` narrows the window. N
is `window_length` + 1 with ``periodic=True`` (the last point dropped) and `window_length` otherwise.

Args:
    window_length (int): the number of points.
    periodic (bool, optional): a periodic window rather than a symmetric one. Default: True.
    beta (float, optional): the shape parameter :math:`\beta`. Default: 12.0.)doc";

// A window's factory keywords.
struct WindowKw {
  nb::handle dtype, layout, device, pin_memory;
  bool requires_grad;
};

template <class F>
Tensor make_window(const char* fn, const WindowKw& kw, F&& f) {
  FactoryArgs a;
  a.dtype = to_dtype(kw.dtype);
  a.device = to_device(kw.device);
  EMBER_CHECK_TYPE(kw.layout.is_none() || nb::hasattr(kw.layout, "_ember_strided"), fn,
                   "(): only the strided layout is supported");
  a.pin_memory = truthy(kw.pin_memory);
  if (a.pin_memory) cuda::check_available("pin_memory");
  return a.pinned(f(WindowOptions{a.dtype, a.device.value_or(kCPU), kw.requires_grad}));
}

std::string window_sig(const char* name, const char* params) {
  return std::string("def ") + name + "(window_length: int, periodic: bool = True" + params +
         ", *, dtype: dtype | None = None, layout: layout | None = None, device: device | None = None, pin_memory: "
         "bool = False, requires_grad: bool = False) -> Tensor";
}

void def_windows(nb::module_& m) {
  // The factory keywords every window takes.
  const auto ko = nb::kw_only();
  const auto dt = nb::arg("dtype") = nb::none(), ly = nb::arg("layout") = nb::none(),
             dv = nb::arg("device") = nb::none();
  const auto pm = nb::arg("pin_memory") = false;
  const auto rg = nb::arg("requires_grad") = false;
  using H = nb::handle;
  m.def(
      "hann_window",
      [](int64_t n, bool periodic, H dtype, H layout, H device, H pin, bool rg) {
        return make_window("hann_window", {dtype, layout, device, pin, rg},
                           [&](const WindowOptions& o) { return hann_window(n, periodic, o); });
      },
      nb::arg("window_length"), nb::arg("periodic") = true, ko, dt, ly, dv, pm, rg,
      nb::sig(window_sig("hann_window", "").c_str()), (std::string(kHannDoc) + kWindowKeywords).c_str());
  m.def(
      "hamming_window",
      [](int64_t n, bool periodic, double alpha, double beta, H dtype, H layout, H device, H pin, bool rg) {
        return make_window("hamming_window", {dtype, layout, device, pin, rg},
                           [&](const WindowOptions& o) { return hamming_window(n, periodic, alpha, beta, o); });
      },
      nb::arg("window_length"), nb::arg("periodic") = true, nb::arg("alpha") = 0.54, nb::arg("beta") = 0.46, ko, dt, ly,
      dv, pm, rg, nb::sig(window_sig("hamming_window", ", alpha: float = 0.54, beta: float = 0.46").c_str()),
      (std::string(kHammingDoc) + kWindowKeywords).c_str());
  m.def(
      "blackman_window",
      [](int64_t n, bool periodic, H dtype, H layout, H device, H pin, bool rg) {
        return make_window("blackman_window", {dtype, layout, device, pin, rg},
                           [&](const WindowOptions& o) { return blackman_window(n, periodic, o); });
      },
      nb::arg("window_length"), nb::arg("periodic") = true, ko, dt, ly, dv, pm, rg,
      nb::sig(window_sig("blackman_window", "").c_str()), (std::string(kBlackmanDoc) + kWindowKeywords).c_str());
  m.def(
      "bartlett_window",
      [](int64_t n, bool periodic, H dtype, H layout, H device, H pin, bool rg) {
        return make_window("bartlett_window", {dtype, layout, device, pin, rg},
                           [&](const WindowOptions& o) { return bartlett_window(n, periodic, o); });
      },
      nb::arg("window_length"), nb::arg("periodic") = true, ko, dt, ly, dv, pm, rg,
      nb::sig(window_sig("bartlett_window", "").c_str()), (std::string(kBartlettDoc) + kWindowKeywords).c_str());
  m.def(
      "kaiser_window",
      [](int64_t n, bool periodic, double beta, H dtype, H layout, H device, H pin, bool rg) {
        return make_window("kaiser_window", {dtype, layout, device, pin, rg},
                           [&](const WindowOptions& o) { return kaiser_window(n, periodic, beta, o); });
      },
      nb::arg("window_length"), nb::arg("periodic") = true, nb::arg("beta") = 12.0, ko, dt, ly, dv, pm, rg,
      nb::sig(window_sig("kaiser_window", ", beta: float = 12.0").c_str()),
      (std::string(kKaiserDoc) + kWindowKeywords).c_str());
}

}  // namespace

void init_special(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  nb::module_ special = special_module(m);

  // polygamma(n, input, *, out=None), also ember.special.polygamma; Tensor.polygamma(n), polygamma_(n). In place,
  // the op writes self directly (unary_op's in-place path: the gradient is recorded, a negative n raises before
  // anything is written). The docstring is the unary table's row.
  const char* polygamma_doc = unary_doc(UnaryOp::Polygamma);
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
  for (nb::module_* mod : {&m, &special})
    mod->def(
        "polygamma", [polygamma_fn](int64_t n, nb::handle x, nb::handle out) { return polygamma_fn(n, x, out, false); },
        nb::arg("n"), nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none(),
        nb::sig("def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor"), polygamma_doc);
  cls.attr("polygamma") = nb::cpp_function(
      [polygamma_fn](nb::handle x, int64_t n) { return polygamma_fn(n, x, {}, false); }, nb::is_method(), nb::arg("n"),
      nb::name("polygamma"), nb::scope(cls), nb::sig("def polygamma(self, n: int) -> Tensor"),
      method_doc(polygamma_doc, "polygamma").c_str());
  cls.attr("polygamma_") = nb::cpp_function(
      [polygamma_fn](nb::handle x, int64_t n) { return polygamma_fn(n, x, {}, true); }, nb::is_method(), nb::arg("n"),
      nb::name("polygamma_"), nb::scope(cls), nb::sig("def polygamma_(self, n: int) -> Tensor"),
      inplace_doc("polygamma").c_str());

  // mvlgamma(input, p, *, out=None), also ember.special.multigammaln; Tensor.mvlgamma(p), mvlgamma_(p).
  for (auto [mod, name] : {std::pair{&m, "mvlgamma"}, std::pair{&special, "multigammaln"}})
    mod->def(
        name, [name](const Tensor& x, int64_t p, nb::handle out) { return finish_out(mvlgamma(x, p), out, name); },
        nb::arg("input"), nb::arg("p"), nb::kw_only(), nb::arg("out") = nb::none(),
        nb::sig(
            (std::string("def ") + name + "(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor").c_str()),
        kMvlgammaDoc);
  cls.attr("mvlgamma") = nb::cpp_function(
      [](const Tensor& x, int64_t p) { return mvlgamma(x, p); }, nb::is_method(), nb::arg("p"), nb::name("mvlgamma"),
      nb::scope(cls), nb::sig("def mvlgamma(self, p: int) -> Tensor"), method_doc(kMvlgammaDoc, "mvlgamma").c_str());
  cls.attr("mvlgamma_") = nb::cpp_function(
      [](nb::handle self, int64_t p) {
        const Tensor& x = nb::cast<const Tensor&>(self);
        Tensor r = mvlgamma(x, p);
        EMBER_CHECK(can_cast(r.dtype(), x.dtype()), "mvlgamma_: result type ", type_label(r.dtype()),
                    " can't be cast to the desired output type ", type_label(x.dtype()));
        copy_(x, r);
        return nb::borrow(self);
      },
      nb::is_method(), nb::arg("p"), nb::name("mvlgamma_"), nb::scope(cls),
      nb::sig("def mvlgamma_(self, p: int) -> Tensor"), inplace_doc("mvlgamma").c_str());

  // frexp(input, *, out=None) -> (mantissa, exponent), a torch.return_types.frexp-like namedtuple. The docstring is
  // the unary table's row of the mantissa.
  const char* frexp_doc = unary_doc(UnaryOp::FrexpMantissa);
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
  m.def("frexp", frexp_fn, nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none(),
        nb::sig("def frexp(input: Tensor, *, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]"),
        frexp_doc);
  cls.attr("frexp") = nb::cpp_function(
      [frexp_fn](const Tensor& x) { return frexp_fn(x, {}); }, nb::is_method(), nb::name("frexp"), nb::scope(cls),
      nb::sig("def frexp(self) -> tuple[Tensor, Tensor]"), method_doc(frexp_doc, "frexp").c_str());

  // ldexp(input, other, *, out=None); ldexp_(input, other); Tensor.ldexp(other), ldexp_(other).
  m.def(
      "ldexp", [](const Tensor& x, const Tensor& e, nb::handle out) { return finish_out(ldexp(x, e), out, "ldexp"); },
      nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none(),
      nb::sig("def ldexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor"), kLdexpDoc);
  auto ldexp_inplace = [](nb::handle self, const Tensor& e) {
    const Tensor& x = nb::cast<const Tensor&>(self);
    ldexp(x, e, x);
    return nb::borrow(self);
  };
  m.def("ldexp_", ldexp_inplace, nb::arg("input"), nb::arg("other"),
        nb::sig("def ldexp_(input: Tensor, other: Tensor) -> Tensor"),
        "In-place version of :func:`ember.ldexp`: writes the result into ``input`` and returns it.\n\nArgs:\n    "
        "input (Tensor): the tensor to overwrite.\n    other (Tensor): the exponents.");
  cls.attr("ldexp") = nb::cpp_function([](const Tensor& x, const Tensor& e) { return ldexp(x, e); }, nb::is_method(),
                                       nb::arg("other"), nb::name("ldexp"), nb::scope(cls),
                                       nb::sig("def ldexp(self, other: Tensor) -> Tensor"),
                                       method_doc(kLdexpDoc, "ldexp").c_str());
  cls.attr("ldexp_") = nb::cpp_function(ldexp_inplace, nb::is_method(), nb::arg("other"), nb::name("ldexp_"),
                                        nb::scope(cls), nb::sig("def ldexp_(self, other: Tensor) -> Tensor"),
                                        inplace_doc("ldexp").c_str());

  // float_power(input, exponent, *, out=None): numbers either side; the in-place form needs a float64 self.
  m.def(
      "float_power",
      [](nb::handle a, nb::handle b, nb::handle out) {
        EMBER_CHECK_TYPE(nb::isinstance<Tensor>(a) || nb::isinstance<Tensor>(b),
                         "float_power(): expected at least one tensor argument");
        return finish_out(float_power(operand(a, "float_power"), operand(b, "float_power")), out, "float_power");
      },
      nb::arg("input"), nb::arg("exponent"), nb::kw_only(), nb::arg("out") = nb::none(),
      nb::sig("def float_power(input: Tensor | Number, exponent: Tensor | Number, *, out: Tensor | None = None) -> "
              "Tensor"),
      kFloatPowerDoc);
  cls.attr("float_power") = nb::cpp_function(
      [](const Tensor& x, nb::handle b) { return float_power(x, operand(b, "float_power")); }, nb::is_method(),
      nb::arg("exponent"), nb::name("float_power"), nb::scope(cls),
      nb::sig("def float_power(self, exponent: Tensor | Number) -> Tensor"),
      method_doc(kFloatPowerDoc, "float_power").c_str());
  cls.attr("float_power_") = nb::cpp_function(
      [](nb::handle self, nb::handle b) {
        const Tensor& x = nb::cast<const Tensor&>(self);
        EMBER_CHECK(x.dtype() == ScalarType::Float64, "the base given to float_power_ has dtype ",
                    type_label(x.dtype()), " but the operation's result requires dtype Double");
        const Operand e = operand(b, "float_power_");
        const Tensor wide = e.t ? to(*e.t, ScalarType::Float64) : Tensor();
        binary_op(BinaryOp::Pow, x, e.t ? Operand(wide) : Operand(e.s.to_double()), x);
        return nb::borrow(self);
      },
      nb::is_method(), nb::arg("exponent"), nb::name("float_power_"), nb::scope(cls),
      nb::sig("def float_power_(self, exponent: Tensor | Number) -> Tensor"), inplace_doc("float_power").c_str());

  def_windows(m);
}

}  // namespace ember::py
