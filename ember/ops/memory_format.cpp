#include "ember/ops/memory_format.h"

#include <algorithm>
#include <array>

#include "ember/error.h"
#include "ember/ops.h"
#include "ember/ops/elementwise_layout.h"

namespace ember {

namespace {

// The dims in memory order (outermost first) of a channels-last tensor of rank r: N, spatial..., C.
DimVector channels_last_order(int64_t r) {
  DimVector order{0};
  for (int64_t d = 2; d < r; ++d) order.push_back(d);
  order.push_back(1);
  return order;
}

int64_t rank_of(MemoryFormat f) { return f == MemoryFormat::ChannelsLast ? 4 : 5; }

// Whether t's strides are those of a dense tensor whose dims lie in memory in `order` (size-1 dims: any stride).
bool strides_follow(const Tensor& t, const DimVector& order) {
  int64_t expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const int64_t d = order[i];
    if (t.size(d) != 1 && t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

bool is_dense(const Tensor& t) {
  // Dense and non-overlapping: some order of the dims gives the strides of a packed tensor.
  DimVector order;
  for (int64_t d = 0; d < t.dim(); ++d) order.push_back(d);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  return strides_follow(t, order);
}

void check_rank(const Tensor& t, MemoryFormat f) {
  if (f == MemoryFormat::ChannelsLast)
    EMBER_CHECK(t.dim() == 4, "required rank 4 tensor to use channels_last format, got a ", t.dim(), "-d tensor");
  if (f == MemoryFormat::ChannelsLast3d)
    EMBER_CHECK(t.dim() == 5, "required rank 5 tensor to use channels_last_3d format, got a ", t.dim(), "-d tensor");
}

}  // namespace

bool is_contiguous(const Tensor& t, MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return t.is_contiguous();
    case MemoryFormat::Preserve: return is_dense(t);
    case MemoryFormat::ChannelsLast:
    case MemoryFormat::ChannelsLast3d: return t.dim() == rank_of(f) && strides_follow(t, channels_last_order(t.dim()));
  }
  return false;
}

MemoryFormat suggest_memory_format(const Tensor& t) {
  if (t.is_contiguous()) return MemoryFormat::Contiguous;
  if (t.dim() == 4 && is_contiguous(t, MemoryFormat::ChannelsLast)) return MemoryFormat::ChannelsLast;
  if (t.dim() == 5 && is_contiguous(t, MemoryFormat::ChannelsLast3d)) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

// A row-major copy of t permuted to channels-last order (fn: contiguous or clone), permuted back: the logical
// order with channels-last strides.
template <typename F>
static Tensor via_channels_last(const Tensor& t, F fn) {
  const DimVector order = channels_last_order(t.dim());
  DimVector inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return permute(fn(permute(t, order)), inverse);
}

Tensor contiguous(const Tensor& t, MemoryFormat f) {
  if (f == MemoryFormat::Preserve) return is_dense(t) ? t : contiguous(t);
  if (f == MemoryFormat::Contiguous) return contiguous(t);
  check_rank(t, f);
  if (is_contiguous(t, f)) return t;
  return via_channels_last(t, [](const Tensor& p) { return contiguous(p); });
}

// A row-major copy of t, differentiable: contiguous() copies a non-contiguous t; clone (which keeps a dense
// layout) copies one that already is.
static Tensor row_major_copy(const Tensor& t) { return t.is_contiguous() ? clone(t) : contiguous(t); }

Tensor clone(const Tensor& t, MemoryFormat f) {
  if (f == MemoryFormat::Preserve) return clone(t);
  if (f == MemoryFormat::Contiguous) return row_major_copy(t);
  check_rank(t, f);
  return via_channels_last(t, row_major_copy);
}

Tensor empty(IntArrayRef size, TensorOptions opts, MemoryFormat f) {
  if (f != MemoryFormat::ChannelsLast && f != MemoryFormat::ChannelsLast3d) return empty(size, opts);
  EMBER_CHECK(static_cast<int64_t>(size.size()) == rank_of(f), "required rank ", rank_of(f), " tensor to use ",
              f == MemoryFormat::ChannelsLast ? "channels_last" : "channels_last_3d", " format, got size ",
              shape_str(size));
  const DimVector order = channels_last_order(rank_of(f));
  DimVector permuted, inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    permuted.push_back(size[static_cast<size_t>(order[i])]);
    inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  }
  return permute(empty(permuted, opts), inverse);
}

Tensor empty_like_operands(IntArrayRef shape, TensorOptions opts, std::initializer_list<const Tensor*> operands) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  const Tensor* first = nullptr;
  for (const Tensor* t : operands)
    if (t && t->defined()) {
      first = t;
      break;
    }
  // A row-major first operand of the whole shape decides every comparison: a row-major output (the common case).
  if (nd <= 1 || !first || (first->is_contiguous() && std::ranges::equal(first->sizes(), shape)))
    return empty(shape, opts);
  // Each operand's strides over the output's dims, 0 where it broadcasts.
  std::array<DimVector, 4> strides;
  size_t n = 0;
  for (const Tensor* t : operands) {
    if (!t || !t->defined() || n == strides.size()) continue;
    DimVector& s = strides[n++];
    s.resize(nd, 0);
    for (int64_t i = nd - t->dim(); i < nd; ++i) {
      const int64_t j = i - (nd - t->dim());
      if (!(t->size(j) == 1 && shape[i] != 1)) s[i] = t->stride(j);
    }
  }
  // > 0: dim a belongs outside dim b; < 0: inside; 0: no operand tells.
  auto order = [&](int64_t a, int64_t b) {
    for (size_t k = 0; k < n; ++k) {
      const DimVector& s = strides[k];
      if (s[a] == 0 || s[b] == 0) continue;
      if (s[a] != s[b]) return s[a] < s[b] ? -1 : 1;
      if (shape[a] > shape[b]) return 1;
    }
    return 0;
  };
  DimVector perm(nd);  // innermost first; an insertion sort from row-major order, as PyTorch's
  for (int64_t k = 0; k < nd; ++k) perm[k] = nd - 1 - k;
  for (int64_t i = 1; i < nd; ++i)
    for (int64_t b = i, a = i - 1; a >= 0; --a) {
      const int c = order(perm[a], perm[b]);
      if (c > 0) {
        std::swap(perm[a], perm[b]);
        b = a;
      } else if (c < 0) {
        break;
      }
    }
  DimVector out(nd);
  int64_t stride = 1;
  for (int64_t k = 0; k < nd; ++k) {
    out[perm[k]] = stride;
    stride *= std::max<int64_t>(shape[perm[k]], 1);
  }
  return empty_strided(shape, out, opts);
}

}  // namespace ember
