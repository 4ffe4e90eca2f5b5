// bfloat16/float16 matrix products through oneDNN's matmul primitive (AMX / AVX512-BF16 / AVX512-FP16 kernels where
// the CPU has them), as PyTorch's CPU matmul does for 16-bit floats: 16-bit operands, float32 accumulation, one
// rounding of alpha * a @ b + beta * out (+ bias) to the output's dtype.
#include <bit>
#include <cstring>

#include "ember/backend/cpu/dnnl.h"

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

}  // namespace

bool matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, float alpha, float beta) {
  if (out.dim() > DNNL_MAX_NDIMS) return false;
  WithOpenMP threads;  // 16-bit products are not split on ember's pool (yet): OpenMP's threads run them
  KeyWriter k;
  k << int64_t('m') << int64_t(out.dtype()) << out.sizes() << a.sizes() << a.strides() << b.sizes() << b.strides()
    << int64_t(bias.defined()) << float_bits(alpha) << float_bits(beta);
  auto p = cached(std::move(k.s), [&] {
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
  if (!p->prim) return false;
  try {
    if (bias.defined())
      execute(*p, {&a, &b, &bias, &out});
    else
      execute(*p, {&a, &b, &out});
  } catch (const dnnl::error& e) {
    fail<Error>("matmul: oneDNN failed: ", e.what());
  }
  return true;
}

}  // namespace ember::dnnl_cpu
