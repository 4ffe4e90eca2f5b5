// The fused recurrent layers on CUDA (Note [Fused RNNs] in nn/functional/rnn.cpp) through cuDNN's RNN API: the "_v8"
// API that cuDNN 9 keeps (cudnnSetRNNDescriptor_v8, RNN data descriptors, cudnnRNNForward, cudnnRNNBackwardData_v8,
// cudnnRNNBackwardWeights_v8). Where PyTorch's parameters live in cuDNN's flat weight space: Note [cuDNN RNN weights]
// in rnn_glue.h.
#include <cudnn.h>

#include <map>
#include <mutex>
#include <string>

#include "ember/backend/cuda/blas_glue.h"
#include "ember/backend/cuda/cudnn.h"
#include "ember/backend/cuda/rnn_glue.h"
#include "ember/backend/kernels/nn/rnn.h"
#include "ember/generator.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // the legacy tensor descriptors (cudnn.h)

namespace ember::cuda {

static_assert(static_cast<int>(CellMode::Relu) == CUDNN_RNN_RELU &&
              static_cast<int>(CellMode::Tanh) == CUDNN_RNN_TANH && static_cast<int>(CellMode::LSTM) == CUDNN_LSTM &&
              static_cast<int>(CellMode::GRU) == CUDNN_GRU);
static_assert(static_cast<int>(MathType::Default) == CUDNN_DEFAULT_MATH &&
              static_cast<int>(MathType::TensorOp) == CUDNN_TENSOR_OP_MATH &&
              static_cast<int>(MathType::TensorOpAllowConversion) == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION &&
              static_cast<int>(MathType::Fma) == CUDNN_FMA_MATH);

namespace {

// The call's configuration for messages, formatted only when one is raised.
std::string what(const RNNFusedArgs& a, ScalarType st, int dev, const char* pass) {
  const char* mode = a.mode == RNNMode::Tanh   ? "RNN_TANH"
                     : a.mode == RNNMode::Relu ? "RNN_RELU"
                     : a.mode == RNNMode::LSTM ? "LSTM"
                                               : "GRU";
  return detail::cat(mode, " (cuDNN ", pass, "): input_size ", a.input_size, ", hidden_size ", a.hidden, ", proj_size ",
                     a.proj_size, ", num_layers ", a.num_layers, a.bidirectional ? ", bidirectional" : "",
                     a.bias ? "" : ", no bias", ", steps ", a.steps, ", batch ", a.batch,
                     a.seq_lengths.empty() ? "" : " (packed)", ", dropout ", a.dropout, ", ", st, " on cuda:", dev);
}

// Owning cuDNN descriptors of the RNN API.
#define EMBER_CUDNN_DESC(Name, T, create, destroy)               \
  struct Name {                                                  \
    T d = nullptr;                                               \
    Name() { EMBER_CUDNN_CHECK(create(&d), "cuDNN: " #create); } \
    ~Name() {                                                    \
      if (d) destroy(d);                                         \
    }                                                            \
    Name(const Name&) = delete;                                  \
    Name& operator=(const Name&) = delete;                       \
  };
EMBER_CUDNN_DESC(RNNDesc, cudnnRNNDescriptor_t, cudnnCreateRNNDescriptor, cudnnDestroyRNNDescriptor)
EMBER_CUDNN_DESC(RNNDataDesc, cudnnRNNDataDescriptor_t, cudnnCreateRNNDataDescriptor, cudnnDestroyRNNDataDescriptor)
EMBER_CUDNN_DESC(DropoutDesc, cudnnDropoutDescriptor_t, cudnnCreateDropoutDescriptor, cudnnDestroyDropoutDescriptor)
#undef EMBER_CUDNN_DESC

// Note [cuDNN dropout state]
// cuDNN's dropout draws from a generator state in device memory that cudnnSetDropoutDescriptor initialises from a
// seed (a kernel over several MB, too costly for every call) and every training forward advances. Each device keeps
// one. A forward with dropout takes one draw from the device's ember generator (ember/nn/functional/rnn.cpp) and
// passes where that draw stands (seed, offset): while the generator moves forward, the state is reused
// (cudnnRestoreDropoutDescriptor, no kernel, with the call's probability); when the generator was reseeded or set
// back (manual_seed, set_rng_state), the state is initialised again from a seed mixed from (seed, offset), so that a
// program rerun after manual_seed draws the same masks. Like PyTorch's, the state is shared by the device's
// streams: dropout RNNs running concurrently on two streams draw from it unordered. The backward reads the masks
// from the forward's reserve space and only restores the state.
struct DropoutState {
  Tensor states;
  uint64_t seed = 0, offset = 0;
};
std::mutex& dropout_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::map<int, DropoutState>& dropout_states() {
  static auto* s = new std::map<int, DropoutState>();  // leaked: outlives static destructors
  return *s;
}

uint64_t mix_seed(uint64_t seed, uint64_t offset) {
  uint64_t z = seed ^ (offset + 0x9E3779B97F4A7C15ull + (seed << 6) + (seed >> 2));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void set_dropout(DropoutDesc& dd, cudnnHandle_t h, int dev, const RNNFusedArgs& a, ScalarType st, bool forward) {
  if (a.dropout <= 0) {
    EMBER_CUDNN_CHECK(cudnnSetDropoutDescriptor(dd.d, h, 0.0f, nullptr, 0, 0), what(a, st, dev, "dropout"));
    return;
  }
  size_t bytes = 0;
  EMBER_CUDNN_CHECK(cudnnDropoutGetStatesSize(h, &bytes), what(a, st, dev, "dropout state size"));
  std::lock_guard<std::mutex> lock(dropout_mutex());
  DropoutState& s = dropout_states()[dev];
  const float p = static_cast<float>(a.dropout);
  const bool fresh = !s.states.defined() || s.states.nbytes() < bytes ||
                     (forward && (s.seed != a.dropout_seed || a.dropout_offset <= s.offset));
  if (fresh) {
    s.states = empty({{static_cast<int64_t>(bytes)}},
                     TensorOptions(ScalarType::UInt8).device(Device(DeviceType::CUDA, dev)));
    EMBER_CUDNN_CHECK(
        cudnnSetDropoutDescriptor(dd.d, h, p, s.states.data_ptr(), bytes, mix_seed(a.dropout_seed, a.dropout_offset)),
        what(a, st, dev, "dropout state"));
  } else {
    // The seed argument only matters to initialisation, which restoring skips.
    EMBER_CUDNN_CHECK(cudnnRestoreDropoutDescriptor(dd.d, h, p, s.states.data_ptr(), bytes, 0),
                      what(a, st, dev, "dropout state"));
  }
  if (forward) {
    s.seed = a.dropout_seed;
    s.offset = a.dropout_offset;
  }
}

// The descriptors and space sizes of one configuration (forward and backward build the same).
struct RNNCall {
  const RNNFusedArgs& a;
  ScalarType st;
  int dev;
  cudnnDataType_t dt;
  cudnnHandle_t h;
  RNNMath math;
  DropoutDesc drop;
  RNNDesc rnn;
  RNNDataDesc x, y;
  TensorDesc hd, cd;
  Tensor lengths;  // int32 on the device: cuDNN's devSeqLengths
  size_t weight_bytes = 0, work_bytes = 0, reserve_bytes = 0;

  RNNCall(const RNNFusedArgs& a_, ScalarType st_, int dev_, const char* pass, bool forward)
      : a(a_), st(st_), dev(dev_), dt(cudnn_dtype(st_, "rnn")), h(cudnn_handle(dev_)),
        math(rnn_math(st_, flags().cudnn_allow_tf32)) {
    std::string why;
    EMBER_CHECK(rnn_fused_supported(a, st, &why), what(a, st, dev, pass), ": not supported by cuDNN (", why, ")");
    set_dropout(drop, h, dev, a, st, forward);
    const int P = static_cast<int>(a.out_size()), H = static_cast<int>(a.hidden);
    const int groups = static_cast<int>(a.num_layers * a.dirs()), B = static_cast<int>(a.batch);
    EMBER_CUDNN_CHECK(
        cudnnSetRNNDescriptor_v8(rnn.d, CUDNN_RNN_ALGO_STANDARD, static_cast<cudnnRNNMode_t>(cell_mode(a.mode)),
                                 a.bias ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_NO_BIAS,
                                 a.bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt,
                                 cudnn_dtype(math.compute, "rnn"), static_cast<cudnnMathType_t>(math.math),
                                 static_cast<int32_t>(a.input_size), H, P, static_cast<int32_t>(a.num_layers), drop.d,
                                 CUDNN_RNN_PADDED_IO_DISABLED),
        what(a, st, dev, pass), " (RNN descriptor)");
    // Padded data is packed data whose sequences all run `steps` long (the same memory layout).
    const std::vector<int> len = rnn_data_lengths(a);
    EMBER_CUDNN_CHECK(
        cudnnSetRNNDataDescriptor(x.d, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, static_cast<int>(a.steps), B,
                                  static_cast<int>(a.input_size), len.data(), nullptr),
        what(a, st, dev, pass), " (input data descriptor)");
    EMBER_CUDNN_CHECK(
        cudnnSetRNNDataDescriptor(y.d, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, static_cast<int>(a.steps), B,
                                  static_cast<int>(a.dirs()) * P, len.data(), nullptr),
        what(a, st, dev, pass), " (output data descriptor)");
    hd.set(dt, {groups, B, P}, {B * P, P, 1});
    cd.set(dt, {groups, B, H}, {B * H, H, 1});
    EMBER_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(h, rnn.d, &weight_bytes), what(a, st, dev, pass),
                      " (weight space size)");
    const cudnnForwardMode_t mode = a.training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE;
    EMBER_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(h, rnn.d, mode, x.d, &work_bytes, &reserve_bytes),
                      what(a, st, dev, pass), " (temporary space sizes)");
    EMBER_CHECK(weight_bytes % element_size(st) == 0, what(a, st, dev, pass),
                ": internal error: cuDNN's weight space (", weight_bytes, " bytes) is not a whole number of elements");
    lengths = from_blob_copy(len.data(), ScalarType::Int32, {{a.batch}},
                             TensorOptions(ScalarType::Int32).device(Device(DeviceType::CUDA, dev)));
  }
  const int32_t* dev_lengths() const { return static_cast<const int32_t*>(lengths.data_ptr()); }
  int64_t weight_numel() const { return static_cast<int64_t>(weight_bytes / element_size(st)); }
};

// The weight space's size and the element offset of every chunk of rnn_param_chunks in it. The layout depends on the
// configuration alone, so it is cached under rnn_weight_key; cuDNN locates the pieces from a base address, which a
// scratch buffer of the weight space's size provides on a cache miss.
std::mutex& layout_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::map<std::vector<int64_t>, RNNWeightLayout>& layout_cache() {
  static auto* c = new std::map<std::vector<int64_t>, RNNWeightLayout>();  // leaked, as the other caches
  return *c;
}

// The cached layout under `key`, or null.
const RNNWeightLayout* cached_layout(const std::vector<int64_t>& key) {
  std::lock_guard<std::mutex> lock(layout_mutex());
  auto it = layout_cache().find(key);
  return it == layout_cache().end() ? nullptr : &it->second;  // std::map nodes stay put
}

const RNNWeightLayout& weight_layout(RNNCall& c) {
  const std::vector<int64_t> key = rnn_weight_key(c.a, c.st, c.math.math, c.dev);
  if (const RNNWeightLayout* l = cached_layout(key)) return *l;
  const std::vector<RNNParamChunk> chunks = rnn_param_chunks(c.a);
  const Tensor scratch = empty({{static_cast<int64_t>(c.weight_bytes)}},
                               TensorOptions(ScalarType::UInt8).device(Device(DeviceType::CUDA, c.dev)));
  void* base = scratch.data_ptr();
  const int64_t es = static_cast<int64_t>(element_size(c.st));
  TensorDesc m, b;
  std::vector<int64_t> offsets;
  offsets.reserve(chunks.size());
  for (const RNNParamChunk& ch : chunks) {
    void* m_addr = nullptr;
    void* b_addr = nullptr;
    EMBER_CUDNN_CHECK(cudnnGetRNNWeightParams(c.h, c.rnn.d, ch.pseudo_layer, c.weight_bytes, base, ch.lin_id, m.get(),
                                              &m_addr, b.get(), &b_addr),
                      what(c.a, c.st, c.dev, "weight layout"), " (pseudo-layer ", ch.pseudo_layer, ", linear layer ",
                      ch.lin_id, ")");
    void* addr = ch.bias ? b_addr : m_addr;
    auto where = [&] {
      return detail::cat(what(c.a, c.st, c.dev, "weight layout"), ": internal error: parameter ", ch.param, " rows ",
                         ch.row0, "..", ch.row0 + ch.rows, ": cuDNN's ", ch.bias ? "bias" : "matrix",
                         " of pseudo-layer ", ch.pseudo_layer, ", linear layer ", ch.lin_id);
    };
    EMBER_CHECK(addr != nullptr, where(), " is not in the weight space");
    // Its size must be the chunk's (a wrong gate mapping would mostly show here first).
    cudnnDataType_t dt;
    int nb = 0, dims[8] = {}, strides[8] = {};
    EMBER_CUDNN_CHECK(cudnnGetTensorNdDescriptor(ch.bias ? b.get() : m.get(), 8, &dt, &nb, dims, strides), where());
    int64_t n = 1;
    for (int i = 0; i < nb && i < 8; ++i) n *= dims[i];
    EMBER_CHECK(n == ch.numel(), where(), " has ", n, " elements, expected ", ch.numel());
    const int64_t bytes = static_cast<char*>(addr) - static_cast<char*>(base);
    EMBER_CHECK(bytes >= 0 && bytes % es == 0 && bytes + n * es <= static_cast<int64_t>(c.weight_bytes), where(),
                " lies at byte ", bytes, ", outside or misaligned in the ", c.weight_bytes, "-byte weight space");
    offsets.push_back(bytes / es);
  }
  std::lock_guard<std::mutex> lock(layout_mutex());
  return layout_cache().try_emplace(key, RNNWeightLayout{c.weight_numel(), std::move(offsets)}).first->second;
}

const void* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
void* mut_ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

void check_operands(const RNNFusedArgs& a, ScalarType st, int dev, const char* pass,
                    std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined())
      EMBER_CHECK(t->dtype() == st && t->is_cuda() && t->is_contiguous(), what(a, st, dev, pass),
                  ": internal error: operands must be contiguous ", st, " tensors on the device, got ", t->dtype());
}

void rnn_fused_forward_cuda(const RNNFusedArgs& a, RNNFusedForward& io) {
  const ScalarType st = io.x.dtype();
  const int dev = device_index(io.x.device());
  DeviceGuard guard(dev);
  check_operands(a, st, dev, "forward", {&io.x, &io.hx, &io.cx, &io.y, &io.hy, &io.cy});
  RNNCall c(a, st, dev, "forward", true);
  // The caller passes the parameters in cuDNN's layout (Note [Flat RNN weights] in nn/functional/rnn.cpp).
  EMBER_CHECK(io.weights.defined() && io.weights.dtype() == st && io.weights.is_cuda() && io.weights.is_contiguous() &&
                  io.weights.numel() == c.weight_numel(),
              what(a, st, dev, "forward"), ": internal error: the flat weights do not fit cuDNN's ", c.weight_numel(),
              "-element weight space");
  Workspace work(dev, c.work_bytes);
  io.reserve = a.training ? empty({{static_cast<int64_t>(c.reserve_bytes)}},
                                  TensorOptions(ScalarType::UInt8).device(io.x.device()))
                          : Tensor();
  EMBER_CUDNN_CHECK(
      cudnnRNNForward(c.h, c.rnn.d, a.training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, c.dev_lengths(),
                      c.x.d, io.x.data_ptr(), c.y.d, io.y.data_ptr(), c.hd.get(), ptr_or_null(io.hx), io.hy.data_ptr(),
                      c.cd.get(), ptr_or_null(io.cx), mut_ptr_or_null(io.cy), c.weight_bytes, io.weights.data_ptr(),
                      work.size(), work.get(), a.training ? c.reserve_bytes : 0,
                      a.training ? io.reserve.data_ptr() : nullptr),
      what(a, st, dev, "forward"));
}

void rnn_fused_backward_cuda(const RNNFusedArgs& args, RNNFusedBackward& io) {
  RNNFusedArgs a = args;
  a.training = true;
  const ScalarType st = io.y.dtype();
  const int dev = device_index(io.y.device());
  DeviceGuard guard(dev);
  check_operands(a, st, dev, "backward", {&io.x, &io.y, &io.hx, &io.cx, &io.dy, &io.dhy, &io.dcy, &io.weights});
  EMBER_CHECK(std::ranges::equal(io.dy.sizes(), io.y.sizes()), what(a, st, dev, "backward"), ": grad_output is ",
              dims_str(io.dy.sizes()), ", expected ", dims_str(io.y.sizes()));
  RNNCall c(a, st, dev, "backward", false);
  EMBER_CHECK(io.weights.numel() == c.weight_numel() && io.reserve.defined() && io.reserve.nbytes() == c.reserve_bytes,
              what(a, st, dev, "backward"), ": internal error: the forward's weights or reserve space do not match");
  io.dx = empty_like(io.x);
  io.dhx = io.hx.defined() ? empty_like(io.hx) : Tensor();
  io.dcx = io.cx.defined() ? empty_like(io.cx) : Tensor();
  Workspace work(dev, c.work_bytes);
  // Backward data first: it prepares the reserve space that backward weights reads.
  EMBER_CUDNN_CHECK(cudnnRNNBackwardData_v8(
                        c.h, c.rnn.d, c.dev_lengths(), c.y.d, io.y.data_ptr(), io.dy.data_ptr(), c.x.d,
                        io.dx.data_ptr(), c.hd.get(), ptr_or_null(io.hx), ptr_or_null(io.dhy), mut_ptr_or_null(io.dhx),
                        c.cd.get(), ptr_or_null(io.cx), ptr_or_null(io.dcy), mut_ptr_or_null(io.dcx), c.weight_bytes,
                        io.weights.data_ptr(), work.size(), work.get(), c.reserve_bytes, io.reserve.data_ptr()),
                    what(a, st, dev, "backward data"));
  io.dparams.clear();
  if (!io.need_weights) return;
  Tensor dw = zeros({{c.weight_numel()}}, TensorOptions(st).device(io.y.device()));  // CUDNN_WGRAD_MODE_ADD adds
  EMBER_CUDNN_CHECK(
      cudnnRNNBackwardWeights_v8(c.h, c.rnn.d, CUDNN_WGRAD_MODE_ADD, c.dev_lengths(), c.x.d, io.x.data_ptr(),
                                 c.hd.get(), ptr_or_null(io.hx), c.y.d, io.y.data_ptr(), c.weight_bytes, dw.data_ptr(),
                                 work.size(), work.get(), c.reserve_bytes, io.reserve.data_ptr()),
      what(a, st, dev, "backward weights"));
  // Each parameter's gradient: a view of dw where its pieces are consecutive there, else their concatenation.
  const std::vector<RNNParamChunk> chunks = rnn_param_chunks(a);
  const std::vector<DimVector> shapes = rnn_param_shapes(a);
  const std::vector<int64_t>& offsets = weight_layout(c).offsets;
  std::vector<std::vector<Tensor>> pieces(shapes.size());
  for (const RNNCopySpan& s : rnn_copy_spans(chunks, offsets))
    pieces[static_cast<size_t>(s.param)].push_back(narrow(dw, 0, s.dst, s.numel));
  for (size_t i = 0; i < shapes.size(); ++i)
    io.dparams.push_back(reshape(pieces[i].size() == 1 ? pieces[i][0] : cat(pieces[i], 0), shapes[i]));
}

// Cached after the first call per configuration: only the key is computed then (no descriptors).
void rnn_fused_layout_cuda(const RNNFusedArgs& args, ScalarType st, Device device, RNNWeightLayout& out) {
  RNNFusedArgs a = args;
  a.steps = a.batch = 1;  // the layout depends on none of these
  a.seq_lengths.clear();
  a.dropout = 0;
  a.training = false;
  const int dev = device_index(device);
  const std::vector<int64_t> key = rnn_weight_key(a, st, rnn_math(st, flags().cudnn_allow_tf32).math, dev);
  if (const RNNWeightLayout* l = cached_layout(key)) {
    out = *l;
    return;
  }
  DeviceGuard guard(dev);
  RNNCall c(a, st, dev, "weight layout", false);
  out = weight_layout(c);
}

}  // namespace

EMBER_REGISTER_KERNEL(rnn_fused_layout, CUDA, rnn_fused_layout_cuda)
EMBER_REGISTER_KERNEL(rnn_fused_forward, CUDA, rnn_fused_forward_cuda)
EMBER_REGISTER_KERNEL(rnn_fused_backward, CUDA, rnn_fused_backward_cuda)

}  // namespace ember::cuda
