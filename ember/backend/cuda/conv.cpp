// The convolution kernels on CUDA, through cuDNN's convolution API: forward, backward data (the input gradient, and
// with it every transposed convolution: Note [Convolution as three maps] in nn/functional/conv.cpp) and backward
// filter, for float32, float64, float16 and bfloat16. The bias and its gradient are ember's broadcast add and sum (as
// in PyTorch): cudnnAddTensor and cudnnConvolutionBackwardBias are deprecated in cuDNN 9, with narrower dtype support.
// Geometry mapping: Note [Convolutions on cuDNN] in conv_glue.h; algorithm choice: Note [cuDNN algorithm cache] below.
#include <cudnn.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/backend/cuda/blas_glue.h"
#include "ember/backend/cuda/conv_glue.h"
#include "ember/backend/cuda/cudnn.h"
#include "ember/backend/kernels/nn/conv.h"
#include "ember/determinism.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // the legacy convolution API (cudnn.h)

namespace ember::cuda {
namespace {

// Note [cuDNN algorithm cache]
// Each pass (forward, backward data, backward filter) of each shape picks its algorithm once: by cuDNN's heuristics
// (cudnnGetConvolution*Algorithm_v7) or, with ember.backends.cudnn.benchmark, by timing them all on the real
// operands (cudnnFindConvolution*AlgorithmEx). The first result that succeeded, is deterministic when
// ember.backends.cudnn.deterministic asks for it, and respects allow_tf32 (math_allowed) wins; its math type and
// workspace size are kept with it. The key (conv_cache_key) holds the descriptors' arrays, the dtype, the device and
// the three flags, so changing a flag picks again. Workspaces come from the caching allocator for each call.
struct AlgoChoice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

std::mutex& cache_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::map<std::vector<int64_t>, AlgoChoice>& algo_cache() {
  static auto* c = new std::map<std::vector<int64_t>, AlgoChoice>();  // leaked: outlives static destructors
  return *c;
}

cudnnMathType_t base_math(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return flags().cudnn_allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    case ScalarType::Float16:
    case ScalarType::BFloat16: return CUDNN_TENSOR_OP_MATH;
    default: return CUDNN_DEFAULT_MATH;
  }
}

// float32 without TF32: candidates that need tensor cores are out, the others run with CUDNN_FMA_MATH (cuDNN may
// report them as CUDNN_DEFAULT_MATH); otherwise a candidate runs with the math type cuDNN reported for it.
bool no_tf32(ScalarType t) { return t == ScalarType::Float32 && !flags().cudnn_allow_tf32; }
bool math_allowed(ScalarType t, cudnnMathType_t m) {
  return !(no_tf32(t) && (m == CUDNN_TENSOR_OP_MATH || m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION));
}
cudnnMathType_t math_for(ScalarType t, cudnnMathType_t reported) { return no_tf32(t) ? CUDNN_FMA_MATH : reported; }

// The op's shapes, geometry and dtype for messages, formatted only when one is raised.
struct What {
  const char* op;
  const Tensor &x, &w, &y;
  const ConvGeometry& g;
  std::string str() const {
    return detail::cat(op, ": input ", dims_str(x.sizes()), ", weight ", dims_str(w.sizes()), ", output ",
                       dims_str(y.sizes()), ", stride ", dims_str(g.stride), ", padding ", dims_str(g.pad_l), "/",
                       dims_str(g.pad_r), ", dilation ", dims_str(g.dilation), ", groups ", g.groups, ", ", y.dtype(),
                       " on ", y.device());
  }
};

// The descriptors of one cuDNN call over a chunk of `n` samples.
struct ConvCall {
  const What& what;
  int dev;
  ScalarType st;
  cudnnDataType_t dt;
  cudnnHandle_t h;
  ConvPlan plan;
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;

  ConvCall(const What& what_, int dev_, ScalarType st_, const ConvPlan& p, int64_t n)
      : what(what_), dev(dev_), st(st_), dt(cudnn_dtype(st_, what_.op)), h(cudnn_handle(dev_)), plan(p) {
    plan.x_dims[0] = plan.y_dims[0] = static_cast<int>(n);
    x.set(dt, plan.x_dims, plan.x_strides);
    y.set(dt, plan.y_dims, plan.y_strides);
    w.set(dt, plan.w_dims);
    conv.set(plan.pad, plan.stride, plan.dilation, plan.groups,
             st_ == ScalarType::Float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, base_math(st_));
  }
};

// Scaling factors: double for double data, float otherwise (cuDNN's rule).
struct Scale {
  double d;
  float f;
  explicit Scale(double v) : d(v), f(static_cast<float>(v)) {}
  const void* of(ScalarType t) const { return t == ScalarType::Float64 ? static_cast<const void*>(&d) : &f; }
};

// The three passes as one interface: x, w, y are the input, the weight and the output (or their gradients).
template <ConvPass P>
struct Pass;
template <>
struct Pass<ConvPass::Forward> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr const char* kName = "forward";
  static cudnnStatus_t heuristics(ConvCall& c, int n, int* got, Perf* r) {
    return cudnnGetConvolutionForwardAlgorithm_v7(c.h, c.x.get(), c.w.get(), c.conv.get(), c.y.get(), n, got, r);
  }
  static cudnnStatus_t find(ConvCall& c, void* x, void* w, void* y, int n, int* got, Perf* r, void* ws, size_t wss) {
    return cudnnFindConvolutionForwardAlgorithmEx(c.h, c.x.get(), x, c.w.get(), w, c.conv.get(), c.y.get(), y, n, got,
                                                  r, ws, wss);
  }
  static cudnnStatus_t ws_size(ConvCall& c, int a, size_t* s) {
    return cudnnGetConvolutionForwardWorkspaceSize(c.h, c.x.get(), c.w.get(), c.conv.get(), c.y.get(),
                                                   static_cast<Algo>(a), s);
  }
  static cudnnStatus_t run(ConvCall& c, int a, void* x, void* w, void* y, void* ws, size_t wss, double beta) {
    const Scale one(1.0), b(beta);
    return cudnnConvolutionForward(c.h, one.of(c.st), c.x.get(), x, c.w.get(), w, c.conv.get(), static_cast<Algo>(a),
                                   ws, wss, b.of(c.st), c.y.get(), y);
  }
};
template <>
struct Pass<ConvPass::BackwardData> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr const char* kName = "backward data";
  static cudnnStatus_t heuristics(ConvCall& c, int n, int* got, Perf* r) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(c.h, c.w.get(), c.y.get(), c.conv.get(), c.x.get(), n, got, r);
  }
  static cudnnStatus_t find(ConvCall& c, void* x, void* w, void* y, int n, int* got, Perf* r, void* ws, size_t wss) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(c.h, c.w.get(), w, c.y.get(), y, c.conv.get(), c.x.get(), x, n,
                                                       got, r, ws, wss);
  }
  static cudnnStatus_t ws_size(ConvCall& c, int a, size_t* s) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(c.h, c.w.get(), c.y.get(), c.conv.get(), c.x.get(),
                                                        static_cast<Algo>(a), s);
  }
  static cudnnStatus_t run(ConvCall& c, int a, void* x, void* w, void* y, void* ws, size_t wss, double beta) {
    const Scale one(1.0), b(beta);
    return cudnnConvolutionBackwardData(c.h, one.of(c.st), c.w.get(), w, c.y.get(), y, c.conv.get(),
                                        static_cast<Algo>(a), ws, wss, b.of(c.st), c.x.get(), x);
  }
};
template <>
struct Pass<ConvPass::BackwardFilter> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr const char* kName = "backward filter";
  static cudnnStatus_t heuristics(ConvCall& c, int n, int* got, Perf* r) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.h, c.x.get(), c.y.get(), c.conv.get(), c.w.get(), n, got, r);
  }
  static cudnnStatus_t find(ConvCall& c, void* x, void* w, void* y, int n, int* got, Perf* r, void* ws, size_t wss) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(c.h, c.x.get(), x, c.y.get(), y, c.conv.get(), c.w.get(), w, n,
                                                         got, r, ws, wss);
  }
  static cudnnStatus_t ws_size(ConvCall& c, int a, size_t* s) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(c.h, c.x.get(), c.y.get(), c.conv.get(), c.w.get(),
                                                          static_cast<Algo>(a), s);
  }
  static cudnnStatus_t run(ConvCall& c, int a, void* x, void* w, void* y, void* ws, size_t wss, double beta) {
    const Scale one(1.0), b(beta);
    return cudnnConvolutionBackwardFilter(c.h, one.of(c.st), c.x.get(), x, c.y.get(), y, c.conv.get(),
                                          static_cast<Algo>(a), ws, wss, b.of(c.st), c.w.get(), w);
  }
};

// The algorithm for pass P of call c (x, w, y: real operands, which benchmarking may overwrite where they are
// the pass's output).
template <ConvPass P>
AlgoChoice choose(ConvCall& c, void* x, void* w, void* y) {
  using T = Pass<P>;
  Flags f = flags();
  // torch.use_deterministic_algorithms(True) asks cuDNN for deterministic algorithms too, as in PyTorch.
  f.cudnn_deterministic = f.cudnn_deterministic || deterministic_algorithms();
  const std::vector<int64_t> key = conv_cache_key(c.plan, P, static_cast<int>(c.st), c.dev, f.cudnn_deterministic,
                                                  f.cudnn_allow_tf32, f.cudnn_benchmark);
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = algo_cache().find(key);
    if (it != algo_cache().end()) return it->second;
  }
  typename T::Perf perf[T::kCount];
  int got = 0;
  if (f.cudnn_benchmark) {
    // A workspace as large as the hungriest algorithm that fits in the device's free memory (PyTorch caps it
    // likewise): asking for more would make the allocator empty its cache and retry before failing, and leave
    // every later iteration to cudaMalloc again. Less only rules out the hungriest algorithms (FFT ones, GiBs).
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      free_bytes = 0;
    }
    const size_t limit = free_bytes / 10 * 9;
    size_t max_ws = 0;
    for (int a = 0; a < T::kCount; ++a) {
      size_t s = 0;
      if (T::ws_size(c, a, &s) == CUDNN_STATUS_SUCCESS && s <= limit) max_ws = std::max(max_ws, s);
    }
    Workspace ws;
    try {
      ws = Workspace(c.dev, max_ws);
    } catch (const OutOfMemoryError&) {
      ws = Workspace();
    }
    // The weight gradient accumulates over batch chunks: timing must not overwrite what earlier chunks summed.
    Workspace scratch;
    if constexpr (P == ConvPass::BackwardFilter) {
      int64_t n = 1;
      for (int d : c.plan.w_dims) n *= d;
      scratch = Workspace(c.dev, static_cast<size_t>(n) * element_size(c.st));
      w = scratch.get();
    }
    EMBER_CUDNN_CHECK(T::find(c, x, w, y, T::kCount, &got, perf, ws.get(), ws.size()), c.what.str(), " (", T::kName,
                      " benchmark)");
  } else {
    EMBER_CUDNN_CHECK(T::heuristics(c, T::kCount, &got, perf), c.what.str(), " (", T::kName, " heuristics)");
  }
  for (int i = 0; i < got; ++i) {
    const auto& r = perf[i];
    if (r.status != CUDNN_STATUS_SUCCESS) continue;
    if (f.cudnn_deterministic && r.determinism != CUDNN_DETERMINISTIC) continue;
    if (!math_allowed(c.st, r.mathType)) continue;
    const cudnnMathType_t math = math_for(c.st, r.mathType);
    c.conv.set_math(math);
    size_t s = 0;
    if (T::ws_size(c, r.algo, &s) != CUDNN_STATUS_SUCCESS) continue;
    const AlgoChoice choice{static_cast<int>(r.algo), math, std::max(s, r.memory)};
    std::lock_guard<std::mutex> lock(cache_mutex());
    algo_cache()[key] = choice;
    return choice;
  }
  fail<Error>(c.what.str(), ": cuDNN has no ", T::kName, " algorithm for this convolution",
              f.cudnn_deterministic
                  ? " that is deterministic (ember.backends.cudnn.deterministic or use_deterministic_algorithms is on)"
                  : "",
              c.st == ScalarType::Float32 && !f.cudnn_allow_tf32 ? " without TF32" : "");
}

template <ConvPass P>
void run_pass(ConvCall& c, void* x, void* w, void* y, double beta) {
  const AlgoChoice a = choose<P>(c, x, w, y);
  c.conv.set_math(a.math);
  Workspace ws(c.dev, a.workspace);
  EMBER_CUDNN_CHECK(Pass<P>::run(c, a.algo, x, w, y, ws.get(), ws.size(), beta), c.what.str(), " (", Pass<P>::kName,
                    ", algorithm ", a.algo, ")");
}

void check_enabled(const char* op) {
  EMBER_CHECK_T(NotImplementedError, flags().cudnn_enabled, op,
                ": CUDA convolutions run on cuDNN, which ember.backends.cudnn.enabled = False turns off (ember has no "
                "other CUDA convolution); enable cuDNN or run the convolution on the CPU");
}

// Plans the convolution and checks that cuDNN's output shape is ember's.
ConvPlan make_plan(const What& what, IntArrayRef xs, IntArrayRef ws, IntArrayRef ys, const ConvGeometry& g) {
  ConvPlan p;
  std::string why;
  EMBER_CHECK(plan_conv(xs, ws, ys, g, p, &why), what.str(), ": cuDNN cannot run this convolution: ", why);
  for (size_t i = 0; i < g.dims(); ++i)
    EMBER_CHECK(cudnn_out_size(p.padded_sizes[2 + i], ws[2 + i], std::min(g.pad_l[i], g.pad_r[i]), g.stride[i],
                               g.dilation[i]) == ys[2 + i],
                what.str(), ": internal error: cuDNN's output size differs in spatial dim ", i);
  return p;
}

// The padded input's inner region, where the unpadded input goes (Note [Convolutions on cuDNN]).
Tensor inner_region(const Tensor& padded, IntArrayRef in_sizes, const ConvPlan& p) {
  int64_t off = 0;
  for (size_t i = 0; i < p.extra_l.size(); ++i) off += p.extra_l[i] * padded.strides()[2 + i];
  return make_view(padded, in_sizes, padded.strides(), padded.storage_offset() + off);
}

Tensor pad_input(const Tensor& x, const ConvPlan& p) {
  Tensor padded = zeros(p.padded_sizes, TensorOptions(x.dtype()).device(x.device()));
  copy_into(inner_region(padded, x.sizes(), p), x);
  return padded;
}

// f(call, first sample) over the batch in chunks of plan.batch_chunk samples (the last one possibly shorter).
template <class F>
void for_chunks(const What& what, int dev, ScalarType st, const ConvPlan& p, F f) {
  std::unique_ptr<ConvCall> call;
  for (int64_t n0 = 0; n0 < p.batch; n0 += p.batch_chunk) {
    const int64_t n = std::min(p.batch_chunk, p.batch - n0);
    if (!call || call->plan.x_dims[0] != n) call = std::make_unique<ConvCall>(what, dev, st, p, n);
    f(*call, n0);
  }
}

int64_t per_sample(const std::vector<int>& dims) {
  int64_t n = 1;
  for (size_t i = 1; i < dims.size(); ++i) n *= dims[i];
  return n;
}

char* at(const Tensor& t, int64_t elements) { return static_cast<char*>(t.data_ptr()) + elements * t.element_size(); }

void conv_forward_cuda(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                       const ConvGeometry& g) {
  const char* op = "conv_forward";
  check_enabled(op);
  const What what{op, input, weight, out, g};
  EMBER_CHECK(
      input.dtype() == out.dtype() && weight.dtype() == out.dtype() && (!bias.defined() || bias.dtype() == out.dtype()),
      what.str(), ": operands of one dtype expected, got input ", input.dtype(), " and weight ", weight.dtype());
  const int dev = device_index(out.device());
  DeviceGuard guard(dev);
  const ConvPlan p = make_plan(what, input.sizes(), weight.sizes(), out.sizes(), g);
  const Tensor x = p.explicit_pad ? pad_input(input, p) : input;
  const int64_t xs = per_sample(p.x_dims), ys = per_sample(p.y_dims);
  for_chunks(what, dev, out.dtype(), p, [&](ConvCall& c, int64_t n0) {
    run_pass<ConvPass::Forward>(c, at(x, n0 * xs), weight.data_ptr(), at(out, n0 * ys), 0.0);
  });
  if (bias.defined()) {
    autograd::NoGradGuard no_grad;
    DimVector shape(out.dim(), 1);
    shape[1] = out.sizes()[1];
    binary_op(BinaryOp::Add, out, reshape(bias, shape), out);
  }
}

void conv_backward_cuda(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                        const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g) {
  const char* op = "conv_backward";
  check_enabled(op);
  const Tensor& w_like = weight.defined() ? weight : grad_weight;
  const Tensor& x_like = input.defined() ? input : grad_input;
  const What what{op, x_like, w_like, grad_out, g};
  const int dev = device_index(grad_out.device());
  DeviceGuard guard(dev);
  const ConvPlan p = make_plan(what, x_like.sizes(), w_like.sizes(), grad_out.sizes(), g);
  const int64_t xs = per_sample(p.x_dims), ys = per_sample(p.y_dims);
  const ScalarType st = grad_out.dtype();
  if (grad_input.defined()) {
    EMBER_CHECK(weight.defined() && weight.dtype() == st && grad_input.dtype() == st, what.str(),
                ": the input gradient needs the weight, of grad_out's dtype");
    const Tensor gx = p.explicit_pad ? empty(p.padded_sizes, TensorOptions(st).device(grad_out.device())) : grad_input;
    for_chunks(what, dev, st, p, [&](ConvCall& c, int64_t n0) {
      run_pass<ConvPass::BackwardData>(c, at(gx, n0 * xs), weight.data_ptr(), at(grad_out, n0 * ys), 0.0);
    });
    if (p.explicit_pad) copy_into(grad_input, inner_region(gx, grad_input.sizes(), p));
  }
  if (grad_weight.defined()) {
    EMBER_CHECK(input.defined() && input.dtype() == st && grad_weight.dtype() == st, what.str(),
                ": the weight gradient needs the input, of grad_out's dtype");
    const Tensor x = p.explicit_pad ? pad_input(input, p) : input;
    for_chunks(what, dev, st, p, [&](ConvCall& c, int64_t n0) {  // chunks after the first accumulate
      run_pass<ConvPass::BackwardFilter>(c, at(x, n0 * xs), grad_weight.data_ptr(), at(grad_out, n0 * ys),
                                         n0 ? 1.0 : 0.0);
    });
  }
  if (grad_bias.defined()) {  // the sum over every dim but the channels (float32 accumulation for 16-bit types)
    autograd::NoGradGuard no_grad;
    DimVector dims{0};
    for (int64_t d = 2; d < grad_out.dim(); ++d) dims.push_back(d);
    copy_into(grad_bias, sum(grad_out, dims));
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(conv_forward, CUDA, conv_forward_cuda)
EMBER_REGISTER_KERNEL(conv_backward, CUDA, conv_backward_cuda)

}  // namespace ember::cuda
