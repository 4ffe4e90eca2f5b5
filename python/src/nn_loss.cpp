// Bindings of the loss functions (torch.nn.functional's names, argument names and defaults into nn; the ones PyTorch
// also has at top level into m). The legacy size_average/reduce arguments map to a reduction as PyTorch's
// _Reduction.legacy_get_string does; broadcasting targets warn as torch.nn.functional does.
#include <algorithm>

#include "common.h"
#include "ember/nn/functional/loss.h"
#include "nn_doc.h"

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

const char* reduction_name(Reduction r) {
  return r == Reduction::None ? "none" : r == Reduction::Mean ? "mean" : "sum";
}

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
       size_repr(input.sizes()) +
       "). This will likely lead to incorrect results due to broadcasting. Please ensure "
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

// The optional per-element `weight` of mse_loss, l1_loss and huber_loss (PyTorch >= 2.6): the unreduced loss times
// weight (of input's shape), then reduced; 'mean' divides by the sum of the weights, or by the count for huber_loss,
// as PyTorch does.
Tensor weighted_loss(const Tensor& per_element, const Tensor& input, const Tensor& weight, Reduction r,
                     bool mean_by_weight) {
  EMBER_CHECK_VALUE(std::ranges::equal(weight.sizes(), input.sizes()), "Weights and input must have the same size.");
  Tensor loss = mul(per_element, weight);
  if (r == Reduction::Mean && mean_by_weight) return div(sum(loss), sum(weight));
  return apply_reduction(loss, r);
}

// ---- docstrings (Note [Python surface])
constexpr const char* kCrossEntropyDoc = R"doc(Computes the cross entropy loss between input logits and target.

For class-index targets, the loss of a sample is

.. math::
    \ell = -w_{y} \log \frac{\exp(x_{y})}{\sum_c \exp(x_c)}

with :math:`y` its target class and :math:`w` the class weights; for class-probability targets it is
:math:`-\sum_c w_c p_c \log \text{softmax}(x)_c`. ``'mean'`` divides the sum by the total weight of the class
indices that are not ignored, or by the number of samples for probabilities. The log-softmax is computed in one
numerically stable pass.

Args:
    input (Tensor): unnormalized logits of shape :math:`(C)`, :math:`(N, C)` or :math:`(N, C, d_1, ..., d_K)`.
    target (Tensor): class indices (integral, of the input's shape without the class dimension, values in
        :math:`[0, C)`), or class probabilities (floating, of the input's shape).
    weight (Tensor, optional): a weight per class, of shape :math:`(C)`. Default: ``None``
    size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``
    ignore_index (int, optional): a target value that contributes neither to the loss nor to the gradient (class
        indices only). Default: -100
    reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``
    reduction (str, optional): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``
    label_smoothing (float, optional): in ``[0, 1]``; the target becomes a mixture of itself and the uniform
        distribution with this weight. Default: 0.0

Example::

    >>> logits = ember.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> F.cross_entropy(logits, ember.tensor([0, 2]))
    tensor(0.6691)
)doc";

constexpr const char* kNllLossDoc =
    R"doc(Computes the negative log likelihood loss of log-probabilities and class targets.

The loss of a sample with target class :math:`y` is :math:`-w_y x_y`; ``'mean'`` divides the sum by the total weight
of the targets that are not ignored. Combined with :func:`log_softmax` it gives :func:`cross_entropy`.

Args:
    input (Tensor): log-probabilities of shape :math:`(C)`, :math:`(N, C)` or :math:`(N, C, d_1, ..., d_K)`.
    target (Tensor): class indices, of the input's shape without the class dimension, values in :math:`[0, C)`.
    weight (Tensor, optional): a weight per class, of shape :math:`(C)`. Default: ``None``
    size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``
    ignore_index (int, optional): a target value that contributes neither to the loss nor to the gradient.
        Default: -100
    reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``
    reduction (str, optional): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``

Example::

    >>> F.nll_loss(ember.tensor([[-0.5, -1.0], [-2.0, -0.1]]), ember.tensor([0, 1]))
    tensor(0.3000)
)doc";

constexpr const char* kMseLossDoc = R"doc(Computes the mean squared error between input and target, optionally weighted.

.. math::
    \ell_i = w_i (x_i - y_i)^2

The target broadcasts to the input (with a warning when their sizes differ).

Args:
    input (Tensor): the prediction.
    target (Tensor): the ground truth.
$legacy    weight (Tensor, optional): a weight per element, of the input's shape; ``'mean'`` then divides by the sum
        of the weights. Default: ``None``

Example::

    >>> F.mse_loss(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 0.0]))
    tensor(2.5000)
)doc";

constexpr const char* kL1LossDoc = R"doc(Computes the mean absolute error between input and target, optionally weighted.

.. math::
    \ell_i = w_i |x_i - y_i|

The target broadcasts to the input (with a warning when their sizes differ).

Args:
    input (Tensor): the prediction.
    target (Tensor): the ground truth.
$legacy    weight (Tensor, optional): a weight per element, of the input's shape; ``'mean'`` then divides by the sum
        of the weights. Default: ``None``

Example::

    >>> F.l1_loss(ember.tensor([1.0, -2.0]), ember.tensor([0.0, 0.0]))
    tensor(1.5000)
)doc";

constexpr const char* kSmoothL1LossDoc = R"doc(Computes the smooth L1 loss: squared below ``beta``, absolute above.

.. math::
    \ell_i = \begin{cases} 0.5 (x_i - y_i)^2 / \beta & |x_i - y_i| < \beta \\ |x_i - y_i| - 0.5 \beta &
    \text{otherwise} \end{cases}

``beta = 0`` gives :func:`l1_loss`. The target broadcasts to the input (with a warning when their sizes differ).

Args:
    input (Tensor): the prediction.
    target (Tensor): the ground truth.
$legacy    beta (float, optional): where the loss changes from quadratic to linear; not negative. Default: 1.0

Example::

    >>> F.smooth_l1_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
    tensor(1.3125)
)doc";

constexpr const char* kHuberLossDoc =
    R"doc(Computes the Huber loss: squared below ``delta``, linear (scaled by ``delta``) above.

.. math::
    \ell_i = w_i \begin{cases} 0.5 (x_i - y_i)^2 & |x_i - y_i| < \delta \\ \delta (|x_i - y_i| - 0.5 \delta) &
    \text{otherwise} \end{cases}

It equals :func:`smooth_l1_loss` times ``delta`` (with ``beta = delta``). The target broadcasts to the input (with a
warning when their sizes differ).

Args:
    input (Tensor): the prediction.
    target (Tensor): the ground truth.
$reduction    delta (float, optional): where the loss changes from quadratic to linear; positive. Default: 1.0
    weight (Tensor, optional): a weight per element, of the input's shape. Default: ``None``

Example::

    >>> F.huber_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
    tensor(1.3125)
)doc";

constexpr const char* kBceDoc = R"doc(Computes the binary cross entropy between probabilities and targets.

.. math::
    \ell_i = -w_i (y_i \log x_i + (1 - y_i) \log(1 - x_i))

Each logarithm is clamped to at least -100, so a confident wrong answer costs 100 rather than infinity. For logits,
:func:`binary_cross_entropy_with_logits` is more stable.

Args:
    input (Tensor): probabilities in :math:`[0, 1]`.
    target (Tensor): targets of the input's shape, in :math:`[0, 1]`.
    weight (Tensor, optional): a weight that broadcasts to the input. Default: ``None``
$legacy
Example::

    >>> F.binary_cross_entropy(ember.tensor([0.8, 0.2]), ember.tensor([1.0, 0.0]))
    tensor(0.2231)
)doc";

constexpr const char* kBceLogitsDoc =
    R"doc(Computes the binary cross entropy between target and the sigmoid of input logits.

.. math::
    \ell_i = -w_i (p_i y_i \log \sigma(x_i) + (1 - y_i) \log(1 - \sigma(x_i)))

with :math:`p` the ``pos_weight``, computed in a numerically stable form (no sigmoid is formed).

Args:
    input (Tensor): logits.
    target (Tensor): targets of the input's shape, in :math:`[0, 1]`.
    weight (Tensor, optional): a weight that broadcasts to the input. Default: ``None``
$legacy    pos_weight (Tensor, optional): a weight of the positive term that broadcasts to the target, for example
        one per class along the last dimension. Default: ``None``

Example::

    >>> F.binary_cross_entropy_with_logits(ember.tensor([0.0, 2.0]), ember.tensor([1.0, 1.0]))
    tensor(0.4100)
)doc";

constexpr const char* kKlDivDoc =
    R"doc(Computes the Kullback-Leibler divergence loss between log-probabilities and a target distribution.

.. math::
    \ell_i = y_i (\log y_i - x_i)

with :math:`x` the input (log-probabilities) and :math:`y` the target (probabilities, or log-probabilities with
``log_target``); terms with :math:`y_i = 0` are 0.

Args:
    input (Tensor): log-probabilities.
    target (Tensor): the target distribution, of the input's shape.
    size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``
    reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``
    reduction (str, optional): ``'none'``, ``'batchmean'`` (the sum divided by the batch size, the true KL
        divergence), ``'sum'`` or ``'mean'`` (over all elements, with a warning). Default: ``'mean'``
    log_target (bool, optional): the target holds log-probabilities. Default: ``False``

Example::

    >>> p = ember.tensor([[0.5, 0.5]])
    >>> F.kl_div(p.log(), p, reduction='batchmean')
    tensor(0.)
)doc";

constexpr const char* kPoissonNllDoc = R"doc(Computes the negative log likelihood loss of a Poisson-distributed target.

.. math::
    \ell_i = \exp(x_i) - y_i x_i \quad \text{(log\_input)}, \qquad \ell_i = x_i - y_i \log(x_i + \text{eps})
    \quad \text{(otherwise)}

With ``full``, Stirling's approximation of :math:`\log(y_i!)`, :math:`y_i \log y_i - y_i + 0.5 \log(2 \pi y_i)`,
is added where :math:`y_i > 1`.

Args:
    input (Tensor): the expectation of the Poisson distribution (its logarithm with ``log_input``).
    target (Tensor): the observed counts.
    log_input (bool, optional): the input is a log-rate. Default: ``True``
    full (bool, optional): add the Stirling term. Default: ``False``
    size_average (bool, optional): deprecated (see ``reduction``). Default: ``None``
    eps (float, optional): added to the input before its logarithm when not ``log_input``. Default: 1e-8
    reduce (bool, optional): deprecated (see ``reduction``). Default: ``None``
    reduction (str, optional): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``

Example::

    >>> F.poisson_nll_loss(ember.tensor([0.0, 1.0]), ember.tensor([1.0, 2.0]))
    tensor(0.8591)
)doc";

constexpr const char* kGaussianNllDoc =
    R"doc(Computes the negative log likelihood loss of a target under Gaussian predictions.

.. math::
    \ell_i = \frac{1}{2} \left( \log \max(\text{var}_i, \text{eps}) + \frac{(x_i - y_i)^2}{\max(\text{var}_i,
    \text{eps})} \right) \; (+ \tfrac{1}{2} \log 2\pi \text{ with full})

The clamp to ``eps`` does not change the gradient with respect to ``var``.

Args:
    input (Tensor): the expectations, of shape :math:`(N, *)` or :math:`(*)`.
    target (Tensor): samples of the Gaussians, of the input's shape.
    var (Tensor or float): the variances: of the input's shape, or with its last dimension 1 or missing (one
        variance for all features), or a number for every element; not negative.
    full (bool, optional): add the constant term. Default: ``False``
    eps (float, optional): the least variance used. Default: 1e-6
    reduction (str, optional): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``

Example::

    >>> F.gaussian_nll_loss(ember.tensor([0.0, 1.0]), ember.tensor([1.0, 1.0]), ember.ones(2))
    tensor(0.2500)
)doc";

constexpr const char* kCosineEmbeddingDoc =
    R"doc(Computes the cosine embedding loss of two inputs and targets that say whether they should be similar.

.. math::
    \ell_i = \begin{cases} 1 - \cos(x_{1i}, x_{2i}) & y_i = 1 \\ \max(0, \cos(x_{1i}, x_{2i}) - \text{margin}) &
    y_i = -1 \end{cases}

Args:
    input1 (Tensor): the first inputs, of shape :math:`(N, D)` or :math:`(D)`.
    input2 (Tensor): the second inputs, of the same shape.
    target (Tensor): 1 or -1 per pair, of shape :math:`(N)` or :math:`()`.
    margin (float, optional): in :math:`[-1, 1]`; 0 to 0.5 is a common choice. Default: 0
$legacy
Example::

    >>> x = ember.tensor([[1.0, 0.0], [1.0, 0.0]])
    >>> F.cosine_embedding_loss(x, ember.tensor([[1.0, 0.0], [0.0, 1.0]]), ember.tensor([1, -1]))
    tensor(0.)
)doc";

constexpr const char* kMarginRankingDoc =
    R"doc(Computes the margin ranking loss of two inputs and the order they should have.

.. math::
    \ell_i = \max(0, -y_i (x_{1i} - x_{2i}) + \text{margin})

so a target of 1 asks for the first input to rank higher, -1 for the second.

Args:
    input1 (Tensor): the first scores.
    input2 (Tensor): the second scores, of the same shape.
    target (Tensor): 1 or -1 per pair.
    margin (float, optional): the required margin. Default: 0
$legacy
Example::

    >>> F.margin_ranking_loss(ember.tensor([2.0, 1.0]), ember.tensor([1.0, 3.0]), ember.tensor([1.0, 1.0]))
    tensor(1.)
)doc";

constexpr const char* kTripletDoc = R"doc(Computes the triplet margin loss of anchors, positive and negative examples.

.. math::
    \ell_i = \max(d(a_i, p_i) - d(a_i, n_i) + \text{margin}, 0)

with :math:`d(x, y) = \lVert x - y + \text{eps} \rVert_p` (Balntas et al., 2016, "Learning shallow convolutional
feature descriptors with triplet losses").

Args:
    anchor (Tensor): the anchors, of shape :math:`(N, D)` or :math:`(D)`.
    positive (Tensor): the positive examples, of the anchor's shape.
    negative (Tensor): the negative examples, of the anchor's shape.
    margin (float, optional): the required margin. Default: 1.0
    p (float, optional): the norm degree of the distance. Default: 2
    eps (float, optional): added to the differences, for numerical stability. Default: 1e-6
    swap (bool, optional): use the distance between the positive and the negative when it is smaller (the
        distance swap). Default: ``False``
$legacy
Example::

    >>> a = ember.tensor([[0.0, 0.0]])
    >>> F.triplet_margin_loss(a, ember.tensor([[0.0, 1.0]]), ember.tensor([[3.0, 4.0]]))
    tensor(0.)
)doc";

constexpr const char* kTripletDistanceDoc =
    R"doc(Computes the triplet margin loss of anchors, positive and negative examples under a custom distance.

.. math::
    \ell_i = \max(d(a_i, p_i) - d(a_i, n_i) + \text{margin}, 0)

Args:
    anchor (Tensor): the anchors.
    positive (Tensor): the positive examples.
    negative (Tensor): the negative examples.

Keyword args:
    distance_function (Callable, optional): a function of two tensors returning the distance per sample.
        Default: :func:`pairwise_distance`
    margin (float, optional): the required margin; positive. Default: 1.0
    swap (bool, optional): use the distance between the positive and the negative when it is smaller.
        Default: ``False``
    reduction (str, optional): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``

Example::

    >>> a = ember.tensor([[0.0, 0.0]])
    >>> l1 = lambda x, y: (x - y).abs().sum(-1)
    >>> F.triplet_margin_with_distance_loss(a, ember.tensor([[1.0, 1.0]]), ember.tensor([[1.0, 0.0]]),
    ...                                     distance_function=l1)
    tensor(2.)
)doc";

constexpr const char* kMultilabelMarginDoc = R"doc(Computes the multi-class multi-label hinge loss.

For a sample with scores :math:`x` and target classes :math:`j` (the target's entries before its first -1),

.. math::
    \ell = \sum_{j} \sum_{i \notin \text{targets}} \frac{\max(0, 1 - (x_j - x_i))}{C}

Args:
    input (Tensor): the scores, of shape :math:`(C)` or :math:`(N, C)`.
    target (Tensor): class indices of the input's shape, each sample's list ended by -1 (or filling the row).
$legacy
Example::

    >>> F.multilabel_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
)doc";

constexpr const char* kHingeEmbeddingDoc = R"doc(Computes the hinge embedding loss of distances and targets of 1 or -1.

.. math::
    \ell_i = \begin{cases} x_i & y_i = 1 \\ \max(0, \text{margin} - x_i) & y_i = -1 \end{cases}

Args:
    input (Tensor): the distances (for example, L1 distances between pairs).
    target (Tensor): 1 (similar) or -1 (dissimilar), of the input's shape.
    margin (float, optional): the margin of the dissimilar pairs. Default: 1.0
$legacy
Example::

    >>> F.hinge_embedding_loss(ember.tensor([0.3, 0.4]), ember.tensor([1.0, -1.0]))
    tensor(0.4500)
)doc";

constexpr const char* kSoftMarginDoc = R"doc(Computes the two-class logistic loss of scores and targets of 1 or -1.

.. math::
    \ell_i = \log(1 + \exp(-y_i x_i))

Args:
    input (Tensor): the scores.
    target (Tensor): 1 or -1, of the input's shape.
$legacy
Example::

    >>> F.soft_margin_loss(ember.tensor([0.0]), ember.tensor([1.0]))
    tensor(0.6931)
)doc";

constexpr const char* kMultilabelSoftMarginDoc =
    R"doc(Computes the multi-label one-versus-all loss, based on the logistic loss of each class.

.. math::
    \ell = -\frac{1}{C} \sum_c w_c (y_c \log \sigma(x_c) + (1 - y_c) \log \sigma(-x_c))

per sample.

Args:
    input (Tensor): the scores, of shape :math:`(N, C)`.
    target (Tensor): 0 or 1 per class, of the input's shape.
    weight (Tensor, optional): a weight per class, of shape :math:`(C)`. Default: ``None``
$legacy
Example::

    >>> F.multilabel_soft_margin_loss(ember.tensor([[0.0, 0.0]]), ember.tensor([[1.0, 0.0]]))
    tensor(0.6931)
)doc";

constexpr const char* kMultiMarginDoc =
    R"doc(Computes the multi-class hinge loss (margin-based) of scores and class targets.

For a sample with scores :math:`x` and target class :math:`y`,

.. math::
    \ell = \frac{1}{C} \sum_{i \ne y} w_y \max(0, \text{margin} - x_y + x_i)^p

Args:
    input (Tensor): the scores, of shape :math:`(N, C)` or :math:`(C)`.
    target (Tensor): class indices in :math:`[0, C)`, of shape :math:`(N)` or :math:`()`.
    p (int, optional): 1 or 2. Default: 1
    margin (float, optional): the required margin. Default: 1.0
    weight (Tensor, optional): a weight per class, of shape :math:`(C)`. Default: ``None``
$legacy
Example::

    >>> F.multi_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([3]))
    tensor(0.3250)
)doc";

constexpr const char* kCtcDoc = R"doc(Computes the connectionist temporal classification (CTC) loss.

The negative log likelihood of each target sequence, summed over all its alignments to the input frames (Graves et
al., 2006, "Connectionist Temporal Classification"); ``'mean'`` divides each sample's loss by its target length
before averaging over the batch.

Args:
    log_probs (Tensor): log-probabilities of shape :math:`(T, N, C)` or :math:`(T, C)` (for example
        :func:`log_softmax` outputs), with :math:`T` the input length and :math:`C` the classes, blank included.
    targets (Tensor): the target sequences: :math:`(N, S)` (padded) or 1-d (concatenated), without blanks.
    input_lengths (Tensor or tuple): the number of frames of each sample, at most :math:`T`.
    target_lengths (Tensor or tuple): the length of each target sequence.
    blank (int, optional): the blank label. Default: 0
$reduction    zero_infinity (bool, optional): replace infinite losses (impossible alignments) and their gradients by
        zero. Default: ``False``

Example::

    >>> log_probs = ember.zeros(2, 1, 2).log_softmax(2)
    >>> F.ctc_loss(log_probs, ember.tensor([[1]]), [2], [1])
    tensor(0.2877)
)doc";

std::string legacy_doc(const char* t) { return fill(t, {{"$legacy", kLegacyReductionArgs}}); }

// The top-level (ATen) form of a loss: its reduction is an enum value, and it has no deprecated arguments.
std::string top_loss_doc(const char* doc, const char* name, const char* args) {
  return see_doc(doc, "The form of :func:`ember.nn.functional." + std::string(name) +
                          "` at top level,\nwith the "
                          "reduction as PyTorch's enum value.\n\nArgs:\n" +
                          args);
}

}  // namespace

void init_nn_loss(nb::module_& m, nb::module_& nn) {
  // nb::sig gives PyTorch's signatures where the bindings take handles (None, a bool, or an int or str reduction).
  const std::string legacy = "size_average: bool | None = None, reduce: bool | None = None, reduction: str = 'mean'";
  nn.def(
      "cross_entropy",
      [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle size_average, int64_t ignore_index,
         nb::handle reduce, nb::handle reduction, double label_smoothing) {
        return cross_entropy(input, target, opt_tensor(weight, "cross_entropy", "weight"), ignore_index,
                             legacy_reduction(size_average, reduce, reduction), label_smoothing);
      },
      nb::sig(
          "def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None "
          "= None, ignore_index: int = -100, reduce: bool | None = None, reduction: str = 'mean', label_smoothing: "
          "float = 0.0) -> Tensor"),
      arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), arg("ignore_index") = -100,
      none_arg("reduce"), arg("reduction") = "mean", arg("label_smoothing") = 0.0, kCrossEntropyDoc);
  nn.def(
      "nll_loss",
      [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle size_average, int64_t ignore_index,
         nb::handle reduce, nb::handle reduction) {
        return nll_loss(input, target, opt_tensor(weight, "nll_loss", "weight"), ignore_index,
                        legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig("def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = "
              "None, ignore_index: int = -100, reduce: bool | None = None, reduction: str = 'mean') -> Tensor"),
      arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), arg("ignore_index") = -100,
      none_arg("reduce"), arg("reduction") = "mean", kNllLossDoc);

  using Elementwise = Tensor (*)(const Tensor&, const Tensor&, Reduction);
  for (auto [name, f, doc] : {std::tuple<const char*, Elementwise, const char*>{"mse_loss", &mse_loss, kMseLossDoc},
                              {"l1_loss", &l1_loss, kL1LossDoc}}) {
    nn.def(
        name,
        [f, name](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce,
                  nb::handle reduction, nb::handle weight) {
          warn_broadcast(input, target);
          const Reduction r = legacy_reduction(size_average, reduce, reduction);
          if (weight.is_none()) return f(input, target, r);
          return weighted_loss(f(input, target, Reduction::None), input, opt_tensor(weight, name, "weight"), r, true);
        },
        nb::sig(("def " + std::string(name) + "(input: Tensor, target: Tensor, " + legacy +
                 ", weight: Tensor | None = None) -> Tensor")
                    .c_str()),
        arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean",
        none_arg("weight"), legacy_doc(doc).c_str());
  }
  nn.def(
      "smooth_l1_loss",
      [](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce, nb::handle reduction,
         double beta) {
        warn_broadcast(input, target);
        return smooth_l1_loss(input, target, legacy_reduction(size_average, reduce, reduction), beta);
      },
      nb::sig(
          ("def smooth_l1_loss(input: Tensor, target: Tensor, " + legacy + ", beta: float = 1.0) -> Tensor").c_str()),
      arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean",
      arg("beta") = 1.0, legacy_doc(kSmoothL1LossDoc).c_str());
  nn.def(
      "huber_loss",
      [](const Tensor& input, const Tensor& target, nb::handle reduction, double delta, nb::handle weight) {
        warn_broadcast(input, target);
        const Reduction r = reduction_of(reduction);
        if (weight.is_none()) return huber_loss(input, target, r, delta);
        return weighted_loss(huber_loss(input, target, Reduction::None, delta), input,
                             opt_tensor(weight, "huber_loss", "weight"), r, false);
      },
      nb::sig("def huber_loss(input: Tensor, target: Tensor, reduction: str = 'mean', delta: float = 1.0, weight: "
              "Tensor | None = None) -> Tensor"),
      arg("input"), arg("target"), arg("reduction") = "mean", arg("delta") = 1.0, none_arg("weight"),
      fill(kHuberLossDoc, {{"$reduction", kReductionArg}}).c_str());
  nn.def(
      "binary_cross_entropy",
      [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle size_average, nb::handle reduce,
         nb::handle reduction) {
        return binary_cross_entropy(input, target, opt_tensor(weight, "binary_cross_entropy", "weight"),
                                    legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig(("def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, " + legacy +
               ") -> Tensor")
                  .c_str()),
      arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), none_arg("reduce"),
      arg("reduction") = "mean", legacy_doc(kBceDoc).c_str());
  nn.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle size_average, nb::handle reduce,
         nb::handle reduction, nb::handle pos_weight) {
        const char* fn = "binary_cross_entropy_with_logits";
        return binary_cross_entropy_with_logits(input, target, opt_tensor(weight, fn, "weight"),
                                                legacy_reduction(size_average, reduce, reduction),
                                                opt_tensor(pos_weight, fn, "pos_weight"));
      },
      nb::sig(("def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, " +
               legacy + ", pos_weight: Tensor | None = None) -> Tensor")
                  .c_str()),
      arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), none_arg("reduce"),
      arg("reduction") = "mean", none_arg("pos_weight"), legacy_doc(kBceLogitsDoc).c_str());
  m.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle pos_weight, nb::handle reduction) {
        const char* fn = "binary_cross_entropy_with_logits";
        return binary_cross_entropy_with_logits(input, target, opt_tensor(weight, fn, "weight"),
                                                reduction_of(reduction), opt_tensor(pos_weight, fn, "pos_weight"));
      },
      nb::sig("def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, "
              "pos_weight: Tensor | None = None, reduction: int | str = 1) -> Tensor"),
      arg("input"), arg("target"), none_arg("weight"), none_arg("pos_weight"), arg("reduction") = 1,
      top_loss_doc(kBceLogitsDoc, "binary_cross_entropy_with_logits",
                   (std::string("    input (Tensor): logits.\n    target (Tensor): targets of the input's shape.\n"
                                "    weight (Tensor, optional): a weight that broadcasts to the input.\n"
                                "    pos_weight (Tensor, optional): a weight of the positive term.\n") +
                    kEnumReductionArg)
                       .c_str())
          .c_str());

  auto kl = [](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce,
               nb::handle reduction, bool log_target) {
    if (size_average.is_none() && reduce.is_none() && PyUnicode_Check(reduction.ptr())) {
      const std::string_view r = utf8(reduction);
      if (r == "batchmean") return kl_div(input, target, Reduction::Sum, log_target, true);
      if (r == "mean")
        warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
            "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
            "behave the same as 'batchmean' in the next major release.");
    }
    return kl_div(input, target, legacy_reduction(size_average, reduce, reduction), log_target);
  };
  nn.def("kl_div", kl,
         nb::sig(
             ("def kl_div(input: Tensor, target: Tensor, " + legacy + ", log_target: bool = False) -> Tensor").c_str()),
         arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean",
         arg("log_target") = false, kKlDivDoc);
  m.def(
      "kl_div",
      [](const Tensor& input, const Tensor& target, nb::handle reduction, bool log_target) {
        return kl_div(input, target, reduction_of(reduction), log_target);
      },
      nb::sig(
          "def kl_div(input: Tensor, target: Tensor, reduction: int | str = 1, log_target: bool = False) -> Tensor"),
      arg("input"), arg("target"), arg("reduction") = 1, arg("log_target") = false,
      top_loss_doc(kKlDivDoc, "kl_div",
                   (std::string("    input (Tensor): log-probabilities.\n"
                                "    target (Tensor): the target distribution.\n") +
                    kEnumReductionArg +
                    "    log_target (bool, optional): the target holds log-probabilities. "
                    "Default: ``False``\n")
                       .c_str())
          .c_str());

  nn.def(
      "poisson_nll_loss",
      [](const Tensor& input, const Tensor& target, bool log_input, bool full, nb::handle size_average, double eps,
         nb::handle reduce, nb::handle reduction) {
        return poisson_nll_loss(input, target, log_input, full, eps, legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig("def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, "
              "size_average: bool | None = None, eps: float = 1e-08, reduce: bool | None = None, reduction: str = "
              "'mean') -> Tensor"),
      arg("input"), arg("target"), arg("log_input") = true, arg("full") = false, none_arg("size_average"),
      arg("eps") = 1e-8, none_arg("reduce"), arg("reduction") = "mean", kPoissonNllDoc);
  m.def(
      "poisson_nll_loss",
      [](const Tensor& input, const Tensor& target, bool log_input, bool full, double eps, nb::handle reduction) {
        return poisson_nll_loss(input, target, log_input, full, eps, reduction_of(reduction));
      },
      nb::sig("def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, "
              "reduction: int | str) -> Tensor"),
      arg("input"), arg("target"), arg("log_input"), arg("full"), arg("eps"), arg("reduction"),
      top_loss_doc(kPoissonNllDoc, "poisson_nll_loss",
                   (std::string("    input (Tensor): the expectation (its logarithm with ``log_input``).\n"
                                "    target (Tensor): the observed counts.\n"
                                "    log_input (bool): the input is a log-rate.\n"
                                "    full (bool): add the Stirling term.\n"
                                "    eps (float): added to the input before its logarithm when not ``log_input``.\n") +
                    "    reduction (int or str): 0 (none), 1 (mean) or 2 (sum), or the name of one.\n")
                       .c_str())
          .c_str());
  nn.def(
      "gaussian_nll_loss",
      [](const Tensor& input, const Tensor& target, nb::handle var, bool full, double eps, nb::handle reduction) {
        // A number for var means one variance for every element (PyTorch >= 2.3).
        Tensor v = nb::isinstance<Tensor>(var) ? nb::cast<Tensor>(var)
                                               : full_like(input, to_scalar(var, "gaussian_nll_loss"));
        return gaussian_nll_loss(input, target, v, full, eps, reduction_of(reduction));
      },
      nb::sig("def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: "
              "float = 1e-06, reduction: str = 'mean') -> Tensor"),
      arg("input"), arg("target"), arg("var"), arg("full") = false, arg("eps") = 1e-6, arg("reduction") = "mean",
      kGaussianNllDoc);

  auto pair_loss = [&](const char* name, Tensor (*f)(const Tensor&, const Tensor&, const Tensor&, double, Reduction),
                       double margin, const char* doc) {
    const std::string n(name);
    nn.def(
        name,
        [f](const Tensor& a, const Tensor& b, const Tensor& target, double margin, nb::handle size_average,
            nb::handle reduce, nb::handle reduction) {
          return f(a, b, target, margin, legacy_reduction(size_average, reduce, reduction));
        },
        nb::sig(("def " + n + "(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, " + legacy +
                 ") -> Tensor")
                    .c_str()),
        arg("input1"), arg("input2"), arg("target"), arg("margin") = margin, none_arg("size_average"),
        none_arg("reduce"), arg("reduction") = "mean", legacy_doc(doc).c_str());
    m.def(
        name,
        [f](const Tensor& a, const Tensor& b, const Tensor& target, double margin, nb::handle reduction) {
          return f(a, b, target, margin, reduction_of(reduction));
        },
        nb::sig(("def " + n +
                 "(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int | "
                 "str = 1) -> Tensor")
                    .c_str()),
        arg("input1"), arg("input2"), arg("target"), arg("margin") = 0.0, arg("reduction") = 1,
        top_loss_doc(doc, name,
                     (std::string("    input1 (Tensor): the first inputs.\n    input2 (Tensor): the second "
                                  "inputs.\n    target (Tensor): 1 or -1 per pair.\n    margin (float, "
                                  "optional): the margin. Default: 0.0\n") +
                      kEnumReductionArg)
                         .c_str())
            .c_str());
  };
  pair_loss("cosine_embedding_loss", &cosine_embedding_loss, 0.0, kCosineEmbeddingDoc);
  pair_loss("margin_ranking_loss", &margin_ranking_loss, 0.0, kMarginRankingDoc);

  nn.def(
      "triplet_margin_loss",
      [](const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin, double p, double eps,
         bool swap, nb::handle size_average, nb::handle reduce, nb::handle reduction) {
        return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                   legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig(("def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: "
               "float = 2, eps: float = 1e-06, swap: bool = False, " +
               legacy + ") -> Tensor")
                  .c_str()),
      arg("anchor"), arg("positive"), arg("negative"), arg("margin") = 1.0, arg("p") = 2.0, arg("eps") = 1e-6,
      arg("swap") = false, none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean",
      legacy_doc(kTripletDoc).c_str());
  m.def(
      "triplet_margin_loss",
      [](const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin, double p, double eps,
         bool swap, nb::handle reduction) {
        return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_of(reduction));
      },
      nb::sig("def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: "
              "float = 2.0, eps: float = 1e-06, swap: bool = False, reduction: int | str = 1) -> Tensor"),
      arg("anchor"), arg("positive"), arg("negative"), arg("margin") = 1.0, arg("p") = 2.0, arg("eps") = 1e-6,
      arg("swap") = false, arg("reduction") = 1,
      top_loss_doc(kTripletDoc, "triplet_margin_loss",
                   (std::string("    anchor (Tensor): the anchors.\n    positive (Tensor): the positive examples.\n"
                                "    negative (Tensor): the negative examples.\n    margin (float, optional): the "
                                "required margin. Default: 1.0\n    p (float, optional): the norm degree. Default: "
                                "2.0\n    eps (float, optional): added to the differences. Default: 1e-6\n    swap "
                                "(bool, optional): the distance swap. Default: ``False``\n") +
                    kEnumReductionArg)
                       .c_str())
          .c_str());

  nn.def(
      "triplet_margin_with_distance_loss",
      [](const Tensor& anchor, const Tensor& positive, const Tensor& negative, nb::handle distance_function,
         double margin, bool swap, nb::handle reduction) {
        EMBER_CHECK_VALUE(margin > 0, "triplet_margin_with_distance_loss: expected margin to be greater than 0, got ",
                          nb::repr(nb::cast(margin)).c_str(), " instead");
        DistanceFn dist;
        if (!distance_function.is_none()) {
          nb::object f = nb::borrow(distance_function);
          dist = [f](const Tensor& a, const Tensor& b) { return nb::cast<Tensor>(f(a, b)); };
        }
        return triplet_margin_with_distance_loss(anchor, positive, negative, dist, margin, swap,
                                                 reduction_of(reduction));
      },
      nb::sig("def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *, "
              "distance_function: Callable[[Tensor, Tensor], Tensor] | None = None, margin: float = 1.0, swap: bool = "
              "False, reduction: str = 'mean') -> Tensor"),
      arg("anchor"), arg("positive"), arg("negative"), nb::kw_only(), none_arg("distance_function"),
      arg("margin") = 1.0, arg("swap") = false, arg("reduction") = "mean", kTripletDistanceDoc);
  nn.def(
      "multilabel_margin_loss",
      [](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce, nb::handle reduction) {
        return multilabel_margin_loss(input, target, legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig(("def multilabel_margin_loss(input: Tensor, target: Tensor, " + legacy + ") -> Tensor").c_str()),
      arg("input"), arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean",
      legacy_doc(kMultilabelMarginDoc).c_str());
  nn.def(
      "hinge_embedding_loss",
      [](const Tensor& input, const Tensor& target, double margin, nb::handle size_average, nb::handle reduce,
         nb::handle reduction) {
        return hinge_embedding_loss(input, target, margin, legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig(("def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, " + legacy + ") -> Tensor")
                  .c_str()),
      arg("input"), arg("target"), arg("margin") = 1.0, none_arg("size_average"), none_arg("reduce"),
      arg("reduction") = "mean", legacy_doc(kHingeEmbeddingDoc).c_str());
  m.def(
      "hinge_embedding_loss",
      [](const Tensor& input, const Tensor& target, double margin, nb::handle reduction) {
        return hinge_embedding_loss(input, target, margin, reduction_of(reduction));
      },
      nb::sig("def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int | str = 1) "
              "-> Tensor"),
      arg("input"), arg("target"), arg("margin") = 1.0, arg("reduction") = 1,
      top_loss_doc(kHingeEmbeddingDoc, "hinge_embedding_loss",
                   (std::string("    input (Tensor): the distances.\n    target (Tensor): 1 or -1, of the input's "
                                "shape.\n    margin (float, optional): the margin. Default: 1.0\n") +
                    kEnumReductionArg)
                       .c_str())
          .c_str());
  nn.def(
      "soft_margin_loss",
      [](const Tensor& input, const Tensor& target, nb::handle size_average, nb::handle reduce, nb::handle reduction) {
        return soft_margin_loss(input, target, legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig(("def soft_margin_loss(input: Tensor, target: Tensor, " + legacy + ") -> Tensor").c_str()), arg("input"),
      arg("target"), none_arg("size_average"), none_arg("reduce"), arg("reduction") = "mean",
      legacy_doc(kSoftMarginDoc).c_str());
  nn.def(
      "multilabel_soft_margin_loss",
      [](const Tensor& input, const Tensor& target, nb::handle weight, nb::handle size_average, nb::handle reduce,
         nb::handle reduction) {
        return multilabel_soft_margin_loss(input, target, opt_tensor(weight, "multilabel_soft_margin_loss", "weight"),
                                           legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig(("def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, " +
               legacy + ") -> Tensor")
                  .c_str()),
      arg("input"), arg("target"), none_arg("weight"), none_arg("size_average"), none_arg("reduce"),
      arg("reduction") = "mean", legacy_doc(kMultilabelSoftMarginDoc).c_str());
  nn.def(
      "multi_margin_loss",
      [](const Tensor& input, const Tensor& target, int64_t p, double margin, nb::handle weight,
         nb::handle size_average, nb::handle reduce, nb::handle reduction) {
        return multi_margin_loss(input, target, p, margin, opt_tensor(weight, "multi_margin_loss", "weight"),
                                 legacy_reduction(size_average, reduce, reduction));
      },
      nb::sig(("def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor "
               "| None = None, " +
               legacy + ") -> Tensor")
                  .c_str()),
      arg("input"), arg("target"), arg("p") = 1, arg("margin") = 1.0, none_arg("weight"), none_arg("size_average"),
      none_arg("reduce"), arg("reduction") = "mean", legacy_doc(kMultiMarginDoc).c_str());

  auto ctc = [](const Tensor& log_probs, const Tensor& targets, nb::handle input_lengths, nb::handle target_lengths,
                int64_t blank, nb::handle reduction, bool zero_infinity) {
    return ctc_loss(log_probs, targets, lengths_arg(input_lengths, "input_lengths"),
                    lengths_arg(target_lengths, "target_lengths"), blank, reduction_of(reduction), zero_infinity);
  };
  const char* lengths =
      "log_probs: Tensor, targets: Tensor, input_lengths: Tensor | Sequence[int], target_lengths: "
      "Tensor | Sequence[int], blank: int = 0, ";
  nn.def("ctc_loss", ctc,
         nb::sig((std::string("def ctc_loss(") + lengths +
                  "reduction: str = 'mean', zero_infinity: "
                  "bool = False) -> Tensor")
                     .c_str()),
         arg("log_probs"), arg("targets"), arg("input_lengths"), arg("target_lengths"), arg("blank") = 0,
         arg("reduction") = "mean", arg("zero_infinity") = false,
         fill(kCtcDoc, {{"$reduction", kReductionArg}}).c_str());
  m.def("ctc_loss", ctc,
        nb::sig((std::string("def ctc_loss(") + lengths +
                 "reduction: int | str = 1, zero_infinity: "
                 "bool = False) -> Tensor")
                    .c_str()),
        arg("log_probs"), arg("targets"), arg("input_lengths"), arg("target_lengths"), arg("blank") = 0,
        arg("reduction") = 1, arg("zero_infinity") = false,
        see_doc(kCtcDoc,
                "The form of :func:`ember.nn.functional.ctc_loss` at top level, with the reduction as "
                "PyTorch's enum value.\n\nArgs:\n    log_probs (Tensor): log-probabilities :math:`(T, N, C)` "
                "or :math:`(T, C)`.\n    targets (Tensor): the target sequences.\n    input_lengths (Tensor "
                "or tuple): the frames of each sample.\n    target_lengths (Tensor or tuple): the length of "
                "each target.\n    blank (int, optional): the blank label. Default: 0\n" +
                    std::string(kEnumReductionArg) +
                    "    zero_infinity (bool, optional): zero infinite losses. "
                    "Default: ``False``")
            .c_str());
}

}  // namespace ember::py
