// Bindings of the distribution samplers (ember/ops/sampling.h): Tensor.exponential_/geometric_/cauchy_/log_normal_,
// ember.poisson, ember.binomial, ember._standard_gamma(_grad), ember._sample_dirichlet.
#include "common.h"
#include "ember/ops/sampling.h"

namespace ember::py {

void init_sampling(nb::module_& m) {
  m.def(
      "poisson", [](const Tensor& rates, Generator* g) { return poisson(rates, g); }, nb::arg("input"),
      nb::arg("generator") = nb::none(),
      R"(Draws from Poisson distributions whose rates are the elements of ``input``.

.. math::
    \text{out}_{i} \sim \mathrm{Poisson}(\text{input}_{i})

The result has ``input``'s shape and floating point dtype and holds non-negative integer values.

Args:
    input (Tensor): the rates (non-negative, floating point).
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.

Example::

    >>> ember.poisson(ember.tensor([0.0, 0.0]))
    tensor([0., 0.]))");
  m.def(
      "binomial", [](const Tensor& count, const Tensor& prob, Generator* g) { return binomial(count, prob, g); },
      nb::arg("count"), nb::arg("prob"), nb::arg("generator") = nb::none(),
      R"(Draws from binomial distributions: the number of successes in ``count`` trials of probability ``prob``.

.. math::
    \text{out}_{i} \sim \mathrm{Binomial}(\text{count}_{i}, \text{prob}_{i})

``count`` and ``prob`` broadcast together; the result has their floating point dtype.

Args:
    count (Tensor): the numbers of trials (non-negative, floating point).
    prob (Tensor): the probabilities of success, in :math:`[0, 1]`.
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.

Example::

    >>> ember.binomial(ember.tensor([5.0, 5.0]), ember.tensor([0.0, 1.0]))
    tensor([0., 5.]))");
  m.def(
      "_standard_gamma", [](const Tensor& alpha, Generator* g) { return standard_gamma(alpha, g); }, nb::arg("input"),
      nb::arg("generator") = nb::none());
  m.def(
      "_standard_gamma_grad", [](const Tensor& alpha, const Tensor& x) { return standard_gamma_grad(alpha, x); },
      nb::arg("input"), nb::arg("output"));
  m.def(
      "_sample_von_mises",
      [](const Tensor& loc, const Tensor& conc, Generator* g) { return sample_von_mises(loc, conc, g); },
      nb::arg("loc"), nb::arg("concentration"), nb::arg("generator") = nb::none());
  m.def(
      "_sample_dirichlet", [](const Tensor& alpha, Generator* g) { return sample_dirichlet(alpha, g); },
      nb::arg("input"), nb::arg("generator") = nb::none());

  auto cls = nb::type<Tensor>();
  cls.attr("exponential_") = nb::cpp_function(
      [](nb::handle self, double lambd, Generator* g) {
        exponential_(nb::cast<const Tensor&>(self), lambd, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("exponential_"), nb::arg("lambd") = 1.0, nb::kw_only(),
      nb::arg("generator") = nb::none(),
      nb::sig("def exponential_(self, lambd: float = 1, *, generator: Generator | None = None) -> Tensor"),
      R"(Fills ``self`` with numbers drawn from the exponential distribution of rate ``lambd`` and returns it.

.. math::
    f(x) = \lambda e^{-\lambda x}, \quad x \ge 0

Args:
    lambd (float, optional): the rate :math:`\lambda` (non-negative). Default: ``1``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.)");
  cls.attr("geometric_") = nb::cpp_function(
      [](nb::handle self, double p, Generator* g) {
        geometric_(nb::cast<const Tensor&>(self), p, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("geometric_"), nb::arg("p"), nb::kw_only(),
      nb::arg("generator") = nb::none(),
      nb::sig("def geometric_(self, p: float, *, generator: Generator | None = None) -> Tensor"),
      R"(Fills ``self`` with numbers drawn from the geometric distribution of success probability ``p`` and returns it.

Each value is the number of Bernoulli trials up to and including the first success:

.. math::
    P(X = k) = (1 - p)^{k - 1} p, \quad k = 1, 2, \ldots

Args:
    p (float): the probability of success of each trial, in :math:`(0, 1)`.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.)");
  cls.attr("cauchy_") = nb::cpp_function(
      [](nb::handle self, double median, double sigma, Generator* g) {
        cauchy_(nb::cast<const Tensor&>(self), median, sigma, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("cauchy_"), nb::arg("median") = 0.0, nb::arg("sigma") = 1.0,
      nb::kw_only(), nb::arg("generator") = nb::none(),
      nb::sig("def cauchy_(self, median: float = 0, sigma: float = 1, *, generator: Generator | None = None) -> "
              "Tensor"),
      R"(Fills ``self`` with numbers drawn from the Cauchy distribution and returns it.

.. math::
    f(x) = \frac{1}{\pi} \frac{\sigma}{(x - \text{median})^2 + \sigma^2}

Args:
    median (float, optional): the location (median) of the distribution. Default: ``0``.
    sigma (float, optional): the scale :math:`\sigma` (half width at half maximum). Default: ``1``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.)");
  cls.attr("log_normal_") = nb::cpp_function(
      [](nb::handle self, double mean, double std, Generator* g) {
        log_normal_(nb::cast<const Tensor&>(self), mean, std, g);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("log_normal_"), nb::arg("mean") = 1.0, nb::arg("std") = 2.0,
      nb::kw_only(), nb::arg("generator") = nb::none(),
      nb::sig("def log_normal_(self, mean: float = 1, std: float = 2, *, generator: Generator | None = None) -> "
              "Tensor"),
      R"(Fills ``self`` with numbers drawn from the log-normal distribution and returns it.

The logarithm of each value is normally distributed with mean ``mean`` and standard deviation ``std``:

.. math::
    f(x) = \frac{1}{x \sigma \sqrt{2\pi}} e^{-\frac{(\ln x - \mu)^2}{2\sigma^2}}

Args:
    mean (float, optional): the mean :math:`\mu` of the logarithm. Default: ``1``.
    std (float, optional): the standard deviation :math:`\sigma` of the logarithm (positive). Default: ``2``.

Keyword args:
    generator (:class:`ember.Generator`, optional): the generator to draw from. Default: the device's default one.)");
}

}  // namespace ember::py
