// Bindings of the normalization ops, embeddings and padding (torch.nn.functional's signatures into nn; torch's
// top-level forms, whose argument orders differ, into m). Registered from nn_activation.cpp.
#include <nanobind/stl/optional.h>

#include "common.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/padding.h"
#include "nn_doc.h"

namespace ember::py {

namespace {

using nb::arg;

nb::none none() { return nb::none(); }

// An optional tensor argument: None gives an undefined tensor.
Tensor opt(nb::handle h) { return h.is_none() ? Tensor() : nb::cast<Tensor>(h); }

DimVector int_list(nb::handle h, const char* fn, const char* what) {
  if (PyLong_Check(h.ptr())) return {to_int(h, fn, what)};
  return to_int_list(h, fn, what);
}

[[noreturn]] void assertion(const char* msg) {
  PyErr_SetString(PyExc_AssertionError, msg);
  throw nb::python_error();
}

// F.embedding's (bag = false) or F.embedding_bag's padding_idx: None gives -1, a negative one counts from the end.
// Out of range, F.embedding asserts (PyTorch's Python-level assert) and F.embedding_bag raises RuntimeError.
int64_t padding_index(nb::handle padding_idx, const Tensor& weight, bool bag = false) {
  if (padding_idx.is_none()) return -1;
  const char* fn = bag ? "embedding_bag" : "embedding";
  int64_t p = to_int(padding_idx, fn, "padding_idx");
  const int64_t rows = weight.dim() ? weight.size(0) : 0;
  if (!bag && ((p > 0 && p >= rows) || p < -rows)) assertion("Padding_idx must be within num_embeddings");
  if (p >= rows || p < -rows) {
    fail<Error>("padding_idx must be within the number of embeddings, ", -rows, " through ", rows - 1, ", but got ", p);
  }
  return p < 0 ? p + rows : p;
}

// ---- docstrings (Note [Python surface])
constexpr const char* kLayerNormDoc = R"doc(Applies layer normalization over the last dimensions of the input.

.. math::
    y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \cdot \gamma + \beta

with the mean and the biased variance taken over the trailing dimensions given by ``normalized_shape``, separately
for each leading index (Ba et al., 2016, "Layer Normalization"). float16 and bfloat16 inputs are computed in
float32.

Args:
    input (Tensor): the input, of shape :math:`(*, \text{normalized\_shape})`.
    normalized_shape (int or list): the sizes of the trailing dimensions to normalize over.
    weight (Tensor, optional): the scale :math:`\gamma`, of shape ``normalized_shape``. Default: ``None`` (1)
    bias (Tensor, optional): the shift :math:`\beta`, of shape ``normalized_shape``. Default: ``None`` (0)
    eps (float, optional): added to the variance for numerical stability. Default: 1e-5
$cudnn
Example::

    >>> F.layer_norm(ember.tensor([[1.0, 3.0]]), [2])
    tensor([[-1.0000,  1.0000]])
)doc";

constexpr const char* kRmsNormDoc =
    R"doc(Applies root mean square layer normalization over the last dimensions of the input.

.. math::
    y = \frac{x}{\sqrt{\mathrm{E}[x^2] + \epsilon}} \cdot \gamma

with the mean taken over the trailing dimensions given by ``normalized_shape`` (Zhang and Sennrich, 2019, "Root Mean
Square Layer Normalization").

Args:
    input (Tensor): the input, of shape :math:`(*, \text{normalized\_shape})`.
    normalized_shape (int or list): the sizes of the trailing dimensions to normalize over.
    weight (Tensor, optional): the scale :math:`\gamma`, of shape ``normalized_shape``. Default: ``None`` (1)
    eps (float, optional): added to the mean square; ``None`` means the machine epsilon of the input's dtype.
        Default: ``None``

Example::

    >>> F.rms_norm(ember.tensor([[3.0, 4.0]]), [2], eps=0.0)
    tensor([[0.8485, 1.1314]])
)doc";

constexpr const char* kBatchNormDoc = R"doc(Applies batch normalization to each channel of a batch of data.

.. math::
    y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \cdot \gamma + \beta

per channel (dimension 1), with the statistics over the batch and spatial dimensions (Ioffe and Szegedy, 2015). In
training the batch's mean and biased variance normalize, and the running statistics, when given, are updated in
place: :math:`\text{running} = (1 - \text{momentum}) \cdot \text{running} + \text{momentum} \cdot
\text{batch statistic}` (with the unbiased variance). Otherwise the running statistics normalize.

Args:
    input (Tensor): the input, of shape :math:`(N, C)` or :math:`(N, C, *)`.
    running_mean (Tensor or None): the running mean per channel, of shape :math:`(C)`.
    running_var (Tensor or None): the running variance per channel, of shape :math:`(C)`.
    weight (Tensor, optional): the scale :math:`\gamma` per channel. Default: ``None`` (1)
    bias (Tensor, optional): the shift :math:`\beta` per channel. Default: ``None`` (0)
    training (bool, optional): use the batch's statistics (and update the running ones). Default: ``False``
    momentum (float, optional): the weight of the batch's statistics in the running ones. Default: 0.1
    eps (float, optional): added to the variance for numerical stability. Default: 1e-5

Example::

    >>> x = ember.tensor([[1.0], [3.0]])
    >>> F.batch_norm(x, None, None, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
)doc";

constexpr const char* kGroupNormDoc = R"doc(Applies group normalization over groups of channels of each sample.

.. math::
    y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \cdot \gamma + \beta

with the mean and the biased variance taken per sample over each group of :math:`C / \text{num\_groups}` channels
and the spatial dimensions; :math:`\gamma` and :math:`\beta` are per channel (Wu and He, 2018, "Group
Normalization").

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)`.
    num_groups (int): the number of groups; divides :math:`C`.
    weight (Tensor, optional): the scale :math:`\gamma` per channel. Default: ``None`` (1)
    bias (Tensor, optional): the shift :math:`\beta` per channel. Default: ``None`` (0)
    eps (float, optional): added to the variance for numerical stability. Default: 1e-5
$cudnn
Example::

    >>> F.group_norm(ember.tensor([[[1.0], [3.0]]]), 1)
    tensor([[[-1.0000],
             [ 1.0000]]])
)doc";

constexpr const char* kInstanceNormDoc = R"doc(Applies instance normalization to each channel of each sample.

.. math::
    y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \cdot \gamma + \beta

with the statistics over the spatial dimensions of each sample and channel (Ulyanov et al., 2016). With
``use_input_stats`` the running statistics, when given, are updated with the mean over the batch of those statistics;
without it the running statistics normalize.

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)`.
    running_mean (Tensor, optional): the running mean per channel. Default: ``None``
    running_var (Tensor, optional): the running variance per channel. Default: ``None``
    weight (Tensor, optional): the scale :math:`\gamma` per channel. Default: ``None`` (1)
    bias (Tensor, optional): the shift :math:`\beta` per channel. Default: ``None`` (0)
    use_input_stats (bool, optional): normalize with the input's statistics. Default: ``True``
    momentum (float, optional): the weight of the new statistics in the running ones. Default: 0.1
    eps (float, optional): added to the variance for numerical stability. Default: 1e-5

Example::

    >>> F.instance_norm(ember.tensor([[[1.0, 3.0]]]))
    tensor([[[-1.0000,  1.0000]]])
)doc";

// torch.batch_norm and torch.instance_norm: the ATen argument order (weight and bias first, all required).
constexpr const char* kAtenNormArgs = R"doc(

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)`.
    weight (Tensor or None): the scale per channel.
    bias (Tensor or None): the shift per channel.
    running_mean (Tensor or None): the running mean per channel.
    running_var (Tensor or None): the running variance per channel.
    $stats (bool): $stats_doc
    momentum (float): the weight of the new statistics in the running ones.
    eps (float): added to the variance for numerical stability.
    cudnn_enabled (bool): accepted for compatibility; unused.)doc";

constexpr const char* kCudnnArg =
    "    cudnn_enable (bool, optional): accepted for compatibility; unused. Default: ``True``\n";

constexpr const char* kLocalResponseNormDoc =
    R"doc(Applies local response normalization across the channels of the input.

.. math::
    b_{c} = a_{c} \left(k + \frac{\alpha}{n} \sum_{c'=c-\lfloor n/2 \rfloor}^{c+\lfloor (n-1)/2 \rfloor}
    a_{c'}^2\right)^{-\beta}

with :math:`n` = ``size`` neighbouring channels (zero beyond the edges) (Krizhevsky et al., 2012).

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)` (at least 3-d).
    size (int): the number of neighbouring channels summed.
    alpha (float, optional): the multiplicative factor. Default: 0.0001
    beta (float, optional): the exponent. Default: 0.75
    k (float, optional): the additive factor. Default: 1.0

Example::

    >>> F.local_response_norm(ember.ones(1, 2, 1), 2, alpha=1.0, beta=1.0, k=1.0)
    tensor([[[0.6667],
             [0.5000]]])
)doc";

constexpr const char* kNormalizeDoc = R"doc(Performs :math:`L_p` normalization of the input along a dimension.

.. math::
    v = \frac{v}{\max(\lVert v \rVert_p, \epsilon)}

for each slice :math:`v` along ``dim``.

Args:
    input (Tensor): the input.
    p (float, optional): the exponent of the norm. Default: 2
    dim (int, optional): the dimension to normalize along. Default: 1
    eps (float, optional): the least norm divided by, which avoids division by zero. Default: 1e-12
    out (Tensor, optional): the output tensor (of the result's shape and dtype). Default: ``None``

Example::

    >>> F.normalize(ember.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
)doc";

constexpr const char* kEmbeddingDoc = R"doc(Looks up rows of an embedding matrix by index.

The result has shape ``(*input.shape, embedding_dim)``: the rows of ``weight`` at the indices. The gradient
accumulates into the rows that were looked up; it is always dense (``sparse`` is accepted for compatibility).

Args:
    input (Tensor): the indices (int64 or int32), in :math:`[0, \text{num\_embeddings})`.
    weight (Tensor): the embedding matrix, of shape :math:`(\text{num\_embeddings}, \text{embedding\_dim})`.
    padding_idx (int, optional): a row that gets no gradient (negative values count from the end). Default:
        ``None``
    max_norm (float, optional): rows looked up whose ``norm_type``-norm exceeds it are rescaled, in place in
        ``weight``, to that norm. Default: ``None``
    norm_type (float, optional): the p of the p-norm compared with ``max_norm``. Default: 2.0
    scale_grad_by_freq (bool, optional): divide each row's gradient by the number of times its index occurs in
        ``input``. Default: ``False``
    sparse (bool, optional): accepted for compatibility; the gradient is dense. Default: ``False``

Example::

    >>> weight = ember.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> F.embedding(ember.tensor([[2, 0]]), weight)
    tensor([[[2., 2.],
             [0., 0.]]])
)doc";

constexpr const char* kTopEmbeddingDoc = R"doc(Looks up rows of an embedding matrix by index.

The form of :func:`ember.nn.functional.embedding` at top level: the weight comes first, and there is no max_norm.

Args:
    weight (Tensor): the embedding matrix, of shape :math:`(\text{num\_embeddings}, \text{embedding\_dim})`.
    indices (Tensor): the indices (int64 or int32).
    padding_idx (int, optional): a row that gets no gradient; -1 for none. Default: -1
    scale_grad_by_freq (bool, optional): divide each row's gradient by its index's count in ``indices``. Default:
        ``False``
    sparse (bool, optional): accepted for compatibility; the gradient is dense. Default: ``False``
)doc";

constexpr const char* kEmbeddingBagDoc =
    R"doc(Computes sums, means or maxima of bags of embeddings, without forming the embeddings.

A 2-d ``input`` :math:`(B, L)` holds ``B`` bags of ``L`` indices; a 1-d ``input`` is cut into bags at the positions
in ``offsets``. Empty bags give zeros; indices equal to ``padding_idx`` are left out of their bag.

Args:
    input (Tensor): the indices, :math:`(B, L)` or 1-d.
    weight (Tensor): the embedding matrix, of shape :math:`(\text{num\_embeddings}, \text{embedding\_dim})`.
    offsets (Tensor, optional): with a 1-d input, the start of each bag. Default: ``None``
    max_norm (float, optional): rows looked up whose ``norm_type``-norm exceeds it are rescaled, in place, to that
        norm. Default: ``None``
    norm_type (float, optional): the p of the p-norm compared with ``max_norm``. Default: 2
    scale_grad_by_freq (bool, optional): divide each row's gradient by its index's count (not with ``'max'``).
        Default: ``False``
    mode (str, optional): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``
    sparse (bool, optional): accepted for compatibility; the gradient is dense. Default: ``False``
    per_sample_weights (Tensor, optional): a weight per index, of the input's shape (``'sum'`` only). Default:
        ``None``
    include_last_offset (bool, optional): ``offsets`` has one more element, the end of the last bag. Default:
        ``False``
    padding_idx (int, optional): an index left out of the bags. Default: ``None``

Example::

    >>> weight = ember.tensor([[1.0, 1.0], [3.0, 5.0]])
    >>> F.embedding_bag(ember.tensor([[0, 1]]), weight)
    tensor([[2., 3.]])
)doc";

constexpr const char* kPadDoc = R"doc(Pads (or, with negative sizes, crops) a tensor.

``pad`` lists (before, after) pairs starting from the last dimension: ``(1, 2)`` pads the last dimension with 1
element in front and 2 behind, ``(1, 1, 2, 2)`` also the second-to-last with 2 on each side, and so on.

Args:
    input (Tensor): the input.
    pad (tuple): the padding sizes; an even number of them, at most twice the input's number of dimensions.
    mode (str, optional): ``'constant'`` (the padding holds ``value``), ``'reflect'`` (the input mirrored without
        its edge), ``'replicate'`` (the edge repeated) or ``'circular'`` (wrapped around). The last three pad the
        last 1, 2 or 3 dimensions of an input with 1 or 2 more dimensions than that. Default: ``'constant'``
    value (float, optional): the fill value of ``'constant'`` padding. Default: ``None`` (0)

Example::

    >>> F.pad(ember.tensor([[1.0, 2.0]]), (1, 1))
    tensor([[0., 1., 2., 0.]])
    >>> F.pad(ember.tensor([[[1.0, 2.0, 3.0]]]), (2, 0), mode='reflect')
    tensor([[[3., 2., 1., 2., 3.]]])
)doc";

constexpr const char* kConstantPadDoc = R"doc(Pads a tensor with a constant value (or crops it, with negative sizes).

``pad`` lists (before, after) pairs starting from the last dimension, as in :func:`ember.nn.functional.pad`.

Args:
    input (Tensor): the input.
    pad (tuple): the padding sizes.
    value (Number, optional): the fill value. Default: 0

Example::

    >>> ember.constant_pad_nd(ember.tensor([1.0, 2.0]), (0, 2), 9.0)
    tensor([1., 2., 9., 9.])
)doc";

}  // namespace

void init_nn_norm(nb::module_& m, nb::module_& nn) {
  // ---- normalization
  nn.def(
      "layer_norm",
      [](const Tensor& x, nb::handle shape, nb::handle w, nb::handle b, double eps) {
        return layer_norm(x, int_list(shape, "layer_norm", "normalized_shape"), opt(w), opt(b), eps);
      },
      nb::sig("def layer_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None, "
              "bias: Tensor | None = None, eps: float = 1e-05) -> Tensor"),
      arg("input"), arg("normalized_shape"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5,
      fill(kLayerNormDoc, {{"$cudnn", ""}}).c_str());
  m.def(
      "layer_norm",
      [](const Tensor& x, nb::handle shape, nb::handle w, nb::handle b, double eps, bool) {
        return layer_norm(x, int_list(shape, "layer_norm", "normalized_shape"), opt(w), opt(b), eps);
      },
      nb::sig("def layer_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None, "
              "bias: Tensor | None = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor"),
      arg("input"), arg("normalized_shape"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5,
      arg("cudnn_enable") = true, fill(kLayerNormDoc, {{"$cudnn", kCudnnArg}}).c_str());
  for (nb::module_* mod : {&nn, &m})
    mod->def(
        "rms_norm",
        [](const Tensor& x, nb::handle shape, nb::handle w, std::optional<double> eps) {
          return rms_norm(x, int_list(shape, "rms_norm", "normalized_shape"), opt(w), eps);
        },
        nb::sig("def rms_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None, eps: "
                "float | None = None) -> Tensor"),
        arg("input"), arg("normalized_shape"), arg("weight") = none(), arg("eps") = none(), kRmsNormDoc);
  nn.def(
      "batch_norm",
      [](const Tensor& x, nb::handle rm, nb::handle rv, nb::handle w, nb::handle b, bool training, double momentum,
         double eps) { return batch_norm(x, opt(rm), opt(rv), opt(w), opt(b), training, momentum, eps); },
      nb::sig("def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | "
              "None = None, bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = "
              "1e-05) -> Tensor"),
      arg("input"), arg("running_mean").none(), arg("running_var").none(), arg("weight") = none(), arg("bias") = none(),
      arg("training") = false, arg("momentum") = 0.1, arg("eps") = 1e-5, kBatchNormDoc);
  m.def(
      "batch_norm",
      [](const Tensor& x, nb::handle w, nb::handle b, nb::handle rm, nb::handle rv, bool training, double momentum,
         double eps, bool) { return batch_norm(x, opt(rm), opt(rv), opt(w), opt(b), training, momentum, eps); },
      nb::sig("def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None, "
              "running_var: Tensor | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> "
              "Tensor"),
      arg("input"), arg("weight").none(), arg("bias").none(), arg("running_mean").none(), arg("running_var").none(),
      arg("training"), arg("momentum"), arg("eps"), arg("cudnn_enabled"),
      see_doc(kBatchNormDoc,
              "The form of :func:`ember.nn.functional.batch_norm` at top level, in PyTorch's ATen\n"
              "argument order (every argument required)." +
                  fill(kAtenNormArgs, {{"$stats_doc",
                                        "use the batch's statistics (and update the "
                                        "running ones)."},
                                       {"$stats", "training"}}))
          .c_str());
  nn.def(
      "group_norm",
      [](const Tensor& x, int64_t groups, nb::handle w, nb::handle b, double eps) {
        return group_norm(x, groups, opt(w), opt(b), eps);
      },
      nb::sig("def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = "
              "None, eps: float = 1e-05) -> Tensor"),
      arg("input"), arg("num_groups"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5,
      fill(kGroupNormDoc, {{"$cudnn", ""}}).c_str());
  m.def(
      "group_norm",
      [](const Tensor& x, int64_t groups, nb::handle w, nb::handle b, double eps, bool) {
        return group_norm(x, groups, opt(w), opt(b), eps);
      },
      nb::sig("def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = "
              "None, eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor"),
      arg("input"), arg("num_groups"), arg("weight") = none(), arg("bias") = none(), arg("eps") = 1e-5,
      arg("cudnn_enabled") = true,
      fill(kGroupNormDoc, {{"$cudnn",
                            "    cudnn_enabled (bool, optional): accepted for compatibility; unused. "
                            "Default: ``True``\n"}})
          .c_str());
  nn.def(
      "instance_norm",
      [](const Tensor& x, nb::handle rm, nb::handle rv, nb::handle w, nb::handle b, bool use_input_stats,
         double momentum,
         double eps) { return instance_norm(x, opt(rm), opt(rv), opt(w), opt(b), use_input_stats, momentum, eps); },
      nb::sig("def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None, "
              "weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True, momentum: "
              "float = 0.1, eps: float = 1e-05) -> Tensor"),
      arg("input"), arg("running_mean") = none(), arg("running_var") = none(), arg("weight") = none(),
      arg("bias") = none(), arg("use_input_stats") = true, arg("momentum") = 0.1, arg("eps") = 1e-5, kInstanceNormDoc);
  m.def(
      "instance_norm",
      [](const Tensor& x, nb::handle w, nb::handle b, nb::handle rm, nb::handle rv, bool use_input_stats,
         double momentum, double eps,
         bool) { return instance_norm(x, opt(rm), opt(rv), opt(w), opt(b), use_input_stats, momentum, eps); },
      nb::sig("def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | "
              "None, running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float, cudnn_enabled: "
              "bool) -> Tensor"),
      arg("input"), arg("weight").none(), arg("bias").none(), arg("running_mean").none(), arg("running_var").none(),
      arg("use_input_stats"), arg("momentum"), arg("eps"), arg("cudnn_enabled"),
      see_doc(kInstanceNormDoc,
              "The form of :func:`ember.nn.functional.instance_norm` at top level, in PyTorch's\n"
              "ATen argument order (every argument required)." +
                  fill(kAtenNormArgs,
                       {{"$stats_doc", "normalize with the input's statistics."}, {"$stats", "use_input_stats"}}))
          .c_str());
  nn.def("local_response_norm", &local_response_norm, arg("input"), arg("size"), arg("alpha") = 1e-4,
         arg("beta") = 0.75, arg("k") = 1.0, kLocalResponseNormDoc);
  nn.def(
      "normalize",
      [](const Tensor& x, double p, int64_t dim, double eps, nb::handle out) {
        return finish_out(normalize(x, p, dim, eps), out, "normalize");
      },
      nb::sig("def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = "
              "None) -> Tensor"),
      arg("input"), arg("p") = 2.0, arg("dim") = 1, arg("eps") = 1e-12, arg("out") = none(), kNormalizeDoc);

  // ---- embeddings
  nn.def(
      "embedding",
      [](const Tensor& indices, const Tensor& weight, nb::handle padding_idx, std::optional<double> max_norm,
         double norm_type, bool scale_grad_by_freq, bool sparse) {
        return embedding(weight, indices, padding_index(padding_idx, weight), scale_grad_by_freq, sparse, max_norm,
                         norm_type);
      },
      nb::sig("def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = "
              "None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor"),
      arg("input"), arg("weight"), arg("padding_idx") = none(), arg("max_norm") = none(), arg("norm_type") = 2.0,
      arg("scale_grad_by_freq") = false, arg("sparse") = false, kEmbeddingDoc);
  m.def(
      "embedding",
      [](const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq, bool sparse) {
        return embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse);
      },
      arg("weight"), arg("indices"), arg("padding_idx") = -1, arg("scale_grad_by_freq") = false, arg("sparse") = false,
      kTopEmbeddingDoc);
  nn.def(
      "embedding_bag",
      [](const Tensor& indices, const Tensor& weight, nb::handle offsets, std::optional<double> max_norm,
         double norm_type, bool scale_grad_by_freq, const std::string& mode, bool sparse, nb::handle psw,
         bool include_last_offset, nb::handle padding_idx) {
        return embedding_bag(indices, weight, opt(offsets), max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                             opt(psw), include_last_offset, padding_index(padding_idx, weight, true));
      },
      nb::sig("def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None "
              "= None, norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = 'mean', sparse: bool = "
              "False, per_sample_weights: Tensor | None = None, include_last_offset: bool = False, padding_idx: int | "
              "None = None) -> Tensor"),
      arg("input"), arg("weight"), arg("offsets") = none(), arg("max_norm") = none(), arg("norm_type") = 2.0,
      arg("scale_grad_by_freq") = false, arg("mode") = "mean", arg("sparse") = false,
      arg("per_sample_weights") = none(), arg("include_last_offset") = false, arg("padding_idx") = none(),
      kEmbeddingBagDoc);

  // ---- padding
  nn.def(
      "pad",
      [](const Tensor& x, nb::handle p, const std::string& mode, std::optional<double> value) {
        return pad(x, to_int_list(p, "pad", "pad"), mode, value);
      },
      nb::sig("def pad(input: Tensor, pad: Sequence[int], mode: str = 'constant', value: float | None = None) -> "
              "Tensor"),
      arg("input"), arg("pad"), arg("mode") = "constant", arg("value") = none(), kPadDoc);
  m.def(
      "constant_pad_nd",
      [](const Tensor& x, nb::handle p, nb::handle value) {
        return constant_pad_nd(x, to_int_list(p, "constant_pad_nd", "pad"), to_scalar(value, "constant_pad_nd"));
      },
      nb::sig("def constant_pad_nd(input: Tensor, pad: Sequence[int], value: Number = 0) -> Tensor"), arg("input"),
      arg("pad"), arg("value") = 0, kConstantPadDoc);
}

}  // namespace ember::py
