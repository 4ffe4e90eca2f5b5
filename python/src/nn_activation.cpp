// Bindings of the activations, softmax and dropout (torch.nn.functional's names and defaults into nn; what PyTorch
// also has at top level into m, and Tensor methods where PyTorch has them). The normalization, embedding and
// padding ops are in nn_norm.cpp, registered from here.
#include <nanobind/stl/pair.h>

#include "common.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/dropout.h"
#include "nn_doc.h"

namespace ember::py {

void init_nn_norm(nb::module_& m, nb::module_& nn);  // nn_norm.cpp

namespace {

using nb::arg;

nb::none none() { return nb::none(); }

// softmax's dim=None: PyTorch's legacy choice, with its deprecation warning.
int64_t softmax_dim(nb::handle dim, const Tensor& x, const char* name) {
  if (!dim.is_none()) return to_int(dim, name, "dim");
  warn(std::string("Implicit dimension choice for ") + name +
       " has been deprecated. Change the call to include "
       "dim=X as an argument.");
  return softmax_default_dim(x.dim());
}

using SoftmaxFn = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);

// F.softmax(input, dim=None, _stacklevel=3, dtype=None); with `top` also torch.softmax(input, dim, dtype=None) and
// the Tensor method.
void def_softmax(nb::module_& m, nb::module_& nn, nb::handle cls, const char* name, SoftmaxFn f, bool top,
                 const char* doc) {
  const std::string n(name);
  nn.def(
      name,
      [f, name](const Tensor& x, nb::handle dim, int, nb::handle dtype) {
        return f(x, softmax_dim(dim, x, name), to_dtype(dtype));
      },
      nb::sig(("def " + n +
               "(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: dtype | None = "
               "None) -> Tensor")
                  .c_str()),
      arg("input"), arg("dim") = none(), arg("_stacklevel") = 3, arg("dtype") = none(), doc);
  if (!top) return;
  auto fixed = [f](const Tensor& x, int64_t dim, nb::handle dtype) { return f(x, dim, to_dtype(dtype)); };
  const std::string see = "The form of :func:`ember.nn.functional." + n +
                          "` at top level: ``dim`` is required.\n\n"
                          "Args:\n    input (Tensor): the input.\n    dim (int): the dimension along which it is "
                          "computed.\n    dtype (:class:`ember.dtype`, optional): the input is cast to it first. "
                          "Default: ``None``";
  m.def(name, fixed, nb::sig(("def " + n + "(input: Tensor, dim: int, dtype: dtype | None = None) -> Tensor").c_str()),
        arg("input"), arg("dim"), arg("dtype") = none(), see_doc(doc, see).c_str());
  nb::cpp_function(fixed, nb::scope(cls), nb::name(name), nb::is_method(),
                   nb::sig(("def " + n + "(self, dim: int, dtype: dtype | None = None) -> Tensor").c_str()), arg("dim"),
                   arg("dtype") = none(), method_doc(doc, name).c_str());
}

// name(input, inplace=False); with `underscore` also name_(input) (relu_ and selu_, as PyTorch); with `top` also
// torch.name(input) and torch.name_(input).
using InplaceFn = Tensor (*)(const Tensor&, bool);
void def_inplace_act(nb::module_& nn, const char* name, InplaceFn f, const char* doc, bool underscore = false,
                     nb::module_* top = nullptr) {
  nn.def(name, f, arg("input"), arg("inplace") = false, doc);
  const std::string iname = std::string(name) + "_";
  auto in_place = [f](const Tensor& x) { return f(x, true); };
  const std::string fname = "ember.nn.functional." + std::string(name);
  if (underscore) nn.def(iname.c_str(), in_place, arg("input"), inplace_fn_doc(fname).c_str());
  if (top) {
    top->def(
        name, [f](const Tensor& x) { return f(x, false); }, arg("input"),
        see_doc(doc, "The form of :func:`" + fname + "` at top level, without ``inplace``.").c_str());
    top->def(iname.c_str(), in_place, arg("input"), inplace_fn_doc("ember." + std::string(name)).c_str());
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
    warn(name + ": Received a " + std::to_string(nd) + "-D input to " + name +
         ", which is deprecated and will result "
         "in an error in a future release. To retain the behavior and silence this warning, please use dropout "
         "instead. Note that " +
         name + " exists to provide channel-wise dropout on inputs with " + std::to_string(spatial) +
         " spatial dimensions, a channel dimension, and an optional batch dimension (i.e. " +
         std::to_string(spatial + 1) + "D or " + std::to_string(spatial + 2) + "D inputs).");
  if (valid_p && spatial == 2 && nd == 3)
    warn(
        "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
        "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
        "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
        "channel-wise dropout behavior, please switch to using dropout1d instead.");
  return fn(x, p, training, inplace, nullptr);
}

// ---- docstrings (Note [Python surface])
constexpr const char* kReluDoc = R"doc(Applies the rectified linear unit function element-wise.

.. math::
    \text{ReLU}(x) = \max(0, x)

NaN stays NaN.

Args:
    input (Tensor): the input.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.relu(ember.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
)doc";

constexpr const char* kRelu6Doc = R"doc(Applies the ReLU6 function element-wise: the ReLU capped at 6.

.. math::
    \text{ReLU6}(x) = \min(\max(0, x), 6)

Args:
    input (Tensor): the input.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.relu6(ember.tensor([-1.0, 3.0, 8.0]))
    tensor([0., 3., 6.])
)doc";

constexpr const char* kSeluDoc = R"doc(Applies the scaled exponential linear unit (SELU) function element-wise.

.. math::
    \text{SELU}(x) = \text{scale} \cdot (\max(0, x) + \min(0, \alpha \cdot (\exp(x) - 1)))

with :math:`\alpha \approx 1.6733` and :math:`\text{scale} \approx 1.0507` (Klambauer et al., 2017, "Self-Normalizing
Neural Networks").

Args:
    input (Tensor): the input.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.selu(ember.tensor([0.0, 1.0]))
    tensor([0.0000, 1.0507])
)doc";

constexpr const char* kHardswishDoc = R"doc(Applies the hardswish function element-wise.

.. math::
    \text{Hardswish}(x) = x \cdot \frac{\min(\max(0, x + 3), 6)}{6}

(Howard et al., 2019, "Searching for MobileNetV3").

Args:
    input (Tensor): the input.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.hardswish(ember.tensor([-4.0, 0.0, 1.0, 4.0]))
    tensor([-0.0000,  0.0000,  0.6667,  4.0000])
)doc";

constexpr const char* kHardsigmoidDoc = R"doc(Applies the hardsigmoid function element-wise.

.. math::
    \text{Hardsigmoid}(x) = \frac{\min(\max(0, x + 3), 6)}{6}

Args:
    input (Tensor): the input.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.hardsigmoid(ember.tensor([-4.0, 0.0, 4.0]))
    tensor([0.0000, 0.5000, 1.0000])
)doc";

constexpr const char* kSiluDoc = R"doc(Applies the sigmoid linear unit (SiLU, or swish) function element-wise.

.. math::
    \text{SiLU}(x) = x \cdot \sigma(x) = \frac{x}{1 + e^{-x}}

Args:
    input (Tensor): the input.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.silu(ember.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7311])
)doc";

constexpr const char* kMishDoc = R"doc(Applies the Mish function element-wise.

.. math::
    \text{Mish}(x) = x \cdot \tanh(\text{Softplus}(x)) = x \cdot \tanh(\log(1 + e^x))

(Misra, 2019, "Mish: A Self Regularized Non-Monotonic Neural Activation Function").

Args:
    input (Tensor): the input.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.mish(ember.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8651])
)doc";

constexpr const char* kHardtanhDoc =
    R"doc(Applies the HardTanh function element-wise: the input clamped to ``[min_val, max_val]``.

.. math::
    \text{HardTanh}(x) = \begin{cases} \text{max\_val} & x > \text{max\_val} \\ \text{min\_val} & x <
    \text{min\_val} \\ x & \text{otherwise} \end{cases}

Args:
    input (Tensor): the input.
    min_val (float, optional): the lower end of the linear region. Default: -1.0
    max_val (float, optional): the upper end of the linear region. Default: 1.0
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.hardtanh(ember.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
)doc";

constexpr const char* kEluDoc = R"doc(Applies the exponential linear unit (ELU) function element-wise.

.. math::
    \text{ELU}(x) = \begin{cases} x & x > 0 \\ \alpha \cdot (\exp(x) - 1) & x \le 0 \end{cases}

Args:
    input (Tensor): the input.
    alpha (float, optional): the value the function approaches for large negative inputs is
        :math:`-\alpha`. Default: 1.0
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.elu(ember.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
)doc";

constexpr const char* kEluInplaceArgs = R"doc(.. math::
    \text{ELU}(x) = \text{scale} \cdot \begin{cases} x & x > 0 \\ \alpha \cdot (\exp(x \cdot
    \text{input\_scale}) - 1) & x \le 0 \end{cases}

Args:
    input (Tensor): the input, overwritten with the result.
    alpha (float, optional): the :math:`\alpha` of the formula. Default: 1.0
    scale (float, optional): multiplies the result. Default: 1.0
    input_scale (float, optional): multiplies negative inputs inside the exponential. Default: 1.0)doc";

constexpr const char* kCeluDoc =
    R"doc(Applies the continuously differentiable exponential linear unit (CELU) element-wise.

.. math::
    \text{CELU}(x) = \max(0, x) + \min(0, \alpha \cdot (\exp(x / \alpha) - 1))

Args:
    input (Tensor): the input.
    alpha (float, optional): the :math:`\alpha` of the formula. Default: 1.0
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.celu(ember.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869,  2.0000])
)doc";

constexpr const char* kLeakyReluDoc = R"doc(Applies the leaky rectified linear unit function element-wise.

.. math::
    \text{LeakyReLU}(x) = \max(0, x) + \text{negative\_slope} \cdot \min(0, x)

Args:
    input (Tensor): the input.
    negative_slope (float, optional): the slope for negative inputs. Default: 0.01
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.leaky_relu(ember.tensor([-2.0, 3.0]), 0.1)
    tensor([-0.2000,  3.0000])
)doc";

constexpr const char* kThresholdDoc =
    R"doc(Thresholds each element of the input: keeps it where it exceeds ``threshold``.

.. math::
    y = \begin{cases} x & x > \text{threshold} \\ \text{value} & \text{otherwise} \end{cases}

Args:
    input (Tensor): the input.
    threshold (float): the value an element must exceed to be kept.
    value (float): the value that replaces the others.
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.threshold(ember.tensor([0.5, 1.0, 2.0]), 1.0, -1.0)
    tensor([-1., -1.,  2.])
)doc";

constexpr const char* kRreluDoc = R"doc(Applies the randomized leaky rectified linear unit function element-wise.

.. math::
    \text{RReLU}(x) = \begin{cases} x & x \ge 0 \\ a \cdot x & x < 0 \end{cases}

In training, :math:`a` is drawn from :math:`\mathcal{U}(\text{lower}, \text{upper})` for each element (from the
default generator); otherwise :math:`a = (\text{lower} + \text{upper}) / 2` (Xu et al., 2015, "Empirical Evaluation
of Rectified Activations in Convolutional Network").

Args:
    input (Tensor): the input.
    lower (float, optional): lower bound of the slope. Default: 1/8
    upper (float, optional): upper bound of the slope; at least ``lower``. Default: 1/3
    training (bool, optional): draw random slopes. Default: ``False``
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.rrelu(ember.tensor([-1.0, 2.0]), 0.1, 0.3)
    tensor([-0.2000,  2.0000])
)doc";

constexpr const char* kGeluDoc = R"doc(Applies the Gaussian error linear unit (GELU) function element-wise.

.. math::
    \text{GELU}(x) = x \cdot \Phi(x)

where :math:`\Phi` is the cumulative distribution function of the standard normal distribution. With
``approximate='tanh'`` it is estimated as

.. math::
    \text{GELU}(x) \approx 0.5 \cdot x \cdot (1 + \tanh(\sqrt{2 / \pi} \cdot (x + 0.044715 \cdot x^3)))

(Hendrycks and Gimpel, 2016, "Gaussian Error Linear Units").

Args:
    input (Tensor): the input.
    approximate (str, optional): ``'none'`` (the exact form) or ``'tanh'``. Default: ``'none'``

Example::

    >>> F.gelu(ember.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
)doc";

constexpr const char* kSoftplusDoc =
    R"doc(Applies the softplus function element-wise, a smooth approximation of the ReLU.

.. math::
    \text{Softplus}(x) = \frac{1}{\beta} \cdot \log(1 + \exp(\beta \cdot x))

For numerical stability the function is the identity where :math:`\beta \cdot x > \text{threshold}`.

Args:
    input (Tensor): the input.
    beta (float, optional): the :math:`\beta` of the formula. Default: 1
    threshold (float, optional): above it (times :math:`\beta`) the function is linear. Default: 20

Example::

    >>> F.softplus(ember.tensor([0.0, 30.0]))
    tensor([ 0.6931, 30.0000])
)doc";

constexpr const char* kSigmoidDoc = R"doc(Applies the logistic sigmoid function element-wise.

.. math::
    \sigma(x) = \frac{1}{1 + \exp(-x)}

The form of :func:`ember.sigmoid` in ``ember.nn.functional``.

Args:
    input (Tensor): the input.

Example::

    >>> F.sigmoid(ember.tensor([0.0]))
    tensor([0.5000])
)doc";

constexpr const char* kTanhDoc = R"doc(Applies the hyperbolic tangent function element-wise.

.. math::
    \tanh(x) = \frac{\exp(x) - \exp(-x)}{\exp(x) + \exp(-x)}

The form of :func:`ember.tanh` in ``ember.nn.functional``.

Args:
    input (Tensor): the input.

Example::

    >>> F.tanh(ember.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
)doc";

constexpr const char* kLogsigmoidDoc = R"doc(Applies the logarithm of the logistic sigmoid element-wise.

.. math::
    \text{LogSigmoid}(x) = \log \frac{1}{1 + \exp(-x)}

computed without overflow for large negative inputs.

Args:
    input (Tensor): the input.

Example::

    >>> F.logsigmoid(ember.tensor([0.0, -100.0]))
    tensor([  -0.6931, -100.0000])
)doc";

constexpr const char* kSoftsignDoc = R"doc(Applies the softsign function element-wise.

.. math::
    \text{SoftSign}(x) = \frac{x}{1 + |x|}

Args:
    input (Tensor): the input.

Example::

    >>> F.softsign(ember.tensor([-1.0, 3.0]))
    tensor([-0.5000,  0.7500])
)doc";

constexpr const char* kTanhshrinkDoc = R"doc(Applies the tanhshrink function element-wise.

.. math::
    \text{Tanhshrink}(x) = x - \tanh(x)

Args:
    input (Tensor): the input.

Example::

    >>> F.tanhshrink(ember.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
)doc";

constexpr const char* kSoftshrinkDoc = R"doc(Applies the soft shrinkage function element-wise.

.. math::
    \text{SoftShrinkage}(x) = \begin{cases} x - \lambda & x > \lambda \\ x + \lambda & x < -\lambda \\ 0 &
    \text{otherwise} \end{cases}

Args:
    input (Tensor): the input.
    lambd (float, optional): the :math:`\lambda` of the formula (at least 0). Default: 0.5

Example::

    >>> F.softshrink(ember.tensor([-2.0, 0.2, 1.0]))
    tensor([-1.5000,  0.0000,  0.5000])
)doc";

constexpr const char* kHardshrinkDoc = R"doc(Applies the hard shrinkage function element-wise.

.. math::
    \text{HardShrink}(x) = \begin{cases} x & |x| > \lambda \\ 0 & \text{otherwise} \end{cases}

Args:
    input (Tensor): the input.
    lambd (float, optional): the :math:`\lambda` of the formula. Default: 0.5

Example::

    >>> ember.hardshrink(ember.tensor([-2.0, 0.2, 1.0]))
    tensor([-2.,  0.,  1.])
)doc";

constexpr const char* kPreluDoc = R"doc(Applies the parametric rectified linear unit function element-wise.

.. math::
    \text{PReLU}(x) = \max(0, x) + \text{weight} \cdot \min(0, x)

Args:
    input (Tensor): the input; its channels are dimension 1 (a 0-d or 1-d input has one channel).
    weight (Tensor): the learnable slope for negative inputs: one element for all channels, or one per channel
        (0-d or 1-d).

Example::

    >>> F.prelu(ember.tensor([[-1.0, 2.0], [-3.0, 4.0]]), ember.tensor([0.1, 0.5]))
    tensor([[-0.1000,  2.0000],
            [-0.3000,  4.0000]])
)doc";

constexpr const char* kGluDoc =
    R"doc(Applies the gated linear unit: the first half of the input times the sigmoid of the second.

The input is split in two halves :math:`a` and :math:`b` along ``dim`` (whose size must be even):

.. math::
    \text{GLU}(a, b) = a \otimes \sigma(b)

(Dauphin et al., 2016, "Language Modeling with Gated Convolutional Networks").

Args:
    input (Tensor): the input.
    dim (int, optional): the dimension to split. Default: -1

Example::

    >>> F.glu(ember.tensor([2.0, 4.0, 0.0, 0.0]))
    tensor([1., 2.])
)doc";

constexpr const char* kSoftmaxDoc = R"doc(Applies a softmax function along a dimension.

.. math::
    \text{Softmax}(x_i) = \frac{\exp(x_i)}{\sum_j \exp(x_j)}

over the elements :math:`x_j` of each slice along ``dim``, so that each slice is non-negative and sums to 1. The
maximum of each slice is subtracted first, so large inputs do not overflow.

Args:
    input (Tensor): the input (floating point, or cast by ``dtype``).
    dim (int): the dimension along which softmax is computed. ``None`` (deprecated, with a warning) picks
        PyTorch's legacy default: 0 for 0-, 1- and 3-d inputs, else 1.
    _stacklevel (int, optional): accepted for compatibility; unused.
    dtype (:class:`ember.dtype`, optional): the input is cast to it before the operation (useful to avoid
        overflow with 16-bit inputs). Default: ``None``

Example::

    >>> F.softmax(ember.tensor([[1.0, 2.0, 3.0]]), dim=1)
    tensor([[0.0900, 0.2447, 0.6652]])
)doc";

constexpr const char* kLogSoftmaxDoc = R"doc(Applies a softmax followed by a logarithm along a dimension.

.. math::
    \text{LogSoftmax}(x_i) = x_i - \log \sum_j \exp(x_j)

computed in one numerically stable pass (more accurate than ``log(softmax(x))``).

Args:
    input (Tensor): the input (floating point, or cast by ``dtype``).
    dim (int): the dimension along which it is computed. ``None`` (deprecated, with a warning) picks PyTorch's
        legacy default: 0 for 0-, 1- and 3-d inputs, else 1.
    _stacklevel (int, optional): accepted for compatibility; unused.
    dtype (:class:`ember.dtype`, optional): the input is cast to it before the operation. Default: ``None``

Example::

    >>> F.log_softmax(ember.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
)doc";

constexpr const char* kSoftminDoc =
    R"doc(Applies a softmin function along a dimension: the softmax of the negated input.

.. math::
    \text{Softmin}(x_i) = \frac{\exp(-x_i)}{\sum_j \exp(-x_j)}

Args:
    input (Tensor): the input (floating point, or cast by ``dtype``).
    dim (int): the dimension along which it is computed. ``None`` (deprecated, with a warning) picks PyTorch's
        legacy default: 0 for 0-, 1- and 3-d inputs, else 1.
    _stacklevel (int, optional): accepted for compatibility; unused.
    dtype (:class:`ember.dtype`, optional): the input is cast to it before the operation. Default: ``None``

Example::

    >>> F.softmin(ember.tensor([1.0, 2.0, 3.0]), dim=0)
    tensor([0.6652, 0.2447, 0.0900])
)doc";

constexpr const char* kGumbelSoftmaxDoc = R"doc(Samples from the Gumbel-softmax distribution, optionally discretized.

Gumbel noise :math:`g_i = -\log(E_i)`, :math:`E_i \sim \text{Exponential}(1)` (from the default generator), is added
to the logits, and the result is :math:`\text{softmax}((\text{logits} + g) / \tau)` along ``dim`` (Jang et al.,
2016, "Categorical Reparameterization with Gumbel-Softmax"). With ``hard=True`` it is the one-hot vector of each
sample's argmax, whose gradient is the soft sample's (the straight-through estimator).

Args:
    logits (Tensor): unnormalized log-probabilities, of shape :math:`(*, \text{num\_features})`.
    tau (float, optional): the temperature; positive. Default: 1
    hard (bool, optional): return one-hot samples. Default: ``False``
    eps (float, optional): unused, accepted for compatibility. Default: 1e-10
    dim (int, optional): the dimension holding the categories. Default: -1

Example::

    >>> y = F.gumbel_softmax(ember.randn(2, 5), tau=0.5, hard=True)
    >>> y.sum(dim=-1)
    tensor([1., 1.])
)doc";

constexpr const char* kDropoutDoc = R"doc(Randomly zeroes elements of the input with probability ``p`` during training.

The elements kept are scaled by :math:`1 / (1 - p)`, so the expected value of each element is unchanged; the
gradient goes through the same mask. The mask is drawn from the default generator (Srivastava et al., 2014,
"Dropout: A Simple Way to Prevent Neural Networks from Overfitting"). When not training (or ``p = 0``) the input
comes back unchanged.

Args:
    input (Tensor): the input (floating point).
    p (float, optional): the probability of an element to be zeroed, in ``[0, 1]``. Default: 0.5
    training (bool, optional): apply dropout; ``False`` returns the input. Default: ``True``
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> y = F.dropout(ember.ones(8), p=0.5)
    >>> bool(((y == 0) | (y == 2)).all())
    True
    >>> F.dropout(ember.ones(3), p=0.5, training=False)
    tensor([1., 1., 1.])
)doc";

constexpr const char* kAlphaDropoutDoc = R"doc(Applies alpha dropout, the dropout of self-normalizing (SELU) networks.

Dropped elements take SELU's negative saturation value :math:`-\lambda \alpha` instead of 0, and an affine map
keeps the input's mean and variance (Klambauer et al., 2017, "Self-Normalizing Neural Networks"). When not training
(or ``p = 0``) the input comes back unchanged.

Args:
    input (Tensor): the input (floating point).
    p (float, optional): the probability of an element to be dropped, in ``[0, 1]``. Default: 0.5
    training (bool, optional): apply dropout. Default: ``False``
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``

Example::

    >>> F.alpha_dropout(ember.ones(3), p=0.2)
    tensor([1., 1., 1.])
)doc";

constexpr const char* kFeatureAlphaDropoutDoc =
    R"doc(Applies alpha dropout to whole channels: each channel of each sample is dropped or kept as one.

Like :func:`alpha_dropout`, but with one random draw per channel of a :math:`(N, C, *)` input: a dropped channel
takes SELU's negative saturation value everywhere, and an affine map keeps the mean and variance.

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)`.
    p (float, optional): the probability of a channel to be dropped, in ``[0, 1]``. Default: 0.5
    training (bool, optional): apply dropout. Default: ``False``
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``
)doc";

constexpr const char* kFeatureDropoutDoc = R"doc(Randomly zeroes whole channels of the input with probability ``p``.

One random draw per channel of a :math:`(N, C, *)` input: a channel is zeroed as a whole or kept and scaled by
:math:`1 / (1 - p)`. When not training (or ``p = 0``) the input comes back unchanged.

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)`.
    p (float): the probability of a channel to be zeroed, in ``[0, 1]``.
    train (bool): apply dropout; ``False`` returns the input.
)doc";

constexpr const char* kTopDropoutDoc =
    R"doc(Randomly zeroes elements of the input with probability ``p`` when ``train``.

The form of :func:`ember.nn.functional.dropout` at top level: the kept elements are scaled by :math:`1 / (1 - p)`.

Args:
    input (Tensor): the input (floating point).
    p (float): the probability of an element to be zeroed, in ``[0, 1]``.
    train (bool): apply dropout; ``False`` returns the input.
)doc";

constexpr const char* kTopAlphaDropoutDoc = R"doc(Applies alpha dropout to the input when ``train``.

The form of :func:`ember.nn.functional.alpha_dropout` at top level.

Args:
    input (Tensor): the input (floating point).
    p (float): the probability of an element to be dropped, in ``[0, 1]``.
    train (bool): apply dropout; ``False`` returns the input.
)doc";

constexpr const char* kTopFeatureAlphaDropoutDoc =
    R"doc(Applies alpha dropout to whole channels of the input when ``train``.

The form of :func:`ember.nn.functional.feature_alpha_dropout` at top level.

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)`.
    p (float): the probability of a channel to be dropped, in ``[0, 1]``.
    train (bool): apply dropout; ``False`` returns the input.
)doc";

constexpr const char* kNativeDropoutDoc =
    R"doc(Applies dropout and returns the output with the mask of the elements kept.

The kept elements are scaled by :math:`1 / (1 - p)`; the gradient saves only the mask. When ``train`` is ``False``
the result is a copy of the input and an all-true mask.

Args:
    input (Tensor): the input (floating point).
    p (float): the probability of an element to be zeroed, in ``[0, 1]``.
    train (bool or None): apply dropout; ``None`` means ``True``.

Returns:
    (Tensor, Tensor): the output and the boolean mask (``True`` where the element was kept).
)doc";

constexpr const char* kNativeDropoutBackwardDoc =
    R"doc(Computes the gradient of :func:`ember.native_dropout`: ``grad_output * mask * scale``.

Args:
    grad_output (Tensor): the gradient of the dropout's output.
    mask (Tensor): the boolean mask :func:`ember.native_dropout` returned.
    scale (float): the scale of the kept elements, :math:`1 / (1 - p)`.
)doc";

constexpr const char* kDropoutNdDoc = R"doc(Randomly zeroes whole channels of a $n-D signal with probability ``p``.

Each channel of each sample (a :math:`($shape)` slice of the input) is zeroed as a whole or kept and scaled by
:math:`1 / (1 - p)`, from one draw of the default generator (Tompson et al., 2015, "Efficient Object Localization
Using Convolutional Networks"). When not training (or ``p = 0``) the input comes back unchanged.$note

Args:
    input (Tensor): the input, of shape :math:`(N, C, $shape)` or :math:`(C, $shape)`.
    p (float, optional): the probability of a channel to be zeroed, in ``[0, 1]``. Default: 0.5
    training (bool, optional): apply dropout. Default: ``True``
    inplace (bool, optional): write the result into ``input`` and return it. Default: ``False``
)doc";

// kDropoutNdDoc for dropout<n>d.
std::string dropout_nd_doc(int n) {
  const char* shape = n == 1 ? "L" : n == 2 ? "H, W" : "D, H, W";
  const char* note = n == 2 ? "\n\nA 3-d input is read as :math:`(N, C, L)` (batched 1-d channels, with a warning), "
                              "as PyTorch does for now."
                            : "";
  return fill(kDropoutNdDoc, {{"$note", note}, {"$n", std::to_string(n)}, {"$shape", shape}});
}

}  // namespace

void init_nn_activation(nb::module_& m, nb::module_& nn) {
  nb::handle cls = nb::type<Tensor>();
  // ---- elementwise activations
  def_inplace_act(
      nn, "relu", [](const Tensor& x, bool i) { return relu(x, i); }, kReluDoc, true);
  m.def(
      "relu_", [](const Tensor& x) { return relu(x, true); }, arg("input"), inplace_fn_doc("ember.relu").c_str());
  def_inplace_act(
      nn, "relu6", [](const Tensor& x, bool i) { return relu6(x, i); }, kRelu6Doc);
  def_inplace_act(
      nn, "selu", [](const Tensor& x, bool i) { return selu(x, i); }, kSeluDoc, true, &m);
  def_inplace_act(
      nn, "hardswish", [](const Tensor& x, bool i) { return hardswish(x, i); }, kHardswishDoc);
  def_inplace_act(
      nn, "hardsigmoid", [](const Tensor& x, bool i) { return hardsigmoid(x, i); }, kHardsigmoidDoc);
  def_inplace_act(
      nn, "silu", [](const Tensor& x, bool i) { return silu(x, i); }, kSiluDoc);
  def_inplace_act(
      nn, "mish", [](const Tensor& x, bool i) { return mish(x, i); }, kMishDoc);
  nn.def(
      "hardtanh", [](const Tensor& x, double lo, double hi, bool i) { return hardtanh(x, lo, hi, i); }, arg("input"),
      arg("min_val") = -1.0, arg("max_val") = 1.0, arg("inplace") = false, kHardtanhDoc);
  nn.def(
      "hardtanh_", [](const Tensor& x, double lo, double hi) { return hardtanh(x, lo, hi, true); }, arg("input"),
      arg("min_val") = -1.0, arg("max_val") = 1.0, inplace_fn_doc("ember.nn.functional.hardtanh").c_str());
  nn.def(
      "elu", [](const Tensor& x, double a, bool i) { return elu(x, a, 1, 1, i); }, arg("input"), arg("alpha") = 1.0,
      arg("inplace") = false, kEluDoc);
  // PyTorch's F.elu_ is ATen's, with scale and input_scale: scale * (x > 0 ? x : alpha * (exp(input_scale * x) - 1)).
  nn.def(
      "elu_",
      [](const Tensor& x, double a, double scale, double input_scale) { return elu(x, a, scale, input_scale, true); },
      arg("input"), arg("alpha") = 1.0, arg("scale") = 1.0, arg("input_scale") = 1.0,
      (inplace_fn_doc("ember.nn.functional.elu") + "\n\n" + kEluInplaceArgs).c_str());
  nn.def(
      "celu", [](const Tensor& x, double a, bool i) { return celu(x, a, i); }, arg("input"), arg("alpha") = 1.0,
      arg("inplace") = false, kCeluDoc);
  for (nb::module_* mod : {&nn, &m})
    mod->def(
        "celu_", [](const Tensor& x, double a) { return celu(x, a, true); }, arg("input"), arg("alpha") = 1.0,
        inplace_fn_doc(mod == &m ? "ember.celu" : "ember.nn.functional.celu").c_str());
  m.def(
      "celu", [](const Tensor& x, double a) { return celu(x, a, false); }, arg("input"), arg("alpha") = 1.0,
      see_doc(kCeluDoc, "The form of :func:`ember.nn.functional.celu` at top level, without ``inplace``.").c_str());
  nn.def(
      "leaky_relu", [](const Tensor& x, double s, bool i) { return leaky_relu(x, s, i); }, arg("input"),
      arg("negative_slope") = 0.01, arg("inplace") = false, kLeakyReluDoc);
  nn.def(
      "leaky_relu_", [](const Tensor& x, double s) { return leaky_relu(x, s, true); }, arg("input"),
      arg("negative_slope") = 0.01, inplace_fn_doc("ember.nn.functional.leaky_relu").c_str());
  nn.def(
      "threshold", [](const Tensor& x, double t, double v, bool i) { return threshold(x, t, v, i); }, arg("input"),
      arg("threshold"), arg("value"), arg("inplace") = false, kThresholdDoc);
  for (nb::module_* mod : {&nn, &m})
    mod->def(
        "threshold_", [](const Tensor& x, double t, double v) { return threshold(x, t, v, true); }, arg("input"),
        arg("threshold"), arg("value"),
        inplace_fn_doc(mod == &m ? "ember.threshold" : "ember.nn.functional.threshold").c_str());
  m.def(
      "threshold", [](const Tensor& x, double t, double v) { return threshold(x, t, v, false); }, arg("input"),
      arg("threshold"), arg("value"),
      see_doc(kThresholdDoc,
              "The form of :func:`ember.nn.functional.threshold` at top level, without "
              "``inplace``.")
          .c_str());
  nn.def(
      "rrelu",
      [](const Tensor& x, double lo, double hi, bool training, bool i) { return rrelu(x, lo, hi, training, i); },
      arg("input"), arg("lower") = 1.0 / 8, arg("upper") = 1.0 / 3, arg("training") = false, arg("inplace") = false,
      kRreluDoc);
  for (nb::module_* mod : {&nn, &m})
    mod->def(
        "rrelu_",
        [](const Tensor& x, double lo, double hi, bool training, Generator* gen) {
          return rrelu(x, lo, hi, training, true, gen);
        },
        arg("input"), arg("lower") = 1.0 / 8, arg("upper") = 1.0 / 3, arg("training") = false,
        arg("generator") = nb::none(), inplace_fn_doc(mod == &m ? "ember.rrelu" : "ember.nn.functional.rrelu").c_str());
  m.def(
      "rrelu",
      [](const Tensor& x, double lo, double hi, bool training, Generator* gen) {
        return rrelu(x, lo, hi, training, false, gen);
      },
      arg("input"), arg("lower") = 1.0 / 8, arg("upper") = 1.0 / 3, arg("training") = false,
      arg("generator") = nb::none(),
      see_doc(kRreluDoc,
              "The form of :func:`ember.nn.functional.rrelu` at top level: no ``inplace``, and the "
              "random slopes\ncome from ``generator`` when one is given.")
          .c_str());
  nn.def(
      "gelu",
      [](const Tensor& x, const std::string& approximate) {
        EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                          "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
        return gelu(x, approximate == "tanh");
      },
      arg("input"), arg("approximate") = "none", kGeluDoc);
  nn.def(
      "softplus", [](const Tensor& x, double beta, double threshold) { return softplus(x, beta, threshold); },
      arg("input"), arg("beta") = 1.0, arg("threshold") = 20.0, kSoftplusDoc);
  nn.def(
      "sigmoid", [](const Tensor& x) { return sigmoid(x); }, arg("input"), kSigmoidDoc);
  nn.def(
      "tanh", [](const Tensor& x) { return tanh(x); }, arg("input"), kTanhDoc);
  nn.def("logsigmoid", &logsigmoid, arg("input"), kLogsigmoidDoc);
  nn.def("softsign", &softsign, arg("input"), kSoftsignDoc);
  nn.def("tanhshrink", &tanhshrink, arg("input"), kTanhshrinkDoc);
  nn.def("softshrink", &softshrink, arg("input"), arg("lambd") = 0.5, kSoftshrinkDoc);
  for (nb::module_* mod : {&nn, &m}) {
    mod->def("hardshrink", &hardshrink, arg("input"), arg("lambd") = 0.5, kHardshrinkDoc);
    mod->def("prelu", &prelu, arg("input"), arg("weight"), kPreluDoc);
  }
  nb::cpp_function(&hardshrink, nb::scope(cls), nb::name("hardshrink"), nb::is_method(), arg("lambd") = 0.5,
                   method_doc(kHardshrinkDoc, "hardshrink").c_str());
  nb::cpp_function(&prelu, nb::scope(cls), nb::name("prelu"), nb::is_method(), arg("weight"),
                   method_doc(kPreluDoc, "prelu").c_str());
  nn.def("glu", &glu, arg("input"), arg("dim") = -1, kGluDoc);

  // ---- softmax
  def_softmax(m, nn, cls, "softmax", &softmax, true, kSoftmaxDoc);
  def_softmax(m, nn, cls, "log_softmax", &log_softmax, true, kLogSoftmaxDoc);
  def_softmax(m, nn, cls, "softmin", &softmin, false, kSoftminDoc);
  nn.def(
      "gumbel_softmax",
      [](const Tensor& logits, double tau, bool hard, double eps, int64_t dim) {
        return gumbel_softmax(logits, tau, hard, eps, dim);
      },
      arg("logits"), arg("tau") = 1.0, arg("hard") = false, arg("eps") = 1e-10, arg("dim") = -1, kGumbelSoftmaxDoc);

  // ---- dropout
  using DropoutFn = Tensor (*)(const Tensor&, double, bool, bool, Generator*);
  // name, op, F's training default, F's docstring (none: not in torch.nn.functional), torch.name's docstring
  const std::tuple<const char*, DropoutFn, bool, const char*, const char*> dropouts[] = {
      {"dropout", &dropout, true, kDropoutDoc, kTopDropoutDoc},
      {"alpha_dropout", &alpha_dropout, false, kAlphaDropoutDoc, kTopAlphaDropoutDoc},
      {"feature_alpha_dropout", &feature_alpha_dropout, false, kFeatureAlphaDropoutDoc, kTopFeatureAlphaDropoutDoc},
      {"feature_dropout", &feature_dropout, true, nullptr, kFeatureDropoutDoc}};
  for (auto [name, f, train_default, doc, top_doc] : dropouts) {
    if (doc)
      nn.def(
          name,
          [f](const Tensor& x, double p, bool training, bool inplace) { return f(x, p, training, inplace, nullptr); },
          arg("input"), arg("p") = 0.5, arg("training") = train_default, arg("inplace") = false, doc);
    // torch.dropout(input, p, train) and torch.dropout_(input, p, train)
    m.def(
        name, [f](const Tensor& x, double p, bool train) { return f(x, p, train, false, nullptr); }, arg("input"),
        arg("p"), arg("train"), top_doc);
    m.def((std::string(name) + "_").c_str(),
          [f](const Tensor& x, double p, bool train) { return f(x, p, train, true, nullptr); }, arg("input"), arg("p"),
          arg("train"), inplace_fn_doc("ember." + std::string(name)).c_str());
  }
  m.def(
      "native_dropout",
      [](const Tensor& x, double p, std::optional<bool> train) { return native_dropout(x, p, train); }, arg("input"),
      arg("p"), arg("train").none(), kNativeDropoutDoc);
  m.def("native_dropout_backward", &native_dropout_backward, arg("grad_output"), arg("mask"), arg("scale"),
        kNativeDropoutBackwardDoc);
  for (int spatial : {1, 2, 3})
    nn.def(("dropout" + std::to_string(spatial) + "d").c_str(),
           [spatial](const Tensor& x, double p, bool training, bool inplace) {
             return feature_dropout_nd(x, p, training, inplace, spatial);
           },
           arg("input"), arg("p") = 0.5, arg("training") = true, arg("inplace") = false,
           dropout_nd_doc(spatial).c_str());

  init_nn_norm(m, nn);
}

}  // namespace ember::py
