// The matmul kernel on CUDA: batches of GEMMs through cublasGemmStridedBatchedEx on the current stream, with the
// transpose flags taking row- and column-major operands as they are (Note [Row-major products on cuBLAS] in
// blas_glue.h). float32 (TF32 tensor cores when ember.backends.cuda.matmul.allow_tf32), float64, float16 /
// bfloat16 with float32 accumulation, and complex64 / complex128 (cuBLAS's cgemm / zgemm through the same call).
#include <cublas_v2.h>

#include <cstring>
#include <string>

#include "ember/backend/cuda/blas_glue.h"
#include "ember/backend/cuda/cublas.h"
#include "ember/backend/kernels/blas.h"

namespace ember::cuda {

const char* cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

namespace {
struct CublasTag {};
}  // namespace

cublasHandle_t cublas_handle(int device) {
  cublasHandle_t h = thread_handle<CublasTag, cublasHandle_t>(device, [device] {
    cublasHandle_t made = nullptr;
    EMBER_CUBLAS_CHECK(cublasCreate(&made), "cuBLAS: creating a handle for cuda:", device);
    return made;
  });
  // Binding the stream resets the handle's workspace to cuBLAS's own pool; callers set theirs afterwards.
  EMBER_CUBLAS_CHECK(cublasSetStream(h, stream_of(device)), "cuBLAS: binding the current stream of cuda:", device);
  return h;
}

GemmTypes gemm_types(ScalarType t) {
  const Flags& f = flags();
  switch (t) {
    case ScalarType::Float32:
      return {CUDA_R_32F, f.allow_tf32_matmul ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false,
              CUBLAS_DEFAULT_MATH};
    case ScalarType::Float64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true, CUBLAS_DEFAULT_MATH};
    case ScalarType::ComplexFloat:
      return {CUDA_C_32F, f.allow_tf32_matmul ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false,
              CUBLAS_DEFAULT_MATH};
    case ScalarType::ComplexDouble: return {CUDA_C_64F, CUBLAS_COMPUTE_64F, true, CUBLAS_DEFAULT_MATH};
    case ScalarType::Float16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false,
              f.allow_fp16_reduced_precision_reduction
                  ? CUBLAS_DEFAULT_MATH
                  : static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)};
    case ScalarType::BFloat16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false,
              f.allow_bf16_reduced_precision_reduction
                  ? CUBLAS_DEFAULT_MATH
                  : static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)};
    default:
      // PyTorch's message for the same call on CUDA.
      fail<NotImplementedError>("\"addmm_cuda\" not implemented for '", type_label(t), "'");
  }
}

namespace {

std::string describe(const Tensor& out, const Tensor& a, const Tensor& b) {
  return detail::cat("matmul: a ", dims_str(a.sizes()), " (strides ", dims_str(a.strides()), ") @ b ",
                     dims_str(b.sizes()), " (strides ", dims_str(b.strides()), ") -> out ", dims_str(out.sizes()), ", ",
                     out.dtype(), " on ", out.device());
}

// alpha and beta as the compute type takes them (float, double, or a complex of either: `type`), passed by host
// pointer.
struct Scalars {
  cudaDataType_t type;
  alignas(16) unsigned char a[16], b[16];
  Scalars(const Scalar& alpha, const Scalar& beta, const GemmTypes& ty)
      : type(ty.data == CUDA_C_32F || ty.data == CUDA_C_64F ? ty.data
             : ty.double_scalars                            ? CUDA_R_64F
                                                            : CUDA_R_32F) {
    put(a, alpha);
    put(b, beta);
  }
  void put(unsigned char* p, const Scalar& s) const {
    auto write = [p](auto v) { std::memcpy(p, &v, sizeof v); };
    switch (type) {
      case CUDA_C_32F: return write(s.to<Complex<float>>());
      case CUDA_C_64F: return write(s.to<Complex<double>>());
      case CUDA_R_64F: return write(s.to<double>());
      default: return write(s.to<float>());
    }
  }
  const void* alpha() const { return a; }
  const void* beta() const { return b; }
};

// cuBLAS's op for an operand (Note [Row-major products on cuBLAS]): conj only where trans (plan_gemm prefers it).
cublasOperation_t cublas_op(bool trans, bool conj) {
  if (!trans) return CUBLAS_OP_N;
  return conj ? CUBLAS_OP_C : CUBLAS_OP_T;
}

void matmul_cuda(const Tensor& out, const conj_bit::Operand& a, const conj_bit::Operand& b, const Scalar& alpha,
                 const Scalar& beta) {
  if (out.numel() == 0) return;
  const GemmTypes ty = gemm_types(out.dtype());
  EMBER_CHECK(a.dtype() == out.dtype() && b.dtype() == out.dtype(), "matmul: expected one dtype, got a ", a.dtype(),
              ", b ", b.dtype(), " and out ", out.dtype());
  EMBER_CHECK(out.is_contiguous(), describe(out, a, b), ": internal error: out must be contiguous");
  const int dev = device_index(out.device());
  DeviceGuard guard(dev);
  cudaStream_t stream = stream_of(dev);
  const int64_t k = a.sizes()[a.dim() - 1];
  const Scalars sc(alpha, beta, ty);
  const bool beta_zero = beta.to<Complex<double>>() == Complex<double>(0);
  if (k == 0) {  // an empty sum: out = beta * out (beta 0 ignores out, NaN included)
    if (beta_zero) {
      EMBER_CUDA_CHECK(cudaMemsetAsync(out.data_ptr(), 0, out.nbytes(), stream));
    } else {
      cublasHandle_t h = cublas_handle(dev);
      EMBER_CUBLAS_CHECK(cublasScalEx_64(h, out.numel(), sc.beta(), sc.type, out.data_ptr(), ty.data, 1, sc.type),
                         describe(out, a, b));
    }
    return;
  }
  // Operands with the conjugate bit (Note [Conjugate operands of GEMM] in backend/cpu/blas.cpp): a column-major one
  // is CUBLAS_OP_C; a row-major one is resolved into a copy, as cuBLAS has no conjugate without transpose.
  GemmPlan p;
  std::string why;
  EMBER_CHECK(plan_gemm(out.sizes(), a.strides(), b.strides(), k, p, &why, a.is_conj(), b.is_conj()),
              describe(out, a, b), ": internal error: ", why);
  const Tensor ra = a.is_conj() && !p.trans_b ? conj_bit::resolved(a) : Tensor(a);  // same geometry, no bit
  const Tensor rb = b.is_conj() && !p.trans_a ? conj_bit::resolved(b) : Tensor(b);
  cublasHandle_t h = cublas_handle(dev);
  EMBER_CUBLAS_CHECK(cublasSetMathMode(h, ty.math), describe(out, a, b));
  Workspace ws(dev, kGemmWorkspace);
  EMBER_CUBLAS_CHECK(cublasSetWorkspace(h, ws.get(), ws.size()), describe(out, a, b));
  const size_t es = out.element_size();
  const char* A = static_cast<const char*>(rb.data_ptr());  // cuBLAS's A is ember's b (blas_glue.h)
  const char* B = static_cast<const char*>(ra.data_ptr());
  char* C = static_cast<char*>(out.data_ptr());
  for (int64_t i = 0, calls = p.calls(); i < calls; ++i) {
    int64_t oa, ob, oc;
    p.call_offsets(i, oa, ob, oc);
    EMBER_CUBLAS_CHECK(
        cublasGemmStridedBatchedEx_64(h, cublas_op(p.trans_a, rb.is_conj()), cublas_op(p.trans_b, ra.is_conj()), p.m,
                                      p.n, p.k, sc.alpha(), A + oa * es, ty.data, p.lda, p.stride_a, B + ob * es,
                                      ty.data, p.ldb, p.stride_b, sc.beta(), C + oc * es, ty.data, p.ldc, p.stride_c,
                                      p.batch, ty.compute, CUBLAS_GEMM_DEFAULT),
        describe(out, a, b));
  }
  // ws returns to the pool here while h still points at it: harmless, as every user of h takes it from
  // cublas_handle, whose cublasSetStream puts cuBLAS's own workspace back.
}

}  // namespace

EMBER_REGISTER_KERNEL(matmul, CUDA, matmul_cuda)

}  // namespace ember::cuda
