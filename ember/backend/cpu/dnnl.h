// oneDNN glue for the CPU kernels: one engine, a stream per thread, OpenMP's thread count following ember's, and
// a cache of ready-to-run primitives (Note [oneDNN primitives] in dnnl.cpp).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/backend/kernels/nn/conv.h"
#include "ember/backend/kernels/nn/pooling.h"
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
    // The reorder runs as an ember copy (Note [Reorders as copies] in dnnl_reorder.cpp): always, or only outside
    // ember's parallel regions where more than one thread is expected to run it (expected_threads(): the copy has
    // the pool, oneDNN's reorder one thread; both give the same bits).
    bool by_copy = false, by_copy_alone = false;
    bool copies() const;
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
// Reorders output operand `a`'s memory `inner` (in the primitive's layout) into t: as a copy or by oneDNN's reorder,
// as a.copies() says unless `copy` does (the buffer must then be a blocked_buffer, of the element type).
void write_output(const Prim::Arg& a, const Tensor& t, const Tensor& inner, std::optional<bool> copy = std::nullopt);

// Key material for `cached`: raw bytes of integers.
struct KeyWriter {
  std::string s;
  KeyWriter& operator<<(int64_t v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  KeyWriter& operator<<(IntArrayRef v) {
    *this << static_cast<int64_t>(v.size());
    for (int64_t x : v) *this << x;
    return *this;
  }
};

// Sets the calling thread's OpenMP thread count to one for a oneDNN call made outside a primitive (dnnl_sgemm): every
// oneDNN call runs on one OpenMP thread (Note [Primitives on ember's threads] in dnnl.cpp).
void follow_openmp_threads();

// Note [Room for oneDNN's code]
// oneDNN writes a kernel's machine code when a primitive is made (and its sgemm's kernels at the first call), and
// does not survive running out of memory there: in an address space capped a few MiB above what is mapped, making
// a float16 convolution's backward primitive or the first sgemm crashed in its code generator (SIGSEGV; API fuzzer,
// seed 234468231). So before oneDNN writes code, 32 MiB of address space (well above the largest set of kernels, ~8
// MiB for sgemm) is mapped and given back, after emptying the CPU cache if need be; when it is not there, the op
// raises OutOfMemoryError instead.
void room_for_code();

// Whether primitives may choose their own (blocked) layouts, reordering ember's plain tensors in and out; set by
// EMBER_DNNL_LAYOUT=plain|any (Note [oneDNN primitives]).
bool any_layout();

// Convolutions (kernel contracts in ember/backend/kernels/nn/conv.h) in float32, bfloat16 or float16 (all operands of
// one dtype). They return false, having done nothing, for a 16-bit case oneDNN has no fast kernel for (fast_impl).
bool conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const ConvGeometry& g);
bool conv_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,
                   const Tensor& input, const Tensor& weight, const ConvGeometry& g);

// Whether a primitive descriptor found a real (JIT/GEMM) implementation rather than oneDNN's reference or generic C++
// loops (`ref`, `simple_nchw`), which are slower than widening 16-bit operands to float32 and running ember's float32
// path, and than ember's own pooling loops.
template <class PD>
bool fast_impl(const PD& pd) {
  const char* impl = pd.impl_info_str();
  return std::strncmp(impl, "ref", 3) != 0 && std::strncmp(impl, "simple", 6) != 0;
}

// bfloat16/float16 matrix products (the matmul kernel's contract in ember/backend/kernels/blas.h, with out, a, b and
// bias of one 16-bit dtype): out = alpha * a @ b + beta * out (+ bias [n], only with alpha 1), accumulated in float32
// and rounded once. Returns false, having done nothing, where oneDNN has no fast kernel for the case (dnnl_matmul.cpp).
bool matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, float alpha, float beta);

// float32 pooling (kernel contracts in ember/backend/kernels/nn/pooling.h), where oneDNN computes what PyTorch does:
// each returns false where it does not (uneven adaptive windows, divisor_override, an include-padding average whose
// ceil_mode windows reach past the padding) or is slower (adaptive averages; geometries oneDNN has only generic loops
// for, fast_impl), and the caller's loops then write every output (some planes may have been written). max_pool's
// indices may be undefined (values only); it declines inputs holding a NaN, which oneDNN's max skips but PyTorch's
// propagates.
bool max_pool(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g);
bool avg_pool(const Tensor& out, const Tensor& input, const PoolGeometry& g);
bool avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g);

}  // namespace ember::dnnl_cpu
