// Bindings of the statistics and numeric helpers (ember/ops/stats.h, histogram.h; histc and bincount from
// ember/ops/sort.h): cov, corrcoef, quantile, diff, the trapezoid rule, vander, histc and bincount, with PyTorch's
// signatures and docstrings.
#include "common.h"
#include "ember/ops.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kCovDoc = R"(
Estimates the covariance matrix of the variables in the rows of ``input``, whose columns are observations.

A 1-d ``input`` is one variable; the result is ``(rows, rows)`` (0-d for one variable). With ``fweights``
(integer repeat counts per observation) and ``aweights`` (floating-point importance weights), the weighted
covariance:

.. math::
    \text{cov}_w = \frac{\sum_i w_i (x_i - \mu^*)(y_i - \mu^*)}{\sum_i w_i - \delta N}

where :math:`w` is the product of the weights given, :math:`\mu^*` the weighted mean, and :math:`\delta N` the
``correction`` (scaled by the weights when ``aweights`` is given, as NumPy does).

Args:
    input (Tensor): a 1-d or 2-d tensor of variables (rows) and observations (columns).

Keyword args:
    correction (int): the difference between the sum of the weights and the divisor; 1 is Bessel's correction.
        Default: ``1``.
    fweights (Tensor, optional): a 1-d integer tensor of non-negative repeat counts, one per observation.
    aweights (Tensor, optional): a 1-d floating-point tensor of non-negative weights, one per observation.

Example::

    >>> ember.cov(ember.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
)";

constexpr const char* kCorrcoefDoc = R"(
Returns the Pearson correlation coefficients of the variables in the rows of ``input``, whose columns are observations.

The covariance matrix of :func:`ember.cov` normalized by the standard deviations, with the results clipped to
``[-1, 1]``.

Args:
    input (Tensor): a 1-d or 2-d tensor of variables (rows) and observations (columns).

Example::

    >>> ember.corrcoef(ember.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
)";

constexpr const char* kQuantileDoc = R"(
Returns the ``q``-th quantiles of ``input``, over all of its elements or of each slice along ``dim``.

Each quantile lies between two sorted elements; ``interpolation`` chooses the value between them: ``'linear'``
(weighted by the fraction), ``'lower'``, ``'higher'``, ``'midpoint'`` or ``'nearest'``. A slice holding a NaN has
NaN quantiles. With a 1-d ``q`` the result has a leading dim of ``q``'s size.

Args:
    input (Tensor): the input tensor (floating point).
    q (float or Tensor): the probabilities, in ``[0, 1]``: a number, a sequence, or a 0-d or 1-d tensor.
    dim (int, optional): the dim to reduce. Default: all elements.
    keepdim (bool): whether ``dim`` stays in the result with size 1. Default: ``False``.

Keyword args:
    interpolation (str): ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or ``'nearest'``. Default:
        ``'linear'``.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.quantile(ember.tensor([0., 1., 2., 3.]), ember.tensor([0.25, 0.75]))
    tensor([0.7500, 2.2500])
)";

constexpr const char* kNanquantileDoc = R"(
Returns the ``q``-th quantiles of the non-NaN elements of ``input``, over all of them or of each slice along ``dim``.

:func:`ember.quantile` ignoring NaNs: a slice is NaN only when all its elements are.

Args:
    input (Tensor): the input tensor (floating point).
    q (float or Tensor): the probabilities, in ``[0, 1]``: a number, a sequence, or a 0-d or 1-d tensor.
    dim (int, optional): the dim to reduce. Default: all elements.
    keepdim (bool): whether ``dim`` stays in the result with size 1. Default: ``False``.

Keyword args:
    interpolation (str): ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or ``'nearest'``. Default:
        ``'linear'``.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.nanquantile(ember.tensor([0., float('nan'), 2.]), 0.5)
    tensor(1.)
)";

constexpr const char* kDiffDoc = R"(
Returns the ``n``-th forward difference of ``input`` along ``dim``.

The first difference is ``out[i] = input[i + 1] - input[i]``; higher orders repeat it, each shortening ``dim`` by
one. ``prepend`` and ``append`` are concatenated to ``input`` along ``dim`` first (their other dims must match).
Bool inputs use logical xor.

Args:
    input (Tensor): the input tensor.
    n (int): how many times to take the difference. Default: ``1``.
    dim (int): the dim along which to take it. Default: the last.
    prepend (Tensor, optional): values put before ``input`` along ``dim``.
    append (Tensor, optional): values put after ``input`` along ``dim``.

Example::

    >>> ember.diff(ember.tensor([1, 3, 6, 10]))
    tensor([2, 3, 4])
)";

constexpr const char* kTrapezoidDoc = R"(
Integrates ``y`` along ``dim`` with the trapezoidal rule.

.. math::
    \int y \, dx \approx \sum_{i=1}^{n-1} \frac{(x_i - x_{i-1})(y_i + y_{i-1})}{2}

with the sample points ``x`` (broadcast along ``dim``), or evenly spaced points ``dx`` apart (1 when neither is
given). Integer ``y`` gives a floating-point result.

Args:
    y (Tensor): the values to integrate.
    x (Tensor, optional): the sample points of ``y``. Pass either ``x`` or ``dx``.

Keyword args:
    dx (float, optional): the spacing of evenly spaced samples. Default: ``1``.
    dim (int): the dim to integrate along. Default: the last.

Example::

    >>> ember.trapezoid(ember.tensor([1., 2., 3.]))
    tensor(4.)
    >>> ember.trapezoid(ember.tensor([1., 2., 3.]), ember.tensor([0., 1., 3.]))
    tensor(6.5000)
)";

constexpr const char* kTrapzDoc = R"(
Integrates ``y`` along ``dim`` with the trapezoidal rule: an alias of :func:`ember.trapezoid`.

Args:
    y (Tensor): the values to integrate.
    x (Tensor, optional): the sample points of ``y``. Pass either ``x`` or ``dx``.

Keyword args:
    dx (float, optional): the spacing of evenly spaced samples. Default: ``1``.
    dim (int): the dim to integrate along. Default: the last.

Example::

    >>> ember.trapz(ember.tensor([1., 2., 3.]), dx=2)
    tensor(8.)
)";

constexpr const char* kCumulativeTrapezoidDoc = R"(
Returns the running integral of ``y`` along ``dim`` with the trapezoidal rule.

Element ``i`` of the result is :func:`ember.trapezoid` over the first ``i + 2`` samples, so ``dim`` is one shorter
than in ``y``.

Args:
    y (Tensor): the values to integrate.
    x (Tensor, optional): the sample points of ``y``. Pass either ``x`` or ``dx``.

Keyword args:
    dx (float, optional): the spacing of evenly spaced samples. Default: ``1``.
    dim (int): the dim to integrate along. Default: the last.

Example::

    >>> ember.cumulative_trapezoid(ember.tensor([1., 2., 3.]))
    tensor([1.5000, 4.0000])
)";

constexpr const char* kVanderDoc = R"(
Returns the Vandermonde matrix of the 1-d tensor ``x``: its columns are powers of ``x``.

With ``increasing=False`` (the default) the columns are :math:`x^{N-1}, x^{N-2}, \ldots, x^0`; with
``increasing=True``, :math:`x^0, x^1, \ldots, x^{N-1}`. Integer and bool inputs give ``int64``.

Args:
    x (Tensor): a 1-d tensor.
    N (int, optional): the number of columns. Default: ``len(x)``.
    increasing (bool): the order of the powers. Default: ``False``.

Example::

    >>> ember.vander(ember.tensor([1, 2, 3]), N=2, increasing=True)
    tensor([[1, 1],
            [1, 2],
            [1, 3]])
)";

constexpr const char* kHistcDoc = R"(
Counts the elements of ``input`` in ``bins`` equal-width bins between ``min`` and ``max``.

When ``min`` and ``max`` are equal (both 0 by default), the smallest and the largest element are used. Elements
outside ``[min, max]`` and NaNs are not counted; ``max`` itself falls in the last bin. The result has ``input``'s
floating-point dtype. Not differentiable.

Args:
    input (Tensor): the input tensor (floating point).
    bins (int): the number of bins. Default: ``100``.
    min (float): the lower end of the range. Default: ``0``.
    max (float): the upper end of the range. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.histc(ember.tensor([1., 2., 1.]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
)";

constexpr const char* kBincountDoc = R"(
Counts the occurrences of each value in a 1-d tensor of non-negative integers.

The result has ``max(input) + 1`` elements (at least ``minlength``): element ``v`` counts the elements equal to
``v``, or sums their ``weights`` when given. Counts are ``int64``; sums of weights are ``float32`` for ``float32``
weights and ``float64`` otherwise. Not differentiable.

Args:
    input (Tensor): a 1-d tensor of non-negative integers.
    weights (Tensor, optional): a weight per element of ``input``.
    minlength (int): the smallest number of bins. Default: ``0``.

Example::

    >>> ember.bincount(ember.tensor([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
)";

void def_moments(nb::module_& m, nb::handle cls) {
  def_both(
      m, cls, "cov", Sig{"*, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None"},
      [](const Tensor& t, int64_t correction, nb::handle fw, nb::handle aw) {
        return cov(t, correction, opt_tensor(fw, "cov", "fweights"), opt_tensor(aw, "cov", "aweights"));
      },
      kCovDoc, nb::kw_only(), nb::arg("correction") = 1, none_arg("fweights"), none_arg("aweights"));
  def_both(
      m, cls, "corrcoef", [](const Tensor& t) { return corrcoef(t); }, kCorrcoefDoc);

  for (bool nan : {false, true}) {
    const char* name = nan ? "nanquantile" : "quantile";
    const char* doc = nan ? kNanquantileDoc : kQuantileDoc;
    auto f = [nan, name](const Tensor& t, nb::handle q, nb::handle dim, bool keepdim, std::string interpolation,
                         nb::handle out) {
      Tensor qt;
      if (nb::isinstance<Tensor>(q)) {
        qt = nb::cast<Tensor>(q);
      } else if (is_seq(q)) {
        qt = tensor_from_data(q, t.dtype(), t.device());
      } else {
        const double v = to_scalar(q, name).to<double>();
        EMBER_CHECK(v >= 0 && v <= 1, name, "() q must be in the range [0, 1] but got ", v);
        qt = full({}, v, TensorOptions(t.dtype()).device(t.device()));
      }
      return finish_out(quantile(t, qt, opt_int(dim, name, "dim"), keepdim, interpolation, nan), out, name);
    };
    constexpr const char* kParams =
        "q: float | Sequence[float] | Tensor, dim: int | None = None, keepdim: bool = "
        "False, *, interpolation: str = 'linear'";
    def_fn(m, name, f,
           nb::sig(
               Sig{(std::string(kParams) + ", out: Tensor | None = None").c_str()}.text(name, "input: Tensor").c_str()),
           nb::arg("input"), nb::arg("q"), none_arg("dim"), nb::arg("keepdim") = false, nb::kw_only(),
           nb::arg("interpolation") = "linear", none_arg("out"), doc);
    def_method(
        cls, name,
        [f](const Tensor& t, nb::handle q, nb::handle dim, bool keepdim, std::string interpolation) {
          return f(t, q, dim, keepdim, std::move(interpolation), nb::none());
        },
        nb::sig(Sig{kParams}.text(name, "self").c_str()), nb::arg("q"), none_arg("dim"), nb::arg("keepdim") = false,
        nb::kw_only(), nb::arg("interpolation") = "linear", method_doc(doc, name).c_str());
  }
}

void def_differences(nb::module_& m, nb::handle cls) {
  auto diff_fn = [](const Tensor& t, int64_t n, int64_t dim, nb::handle prepend, nb::handle append) {
    return diff(t, n, dim, opt_tensor(prepend, "diff", "prepend"), opt_tensor(append, "diff", "append"));
  };
  def_both(m, cls, "diff",
           Sig{"n: int = 1, dim: int = -1, prepend: Tensor | None = None, "
               "append: Tensor | None = None"},
           diff_fn, kDiffDoc, nb::arg("n") = 1, nb::arg("dim") = -1, none_arg("prepend"), none_arg("append"));

  // trapezoid(y, x=None, *, dx=None, dim=-1); trapz(y, x, *, dim=-1) or trapz(y, *, dx=1, dim=-1).
  for (const char* name : {"trapezoid", "trapz", "cumulative_trapezoid"}) {
    const bool cumulative = name[0] == 'c';
    auto f = [cumulative, name](const Tensor& y, nb::handle x, nb::handle dx, int64_t dim) {
      if (!x.is_none()) {
        EMBER_CHECK(dx.is_none(), name, ": cannot pass both x and dx");
        const Tensor& xt = nb::cast<const Tensor&>(x);
        return cumulative ? cumulative_trapezoid(y, xt, dim) : trapezoid(y, xt, dim);
      }
      const Scalar d = dx.is_none() ? Scalar(int64_t{1}) : to_scalar(dx, name);
      return cumulative ? cumulative_trapezoid(y, d, dim) : trapezoid(y, d, dim);
    };
    const char* doc = cumulative                              ? kCumulativeTrapezoidDoc
                      : std::string_view(name) == "trapezoid" ? kTrapezoidDoc
                                                              : kTrapzDoc;
    def_fn(
        m, name, f,
        nb::sig(
            Sig{"x: Tensor | None = None, *, dx: float | None = None, dim: int = -1"}.text(name, "y: Tensor").c_str()),
        nb::arg("y"), none_arg("x"), nb::kw_only(), none_arg("dx"), nb::arg("dim") = -1, doc);
  }

  def_fn(
      m, "vander",
      [](const Tensor& x, nb::handle n, bool increasing) { return vander(x, opt_int(n, "vander", "N"), increasing); },
      nb::sig("def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor"), nb::arg("x"),
      none_arg("N"), nb::arg("increasing") = false, kVanderDoc);
}

void def_counts(nb::module_& m, nb::handle cls) {
  auto histc_fn = [](const Tensor& x, int64_t bins, double min, double max) { return histc(x, bins, min, max); };
  def_fn(
      m, "histc",
      [histc_fn](const Tensor& x, int64_t bins, double min, double max, nb::handle out) {
        return finish_out(histc_fn(x, bins, min, max), out, "histc");
      },
      nb::sig("def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, "
              "out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("bins") = 100, nb::arg("min") = 0.0, nb::arg("max") = 0.0, nb::kw_only(),
      nb::arg("out") = nb::none(), kHistcDoc);
  def_method(cls, "histc", histc_fn,
             nb::sig("def histc(self, bins: int = 100, min: float = 0, max: float = 0) -> Tensor"),
             nb::arg("bins") = 100, nb::arg("min") = 0.0, nb::arg("max") = 0.0, method_doc(kHistcDoc, "histc").c_str());

  def_both(
      m, cls, "bincount",
      [](const Tensor& x, std::optional<Tensor> weights, int64_t minlength) {
        return bincount(x, weights.value_or(Tensor()), minlength);
      },
      kBincountDoc, nb::arg("weights") = nb::none(), nb::arg("minlength") = 0);
}

}  // namespace

void init_statistics(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_moments(m, cls);
  def_differences(m, cls);
  def_counts(m, cls);
}

}  // namespace ember::py
