// addmm / linear with a bias vector on CUDA: one cublasLtMatmul whose epilogue adds the bias (CUBLASLT_EPILOGUE_BIAS)
// instead of a copy of the broadcast bias into out and a GEMM with beta 1 (PyTorch's addmm takes the same path).
// Declines (returns false) for dtypes or layouts cuBLASLt has no kernel for; DISABLE_ADDMM_CUDA_LT=1, PyTorch's
// switch, turns the path off.
#include <cublasLt.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>

#include "ember/backend/cuda/blas_glue.h"
#include "ember/backend/cuda/cublas.h"
#include "ember/backend/kernels/blas.h"

namespace ember::cuda {

namespace {

struct LtTag {};

cublasLtHandle_t lt_handle(int device) {
  return thread_handle<LtTag, cublasLtHandle_t>(device, [device] {
    cublasLtHandle_t made = nullptr;
    EMBER_CUBLAS_CHECK(cublasLtCreate(&made), "cuBLASLt: creating a handle for cuda:", device);
    return made;
  });
}

bool lt_disabled() {
  static const bool off = [] {
    const char* v = std::getenv("DISABLE_ADDMM_CUDA_LT");
    return v && std::strcmp(v, "1") == 0;
  }();
  return off;
}

// Owners of cuBLASLt's descriptors (destroyed when the call has been enqueued; cuBLASLt does not keep them).
struct MatmulDesc {
  cublasLtMatmulDesc_t d = nullptr;
  ~MatmulDesc() {
    if (d) cublasLtMatmulDescDestroy(d);
  }
};
struct Layout {
  cublasLtMatrixLayout_t d = nullptr;
  ~Layout() {
    if (d) cublasLtMatrixLayoutDestroy(d);
  }
};
struct Preference {
  cublasLtMatmulPreference_t d = nullptr;
  ~Preference() {
    if (d) cublasLtMatmulPreferenceDestroy(d);
  }
};

// The heuristic's choice per problem (it costs tens of microseconds of host time per query): everything the
// query sees, alignments included. Per thread, like the handle.
using AlgoKey = std::tuple<int, int, int, int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, uint32_t,
                           uint32_t, uint32_t, uint32_t>;
struct AlgoChoice {
  bool found;
  cublasLtMatmulAlgo_t algo;
};

bool matmul_bias_cuda(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, const Scalar& alpha) {
  const ScalarType dt = out.dtype();
  if (lt_disabled() || !(dt == ScalarType::Float32 || dt == ScalarType::Float16 || dt == ScalarType::BFloat16))
    return false;
  if (a.dtype() != dt || b.dtype() != dt || bias.dtype() != dt || !out.is_contiguous()) return false;
  const int64_t k = a.sizes()[1];
  GemmPlan p;
  if (k == 0 || !plan_gemm(out.sizes(), a.strides(), b.strides(), k, p) || p.batch != 1 || p.calls() != 1) return false;
  const GemmTypes ty = gemm_types(dt);
  const LtShapes sh = lt_shapes(p);
  const int dev = device_index(out.device());
  DeviceGuard guard(dev);
  const auto addr = [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); };
  const uint32_t al_a = lt_alignment(addr(b)), al_b = lt_alignment(addr(a)), al_c = lt_alignment(addr(out)),
                 al_bias = lt_alignment(addr(bias));
  const bool exact_reduction = (ty.math & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) != 0;
  const auto what = [&] {
    return detail::cat("addmm (cuBLASLt, bias epilogue): a ", dims_str(a.sizes()), " @ b ", dims_str(b.sizes()),
                       " + bias ", dims_str(bias.sizes()), ", ", dt, " on ", out.device());
  };

  MatmulDesc desc;
  EMBER_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc.d, ty.compute, CUDA_R_32F), what());
  const auto set_desc = [&](cublasLtMatmulDescAttributes_t attr, const auto& v) {
    EMBER_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.d, attr, &v, sizeof(v)), what());
  };
  set_desc(CUBLASLT_MATMUL_DESC_TRANSA, static_cast<int32_t>(p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N));
  set_desc(CUBLASLT_MATMUL_DESC_TRANSB, static_cast<int32_t>(p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N));
  set_desc(CUBLASLT_MATMUL_DESC_EPILOGUE, static_cast<uint32_t>(CUBLASLT_EPILOGUE_BIAS));
  set_desc(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, static_cast<int32_t>(ty.data));
  const void* bias_ptr = bias.data_ptr();
  set_desc(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias_ptr);  // its alignment matters to the heuristic

  Layout la, lb, lc;
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la.d, ty.data, sh.a.rows, sh.a.cols, sh.a.ld), what());
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb.d, ty.data, sh.b.rows, sh.b.cols, sh.b.ld), what());
  EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc.d, ty.data, sh.c.rows, sh.c.cols, sh.c.ld), what());

  cublasLtHandle_t lt = lt_handle(dev);
  thread_local std::map<AlgoKey, AlgoChoice> chosen;
  const AlgoKey key{dev,
                    static_cast<int>(dt),
                    static_cast<int>(ty.compute),
                    p.trans_a,
                    p.trans_b,
                    p.m,
                    p.n,
                    p.k,
                    p.lda,
                    p.ldb,
                    p.ldc,
                    al_a,
                    al_b,
                    al_c,
                    al_bias * 2 + exact_reduction};
  auto it = chosen.find(key);
  if (it == chosen.end()) {
    Preference pref;
    EMBER_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref.d), what());
    const auto set_pref = [&](cublasLtMatmulPreferenceAttributes_t attr, const auto& v) {
      EMBER_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.d, attr, &v, sizeof(v)), what());
    };
    set_pref(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, static_cast<uint64_t>(kGemmWorkspace));
    set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, al_a);
    set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, al_b);
    set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, al_c);
    set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, al_c);
    // Split-K partial sums of 16-bit types reduced in float32 only, unless the backends flag allows 16-bit ones.
    if (exact_reduction)
      set_pref(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
               static_cast<uint32_t>(CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE));
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, desc.d, la.d, lb.d, lc.d, lc.d, pref.d, 1, &result,
                                                             &returned);
    AlgoChoice c{};
    c.found = st == CUBLAS_STATUS_SUCCESS && returned > 0 && result.state == CUBLAS_STATUS_SUCCESS;
    if (c.found) c.algo = result.algo;
    it = chosen.emplace(key, c).first;
  }
  if (!it->second.found) return false;  // no kernel for this case: the caller's plain GEMM runs instead

  const float alpha_f = alpha.to<float>(), beta_f = 0.0f;
  Workspace ws(dev, kGemmWorkspace);
  EMBER_CUBLAS_CHECK(
      cublasLtMatmul(lt, desc.d, &alpha_f, b.data_ptr(), la.d, a.data_ptr(), lb.d, &beta_f, out.data_ptr(), lc.d,
                     out.data_ptr(), lc.d, &it->second.algo, ws.get(), ws.size(), stream_of(dev)),
      what());
  return true;
}

}  // namespace

EMBER_REGISTER_KERNEL(matmul_bias, CUDA, matmul_bias_cuda)

}  // namespace ember::cuda
