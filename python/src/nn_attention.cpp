// Bindings of the attention ops (ember/nn/functional/attention.h): torch.nn.functional.scaled_dot_product_attention and
// multi_head_attention_forward (the function nn.MultiheadAttention calls), with PyTorch's signatures. The logic,
// grouped-query attention included, is in the C++ ops; this file converts arguments. Registered from nn_spatial.cpp.
#include <nanobind/stl/pair.h>

#include "common.h"
#include "ember/nn/functional/attention.h"

namespace ember::py {

namespace {

using nb::arg;

// An optional tensor argument: None gives an undefined tensor; anything else but a tensor is PyTorch's TypeError.
Tensor opt_tensor(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), fn, "(): argument '", what, "' must be Tensor, not ",
                   nb::inst_name(h).c_str());
  return nb::cast<Tensor>(h);
}

nb::object or_none(const Tensor& t) { return t.defined() ? nb::cast(t) : nb::none(); }

constexpr const char* kSdpaSig =
    "def scaled_dot_product_attention(query: ember.Tensor, key: ember.Tensor, value: ember.Tensor, "
    "attn_mask: ember.Tensor | None = None, dropout_p: float = 0.0, is_causal: bool = False, "
    "scale: float | None = None, enable_gqa: bool = False) -> ember.Tensor";

constexpr const char* kSdpaDoc =
    R"(Computes scaled dot product attention: softmax(query @ key^T * scale + bias) @ value.

.. math::
    \text{out} = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{E}} + B\right) V

A row whose every position is masked out gives zeros.

Args:
    query (Tensor): query tensor of shape :math:`(N, ..., H_q, L, E)`.
    key (Tensor): key tensor of shape :math:`(N, ..., H, S, E)`.
    value (Tensor): value tensor of shape :math:`(N, ..., H, S, E_v)`.
    attn_mask (Tensor, optional): a mask broadcasting to :math:`(N, ..., L, S)`. A bool mask is True where
        attention is allowed; a float mask is added to the scores. Default: ``None``.
    dropout_p (float): probability of zeroing an attention weight (the rest are scaled by
        :math:`1 / (1 - p)`). Default: ``0.0``.
    is_causal (bool): if True, position :math:`i` attends only to positions :math:`j \le i`; attn_mask must then
        be None. Default: ``False``.
    scale (float, optional): the factor on :math:`QK^T`. Default: :math:`1 / \sqrt{E}`.
    enable_gqa (bool): grouped-query attention: key and value may have :math:`H` heads (dim -3), a divisor of the
        query's :math:`H_q`; each serves :math:`H_q / H` query heads. Default: ``False``.

Returns:
    Tensor: the attention output, of shape :math:`(N, ..., H_q, L, E_v)`.
)";

constexpr const char* kMhaSig =
    "def multi_head_attention_forward(query: ember.Tensor, key: ember.Tensor, value: ember.Tensor, "
    "embed_dim_to_check: int, num_heads: int, in_proj_weight: ember.Tensor | None, "
    "in_proj_bias: ember.Tensor | None, bias_k: ember.Tensor | None, bias_v: ember.Tensor | None, "
    "add_zero_attn: bool, dropout_p: float, out_proj_weight: ember.Tensor, out_proj_bias: ember.Tensor | None, "
    "training: bool = True, key_padding_mask: ember.Tensor | None = None, need_weights: bool = True, "
    "attn_mask: ember.Tensor | None = None, use_separate_proj_weight: bool = False, "
    "q_proj_weight: ember.Tensor | None = None, k_proj_weight: ember.Tensor | None = None, "
    "v_proj_weight: ember.Tensor | None = None, static_k: ember.Tensor | None = None, "
    "static_v: ember.Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False) "
    "-> tuple[ember.Tensor, ember.Tensor | None]";

constexpr const char* kMhaDoc =
    R"(Computes multi-head attention: the forward pass of :class:`ember.nn.MultiheadAttention`.

The inputs are projected to queries, keys and values, split into ``num_heads`` heads, each head computes
:math:`\mathrm{softmax}(Q_i K_i^T / \sqrt{d} + M) V_i` (:math:`d` = embed_dim / num_heads), and the concatenated
heads go through the output projection.

Args:
    query (Tensor): :math:`(L, N, E)` or unbatched :math:`(L, E)`; L is the target length, N the batch size, E the
        embedding dimension.
    key (Tensor): :math:`(S, N, E_k)` or :math:`(S, E_k)`; S is the source length.
    value (Tensor): :math:`(S, N, E_v)` or :math:`(S, E_v)`.
    embed_dim_to_check (int): the embedding dimension E the query must have.
    num_heads (int): the number of attention heads; it must divide E.
    in_proj_weight (Tensor, optional): the packed query/key/value projection :math:`(3E, E)`.
    in_proj_bias (Tensor, optional): the packed projection bias :math:`(3E)`.
    bias_k (Tensor, optional): :math:`(1, 1, E)`, appended to the keys as one more source position.
    bias_v (Tensor, optional): :math:`(1, 1, E)`, appended to the values (with bias_k).
    add_zero_attn (bool): append a source position of zeros to the keys and values.
    dropout_p (float): probability of zeroing an attention weight (only when ``training``).
    out_proj_weight (Tensor): the output projection :math:`(E, E)`.
    out_proj_bias (Tensor, optional): the output projection bias :math:`(E)`.
    training (bool): apply dropout. Default: ``True``.
    key_padding_mask (Tensor, optional): :math:`(N, S)` or :math:`(S)`: source positions to ignore (True in a bool
        mask) or a float mask added to the scores. Default: ``None``.
    need_weights (bool): also return the attention weights. Default: ``True``.
    attn_mask (Tensor, optional): :math:`(L, S)` (shared by the batch) or :math:`(N \cdot \text{num\_heads}, L, S)`;
        True in a bool mask forbids the position, a float mask is added to the scores. Default: ``None``.
    use_separate_proj_weight (bool): project with q_proj_weight, k_proj_weight and v_proj_weight instead of
        in_proj_weight (needed when :math:`E_k` or :math:`E_v` differ from E). Default: ``False``.
    q_proj_weight (Tensor, optional): :math:`(E, E)`.
    k_proj_weight (Tensor, optional): :math:`(E, E_k)`.
    v_proj_weight (Tensor, optional): :math:`(E, E_v)`.
    static_k (Tensor, optional): :math:`(N \cdot \text{num\_heads}, S, E / \text{num\_heads})` keys used instead of
        the projected ones. Default: ``None``.
    static_v (Tensor, optional): the same for the values. Default: ``None``.
    average_attn_weights (bool): return the weights averaged over the heads rather than per head. Default: ``True``.
    is_causal (bool): a hint that attn_mask is the causal mask; attn_mask is still required. Default: ``False``.

Returns:
    (Tensor, Tensor or None): the output :math:`(L, N, E)` (or :math:`(L, E)`), and the attention weights when
    ``need_weights``: :math:`(N, L, S)` averaged, or :math:`(N, \text{num\_heads}, L, S)` (without N when unbatched).
)";

}  // namespace

void init_nn_attention(nb::module_& m, nb::module_& nn) {
  (void)m;
  nn.def(
      "scaled_dot_product_attention",
      [](const Tensor& query, const Tensor& key, const Tensor& value, nb::handle attn_mask, double dropout_p,
         bool is_causal, nb::handle scale, bool enable_gqa) {
        std::optional<double> s;
        if (!scale.is_none()) s = nb::cast<double>(scale);
        return scaled_dot_product_attention(query, key, value,
                                            opt_tensor(attn_mask, "scaled_dot_product_attention", "attn_mask"),
                                            dropout_p, is_causal, s, enable_gqa);
      },
      arg("query"), arg("key"), arg("value"), none_arg("attn_mask"), arg("dropout_p") = 0.0, arg("is_causal") = false,
      none_arg("scale"), arg("enable_gqa") = false, nb::sig(kSdpaSig), kSdpaDoc);

  nn.def(
      "multi_head_attention_forward",
      [](const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check, int64_t num_heads,
         nb::handle in_proj_weight, nb::handle in_proj_bias, nb::handle bias_k, nb::handle bias_v, bool add_zero_attn,
         double dropout_p, const Tensor& out_proj_weight, nb::handle out_proj_bias, bool training,
         nb::handle key_padding_mask, bool need_weights, nb::handle attn_mask, bool use_separate_proj_weight,
         nb::handle q_proj_weight, nb::handle k_proj_weight, nb::handle v_proj_weight, nb::handle static_k,
         nb::handle static_v, bool average_attn_weights, bool is_causal) {
        const char* fn = "multi_head_attention_forward";
        const Tensor kpm = opt_tensor(key_padding_mask, fn, "key_padding_mask"),
                     mask = opt_tensor(attn_mask, fn, "attn_mask");
        // torch.nn.functional._canonical_mask's deprecation warning (ember's C++ core has no warning channel).
        if (kpm.defined() && mask.defined() && kpm.dtype() != mask.dtype())
          warn("Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for both instead.");
        auto [out, weights] = multi_head_attention_forward(
            query, key, value, embed_dim_to_check, num_heads, opt_tensor(in_proj_weight, fn, "in_proj_weight"),
            opt_tensor(in_proj_bias, fn, "in_proj_bias"), opt_tensor(bias_k, fn, "bias_k"),
            opt_tensor(bias_v, fn, "bias_v"), add_zero_attn, dropout_p, out_proj_weight,
            opt_tensor(out_proj_bias, fn, "out_proj_bias"), training, kpm, need_weights, mask, use_separate_proj_weight,
            opt_tensor(q_proj_weight, fn, "q_proj_weight"), opt_tensor(k_proj_weight, fn, "k_proj_weight"),
            opt_tensor(v_proj_weight, fn, "v_proj_weight"), opt_tensor(static_k, fn, "static_k"),
            opt_tensor(static_v, fn, "static_v"), average_attn_weights, is_causal);
        return nb::make_tuple(out, or_none(weights));
      },
      arg("query"), arg("key"), arg("value"), arg("embed_dim_to_check"), arg("num_heads"), arg("in_proj_weight").none(),
      arg("in_proj_bias").none(), arg("bias_k").none(), arg("bias_v").none(), arg("add_zero_attn"), arg("dropout_p"),
      arg("out_proj_weight"), arg("out_proj_bias").none(), arg("training") = true, none_arg("key_padding_mask"),
      arg("need_weights") = true, none_arg("attn_mask"), arg("use_separate_proj_weight") = false,
      none_arg("q_proj_weight"), none_arg("k_proj_weight"), none_arg("v_proj_weight"), none_arg("static_k"),
      none_arg("static_v"), arg("average_attn_weights") = true, arg("is_causal") = false, nb::sig(kMhaSig), kMhaDoc);
}

}  // namespace ember::py
