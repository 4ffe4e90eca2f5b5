// Bindings of the recurrent layers' C++ time loop (ember/nn/rnn.h), used by ember.nn.RNN/LSTM/GRU and the cells.
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/nn/functional/rnn.h"

namespace ember::py {

namespace {

nb::object or_none(const Tensor& t) { return t.defined() ? nb::cast(t) : nb::none(); }

std::vector<Tensor> tensors_or_undefined(nb::handle seq) {
  std::vector<Tensor> r;
  if (seq.is_none()) return r;
  for (nb::handle h : seq) r.push_back(h.is_none() ? Tensor() : nb::cast<Tensor>(h));
  return r;
}

Tensor opt(nb::handle h) { return h.is_none() ? Tensor() : nb::cast<Tensor>(h); }

}  // namespace

void init_nn_rnn(nb::module_& m, nb::module_& nn) {
  nn.def(
      "_rnn",
      [](const Tensor& input, nb::handle hx, nb::handle params, std::string_view mode, int64_t num_layers, bool bias,
         bool batch_first, double dropout, bool train, bool bidirectional, nb::handle batch_sizes) {
        RNNOptions o{rnn_mode(mode), num_layers, bias, batch_first, dropout, train, bidirectional};
        auto [out, hn, cn] = rnn(input, tensors_or_undefined(hx), tensors_or_undefined(params), o, opt(batch_sizes));
        return nb::make_tuple(out, hn, or_none(cn));
      },
      nb::arg("input"), nb::arg("hx").none(), nb::arg("params"), nb::arg("mode"), nb::arg("num_layers"),
      nb::arg("bias"), nb::arg("batch_first"), nb::arg("dropout"), nb::arg("train"), nb::arg("bidirectional"),
      nb::arg("batch_sizes").none() = nb::none(),
      "Runs a multi-layer RNN, LSTM or GRU over a sequence (ember.nn.RNN's forward): (output, h_n, c_n or None).");
  nn.def(
      "_rnn_flatten_weights",
      [](nb::handle params, std::string_view mode, int64_t num_layers, bool bias, bool bidirectional) {
        RNNOptions o;
        o.mode = rnn_mode(mode);
        o.num_layers = num_layers;
        o.bias = bias;
        o.bidirectional = bidirectional;
        return rnn_flatten_weights(tensors_or_undefined(params), o);
      },
      nb::arg("params"), nb::arg("mode"), nb::arg("num_layers"), nb::arg("bias"), nb::arg("bidirectional"),
      "Copies a recurrent layer's parameters into one buffer in the fused kernel's layout and returns views of it.");
  nn.def(
      "_rnn_cell",
      [](std::string_view mode, const Tensor& input, nb::handle h, nb::handle c, const Tensor& w_ih, const Tensor& w_hh,
         nb::handle b_ih, nb::handle b_hh) {
        auto [h2, c2] = rnn_cell(rnn_mode(mode), input, opt(h), opt(c), w_ih, w_hh, opt(b_ih), opt(b_hh));
        return nb::make_tuple(h2, or_none(c2));
      },
      nb::arg("mode"), nb::arg("input"), nb::arg("h").none(), nb::arg("c").none(), nb::arg("w_ih"), nb::arg("w_hh"),
      nb::arg("b_ih").none(), nb::arg("b_hh").none(), "Runs one step of an RNN, LSTM or GRU cell: (h', c' or None).");
  m.def(
      "_get_mkldnn_enabled", [] { return cpu_fused_rnn_enabled(); },
      "ember.backends.mkldnn.enabled: whether a float32 LSTM on the CPU runs fused (Note [Fused CPU LSTM]).");
  m.def(
      "_set_mkldnn_enabled", [](bool on) { cpu_fused_rnn_enabled() = on; }, nb::arg("enabled"),
      "Sets ember.backends.mkldnn.enabled.");
}

}  // namespace ember::py
