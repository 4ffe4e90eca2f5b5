// Embeddings: a row gather with its own formula (padding_idx and scale_grad_by_freq shape the gradient), and
// embedding_bag as a composition of it with index_add / scatter_reduce, whose formulas give the bag gradients.
#include <algorithm>

#include "ember/autograd/detail/shape_grad.h"
#include "ember/autograd/node.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/embedding.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// PyTorch's legacy type names, which its embedding errors print.
const char* legacy_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return "torch.FloatTensor";
    case ScalarType::Float64: return "torch.DoubleTensor";
    case ScalarType::Float16: return "torch.HalfTensor";
    case ScalarType::BFloat16: return "torch.BFloat16Tensor";
    case ScalarType::Int64: return "torch.LongTensor";
    case ScalarType::Int32: return "torch.IntTensor";
    case ScalarType::Int16: return "torch.ShortTensor";
    case ScalarType::Int8: return "torch.CharTensor";
    case ScalarType::UInt8: return "torch.ByteTensor";
    case ScalarType::Bool: return "torch.BoolTensor";
    default: return "torch.Tensor";
  }
}

// indices flattened to int64, every one checked to be a row of weight.
Tensor checked_indices(const Tensor& indices, int64_t rows, const char* op) {
  EMBER_CHECK(indices.dtype() == ScalarType::Int64 || indices.dtype() == ScalarType::Int32,
              "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
              "got ",
              legacy_type_name(indices.dtype()), " instead (while checking arguments for ", op, ")");
  Tensor idx = reshape(indices.dtype() == ScalarType::Int64 ? indices : to(indices, ScalarType::Int64), DimVector{-1});
  // On a GPU the gather kernels check each index (Note [Deferred device errors]): no wait for the data here.
  if (idx.numel() && idx.device().is_cpu()) {
    const auto [lo, hi] = host_extrema(idx);
    EMBER_CHECK_INDEX(lo.to_int() >= 0 && hi.to_int() < rows, "index out of range in self");
  }
  return idx;
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq, bool sparse,
                 std::optional<double> max_norm, double norm_type) {
  check_same_device("embedding", {&weight, &indices});
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  if (max_norm) embedding_renorm_(weight, indices, *max_norm, norm_type);
  EMBER_PY_DISPATCH(Tensor, "aten.embedding.default", weight, indices, padding_idx, scale_grad_by_freq, sparse);
  const int64_t rows = weight.size(0), D = weight.size(1);
  const Tensor idx = checked_indices(indices, rows, "embedding");
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = index_select(weight, 0, idx);
  }
  DimVector shape(indices.sizes());
  shape.push_back(D);
  out = out.view(shape);
  auto node = autograd::make_node(
      "EmbeddingBackward0", {&weight},
      [rows, D, padding_idx, scale_grad_by_freq](autograd::FormulaNode& n, autograd::TensorList& g) {
        const Tensor i = n.saved_tensor(0);
        if (dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]; the indices go flattened to int64
          if (auto r = dispatch::call("aten.embedding_dense_backward.default",
                                      dispatch::values(g[0], i, rows, padding_idx, scale_grad_by_freq)))
            return autograd::TensorList{dispatch::result<Tensor>(std::move(*r))};
        }
        Tensor g2 = reshape(g[0], DimVector{-1, D});
        if (scale_grad_by_freq) {
          const Tensor freq = index_select(bincount(i, {}, rows), 0, i);
          g2 = div(g2, unsqueeze(freq, 1));
        }
        if (padding_idx >= 0) g2 = mul(g2, unsqueeze(ne(i, padding_idx), 1));
        // into zeros of its own, in place (out of place, index_add copied the zeros first)
        Tensor gw = autograd::zeros_for(g2, DimVector{rows, D});
        index_add_(gw, 0, i, g2);
        return autograd::TensorList{gw};
      });
  if (node) {
    node->save(idx);
    autograd::set_history(out, node);
  }
  return out;
}

const Tensor& embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type) {
  check_same_device("embedding_renorm_", {&weight, &indices});
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  autograd::NoGradGuard no_grad;
  const Tensor idx = unique(checked_indices(indices, weight.size(0), "embedding_renorm_")).values;
  if (idx.numel() == 0) return weight;
  const Tensor rows = index_select(weight, 0, idx);
  const int64_t one[] = {1};
  const Tensor norms = norm(rows, norm_type, one, true);
  const Tensor scale = where(gt(norms, max_norm), div(max_norm, add(norms, 1e-7)), 1.0);
  index_copy_(weight, 0, idx, mul(rows, scale));
  return weight;
}

Tensor embedding_bag(const Tensor& indices_in, const Tensor& weight, const Tensor& offsets_in,
                     std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, std::string_view mode,
                     bool sparse, const Tensor& per_sample_weights, bool include_last_offset, int64_t padding_idx) {
  check_same_device("embedding_bag", {&indices_in, &weight, &offsets_in, &per_sample_weights});
  EMBER_CHECK_VALUE(!per_sample_weights.defined() || std::ranges::equal(per_sample_weights.sizes(), indices_in.sizes()),
                    "embedding_bag: If per_sample_weights (", shape_str(per_sample_weights.sizes()),
                    ") is not None, then it must have the same shape as the input (", shape_str(indices_in.sizes()),
                    ")");
  EMBER_CHECK_VALUE(weight.dim() == 2, "weight has to be a 2D Tensor, but got Tensor of dimension ", weight.dim());
  Tensor indices = indices_in, offsets = offsets_in, psw = per_sample_weights;
  if (indices.dim() == 2) {
    EMBER_CHECK_VALUE(!offsets.defined(),
                      "if input is 2D, then offsets has to be None, as input is treated is a "
                      "mini-batch of fixed length sequences. However, found offsets of type Tensor");
    offsets = arange(0, indices.numel(), std::max<int64_t>(indices.size(1), 1), TensorOptions(ScalarType::Int64));
    if (indices.size(1) == 0) offsets = zeros(DimVector{indices.size(0)}, TensorOptions(ScalarType::Int64));
    indices = reshape(indices, DimVector{-1});
    if (psw.defined()) psw = reshape(psw, DimVector{-1});
  } else if (indices.dim() == 1) {
    EMBER_CHECK_VALUE(offsets.defined(), "offsets has to be a 1D Tensor but got None");
    EMBER_CHECK_VALUE(offsets.dim() == 1, "offsets has to be a 1D Tensor");
  } else {
    fail<ValueError>("input has to be 1D or 2D Tensor, but got Tensor of dimension ", indices.dim());
  }
  EMBER_CHECK_VALUE(mode == "sum" || mode == "mean" || mode == "max", "mode has to be one of sum, mean or max");
  if (mode == "max") {
    EMBER_CHECK_VALUE(!scale_grad_by_freq, "max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK_VALUE(!sparse, "max mode does not support sparse weights");
  }
  if (max_norm) embedding_renorm_(weight, indices, *max_norm, norm_type);
  if (psw.defined() && mode != "sum")
    fail<NotImplementedError>(
        "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
        "for mode='sum' (got mode='",
        mode,
        "'). Please open a feature request on the Pytorch "
        "GitHub.");
  const Tensor idx = checked_indices(indices, weight.size(0), "embedding_bag");
  // The bag of each index, from the offsets (on the host: they are few).
  const Tensor off = contiguous(to(to(offsets, kCPU), ScalarType::Int64));
  const int64_t n = idx.numel(), nb = off.numel() - (include_last_offset ? 1 : 0);
  EMBER_CHECK(nb >= 0, "embedding_bag: include_last_offset needs at least one offset");
  const int64_t* o = off.data<int64_t>();
  EMBER_CHECK(nb == 0 || o[0] == 0,
              "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
              "from position 0. However, got ",
              o[0]);
  Tensor bag = empty(DimVector{n}, TensorOptions(ScalarType::Int64));
  int64_t* b = bag.data<int64_t>();
  const int64_t end = include_last_offset ? std::min(o[nb], n) : n;
  for (int64_t k = 0; k < nb; ++k) {
    const int64_t s = o[k], e = k + 1 < nb ? o[k + 1] : end;
    EMBER_CHECK(s <= e && e <= n, "embedding_bag: offsets must be non-decreasing and at most the number of indices ",
                "(", n, "), got ", s, " then ", e);
    for (int64_t i = s; i < e; ++i) b[i] = k;
  }
  // Indices past the last bag (include_last_offset), and padding_idx, take no part.
  Tensor keep = lt(arange(n, TensorOptions(ScalarType::Int64)), end);
  if (padding_idx >= 0) keep = logical_and(keep, ne(to(idx, kCPU), padding_idx));
  Tensor sel = nonzero(keep).view(DimVector{-1});
  Tensor kept_bag = to(index_select(bag, 0, sel), idx.device()), kept = index_select(idx, 0, to(sel, idx.device()));
  Tensor emb = embedding(weight, kept, -1, scale_grad_by_freq, sparse);
  const int64_t D = weight.size(1);
  const TensorOptions wo = TensorOptions(weight.dtype()).device(weight.device());
  if (psw.defined()) emb = mul(emb, unsqueeze(index_select(psw, 0, to(sel, psw.device())), 1));
  if (mode == "max") {
    const Tensor where_to = expand(unsqueeze(kept_bag, 1), DimVector{kept_bag.numel(), D});
    return scatter_reduce(zeros(DimVector{nb, D}, wo), 0, where_to, emb, "amax", false);
  }
  Tensor out = index_add(zeros(DimVector{nb, D}, wo), 0, kept_bag, emb);
  if (mode == "mean") {
    const Tensor count = bincount(kept_bag, {}, nb);
    out = div(out, unsqueeze(clamp(count, Scalar(1), std::nullopt), 1));
  }
  return out;
}

}  // namespace ember
