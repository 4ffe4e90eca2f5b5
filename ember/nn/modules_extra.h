// More C++ layers beside those of modules.h (included from its end): activations, Conv1d / ConvTranspose2d,
// BatchNorm1d, GroupNorm, average pooling, GRU / RNN and the recurrent cells, Dropout2d, and the common losses as
// modules. As in modules.h: PyTorch's parameter and buffer names (state_dict keys equal torch.nn's), its default
// initialisation, and its extra_repr; each forward calls the C++ functional op the Python layer uses.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/modules.h"  // BatchNormNd (modules.h includes this header at its end)
#include "ember/nn/rnn.h"

namespace ember::nn {

// ---- parameter-free activations

class Sigmoid : public Module {
 public:
  Sigmoid() : Module("Sigmoid") {}
  Tensor forward(const Tensor& x) override;
};

class GELU : public Module {
 public:
  // approximate: "none" or "tanh".
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  std::string approximate;
};

class SiLU : public Module {
 public:
  SiLU() : Module("SiLU") {}
  Tensor forward(const Tensor& x) override;
};

class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double negative_slope = 0.01) : Module("LeakyReLU"), negative_slope(negative_slope) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double negative_slope;
};

class ELU : public Module {
 public:
  explicit ELU(double alpha = 1.0) : Module("ELU"), alpha(alpha) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double alpha;
};

// dim empty: PyTorch's legacy implicit choice (softmax_default_dim).
class Softmax : public Module {
 public:
  explicit Softmax(std::optional<int64_t> dim = {}) : Module("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
};

class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(std::optional<int64_t> dim = {}) : Module("LogSoftmax"), dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
};

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& x) override { return x; }
};

// ---- convolutions

using ConvTranspose2dOptions = ConvOptions<2>;

// weight [in, out / groups, kH, kW].
class ConvTranspose2d : public Module {
 public:
  explicit ConvTranspose2d(const ConvTranspose2dOptions& options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  ConvTranspose2dOptions options;
};

// ---- normalization

// Input [N, C] or [N, C, L].
class BatchNorm1d : public BatchNormNd {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true)
      : BatchNormNd("BatchNorm1d", {2, 3}, num_features, eps, momentum, affine, track_running_stats) {}
};

class BatchNorm3d : public BatchNormNd {
 public:
  explicit BatchNorm3d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true)
      : BatchNormNd("BatchNorm3d", {5}, num_features, eps, momentum, affine, track_running_stats) {}
};

class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t num_groups, num_channels;
  double eps;
};

// ---- pooling

class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(int64_t kernel_size, std::optional<int64_t> stride = {}, int64_t padding = 0,
                     bool ceil_mode = false, bool count_include_pad = true)
      : Module("AvgPool2d"),
        kernel_size(kernel_size),
        stride(stride.value_or(kernel_size)),
        padding(padding),
        ceil_mode(ceil_mode),
        count_include_pad(count_include_pad) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
};

// output_size: one value (square) or {H, W}.
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(DimVector output_size) : Module("AdaptiveAvgPool2d"), output_size(std::move(output_size)) {}
  explicit AdaptiveAvgPool2d(int64_t output_size) : AdaptiveAvgPool2d(DimVector{output_size}) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  DimVector output_size;
};

// ---- dropout

// Zeroes whole channels of [N, C, H, W] (or [C, H, W]) input.
class Dropout2d : public Module {
 public:
  explicit Dropout2d(double p = 0.5) : Module("Dropout2d"), p(p) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double p;
};

// ---- recurrent layers

// What GRU and RNN share (torch.nn.RNNBase): parameters weight_ih_l{k}[_reverse], weight_hh_l{k}[_reverse],
// bias_ih_l{k}[_reverse], bias_hh_l{k}[_reverse], all U(-1/sqrt(hidden), 1/sqrt(hidden)). forward returns the
// output; forward_with_state returns (output, h_n, c_n), c_n undefined unless LSTM.
struct RNNLayerOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0;
  bool bidirectional = false;
};

class RNNBase : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::tuple<Tensor, Tensor, Tensor> forward_with_state(const Tensor& x, const std::vector<Tensor>& hx = {});
  std::string extra_repr() const override;
  RNNOptions options;
  int64_t input_size, hidden_size;

 protected:
  RNNBase(std::string name, RNNMode mode, int64_t input_size, int64_t hidden_size, const RNNLayerOptions& o);
};

class GRU : public RNNBase {
 public:
  GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool batch_first = false)
      : GRU(input_size, hidden_size, RNNLayerOptions{num_layers, true, batch_first}) {}
  GRU(int64_t input_size, int64_t hidden_size, const RNNLayerOptions& o)
      : RNNBase("GRU", RNNMode::GRU, input_size, hidden_size, o) {}
};

// nonlinearity: "tanh" or "relu".
class RNN : public RNNBase {
 public:
  RNN(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool batch_first = false,
      const std::string& nonlinearity = "tanh")
      : RNN(input_size, hidden_size, RNNLayerOptions{num_layers, true, batch_first}, nonlinearity) {}
  RNN(int64_t input_size, int64_t hidden_size, const RNNLayerOptions& o, const std::string& nonlinearity = "tanh");
};

// One step (torch.nn.RNNCellBase): parameters weight_ih, weight_hh[, bias_ih, bias_hh]. Input [B, I] or [I].
class RNNCellBase : public Module {
 public:
  std::string extra_repr() const override;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  int64_t input_size, hidden_size;

 protected:
  RNNCellBase(std::string name, RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias);
  RNNMode mode_;
};

class LSTMCell : public RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true)
      : RNNCellBase("LSTMCell", RNNMode::LSTM, input_size, hidden_size, bias) {}
  // h' from zero states.
  Tensor forward(const Tensor& x) override;
  // (h', c'); h and c undefined: zeros.
  std::pair<Tensor, Tensor> forward(const Tensor& x, const Tensor& h, const Tensor& c);
};

class GRUCell : public RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true)
      : RNNCellBase("GRUCell", RNNMode::GRU, input_size, hidden_size, bias) {}
  Tensor forward(const Tensor& x) override;
  Tensor forward(const Tensor& x, const Tensor& h);
};

// nonlinearity: "tanh" or "relu".
class RNNCell : public RNNCellBase {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true, const std::string& nonlinearity = "tanh");
  Tensor forward(const Tensor& x) override;
  Tensor forward(const Tensor& x, const Tensor& h);
  std::string extra_repr() const override;
};

// ---- losses: forward(input, target); reduction "mean" (default), "sum" or "none".

class LossModule : public Module {
 public:
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  using Module::forward;  // the one-input forward, which a loss does not have (NotImplementedError)
  Reduction reduction;

 protected:
  LossModule(std::string name, Reduction reduction) : Module(std::move(name)), reduction(reduction) {}
};

// weight (per class, optional) is a buffer "weight", as in torch.nn.
class CrossEntropyLoss : public LossModule {
 public:
  explicit CrossEntropyLoss(Tensor weight = {}, int64_t ignore_index = -100, Reduction reduction = Reduction::Mean,
                            double label_smoothing = 0.0);
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor weight;
  int64_t ignore_index;
  double label_smoothing;
};

class NLLLoss : public LossModule {
 public:
  explicit NLLLoss(Tensor weight = {}, int64_t ignore_index = -100, Reduction reduction = Reduction::Mean);
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor weight;
  int64_t ignore_index;
};

class MSELoss : public LossModule {
 public:
  explicit MSELoss(Reduction reduction = Reduction::Mean) : LossModule("MSELoss", reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class L1Loss : public LossModule {
 public:
  explicit L1Loss(Reduction reduction = Reduction::Mean) : LossModule("L1Loss", reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

// weight and pos_weight (optional) are buffers "weight" and "pos_weight", as in torch.nn.
class BCEWithLogitsLoss : public LossModule {
 public:
  explicit BCEWithLogitsLoss(Tensor weight = {}, Reduction reduction = Reduction::Mean, Tensor pos_weight = {});
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor weight, pos_weight;
};

}  // namespace ember::nn
