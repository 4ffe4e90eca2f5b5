// Host-side planning of the cuDNN convolution calls: ember's ConvGeometry and contiguous NC* operands as cuDNN's
// descriptor arrays, and the key under which the chosen algorithms are cached. Plain C++ (no CUDA headers), so that
// tests/test_cuda_glue.cpp checks it on machines without a GPU.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "ember/backend/kernels/nn/conv.h"

namespace ember::cuda {

// Note [Convolutions on cuDNN]
// - cuDNN's Nd API wants at least 4 dims: a 1-d convolution [N, C, L] runs as a 2-d one over [N, C, 1, L].
// - cuDNN pads symmetrically. Where ember's pad_l and pad_r differ ("same" padding with an even kernel, transposed
//   convolutions' output_padding), cuDNN pads by min(pad_l, pad_r) and the rest is explicit: the input is copied
//   into a zero tensor `extra_l + in + extra_r` long per dim (its gradient is that buffer's inner slice).
// - cuDNN's legacy API indexes with int: each call sees at most INT_MAX elements per tensor, so the batch is split
//   into chunks of `batch_chunk` samples (operands are contiguous, so a chunk is a pointer offset).
struct ConvPlan {
  int nd = 0;                              // cuDNN's tensor dims: 2 + spatial (at least 4)
  std::vector<int> x_dims, x_strides;      // the (explicitly padded) input, one batch chunk
  std::vector<int> w_dims;                 // [O, C / groups, *k]
  std::vector<int> y_dims, y_strides;      // the output, one batch chunk
  std::vector<int> pad, stride, dilation;  // nd - 2 entries
  int groups = 1;
  bool explicit_pad = false;              // extra_l / extra_r are not all zero
  std::vector<int64_t> extra_l, extra_r;  // per ember spatial dim
  std::vector<int64_t> padded_sizes;      // ember sizes of the explicitly padded input (whole batch)
  int64_t batch = 0, batch_chunk = 0;     // N, and the samples per cuDNN call
};

inline std::vector<int> contiguous_strides_int(const std::vector<int>& dims) {
  std::vector<int> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * std::max(dims[i], 1);
  return s;
}

// Plans conv_forward / conv_backward for input [N, C, *in], weight [O, C / groups, *k], output [N, O, *out]
// (contiguous; geometry without crop). Returns false, with the reason in `why`, for what cuDNN cannot take.
inline bool plan_conv(IntArrayRef in_sizes, IntArrayRef w_sizes, IntArrayRef out_sizes, const ConvGeometry& g,
                      ConvPlan& p, std::string* why = nullptr) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  const size_t sp = g.dims();
  if (sp < 1 || sp > 3 || in_sizes.size() != sp + 2 || w_sizes.size() != sp + 2 || out_sizes.size() != sp + 2 ||
      g.pad_l.size() != sp || g.pad_r.size() != sp || g.dilation.size() != sp)
    return no("operands and geometry must have 1 to 3 spatial dims, consistently");
  p = ConvPlan{};
  const size_t lead = sp == 1 ? 1 : 0;  // a unit spatial dim in front for 1-d convolutions
  p.nd = static_cast<int>(sp + 2 + lead);
  p.groups = static_cast<int>(g.groups);
  p.batch = in_sizes[0];
  p.padded_sizes.assign(in_sizes.begin(), in_sizes.end());
  auto fits = [](int64_t v) { return v >= 0 && v <= INT_MAX; };
  if (!fits(g.groups)) return no("groups too large for cuDNN");
  if (lead) {
    p.pad.push_back(0);
    p.stride.push_back(1);
    p.dilation.push_back(1);
  }
  for (size_t i = 0; i < sp; ++i) {
    const int64_t sym = std::min(g.pad_l[i], g.pad_r[i]);
    p.extra_l.push_back(g.pad_l[i] - sym);
    p.extra_r.push_back(g.pad_r[i] - sym);
    if (p.extra_l.back() || p.extra_r.back()) p.explicit_pad = true;
    p.padded_sizes[2 + i] = in_sizes[2 + i] + p.extra_l.back() + p.extra_r.back();
    if (!fits(sym) || !fits(g.stride[i]) || !fits(g.dilation[i])) return no("padding, stride or dilation too large");
    p.pad.push_back(static_cast<int>(sym));
    p.stride.push_back(static_cast<int>(g.stride[i]));
    p.dilation.push_back(static_cast<int>(g.dilation[i]));
  }
  // Per-sample element counts decide the batch chunk.
  int64_t x_per = 1, y_per = 1, w_n = 1;
  for (size_t i = 1; i < sp + 2; ++i) {
    x_per *= p.padded_sizes[i];
    y_per *= out_sizes[i];
  }
  for (int64_t s : w_sizes) w_n *= s;
  if (x_per > INT_MAX || y_per > INT_MAX || w_n > INT_MAX)
    return no("one sample or the weight has more than INT_MAX elements, which cuDNN does not index");
  const int64_t per = std::max<int64_t>({x_per, y_per, 1});
  p.batch_chunk = std::max<int64_t>(1, std::min<int64_t>(p.batch, INT_MAX / per));
  auto dims_of = [&](IntArrayRef s, int64_t n0) {
    std::vector<int> d{static_cast<int>(n0), static_cast<int>(s[1])};
    if (lead) d.push_back(1);
    for (size_t i = 2; i < s.size(); ++i) {
      if (!fits(s[i])) return std::vector<int>{};
      d.push_back(static_cast<int>(s[i]));
    }
    return d;
  };
  p.x_dims = dims_of(p.padded_sizes, p.batch_chunk);
  p.y_dims = dims_of(out_sizes, p.batch_chunk);
  p.w_dims = dims_of(w_sizes, w_sizes[0]);
  if (p.x_dims.empty() || p.y_dims.empty() || p.w_dims.empty() || !fits(in_sizes[1]) || !fits(out_sizes[1]) ||
      !fits(w_sizes[0]))
    return no("a size does not fit in int");
  p.x_strides = contiguous_strides_int(p.x_dims);
  p.y_strides = contiguous_strides_int(p.y_dims);
  return true;
}

// The cuDNN-side output size of one spatial dim (what cudnnGetConvolutionNdForwardOutputDim computes), for checking a
// plan against ember's output shape.
inline int64_t cudnn_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation) {
  return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

// Which call an algorithm is chosen for.
enum class ConvPass : int { Forward = 0, BackwardData = 1, BackwardFilter = 2 };

// The algorithm cache's key: everything the choice depends on (Note [cuDNN algorithm cache] in conv.cpp).
// Descriptors' batch is the chunk's, so chunks of one shape share an entry.
inline std::vector<int64_t> conv_cache_key(const ConvPlan& p, ConvPass pass, int dtype, int device, bool deterministic,
                                           bool allow_tf32, bool benchmark) {
  std::vector<int64_t> k;
  k.reserve(8 + 8 * static_cast<size_t>(p.nd));
  k.push_back(static_cast<int64_t>(pass));
  k.push_back(dtype);
  k.push_back(device);
  k.push_back((deterministic ? 1 : 0) | (allow_tf32 ? 2 : 0) | (benchmark ? 4 : 0));
  k.push_back(p.nd);
  k.push_back(p.groups);
  for (const auto* v : {&p.x_dims, &p.x_strides, &p.w_dims, &p.y_dims, &p.y_strides, &p.pad, &p.stride, &p.dilation})
    for (int x : *v) k.push_back(x);
  return k;
}

}  // namespace ember::cuda
