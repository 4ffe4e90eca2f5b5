// Note [Fused CPU LSTM]
// A float32 LSTM on the CPU runs each layer and direction as one autograd node, as PyTorch runs its own through
// oneDNN (mkldnn_rnn_layer), instead of about ten recorded ops per step forward and twenty backward (Note [Fused
// RNNs] in rnn.cpp has the step-by-step path). Forward: the input term of every step in one GEMM, then per step one
// GEMM that adds the recurrent term into the gates and one kernel that computes them (lstm_cell_forward). Backward: per
// step one kernel (lstm_cell_backward) and one GEMM for the gradient of h; the weight gradients then come from one GEMM
// each over all the steps' gate gradients, where the step-by-step path ran one thin GEMM per step (k = batch) and
// added each into the weight's gradient. The word-language-model LSTM (2 layers, 256 wide, 35 steps, batch 20),
// forward and backward at two threads: 40.2 ms step by step, 30.0 ms fused; PyTorch 2.15 30.8-41.7 ms.
// Its backward is not differentiable (as PyTorch's is not): with create_graph it records a node that raises
// NotImplementedError when a second derivative reaches it. ember.backends.mkldnn.enabled = False, PyTorch's switch
// for its fused CPU RNN, selects the step-by-step path, which has derivatives of every order; float64 (as in
// PyTorch, whose oneDNN path takes float32 and 16-bit floats only) always runs it, and so does any LSTM while a Python
// dispatch mode or a tensor subclass with __torch_dispatch__ is live (Note [Python dispatch]): the mode then sees (and
// make_fx traces) every op of the layer, where it would not see the gates' kernel.
#include "ember/nn/functional/detail/rnn_layer.h"

#include "ember/autograd/engine.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/rnn.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/rnn.h"
#include "ember/ops.h"
#include "ember/ops/linalg.h"

namespace ember {

bool& cpu_fused_rnn_enabled() {
  static bool on = true;
  return on;
}

bool lstm_layer_applies(const Tensor& x, bool proj, bool packed) {
  // (not while a Python dispatch mode or subclass is live: such a mode sees ops, and the gates' kernel is none)
  return cpu_fused_rnn_enabled() && x.device().type == DeviceType::CPU && x.dtype() == ScalarType::Float32 && !proj &&
         !packed && x.numel() > 0 && !dispatch::enabled();
}

bool gru_layer_applies(const Tensor& x, bool packed) { return lstm_layer_applies(x, false, packed); }

namespace {

using autograd::FormulaNode;

// Whether t is undefined or of shape `want` (the shapes a fused layer's kernels index by).
bool fits(const Tensor& t, std::initializer_list<int64_t> want) {
  return !t.defined() || std::ranges::equal(t.sizes(), want);
}

// The gradient of W_hh from every step's recurrent-term gradient dgates [T, B, G]: each step against the h it read,
// y [T, B, H] one step back, and h0 [B, H] for the forward's first step. One GEMM over all steps but that one.
Tensor recurrent_weight_grad(const Tensor& dgates, const Tensor& y, const Tensor& h0, bool reverse) {
  const int64_t T = dgates.size(0), B = dgates.size(1), G = dgates.size(2), H = y.size(2);
  const Tensor dg0 = dgates.select(0, reverse ? T - 1 : 0);
  if (T == 1) return mm(dg0.t(), h0);
  const Tensor rest = dgates.narrow(0, reverse ? 0 : 1, T - 1).view({{(T - 1) * B, G}});
  const Tensor prev = y.narrow(0, reverse ? 1 : 0, T - 1).reshape({{(T - 1) * B, H}});
  return addmm(mm(rest.t(), prev), dg0.t(), h0);
}
using autograd::TensorList;

// The backward of lstm_layer (Note [Fused CPU LSTM]). Saved: x as the [T * B, I] matrix the forward multiplied (a
// batch_first input's one copy, kept rather than made again), h0, c0, w_ih, w_hh, the activations of every step's
// gates, every step's c, and the output y.
TensorList lstm_layer_backward(FormulaNode& n, TensorList& g, bool reverse) {
  const bool create_graph = autograd::is_grad_enabled();
  const Tensor x2 = n.saved_tensor(0), h0 = n.saved_tensor(1), c0 = n.saved_tensor(2), w_ih = n.saved_tensor(3),
               w_hh = n.saved_tensor(4), acts = n.saved_tensor(5), cs = n.saved_tensor(6), y = n.saved_tensor(7);
  TensorList r(7);
  {
    autograd::NoGradGuard no_grad;
    const int64_t T = acts.size(0), B = acts.size(1), G = acts.size(2), H = G / 4;
    const TensorOptions opts(acts.dtype());
    const Tensor dy = g[0].defined() ? contiguous(g[0]) : zeros({{T, B, H}}, opts);
    Tensor dh = g[1].defined() ? contiguous(g[1]) : Tensor();
    const Tensor dc = g[2].defined() ? clone(g[2], MemoryFormat::Contiguous) : zeros({{B, H}}, opts);
    const Tensor dgates = empty({{T, B, G}}, opts);
    const int64_t first = reverse ? T - 1 : 0;  // the forward's first step, whose c_prev is c0
    for (int64_t i = 0; i < T; ++i) {
      const int64_t t = reverse ? i : T - 1 - i;
      const Tensor c_prev = t == first ? c0 : cs.select(0, reverse ? t + 1 : t - 1), dg = dgates.select(0, t);
      lstm_cell_backward_kernel[acts.device()](acts.select(0, t), c_prev, cs.select(0, t), dy.select(0, t), dh, dc, dg);
      dh = mm(dg, w_hh);
    }
    const Tensor all = dgates.view({{T * B, G}});
    if (n.needs(0)) r[0] = mm(all, w_ih).view({{T, B, x2.size(1)}});
    if (n.needs(1)) r[1] = dh;
    if (n.needs(2)) r[2] = dc;
    if (n.needs(3)) r[3] = mm(all.t(), x2);
    if (n.needs(4)) r[4] = recurrent_weight_grad(dgates, y, h0, reverse);
    if (n.needs(5) || n.needs(6)) {
      const Tensor db = sum(all, {{0}});
      r[5] = n.needs(5) ? db : Tensor();
      r[6] = n.needs(6) ? (n.needs(5) ? clone(db) : db) : Tensor();  // two gradients, two buffers
    }
  }
  if (create_graph) {  // no second derivatives (Note [Fused CPU LSTM])
    std::vector<Tensor> read{x2, h0, c0, w_ih, w_hh};
    read.insert(read.end(), g.begin(), g.end());
    record_no_double_backward(
        "MkldnnRnnLayerBackward0 (double backward through the fused CPU LSTM; ember.backends.mkldnn.enabled = False "
        "runs it step by step, with derivatives of every order)",
        read, r);
  }
  return r;
}

}  // namespace

void record_no_double_backward(const char* op, const std::vector<Tensor>& read, const std::vector<Tensor>& grads) {
  std::vector<const Tensor*> ins;
  for (const Tensor& t : read)
    if (t.defined()) ins.push_back(&t);
  std::vector<Tensor> outs;
  for (const Tensor& t : grads)
    if (t.defined()) outs.push_back(t);
  autograd::record_not_implemented(op, ins, outs);
}

std::tuple<Tensor, Tensor, Tensor> lstm_layer(const Tensor& x, const Tensor& h0_, const Tensor& c0_, const Tensor& w_ih,
                                              const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                                              bool reverse) {
  // The shapes the kernels index by, checked here (the step-by-step path's ops would have raised on them).
  const int64_t T = x.size(0), B = x.size(1), H = w_hh.dim() == 2 ? w_hh.size(1) : 0, G = 4 * H;
  EMBER_CHECK(H > 0 && fits(w_ih, {G, x.size(2)}) && fits(w_hh, {G, H}) && fits(b_ih, {G}) && fits(b_hh, {G}) &&
                  fits(h0_, {B, H}) && fits(c0_, {B, H}),
              "LSTM: weight_ih ", shape_str(w_ih.sizes()), ", weight_hh ", shape_str(w_hh.sizes()), ", biases ",
              b_ih.defined() ? shape_str(b_ih.sizes()) : "none", " and ",
              b_hh.defined() ? shape_str(b_hh.sizes()) : "none", ", states ", shape_str(h0_.sizes()), " and ",
              shape_str(c0_.sizes()), " do not fit an input of shape ", shape_str(x.sizes()),
              " (expected [4H, input_size], [4H, H], [4H], [batch, H] with H > 0)");
  const TensorOptions opts(x.dtype());
  Tensor acts, y, cs, hy, cy, h0, c0, x2;
  {
    autograd::NoGradGuard no_grad;
    h0 = contiguous(h0_);
    c0 = contiguous(c0_);
    // every step's input term (and both biases) in one GEMM; each step then adds its recurrent term in place
    x2 = reshape(x, {{T * B, x.size(2)}});
    const Tensor bias = b_ih.defined() && b_hh.defined() ? b_ih + b_hh : b_ih.defined() ? b_ih : b_hh;
    acts = (bias.defined() ? addmm(bias, x2, w_ih.t()) : mm(x2, w_ih.t())).view({{T, B, G}});
    y = empty({{T, B, H}}, opts);
    cs = empty({{T, B, H}}, opts);
    const Tensor w_hh_t = contiguous(w_hh.t());  // a plain product: OpenBLAS runs h @ W^T at batch 20 1.3x faster so
    Tensor h = h0, c = c0;
    for (int64_t i = 0; i < T; ++i) {
      const int64_t t = reverse ? T - 1 - i : i;
      const Tensor a = acts.select(0, t), ct = cs.select(0, t), ht = y.select(0, t);
      addmm_(a, h, w_hh_t);  // the recurrent term into the gates: no product tensor per step
      lstm_cell_forward_kernel[x.device()](a, c, ct, ht);
      h = ht;
      c = ct;
    }
    hy = clone(h);
    cy = clone(c);
  }
  if (auto n = autograd::make_node(
          "MkldnnRnnLayerBackward0", {&x, &h0_, &c0_, &w_ih, &w_hh, &b_ih, &b_hh},
          [reverse](FormulaNode& n, TensorList& g) { return lstm_layer_backward(n, g, reverse); })) {
    n->num_outputs = 3;
    for (const Tensor* t : std::initializer_list<const Tensor*>{&x2, &h0, &c0, &w_ih, &w_hh, &acts, &cs}) n->save(*t);
    autograd::set_history(y, n, 0);
    autograd::set_history(hy, n, 1);
    autograd::set_history(cy, n, 2);
    n->save_output(y);
  }
  return {y, hy, cy};
}

// Note [Fused CPU GRU]
// A float32 GRU on the CPU runs each layer and direction as one node, on the pattern of the LSTM's (Note [Fused CPU
// LSTM]): the input terms of every step in one GEMM; per step one GEMM for the recurrent term (with b_hh, which the
// candidate gate multiplies by r) and one kernel for the gates and h (gru_cell_forward), which keeps r, z, n and the
// recurrent term of n for the backward. Backward: per step one kernel (gru_cell_backward) and one GEMM for the
// gradient of h; the weight gradients in one GEMM each over all steps. PyTorch runs its CPU GRU step by step, with
// derivatives of every order, and so must this one: with create_graph, the backward runs the layer again as ember
// ops (gru_layer_as_ops, from the node's saved inputs, which keep their history) and differentiates that with a
// graph. ember.backends.mkldnn.enabled = False selects the step-by-step path, as for the LSTM.
namespace {

TensorList gru_layer_backward(FormulaNode& n, TensorList& g, bool reverse) {
  const Tensor x = n.saved_tensor(0), h0 = n.saved_tensor(1), w_ih = n.saved_tensor(2), w_hh = n.saved_tensor(3),
               b_ih = n.saved_tensor(4), b_hh = n.saved_tensor(5), acts = n.saved_tensor(6), y = n.saved_tensor(7);
  TensorList r(6);
  if (autograd::is_grad_enabled()) {  // create_graph: differentiate the layer as ops
    auto [y2, h2] = gru_layer_as_ops(x, h0, w_ih, w_hh, b_ih, b_hh, reverse);
    TensorList roots, seeds, inputs;
    std::vector<size_t> index;
    if (g[0].defined()) roots.push_back(y2), seeds.push_back(g[0]);
    if (g[1].defined()) roots.push_back(h2), seeds.push_back(g[1]);
    const Tensor* in[] = {&x, &h0, &w_ih, &w_hh, &b_ih, &b_hh};
    for (size_t i = 0; i < 6; ++i)
      if (n.needs(static_cast<uint32_t>(i)) && in[i]->defined()) inputs.push_back(*in[i]), index.push_back(i);
    if (roots.empty() || inputs.empty()) return r;
    TensorList d = autograd::grad(roots, inputs, seeds, true, true, true);
    for (size_t k = 0; k < index.size(); ++k) r[index[k]] = d[k];
    return r;
  }
  autograd::NoGradGuard no_grad;
  const int64_t T = acts.size(0), B = acts.size(1), H = acts.size(2) / 4, I = x.size(2);
  const TensorOptions opts(acts.dtype());
  const Tensor dy = g[0].defined() ? contiguous(g[0]) : zeros({{T, B, H}}, opts);
  Tensor dh = g[1].defined() ? contiguous(g[1]) : Tensor();
  const Tensor dgi = empty({{T, B, 3 * H}}, opts), dgh = empty({{T, B, 3 * H}}, opts), h0c = contiguous(h0);
  const int64_t first = reverse ? T - 1 : 0;  // the forward's first step, whose h_prev is h0
  for (int64_t i = 0; i < T; ++i) {
    const int64_t t = reverse ? i : T - 1 - i;
    const Tensor h_prev = t == first ? h0c : y.select(0, reverse ? t + 1 : t - 1), dgh_t = dgh.select(0, t);
    const Tensor direct = empty({{B, H}}, opts);
    gru_cell_backward_kernel[acts.device()](acts.select(0, t), h_prev, dy.select(0, t), dh, dgi.select(0, t), dgh_t,
                                            direct);
    dh = addmm(direct, dgh_t, w_hh);
  }
  const Tensor gi_all = dgi.view({{T * B, 3 * H}}), gh_all = dgh.view({{T * B, 3 * H}});
  if (n.needs(0)) r[0] = mm(gi_all, w_ih).view({{T, B, I}});
  if (n.needs(1)) r[1] = dh;
  if (n.needs(2)) r[2] = mm(gi_all.t(), reshape(x, {{T * B, I}}));
  if (n.needs(3)) r[3] = recurrent_weight_grad(dgh, y, h0c, reverse);
  if (n.needs(4)) r[4] = sum(gi_all, {{0}});
  if (n.needs(5)) r[5] = sum(gh_all, {{0}});
  return r;
}

}  // namespace

std::tuple<Tensor, Tensor> gru_layer(const Tensor& x, const Tensor& h0_, const Tensor& w_ih, const Tensor& w_hh,
                                     const Tensor& b_ih, const Tensor& b_hh, bool reverse) {
  const int64_t T = x.size(0), B = x.size(1), H = w_hh.dim() == 2 ? w_hh.size(1) : 0, G = 3 * H;
  EMBER_CHECK(H > 0 && fits(w_ih, {G, x.size(2)}) && fits(w_hh, {G, H}) && fits(b_ih, {G}) && fits(b_hh, {G}) &&
                  fits(h0_, {B, H}),
              "GRU: weight_ih ", shape_str(w_ih.sizes()), ", weight_hh ", shape_str(w_hh.sizes()), ", biases ",
              b_ih.defined() ? shape_str(b_ih.sizes()) : "none", " and ",
              b_hh.defined() ? shape_str(b_hh.sizes()) : "none", " and state ", shape_str(h0_.sizes()),
              " do not fit an input of shape ", shape_str(x.sizes()),
              " (expected [3H, input_size], [3H, H], [3H], [batch, H] with H > 0)");
  const TensorOptions opts(x.dtype());
  Tensor acts, y, hy;
  {
    autograd::NoGradGuard no_grad;
    const Tensor x2 = reshape(x, {{T * B, x.size(2)}});
    const Tensor gi = (b_ih.defined() ? addmm(b_ih, x2, w_ih.t()) : mm(x2, w_ih.t())).view({{T, B, G}});
    acts = empty({{T, B, 4 * H}}, opts);
    y = empty({{T, B, H}}, opts);
    const Tensor w_hh_t = contiguous(w_hh.t());  // a plain product, as the LSTM's (Note [Fused CPU LSTM])
    Tensor h = contiguous(h0_);
    for (int64_t i = 0; i < T; ++i) {
      const int64_t t = reverse ? T - 1 - i : i;
      const Tensor ht = y.select(0, t);
      gru_cell_forward_kernel[x.device()](gi.select(0, t), b_hh.defined() ? addmm(b_hh, h, w_hh_t) : mm(h, w_hh_t), h,
                                          acts.select(0, t), ht);
      h = ht;
    }
    hy = clone(h);
  }
  if (auto n = autograd::make_node(
          "GruLayerBackward0", {&x, &h0_, &w_ih, &w_hh, &b_ih, &b_hh},
          [reverse](FormulaNode& n, TensorList& g) { return gru_layer_backward(n, g, reverse); })) {
    n->num_outputs = 2;
    // the inputs as they are (with their history, for a backward with create_graph), the gates, and y
    for (const Tensor* t : std::initializer_list<const Tensor*>{&x, &h0_, &w_ih, &w_hh, &b_ih, &b_hh, &acts})
      n->save(*t);
    autograd::set_history(y, n, 0);
    autograd::set_history(hy, n, 1);
    n->save_output(y);
  }
  return {y, hy};
}

}  // namespace ember
