#include "ember/nn/functional/attention.h"

#include <cmath>
#include <limits>

#include "ember/autocast.h"
#include "ember/ops.h"
#include "ember/ops/linalg.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// softmax over the last dim, 0 (not NaN) in rows that are all -inf.
Tensor masked_softmax(const Tensor& x) {
  Tensor m = amax(x, {{-1}}, true).detach();
  Tensor shift = where(isinf(m), 0.0, m);
  Tensor e = exp(sub(x, shift));
  Tensor s = sum(e, {{-1}}, true);
  return div(e, where(eq(s, 0), 1.0, s));
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                   const Tensor& attn_mask, double dropout_p, bool is_causal,
                                   std::optional<double> scale, Generator* gen) {
  EMBER_AUTOCAST(autocast::kLower, scaled_dot_product_attention, query, key, value, attn_mask, dropout_p, is_causal,
                 scale, gen);
  check_same_device("scaled_dot_product_attention", {&query, &key, &value, &attn_mask});
  const char* op = "scaled_dot_product_attention";
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, op,
              "(): expected query, key and value of at least 2 dims, got shapes ", shape_str(query.sizes()), ", ",
              shape_str(key.sizes()), " and ", shape_str(value.sizes()));
  EMBER_CHECK(query.size(-1) == key.size(-1), op, "(): query and key must have the same embedding size, got shapes ",
              shape_str(query.sizes()), " and ", shape_str(key.sizes()));
  EMBER_CHECK(key.size(-2) == value.size(-2), op, "(): key and value must have the same sequence length, got shapes ",
              shape_str(key.sizes()), " and ", shape_str(value.sizes()));
  EMBER_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(), op,
              "(): Expected query, key, and value to have the same dtype, but got query.dtype: ", query.dtype(),
              " key.dtype: ", key.dtype(), " and value.dtype: ", value.dtype(), " instead.");
  EMBER_CHECK_TYPE(is_floating(query.dtype()), op, "(): expected floating point inputs, got ", query.dtype());
  EMBER_CHECK(!(is_causal && attn_mask.defined()), op, "(): Explicit attn_mask should not be set when is_causal=True");
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, op, "(): dropout_p must be in [0, 1], got ", dropout_p);
  const int64_t l = query.size(-2), s = key.size(-2);
  const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  Tensor scores = mul(matmul(query, transpose(key, -2, -1)), factor);
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  if (is_causal) {
    Tensor allowed = tril(ones({{l, s}}, TensorOptions(ScalarType::Bool).device(query.device())));
    scores = masked_fill(scores, logical_not(allowed), kNegInf);
  }
  if (attn_mask.defined()) {
    if (attn_mask.dtype() == ScalarType::Bool)
      scores = masked_fill(scores, logical_not(attn_mask), kNegInf);
    else
      scores = add(scores, attn_mask);
  }
  Tensor weights = masked_softmax(scores);
  if (dropout_p > 0) {
    Tensor keep = dropout_p >= 1 ? zeros_like(weights) : bernoulli(weights.detach(), 1.0 - dropout_p, gen);
    weights = dropout_p >= 1 ? mul(weights, keep) : div(mul(weights, keep), 1.0 - dropout_p);
  }
  return matmul(weights, value);
}

}  // namespace ember
