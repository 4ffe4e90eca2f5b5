// Note [Fused RNNs]
// On a device with a fused RNN kernel (CUDA: cuDNN, backend/cuda/rnn.cpp), with cuDNN enabled and a configuration
// it takes (rnn_fused_supported: float32, float16 or float64, no empty dims), the whole stack of layers runs in one
// call, as PyTorch's _cudnn_rnn; otherwise the time loop below runs it step by step with ember ops (bfloat16, the
// CPU, cuDNN disabled). The fused path records one node, CudnnRnnBackward0, whose backward runs cuDNN's backward
// data and backward weights passes with what the forward kept (the flattened weights and cuDNN's reserve space).
// - The kernel reads the parameters from one buffer in its own layout (Note [Flat RNN weights]); the weight
//   gradients are views of one flat gradient buffer.
// - A forward that records (some input requires grad) runs in cuDNN's training mode even when the module is in eval
//   mode (PyTorch raises on backward through an eval-mode cuDNN RNN instead); `train` only decides dropout.
// - Dropout between layers uses cuDNN's generator, whose state follows the device generator (manual_seed makes
//   runs repeat; Note [cuDNN dropout state] in backend/cuda/rnn.cpp): the masks differ from the loop's (and the
//   CPU's).
// - The backward is not differentiable: with create_graph it records a node that raises NotImplementedError when a
//   second derivative reaches it (as PyTorch's). The loop path has derivatives of every order: ember.backends.cudnn
//   .enabled = False selects it.
#include "ember/nn/functional/rnn.h"

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/rnn.h"
#include "ember/cuda.h"
#include "ember/nn/functional/detail/rnn_layer.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/linalg.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

const char* mode_name(RNNMode m) { return m == RNNMode::LSTM ? "LSTM" : m == RNNMode::GRU ? "GRU" : "RNN"; }

int64_t gate_count(RNNMode m) { return m == RNNMode::LSTM ? 4 : m == RNNMode::GRU ? 3 : 1; }

// One time step. gi = x W_ih^T + b_ih (+ b_hh, folded in except for GRU, whose candidate gate multiplies the
// recurrent term by r before adding). Returns (h', c').
// w_hh_t (and the LSTM projection w_hr_t, when defined) are transposed once per layer, so that the steps' weight
// gradients add up in one graph node (a transpose per step would accumulate each step's gradient into .grad
// through a strided copy).
std::pair<Tensor, Tensor> step(RNNMode mode, const Tensor& gi, const Tensor& h, const Tensor& c, const Tensor& w_hh_t,
                               const Tensor& b_hh, const Tensor& w_hr_t = {}) {
  switch (mode) {
    case RNNMode::Tanh: return {tanh(addmm(gi, h, w_hh_t)), {}};
    case RNNMode::Relu: return {relu(addmm(gi, h, w_hh_t)), {}};
    case RNNMode::LSTM: {
      // Transcendentals run vectorized on contiguous data: one sigmoid over all four gates (the cell gate's
      // part is unused), and the cell gate made contiguous before its tanh.
      Tensor gates = addmm(gi, h, w_hh_t);
      std::vector<Tensor> s = chunk(sigmoid(gates), 4, 1), g = chunk(gates, 4, 1);
      Tensor c2 = s[1] * c + s[0] * tanh(contiguous(g[2]));
      Tensor h2 = s[3] * tanh(c2);
      return {w_hr_t.defined() ? matmul(h2, w_hr_t) : h2, c2};
    }
    case RNNMode::GRU: {
      Tensor rec = b_hh.defined() ? addmm(b_hh, h, w_hh_t) : matmul(h, w_hh_t);
      std::vector<Tensor> i = chunk(gi, 3, 1), r = chunk(rec, 3, 1);
      Tensor reset = sigmoid(i[0] + r[0]), update = sigmoid(i[1] + r[1]);
      Tensor n = tanh(i[2] + reset * r[2]);
      return {n + update * (h - n), {}};  // (1 - z) * n + z * h
    }
  }
  return {};
}

}  // namespace

std::tuple<Tensor, Tensor> gru_layer_as_ops(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                                            const Tensor& b_ih, const Tensor& b_hh, bool reverse) {
  const std::vector<Tensor> xproj = unbind(linear(x, w_ih, b_ih), 0);
  const int64_t T = x.size(0);
  std::vector<Tensor> outs(static_cast<size_t>(T));
  Tensor h = h0;
  const Tensor w_hh_t = w_hh.t();
  for (int64_t i = 0; i < T; ++i) {
    const int64_t t = reverse ? T - 1 - i : i;
    h = step(RNNMode::GRU, xproj[static_cast<size_t>(t)], h, {}, w_hh_t, b_hh).first;
    outs[static_cast<size_t>(t)] = h;
  }
  return {stack(outs, 0), h};
}

namespace {

// Rows [0, b) of state replaced by the new rows (packed sequences shrink the batch as sequences end).
Tensor merge_rows(const Tensor& fresh, const Tensor& state) {
  const int64_t b = fresh.size(0), total = state.size(0);
  return b == total ? fresh : cat({fresh, state.narrow(0, b, total - b)}, 0);
}

void check_hidden(const Tensor& h, IntArrayRef expected, const char* what) {
  EMBER_CHECK(std::ranges::equal(h.sizes(), expected), "Expected ", what, " size ", shape_str(expected), ", got ",
              shape_str(h.sizes()));
}

bool has_fused_kernel(Device d) {
  const int k = static_cast<int>(d.type);
  return rnn_fused_forward_kernel.fn[k] != nullptr && rnn_fused_layout_kernel.fn[k] != nullptr;
}

// What the parameters say of the configuration (PyTorch's order and shapes), checked.
struct Geometry {
  bool proj = false;                                          // an LSTM with projections: each group ends with w_hr
  int64_t per = 0, hidden = 0, input_size = 0, out_size = 0;  // params per group; out_size: the size of h
};
Geometry geometry(const char* name, const std::vector<Tensor>& params, const RNNOptions& o) {
  const int64_t groups = o.num_layers * (o.bidirectional ? 2 : 1), base = o.bias ? 4 : 2;
  const int64_t count = static_cast<int64_t>(params.size());
  Geometry g;
  g.proj = o.mode == RNNMode::LSTM && count == groups * (base + 1);
  g.per = base + g.proj;
  EMBER_CHECK(count == groups * g.per && count > 0, name, ": expected ", groups * base, " weights",
              o.mode == RNNMode::LSTM ? " (or one more per layer and direction, with projections)" : "", ", got ",
              count);
  EMBER_CHECK(params[0].dim() == 2 && params[1].dim() == 2, name, ": weight_ih_l0 and weight_hh_l0 must be 2-D, got ",
              shape_str(params[0].sizes()), " and ", shape_str(params[1].sizes()));
  const int64_t gates = gate_count(o.mode);
  g.hidden = params[0].size(0) / gates;
  g.input_size = params[0].size(1);
  g.out_size = g.proj ? params[g.per - 1].size(0) : g.hidden;
  const DimVector hh_shape{gates * g.hidden, g.out_size};
  EMBER_CHECK(params[0].size(0) == gates * g.hidden && std::ranges::equal(params[1].sizes(), hh_shape), name,
              ": weight_hh_l0 is ", shape_str(params[1].sizes()), ", expected ", shape_str(hh_shape));
  if (g.proj)
    EMBER_CHECK(std::ranges::equal(params[g.per - 1].sizes(), DimVector{g.out_size, g.hidden}), name,
                ": weight_hr_l0 is ", shape_str(params[g.per - 1].sizes()), ", expected ",
                shape_str(DimVector{g.out_size, g.hidden}));
  return g;
}

RNNFusedArgs fused_args(const Geometry& g, const RNNOptions& o) {
  RNNFusedArgs a;
  a.mode = o.mode;
  a.input_size = g.input_size;
  a.hidden = g.hidden;
  a.proj_size = g.proj ? g.out_size : 0;
  a.num_layers = o.num_layers;
  a.bidirectional = o.bidirectional;
  a.bias = o.bias;
  return a;
}

// Note [Flat RNN weights]
// A fused kernel reads every parameter from one buffer in the device's layout (rnn_fused_layout; cuDNN's: Note
// [cuDNN RNN weights]). As in PyTorch, nn.RNN/LSTM/GRU.flatten_parameters() (which .cuda() and .to() call) makes
// the module's parameters views of such a buffer (rnn_flatten_weights), so that a call passes that buffer as it is;
// a call whose parameters are not laid out so (a module not flattened, a parameter replaced or shared) packs them
// into a fresh buffer first, at the cost of one copy of the weights. Which case holds is read from the parameters'
// geometry alone (one storage, each piece at its offset from one base), a few integer comparisons per call. The
// buffer shares the parameters' storage and so its version counter: an in-place update of a parameter between
// forward and backward is caught as for any saved tensor.
Tensor weights_in_place(const std::vector<Tensor>& params, const std::vector<RNNCopySpan>& spans, int64_t numel) {
  if (params.empty() || spans.empty()) return {};
  const StorageImpl* storage = params[0].impl()->storage().get();
  for (const Tensor& p : params)
    if (!p.is_contiguous() || p.impl()->storage().get() != storage) return {};
  const RNNCopySpan& s0 = spans[0];
  const int64_t base = params[static_cast<size_t>(s0.param)].storage_offset() + s0.src - s0.dst;
  const int64_t es = static_cast<int64_t>(element_size(params[0].dtype()));
  if (base < 0 || (base + numel) * es > static_cast<int64_t>(storage->nbytes())) return {};
  for (const RNNCopySpan& s : spans)
    if (params[static_cast<size_t>(s.param)].storage_offset() + s.src != base + s.dst) return {};
  return make_view(params[0], {{numel}}, {{1}}, base);
}

// The parameters copied into a fresh buffer of the layout; gaps the layout leaves stay zero.
Tensor pack_weights(const std::vector<Tensor>& params, const std::vector<RNNCopySpan>& spans, int64_t numel) {
  Tensor w = zeros({{numel}}, TensorOptions(params[0].dtype()).device(params[0].device()));
  std::vector<Tensor> flat;
  for (const Tensor& p : params) flat.push_back(reshape(contiguous(p), {{-1}}));
  for (const RNNCopySpan& s : spans)
    copy_into(narrow(w, 0, s.dst, s.numel), narrow(flat[static_cast<size_t>(s.param)], 0, s.src, s.numel));
  return w;
}

RNNWeightLayout weight_layout(const RNNFusedArgs& a, ScalarType dtype, Device device) {
  RNNWeightLayout layout;
  rnn_fused_layout_kernel[device](a, dtype, device, layout);
  EMBER_CHECK(layout.offsets.size() == rnn_param_chunks(a).size() && layout.numel > 0,
              "rnn: internal error: the device's weight layout has ", layout.offsets.size(), " pieces");
  return layout;
}

// The fused path (Note [Fused RNNs]): x time-major [T, B, I] or packed [N, I]; h0, c0 full-size or undefined.
std::tuple<Tensor, Tensor, Tensor> rnn_fused(const char* name, RNNFusedArgs a, const Tensor& x, const Tensor& h0,
                                             const Tensor& c0, const std::vector<Tensor>& params, bool train) {
  const std::vector<DimVector> shapes = rnn_param_shapes(a);
  for (size_t i = 0; i < params.size(); ++i)
    EMBER_CHECK(std::ranges::equal(params[i].sizes(), shapes[i]), name, ": parameter ", i, " has shape ",
                shape_str(params[i].sizes()), ", expected ", shape_str(shapes[i]));
  std::vector<const Tensor*> inputs{&x, &h0, &c0};
  for (const Tensor& p : params) inputs.push_back(&p);
  const bool record = autograd::needs_grad(inputs);
  a.dropout = train && a.num_layers > 1 ? a.dropout : 0.0;
  a.training = record || a.dropout > 0;  // cuDNN applies dropout in training mode only
  if (a.dropout > 0) {
    const PhiloxState s = default_generator(x.device()).take(1);
    a.dropout_seed = s.seed;
    a.dropout_offset = s.offset;
  }
  const TensorOptions opts = TensorOptions(x.dtype()).device(x.device());
  const int64_t groups = a.num_layers * a.dirs(), P = a.out_size();
  RNNFusedForward io;
  {
    autograd::NoGradGuard no_grad;
    io.x = contiguous(x);
    io.hx = h0.defined() ? contiguous(h0) : Tensor();
    io.cx = c0.defined() ? contiguous(c0) : Tensor();
    io.params = params;
    const RNNWeightLayout layout = weight_layout(a, x.dtype(), x.device());
    const std::vector<RNNCopySpan> spans = rnn_copy_spans(rnn_param_chunks(a), layout.offsets);
    io.weights = weights_in_place(params, spans, layout.numel);
    if (!io.weights.defined()) io.weights = pack_weights(params, spans, layout.numel);
    io.y = empty(a.seq_lengths.empty() ? DimVector{a.steps, a.batch, a.dirs() * P} : DimVector{x.size(0), a.dirs() * P},
                 opts);
    io.hy = empty({{groups, a.batch, P}}, opts);
    if (a.mode == RNNMode::LSTM) io.cy = empty({{groups, a.batch, a.hidden}}, opts);
    rnn_fused_forward_kernel[x.device()](a, io);
  }
  const size_t np = params.size();
  if (auto n = autograd::make_node("CudnnRnnBackward0", inputs, [a, np](FormulaNode& n, TensorList& g) {
        const bool create_graph = autograd::is_grad_enabled();
        const Tensor x = n.saved_tensor(0), hx = n.saved_tensor(1), cx = n.saved_tensor(2), y = n.saved_tensor(5);
        RNNFusedBackward b;
        {
          autograd::NoGradGuard no_grad;
          b.x = contiguous(x);
          b.hx = hx;
          b.cx = cx;
          b.weights = n.saved_tensor(3);
          b.reserve = n.saved_tensor(4);
          b.y = y;
          b.dy = g[0].defined() ? contiguous(to(g[0], y.dtype())) : zeros_like(y);
          if (g[1].defined()) b.dhy = contiguous(to(g[1], y.dtype()));
          if (g.size() > 2 && g[2].defined()) b.dcy = contiguous(to(g[2], y.dtype()));
          b.need_weights = false;
          for (size_t i = 0; i < np; ++i) b.need_weights = b.need_weights || n.needs(3 + i);
          rnn_fused_backward_kernel[y.device()](a, b);
        }
        TensorList r(3 + np);
        r[0] = n.needs(0) ? b.dx : Tensor();
        r[1] = n.needs(1) ? b.dhx : Tensor();
        r[2] = n.needs(2) ? b.dcx : Tensor();
        for (size_t i = 0; i < np && b.need_weights; ++i)
          if (n.needs(3 + i)) r[3 + i] = b.dparams[i];
        if (create_graph) {  // no second derivatives through cuDNN (Note [Fused RNNs])
          std::vector<Tensor> read{x, hx, cx};
          for (size_t i = 0; i < np; ++i) read.push_back(n.saved_tensor(6 + i));
          read.insert(read.end(), g.begin(), g.end());
          record_no_double_backward("CudnnRnnBackward0 (double backward through cuDNN's fused RNN)", read, r);
        }
        return r;
      })) {
    n->num_outputs = 3;
    n->save(io.x);
    n->save(io.hx);
    n->save(io.cx);
    n->save(io.weights);
    n->save(io.reserve);
    autograd::set_history(io.y, n, 0);
    autograd::set_history(io.hy, n, 1);
    if (io.cy.defined()) autograd::set_history(io.cy, n, 2);
    n->save_output(io.y);
    for (const Tensor& p : params) n->save(p);
  }
  return {io.y, io.hy, io.cy};
}

}  // namespace

RNNMode rnn_mode(std::string_view name) {
  if (name == "RNN_TANH") return RNNMode::Tanh;
  if (name == "RNN_RELU") return RNNMode::Relu;
  if (name == "LSTM") return RNNMode::LSTM;
  if (name == "GRU") return RNNMode::GRU;
  fail<ValueError>("Unknown mode '", name, "' (expected RNN_TANH, RNN_RELU, LSTM or GRU)");
}

std::tuple<Tensor, Tensor, Tensor> rnn(const Tensor& input, const std::vector<Tensor>& hx,
                                       const std::vector<Tensor>& params, const RNNOptions& o,
                                       const Tensor& batch_sizes) {
  EMBER_AUTOCAST(autocast::kLowerCuda, rnn, input, hx, params, o, batch_sizes);  // PyTorch's _cudnn_rnn policy
  const char* name = mode_name(o.mode);
  std::vector<Tensor> all(hx);
  all.insert(all.begin(), input);
  all.insert(all.end(), params.begin(), params.end());
  check_same_device(name, all);
  const bool packed = batch_sizes.defined();
  const int64_t dirs = o.bidirectional ? 2 : 1, groups = o.num_layers * dirs;
  const Geometry geo = geometry(name, params, o);
  const bool proj = geo.proj;
  const int64_t per = geo.per, hidden = geo.hidden, input_size = geo.input_size, out_size = geo.out_size;

  // Time-major [T, B, I] (or packed [N, I]); an unbatched [T, I] gets a batch of one.
  Tensor x = input;
  bool unbatched = false;
  if (packed) {
    EMBER_CHECK(x.dim() == 2, name, ": packed input must be 2-D, got ", x.dim(), "-D");
  } else {
    EMBER_CHECK(x.dim() == 2 || x.dim() == 3, name, ": Expected input to be 2D or 3D, got ", x.dim(), "D instead");
    unbatched = x.dim() == 2;
    x = unbatched ? x.unsqueeze(1) : o.batch_first ? x.transpose(0, 1) : x;
  }
  EMBER_CHECK(x.size(-1) == input_size, "input.size(-1) must be equal to input_size. Expected ", input_size, ", got ",
              x.size(-1));
  std::vector<int64_t> sizes;  // packed: the batch size of each time step
  if (packed) {
    Tensor bs = contiguous(to(batch_sizes, kCPU, ScalarType::Int64));
    int64_t off = 0;
    for (int64_t t = 0; t < bs.numel(); ++t) {
      sizes.push_back(bs.data<int64_t>()[t]);
      off += sizes.back();
    }
    EMBER_CHECK(off == x.size(0), name, ": batch_sizes sum to ", off, " but the packed input has ", x.size(0), " rows");
  }
  const int64_t steps = packed ? static_cast<int64_t>(sizes.size()) : x.size(0);
  const int64_t batch = packed ? (sizes.empty() ? 0 : sizes[0]) : x.size(1);
  const DimVector h_shape{groups, batch, out_size}, c_shape{groups, batch, hidden};
  auto finish = [&](Tensor output, Tensor hn, Tensor cn) {
    if (unbatched) {
      output = output.squeeze(1);
      hn = hn.squeeze(1);
      if (cn.defined()) cn = cn.squeeze(1);
    } else if (!packed && o.batch_first) {
      output = output.transpose(0, 1);
    }
    return std::tuple<Tensor, Tensor, Tensor>{output, hn, cn};
  };

  if (has_fused_kernel(x.device()) && (!x.is_cuda() || cuda::flags().cudnn_enabled) &&
      std::ranges::all_of(params, [&](const Tensor& p) { return p.dtype() == x.dtype(); })) {
    RNNFusedArgs a = fused_args(geo, o);
    a.steps = steps;
    a.batch = batch;
    if (packed) a.seq_lengths = seq_lengths_from_batch_sizes(sizes);
    a.dropout = o.dropout;
    if ((!packed || !a.seq_lengths.empty()) && rnn_fused_supported(a, x.dtype())) {
      auto given = [&](size_t k, const DimVector& shape, const char* what) {
        if (hx.size() <= k || !hx[k].defined()) return Tensor();
        Tensor h = unbatched ? hx[k].unsqueeze(1) : hx[k];
        check_hidden(h, shape, what);
        EMBER_CHECK(h.dtype() == x.dtype(), name, ": expected ", what, " state of dtype ", x.dtype(), ", got ",
                    h.dtype());
        return h;
      };
      Tensor h0 = given(0, h_shape, "hidden"), c0 = o.mode == RNNMode::LSTM ? given(1, c_shape, "cell") : Tensor();
      auto [out, hn, cn] = rnn_fused(name, a, x, h0, c0, params, o.train);
      return finish(out, hn, cn);
    }
  }

  auto initial = [&](size_t k) {
    const DimVector& shape = k == 0 ? h_shape : c_shape;
    if (hx.size() <= k || !hx[k].defined()) return zeros(shape, TensorOptions(x.dtype()).device(x.device()));
    Tensor h = unbatched ? hx[k].unsqueeze(1) : hx[k];
    check_hidden(h, shape, k == 0 ? "hidden" : "cell");
    return h;
  };
  Tensor h0 = initial(0), c0 = o.mode == RNNMode::LSTM ? initial(1) : Tensor();

  std::vector<Tensor> h_n, c_n;
  Tensor layer_input = x;
  const bool same_dtypes = std::ranges::all_of(params, [&](const Tensor& p) { return p.dtype() == x.dtype(); }) &&
                           h0.dtype() == x.dtype() && (!c0.defined() || c0.dtype() == x.dtype());
  const bool fused_lstm = o.mode == RNNMode::LSTM && lstm_layer_applies(x, proj, packed) && same_dtypes;
  const bool fused_gru = o.mode == RNNMode::GRU && gru_layer_applies(x, packed) && same_dtypes;
  for (int64_t layer = 0; layer < o.num_layers; ++layer) {
    std::vector<Tensor> dir_outputs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t k = (layer * dirs + d) * per;
      const Tensor &w_ih = params[k], &w_hh = params[k + 1];
      Tensor b_ih = o.bias ? params[k + 2] : Tensor(), b_hh = o.bias ? params[k + 3] : Tensor();
      if (fused_lstm) {  // Note [Fused CPU LSTM]
        auto [y, hn, cn] = lstm_layer(layer_input, h0.select(0, layer * dirs + d), c0.select(0, layer * dirs + d), w_ih,
                                      w_hh, b_ih, b_hh, d == 1);
        dir_outputs.push_back(y);
        h_n.push_back(hn);
        c_n.push_back(cn);
        continue;
      }
      if (fused_gru) {  // Note [Fused CPU GRU]
        auto [y, hn] = gru_layer(layer_input, h0.select(0, layer * dirs + d), w_ih, w_hh, b_ih, b_hh, d == 1);
        dir_outputs.push_back(y);
        h_n.push_back(hn);
        continue;
      }
      // The input term of every step in one GEMM; b_hh folds into it except for GRU.
      Tensor in_bias = o.mode == RNNMode::GRU || !o.bias ? b_ih : b_ih + b_hh;
      // The steps' slices of the projection in one split (one graph node, not one per step).
      Tensor xproj_all = linear(layer_input, w_ih, in_bias);
      std::vector<Tensor> xproj = packed ? split_with_sizes(xproj_all, sizes, 0) : unbind(xproj_all, 0);
      Tensor h = h0.select(0, layer * dirs + d), c = c0.defined() ? c0.select(0, layer * dirs + d) : Tensor();
      const Tensor rec_bias = o.mode == RNNMode::GRU ? b_hh : Tensor();
      const Tensor w_hh_t = w_hh.t(), w_hr_t = proj ? params[k + per - 1].t() : Tensor();
      std::vector<Tensor> outs(steps);
      for (int64_t i = 0; i < steps; ++i) {
        const int64_t t = d == 0 ? i : steps - 1 - i;
        if (!packed) {
          auto [h2, c2] = step(o.mode, xproj[t], h, c, w_hh_t, rec_bias, w_hr_t);
          h = h2, c = c2;
          outs[t] = h;
        } else {
          const int64_t b = sizes[t];
          auto [h2, c2] = step(o.mode, xproj[t], h.narrow(0, 0, b), c.defined() ? c.narrow(0, 0, b) : c, w_hh_t,
                               rec_bias, w_hr_t);
          outs[t] = h2;
          h = merge_rows(h2, h);
          if (c.defined()) c = merge_rows(c2, c);
        }
      }
      dir_outputs.push_back(packed ? cat(outs, 0) : stack(outs, 0));
      h_n.push_back(h);
      if (c.defined()) c_n.push_back(c);
    }
    Tensor out = dirs == 1 ? dir_outputs[0] : cat(dir_outputs, -1);
    if (o.dropout > 0 && o.train && layer + 1 < o.num_layers) {  // dropout between layers, not after the last
      Tensor keep = bernoulli(full_like(out, 1 - o.dropout));
      out = out * keep / (1 - o.dropout);
    }
    layer_input = out;
  }
  return finish(layer_input, stack(h_n, 0), c_n.empty() ? Tensor() : stack(c_n, 0));
}

std::vector<Tensor> rnn_flatten_weights(const std::vector<Tensor>& params, const RNNOptions& o) {
  const char* name = mode_name(o.mode);
  const Geometry geo = geometry(name, params, o);
  check_same_device(name, params);
  const Device device = params[0].device();
  const ScalarType dtype = params[0].dtype();
  if (!has_fused_kernel(device) || (device.type == DeviceType::CUDA && !cuda::flags().cudnn_enabled)) return {};
  RNNFusedArgs a = fused_args(geo, o);
  a.steps = a.batch = 1;
  if (!rnn_fused_supported(a, dtype) ||
      !std::ranges::all_of(params, [&](const Tensor& p) { return p.dtype() == dtype; }))
    return {};
  const std::vector<DimVector> shapes = rnn_param_shapes(a);
  for (size_t i = 0; i < params.size(); ++i)
    EMBER_CHECK(std::ranges::equal(params[i].sizes(), shapes[i]), name, ": parameter ", i, " has shape ",
                shape_str(params[i].sizes()), ", expected ", shape_str(shapes[i]));
  const RNNWeightLayout layout = weight_layout(a, dtype, device);
  const std::vector<RNNCopySpan> spans = rnn_copy_spans(rnn_param_chunks(a), layout.offsets);
  // Each parameter must be one run of the buffer to become a view of it.
  std::vector<int64_t> start(params.size(), -1);
  for (const RNNCopySpan& s : spans) {
    const size_t i = static_cast<size_t>(s.param);
    if (start[i] != -1 || s.src != 0 || s.numel != params[i].numel()) return {};
    start[i] = s.dst;
  }
  autograd::NoGradGuard no_grad;
  if (weights_in_place(params, spans, layout.numel).defined()) return {};  // already flat
  const Tensor w = pack_weights(params, spans, layout.numel);
  std::vector<Tensor> views;
  for (size_t i = 0; i < params.size(); ++i)
    views.push_back(reshape(narrow(w, 0, start[i], params[i].numel()), shapes[i]));
  return views;
}

std::pair<Tensor, Tensor> rnn_cell(RNNMode mode, const Tensor& input, const Tensor& h, const Tensor& c,
                                   const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  EMBER_AUTOCAST(autocast::kLowerCuda, rnn_cell, mode, input, h, c, w_ih, w_hh, b_ih, b_hh);
  const char* name = mode == RNNMode::LSTM ? "LSTMCell" : mode == RNNMode::GRU ? "GRUCell" : "RNNCell";
  check_same_device(name, {&input, &h, &c, &w_ih, &w_hh, &b_ih, &b_hh});
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, name, ": Expected input to be 1D or 2D, got ", input.dim(),
              "D instead");
  EMBER_CHECK(input.size(-1) == w_ih.size(1), name, ": input has inconsistent input_size: got ", input.size(-1),
              " expected ", w_ih.size(1));
  const bool unbatched = input.dim() == 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  auto state = [&](const Tensor& s) {
    if (!s.defined()) return zeros(DimVector{x.size(0), w_hh.size(1)}, TensorOptions(x.dtype()).device(x.device()));
    return unbatched ? s.unsqueeze(0) : s;
  };
  Tensor hh = state(h), cc = mode == RNNMode::LSTM ? state(c) : Tensor();
  EMBER_CHECK(hh.size(0) == x.size(0), name, ": Input batch size ", x.size(0), " doesn't match hidden0 batch size ",
              hh.size(0));
  Tensor in_bias = mode == RNNMode::GRU || !b_hh.defined() ? b_ih : (b_ih.defined() ? b_ih + b_hh : b_hh);
  auto [h2, c2] = step(mode, linear(x, w_ih, in_bias), hh, cc, w_hh.t(), mode == RNNMode::GRU ? b_hh : Tensor());
  if (unbatched) {
    h2 = h2.squeeze(0);
    if (c2.defined()) c2 = c2.squeeze(0);
  }
  return {h2, c2};
}

}  // namespace ember
