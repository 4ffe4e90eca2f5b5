// Bindings of torch.signal.windows (ember/ops/signal.h) in ember._C._signal, with PyTorch's signatures and
// docstrings; python/ember/signal/windows re-exports them.
#include <string>
#include <vector>

#include "common.h"
#include "ember/ops/signal.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

// The factory keywords every window takes.
struct Kw {
  nb::handle dtype, layout, device;
  bool requires_grad;
};

WindowOptions options(const char* name, const Kw& kw) {
  EMBER_CHECK_VALUE(kw.layout.is_none() || nb::hasattr(kw.layout, "_ember_strided"), name,
                    " is implemented for strided tensors only, got: ", nb::str(kw.layout).c_str());
  return WindowOptions{to_dtype(kw.dtype), to_device(kw.device).value_or(kCPU), kw.requires_grad};
}

constexpr const char* kKeywords = R"doc(
    dtype (:class:`ember.dtype`, optional): float32 or float64. Default: the default dtype.
    layout (:class:`ember.layout`, optional): only ``ember.strided``.
    device (:class:`ember.device`, optional): the device of the result. Default: the CPU.
    requires_grad (bool, optional): whether autograd records the window's computation from its grid (as PyTorch,
        the result is then not a leaf). Default: False.

The window's maximum is 1, but the 1 does not appear when ``M`` is even and ``sym`` is True.)doc";

constexpr const char* kSym = R"doc(
    sym (bool, optional): True (default) for a symmetric window (filter design), False for a periodic one
        (spectral analysis): the first ``M`` points of the symmetric window of ``M + 1`` points.)doc";

std::string sig(const char* name, const char* params) {
  return std::string("def ") + name + "(M: int, *, " + params +
         "sym: bool = True, dtype: dtype | None = None, layout: layout | None = None, device: device | None = None, "
         "requires_grad: bool = False) -> Tensor";
}

std::string doc(const char* head, const char* params = "") {
  return std::string(head) + "\n\nArgs:\n    M (int): the number of points of the window.\n\nKeyword args:" + params +
         kSym + kKeywords;
}

std::vector<double> coefficients(nb::handle a) {
  EMBER_CHECK_TYPE(nb::hasattr(a, "__iter__"), "Coefficients must be a list/tuple");
  std::vector<double> r;
  for (nb::handle item : nb::iter(a)) r.push_back(to_scalar(item, "general_cosine").to_double());
  return r;
}

// A general cosine window with fixed coefficients under its own name (PyTorch's hann, hamming, blackman, nuttall).
void def_cosine_family(nb::module_& m, const char* name, std::vector<double> a, const char* head) {
  def_fn(
      m, name,
      [a, name](int64_t M, bool sym, nb::handle dtype, nb::handle layout, nb::handle device, bool rg) {
        // PyTorch's blackman checks its arguments under its own name; the others are general_cosine's calls
        const char* checker = std::string(name) == "blackman" ? name : "general_cosine";
        return signal::general_cosine(M, a, sym, options(checker, {dtype, layout, device, rg}), checker);
      },
      nb::sig(sig(name, "").c_str()), nb::arg("M"), nb::kw_only(), nb::arg("sym") = true, nb::arg("dtype") = nb::none(),
      nb::arg("layout") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
      doc(head).c_str());
}

}  // namespace

void init_signal(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_signal", "the C++ functions of ember.signal.windows");
  using H = nb::handle;
  def_fn(
      m, "exponential",
      [](int64_t M, std::optional<double> center, double tau, bool sym, H dtype, H layout, H device, bool rg) {
        return signal::exponential(M, center, tau, sym, options("exponential", {dtype, layout, device, rg}));
      },
      nb::sig(sig("exponential", "center: float | None = None, tau: float = 1.0, ").c_str()), nb::arg("M"),
      nb::kw_only(), nb::arg("center") = nb::none(), nb::arg("tau") = 1.0, nb::arg("sym") = true,
      nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(), nb::arg("device") = nb::none(),
      nb::arg("requires_grad") = false,
      doc(R"doc(Computes a window with an exponential waveform (the Poisson window).

.. math::
    w_n = \exp\left(-\frac{|n - c|}{\tau}\right)

where ``c`` is the ``center``.)doc",
          R"doc(
    center (float, optional): the center ``c``. Default: ``M / 2`` if ``sym`` is False, else ``(M - 1) / 2``; it
        must be left to its default for a symmetric window.
    tau (float, optional): the decay :math:`\tau`, positive. Default: 1.0.)doc")
          .c_str());
  def_fn(
      m, "cosine",
      [](int64_t M, bool sym, H dtype, H layout, H device, bool rg) {
        return signal::cosine(M, sym, options("cosine", {dtype, layout, device, rg}));
      },
      nb::sig(sig("cosine", "").c_str()), nb::arg("M"), nb::kw_only(), nb::arg("sym") = true,
      nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(), nb::arg("device") = nb::none(),
      nb::arg("requires_grad") = false,
      doc(R"doc(Computes a window with a simple cosine waveform (the sine window), as SciPy.

.. math::
    w_n = \sin\left(\frac{\pi (n + 0.5)}{M}\right))doc")
          .c_str());
  def_fn(
      m, "gaussian",
      [](int64_t M, double std_dev, bool sym, H dtype, H layout, H device, bool rg) {
        return signal::gaussian(M, std_dev, sym, options("gaussian", {dtype, layout, device, rg}));
      },
      nb::sig(sig("gaussian", "std: float = 1.0, ").c_str()), nb::arg("M"), nb::kw_only(), nb::arg("std") = 1.0,
      nb::arg("sym") = true, nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
      doc(R"doc(Computes a window with a gaussian waveform.

.. math::
    w_n = \exp\left(-\left(\frac{n - (M - 1) / 2}{\sqrt{2}\sigma}\right)^2\right))doc",
          R"doc(
    std (float, optional): the standard deviation :math:`\sigma`, positive. Default: 1.0.)doc")
          .c_str());
  def_fn(
      m, "kaiser",
      [](int64_t M, double beta, bool sym, H dtype, H layout, H device, bool rg) {
        return signal::kaiser(M, beta, sym, options("kaiser", {dtype, layout, device, rg}));
      },
      nb::sig(sig("kaiser", "beta: float = 12.0, ").c_str()), nb::arg("M"), nb::kw_only(), nb::arg("beta") = 12.0,
      nb::arg("sym") = true, nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
      doc(R"doc(Computes the Kaiser window.

.. math::
    w_n = I_0\left(\beta \sqrt{1 - \left(\frac{n - N/2}{N/2}\right)^2}\right) / I_0(\beta)

where :math:`I_0` is :func:`ember.special.i0` and ``N`` is ``M - 1`` (``M`` for a periodic window).)doc",
          R"doc(
    beta (float, optional): the shape parameter :math:`\beta`, non-negative. Default: 12.0.)doc")
          .c_str());
  def_fn(
      m, "bartlett",
      [](int64_t M, bool sym, H dtype, H layout, H device, bool rg) {
        return signal::bartlett(M, sym, options("bartlett", {dtype, layout, device, rg}));
      },
      nb::sig(sig("bartlett", "").c_str()), nb::arg("M"), nb::kw_only(), nb::arg("sym") = true,
      nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(), nb::arg("device") = nb::none(),
      nb::arg("requires_grad") = false,
      doc(R"doc(Computes the Bartlett (triangular) window.

.. math::
    w_n = 1 - \left|\frac{2n}{M - 1} - 1\right|)doc")
          .c_str());
  def_fn(
      m, "general_cosine",
      [](int64_t M, H a, bool sym, H dtype, H layout, H device, bool rg) {
        return signal::general_cosine(M, coefficients(a), sym, options("general_cosine", {dtype, layout, device, rg}));
      },
      nb::sig(sig("general_cosine", "a: Iterable[float], ").c_str()), nb::arg("M"), nb::kw_only(), nb::arg("a"),
      nb::arg("sym") = true, nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
      doc(R"doc(Computes the general cosine window.

.. math::
    w_n = \sum_i (-1)^i a_i \cos\left(\frac{2 \pi i n}{M - 1}\right))doc",
          R"doc(
    a (Iterable): the coefficients :math:`a_i` of the cosine terms.)doc")
          .c_str());
  def_fn(
      m, "general_hamming",
      [](int64_t M, double alpha, bool sym, H dtype, H layout, H device, bool rg) {
        return signal::general_cosine(M, {alpha, 1.0 - alpha}, sym,
                                      options("general_cosine", {dtype, layout, device, rg}));
      },
      nb::sig(sig("general_hamming", "alpha: float = 0.54, ").c_str()), nb::arg("M"), nb::kw_only(),
      nb::arg("alpha") = 0.54, nb::arg("sym") = true, nb::arg("dtype") = nb::none(), nb::arg("layout") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,
      doc(R"doc(Computes the general Hamming window.

.. math::
    w_n = \alpha - (1 - \alpha) \cos\left(\frac{2 \pi n}{M - 1}\right))doc",
          R"doc(
    alpha (float, optional): the window coefficient :math:`\alpha`. Default: 0.54.)doc")
          .c_str());
  def_cosine_family(m, "hamming", {0.54, 0.46}, R"doc(Computes the Hamming window.

.. math::
    w_n = 0.54 - 0.46 \cos\left(\frac{2 \pi n}{M - 1}\right))doc");
  def_cosine_family(m, "hann", {0.5, 0.5}, R"doc(Computes the Hann window.

.. math::
    w_n = \frac{1}{2}\left[1 - \cos\left(\frac{2 \pi n}{M - 1}\right)\right])doc");
  def_cosine_family(m, "blackman", {0.42, 0.5, 0.08}, R"doc(Computes the Blackman window.

.. math::
    w_n = 0.42 - 0.5 \cos\left(\frac{2 \pi n}{M - 1}\right) + 0.08 \cos\left(\frac{4 \pi n}{M - 1}\right))doc");
  def_cosine_family(m, "nuttall", {0.3635819, 0.4891775, 0.1365995, 0.0106411},
                    R"doc(Computes the minimum 4-term Blackman-Harris window according to Nuttall.

.. math::
    w_n = 0.3635819 - 0.4891775 \cos z_n + 0.1365995 \cos 2z_n - 0.0106411 \cos 3z_n, \quad
    z_n = \frac{2 \pi n}{M - 1})doc");
  nb::list names;
  for (const char* n : {"bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
                        "general_hamming", "hamming", "hann", "kaiser", "nuttall"})
    names.append(n);
  m.attr("__all__") = names;
}

}  // namespace ember::py
