// Note [Meta device]
// A meta tensor has sizes, strides and a dtype but no memory (ember.device("meta"): building a model's shapes without
// its weights). Ops compute their outputs' geometry in device-generic code (ops/, nn/functional/) before they call a
// device kernel, so the meta device is a backend like the CPU's whose kernels do nothing: every op gets its shape
// rules, dtype promotion, broadcasting, argument checks and autograd recording on meta from the one code path that
// the real devices run. The allocator hands out no memory (backend/meta/allocator.cpp). Registered here are the
// kernels whose outputs the op allocated before the call; a kernel whose output's size depends on the data (nonzero,
// unique, bincount) or whose op reads results back on the host (LDL^T's info, CTC's lengths) has no meta version,
// so its op raises NotImplementedError naming the kernel and the meta device, and copying out of a meta tensor (to
// another device, item(), tolist()) raises as PyTorch does.
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/binary.h"
#include "ember/backend/kernels/blas.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/creation.h"
#include "ember/backend/kernels/fft.h"
#include "ember/backend/kernels/histogram.h"
#include "ember/backend/kernels/index.h"
#include "ember/backend/kernels/lapack.h"
#include "ember/backend/kernels/nn/conv.h"
#include "ember/backend/kernels/nn/dropout.h"
#include "ember/backend/kernels/nn/grid_sample.h"
#include "ember/backend/kernels/nn/loss.h"
#include "ember/backend/kernels/nn/normalization.h"
#include "ember/backend/kernels/nn/padding.h"
#include "ember/backend/kernels/nn/pooling.h"
#include "ember/backend/kernels/nn/softmax.h"
#include "ember/backend/kernels/nn/spatial.h"
#include "ember/backend/kernels/optim.h"
#include "ember/backend/kernels/random.h"
#include "ember/backend/kernels/reduce.h"
#include "ember/backend/kernels/sampling.h"
#include "ember/backend/kernels/scan.h"
#include "ember/backend/kernels/search.h"
#include "ember/backend/kernels/sort.h"
#include "ember/backend/kernels/ternary.h"
#include "ember/backend/kernels/unary.h"
#include "ember/backend/kernels/unary_backward.h"
#include "ember/backend/kernels/vision.h"
#include "ember/dispatch_hook.h"

namespace ember {
namespace {

// A tensor argument of a kernel, read or written.
template <class A, class V>
const Tensor* any_tensor_arg(const V& a) {
  if constexpr (std::is_same_v<A, const Tensor&> || std::is_same_v<A, Tensor&>)
    return &a;
  else
    return nullptr;
}

// The kernel that computes nothing, of the slot's own signature; it refuses a wrapper subclass's tensors (Note
// [Wrapper subclass safety] in ember/dispatch_hook.h).
template <auto& Slot, class... A>
constexpr auto nothing(const KernelSlot<void(A...)>&) -> void (*)(A...) {
  return [](A... a) { dispatch::check_no_wrapper(Slot.name, any_tensor_arg<A>(a)...); };
}

}  // namespace

#define EMBER_META_KERNEL(name) EMBER_REGISTER_KERNEL(name, Meta, nothing<name##_kernel>(name##_kernel))

// Elementwise families, copies and fills.
EMBER_META_KERNEL(unary)
EMBER_META_KERNEL(unary_backward)
EMBER_META_KERNEL(binary)
EMBER_META_KERNEL(ternary)
EMBER_META_KERNEL(copy)
EMBER_META_KERNEL(fill)
EMBER_META_KERNEL(triangle)
EMBER_META_KERNEL(arange)
EMBER_META_KERNEL(linspace)
// Products, reductions, scans, sorting and searching.
EMBER_META_KERNEL(matmul)
EMBER_META_KERNEL(reduce)
EMBER_META_KERNEL(reduce_with_index)
EMBER_META_KERNEL(scan)
EMBER_META_KERNEL(sort)
EMBER_META_KERNEL(topk)
EMBER_META_KERNEL(slice_select)
EMBER_META_KERNEL(searchsorted)
EMBER_META_KERNEL(histc)
// Spectral transforms (ember.fft, stft).
EMBER_META_KERNEL(fft_c2c)
EMBER_META_KERNEL(fft_r2c)
EMBER_META_KERNEL(fft_c2r)
// Indexing: the bounds checks live in the kernels, so meta indices are not checked (as in PyTorch).
EMBER_META_KERNEL(index_gather)
EMBER_META_KERNEL(index_scatter)
EMBER_META_KERNEL(index_offsets)
// Random numbers and samplers.
EMBER_META_KERNEL(uniform)
EMBER_META_KERNEL(normal)
EMBER_META_KERNEL(random_int)
EMBER_META_KERNEL(bernoulli)
EMBER_META_KERNEL(sample)
EMBER_META_KERNEL(standard_gamma_grad)
// torch.nn's ops.
EMBER_META_KERNEL(conv_forward)
EMBER_META_KERNEL(conv_backward)
EMBER_META_KERNEL(max_pool)
EMBER_META_KERNEL(avg_pool)
EMBER_META_KERNEL(avg_pool_backward)
EMBER_META_KERNEL(softmax)
EMBER_META_KERNEL(layer_norm)
EMBER_META_KERNEL(layer_norm_backward)
EMBER_META_KERNEL(channel_moments)
EMBER_META_KERNEL(channel_coefficients)
EMBER_META_KERNEL(channel_affine)
EMBER_META_KERNEL(dropout)
EMBER_META_KERNEL(dropout_backward)
EMBER_META_KERNEL(cross_entropy_logits)
EMBER_META_KERNEL(resample)
EMBER_META_KERNEL(resample_adjoint)
EMBER_META_KERNEL(im2col)
EMBER_META_KERNEL(col2im)
EMBER_META_KERNEL(pad)
EMBER_META_KERNEL(grid_sample_2d)
// ember.vision.ops (nms keeps a data-dependent number of boxes, so it has none).
EMBER_META_KERNEL(roi_align)
EMBER_META_KERNEL(roi_align_backward)
EMBER_META_KERNEL(ps_roi_pool)
EMBER_META_KERNEL(ps_roi_pool_backward)
EMBER_META_KERNEL(roi_pool)
// Optimizers' fused steps.
EMBER_META_KERNEL(optim_step)

// LAPACK (ops/lapack.cpp, lu.cpp, matrix_functions.cpp): the ops skip their host-side reads of info and pivots for
// meta tensors (check_info, the pivot checks, lu_unpack's permutation), so their results' geometry is all there is.
EMBER_META_KERNEL(lu_factor)
EMBER_META_KERNEL(lu_solve)
EMBER_META_KERNEL(cholesky)
EMBER_META_KERNEL(triangular_solve)
EMBER_META_KERNEL(qr)
EMBER_META_KERNEL(geqrf)
EMBER_META_KERNEL(ormqr)
EMBER_META_KERNEL(svd)
EMBER_META_KERNEL(eigh)
EMBER_META_KERNEL(eig)
EMBER_META_KERNEL(lstsq)

}  // namespace ember
