// oneDNN glue for the CPU kernels: one engine, a stream per thread, OpenMP's thread count following ember's, and
// a cache of ready-to-run primitives (Note [oneDNN primitives] in dnnl.cpp).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/conv.h"
#include "ember/nn/pooling.h"
#include "ember/tensor.h"

namespace ember::dnnl_cpu {

const dnnl::engine& engine();
dnnl::memory::data_type data_type(ScalarType t);
// A descriptor of t's memory as it is (t's sizes and strides).
dnnl::memory::desc plain_desc(const Tensor& t);
// Row-major contiguous memory of `dims` (a regrouped view of a contiguous tensor, such as a grouped weight
// [G, O/G, C/G, *k]).
dnnl::memory::desc contiguous_desc(const dnnl::memory::dims& dims, dnnl::memory::data_type dt);

// A primitive and what it needs to run on ember's tensors: per operand, the layout the tensor has (`user`) and the
// one the primitive chose (`inner`), with a reorder between them when they differ.
struct Prim {
  struct Arg {
    int id;      // DNNL_ARG_*
    bool input;  // read (reordered in before) or written (reordered out after)
    dnnl::memory::desc user, inner;
    std::optional<dnnl::reorder> reorder;
  };
  dnnl::primitive prim;
  std::vector<Arg> args;
  size_t scratchpad_bytes = 0;

  // Adds operand `id`; `inner` is what the primitive descriptor reports for it.
  void add(int id, bool input, const dnnl::memory::desc& user, const dnnl::memory::desc& inner);
};

// Attributes every primitive is made with (a scratchpad from ember's allocator, so that concurrent calls never
// share one).
dnnl::primitive_attr default_attr();
// The primitive for `key`, made by `make` on the first use (and again after eviction from the bounded cache).
// The key must name everything `make` depends on; the thread count is added here.
std::shared_ptr<const Prim> cached(std::string key, const std::function<Prim()>& make);
// Runs p with tensors parallel to p.args (an undefined tensor skips its operand), then waits. `ready` gives operands
// already in the primitive's layout (by DNNL_ARG_* id); their tensors are not read.
void execute(const Prim& p, std::initializer_list<const Tensor*> tensors,
             const std::vector<std::pair<int, dnnl::memory>>& ready = {});
// The memory of input operand `a` in the primitive's layout: t itself, or a reordered copy held in `keep`.
dnnl::memory prepare_input(const Prim::Arg& a, const Tensor& t, Tensor& keep);

// Whether primitives may choose their own (blocked) layouts, reordering ember's plain tensors in and out; set by
// EMBER_DNNL_LAYOUT=plain|any (Note [oneDNN primitives]).
bool any_layout();

// float32 convolutions (kernel contracts in ember/nn/conv.h).
void conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const ConvGeometry& g);
void conv_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                   const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g);

// float32 pooling (kernel contracts in ember/nn/pooling.h), where oneDNN computes what PyTorch does: each returns
// false, having done nothing, where it does not (uneven adaptive windows, divisor_override, an include-padding
// average whose ceil_mode windows reach past the padding) or is slower (adaptive averages). max_pool's indices may
// be undefined (values only); callers rule out NaNs, which oneDNN's max skips but PyTorch's propagates.
bool max_pool(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g);
bool avg_pool(const Tensor& out, const Tensor& input, const PoolGeometry& g);
bool avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g);

}  // namespace ember::dnnl_cpu
