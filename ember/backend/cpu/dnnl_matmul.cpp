// bfloat16/float16 matrix products through oneDNN's matmul primitive (AMX / AVX512-BF16 / AVX512-FP16 kernels where
// the CPU has them), as PyTorch's CPU matmul does for 16-bit floats: 16-bit operands, float32 accumulation, one
// rounding of alpha * a @ b + beta * out (+ bias) to the output's dtype.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "ember/backend/cpu/dnnl.h"
#include "ember/error.h"
#include "ember/parallel.h"

namespace ember::dnnl_cpu {

using dnnl::memory;

namespace {

// t's [..., r, c] sizes and strides as oneDNN takes them: a broadcast (stride 0) batch dim is a dim of 1, and dims
// of 1 get the strides of a plain layout (ember allows any stride there; oneDNN's kernels want them consistent).
memory::desc matmul_desc(const Tensor& t, const Tensor& out) {
  const int64_t nd = t.dim();
  memory::dims dims(t.sizes().begin(), t.sizes().end()), strides(t.strides().begin(), t.strides().end());
  for (int64_t d = 0; d < nd - 2; ++d)
    if (strides[d] == 0 || out.size(d) != dims[d]) dims[d] = 1;
  int64_t &r = dims[nd - 2], &c = dims[nd - 1], &s0 = strides[nd - 2], &s1 = strides[nd - 1];
  if (r == 1 && c == 1)
    s0 = s1 = 1;
  else if (c == 1)
    s1 = s0 == 1 ? r : 1;
  else if (r == 1)
    s0 = s1 == 1 ? c : 1;
  int64_t extent = 1;  // elements spanned by the dims inside the current one
  for (int64_t d = nd - 1; d >= 0; --d) {
    if (d < nd - 2 && dims[d] == 1) strides[d] = extent;
    extent = std::max(extent, strides[d] * (dims[d] - 1) + 1);
  }
  return memory::desc(dims, data_type(t.dtype()), strides);
}

int64_t float_bits(float f) { return std::bit_cast<uint32_t>(f); }

// The primitive for one product (empty where oneDNN declines it), made for one OpenMP thread.
std::shared_ptr<const Prim> product(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                                    float alpha, float beta) {
  KeyWriter k;
  k << int64_t('m') << int64_t(out.dtype()) << out.sizes() << a.sizes() << a.strides() << b.sizes() << b.strides()
    << int64_t(bias.defined()) << float_bits(alpha) << float_bits(beta);
  return cached(std::move(k.s), [&] {
    Prim r;
    try {
      const memory::desc src = matmul_desc(a, out), wei = matmul_desc(b, out), dst = plain_desc(out);
      memory::desc bia;
      if (bias.defined()) {
        memory::dims bd(out.dim(), 1);
        bd.back() = out.sizes().back();
        bia = contiguous_desc(bd, data_type(bias.dtype()));
      }
      dnnl::post_ops po;
      if (alpha != 1.0f) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, 0.0f);
      if (beta != 0.0f) po.append_sum(beta);
      dnnl::primitive_attr attr = default_attr();
      attr.set_post_ops(po);
      const dnnl::matmul::desc desc = bias.defined() ? dnnl::matmul::desc(src, wei, bia, dst)
                                                     : dnnl::matmul::desc(src, wei, dst);
      dnnl::matmul::primitive_desc pd(desc, attr, engine(), true);
      if (!pd || !fast_impl(pd)) return r;  // declined: an empty primitive
      r.prim = dnnl::matmul(pd);
      r.scratchpad_bytes = pd.scratchpad_desc().get_size();
      r.add(DNNL_ARG_SRC, true, src, pd.src_desc());
      r.add(DNNL_ARG_WEIGHTS, true, wei, pd.weights_desc());
      if (bias.defined()) r.add(DNNL_ARG_BIAS, true, bia, pd.bias_desc());
      r.add(DNNL_ARG_DST, false, dst, pd.dst_desc());
    } catch (const dnnl::error&) {
      r = Prim();
    }
    return r;
  });
}

// Multiply-adds below which a piece of a product is not worth a chunk of its own on the pool.
constexpr int64_t kMinProductPiece = int64_t{1} << 20;

}  // namespace

// Note [16-bit products on ember's threads]
// A 16-bit product ran as one primitive on OpenMP's threads (ember's count). libgomp started its workers at the first
// such product, and when it cannot start one it ends the process: with the address space nearly full, `Tensor.inner`
// of two bfloat16 tensors exited with "libgomp: Thread creation failed" (fuzz seed 203404261). Now no primitive runs
// on more than one OpenMP thread: a product is cut into pieces along its output's rows (its columns when they are
// more), each a one-thread primitive on ember's pool, as convolutions are (Note [Primitives on ember's threads]). Every
// piece's primitive is found before any runs, so a product oneDNN declines has written nothing (the caller computes it
// in float32, reading `out` when beta is nonzero).
bool matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, float alpha, float beta) {
  if (out.dim() > DNNL_MAX_NDIMS) return false;
  const int64_t rows = out.size(-2), cols = out.size(-1);
  const bool by_rows = rows >= cols;
  const int64_t extent = by_rows ? rows : cols;
  int64_t parts = 1;
  if (!in_parallel_region() && get_num_threads() > 1) {
    const int64_t k = a.size(-1), n = out.numel();
    const int64_t macs = k > 0 && n > std::numeric_limits<int64_t>::max() / k ? std::numeric_limits<int64_t>::max()
                                                                              : n * k;
    parts = std::clamp<int64_t>(macs / kMinProductPiece, 1, std::min<int64_t>(get_num_threads(), extent));
  }
  struct Piece {
    Tensor out, a, b, bias;
    std::shared_ptr<const Prim> prim;
  };
  std::vector<Piece> pieces(static_cast<size_t>(parts));
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t b0 = extent * i / parts, len = extent * (i + 1) / parts - b0;
    Piece& q = pieces[static_cast<size_t>(i)];
    if (parts == 1) {
      q = {out, a, b, bias, nullptr};
    } else if (by_rows) {
      q = {out.narrow(-2, b0, len), a.narrow(-2, b0, len), b, bias, nullptr};
    } else {
      q = {out.narrow(-1, b0, len), a, b.narrow(-1, b0, len), bias.defined() ? bias.narrow(-1, b0, len) : bias,
           nullptr};
    }
    q.prim = product(q.out, q.a, q.b, q.bias, alpha, beta);
    if (!q.prim->prim) return false;
  }
  auto run = [&](const Piece& q) {
    try {
      if (q.bias.defined())
        execute(*q.prim, {&q.a, &q.b, &q.bias, &q.out});
      else
        execute(*q.prim, {&q.a, &q.b, &q.out});
    } catch (const dnnl::error& e) {
      fail<Error>("matmul: oneDNN failed: ", e.what());
    }
  };
  if (parts == 1) {
    run(pieces[0]);
    return true;
  }
  parallel_for(0, parts, 1, [&](int64_t b0, int64_t e) {
    for (int64_t i = b0; i < e; ++i) run(pieces[static_cast<size_t>(i)]);
  });
  return true;
}

}  // namespace ember::dnnl_cpu
