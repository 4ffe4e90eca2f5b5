// The C++ frontend's layers, with PyTorch's parameter names and default initialisation, so that a model defined in
// C++ has the same state_dict keys as the same model in Python. Each forward calls the same C++ functional ops the
// Python layers use.
#pragma once

#include <memory>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/rnn.h"

namespace ember::nn {

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t in_features, out_features;
};

struct Conv2dOptions {
  Conv2dOptions(int64_t in, int64_t out, int64_t kernel) : in_channels(in), out_channels(out), kernel_size{kernel, kernel} {}
  Conv2dOptions& stride(int64_t s) { stride_ = {s, s}; return *this; }
  Conv2dOptions& padding(int64_t p) { padding_ = {p, p}; return *this; }
  Conv2dOptions& dilation(int64_t d) { dilation_ = {d, d}; return *this; }
  Conv2dOptions& groups(int64_t g) { groups_ = g; return *this; }
  Conv2dOptions& bias(bool b) { bias_ = b; return *this; }
  int64_t in_channels, out_channels;
  DimVector kernel_size, stride_{1, 1}, padding_{0, 0}, dilation_{1, 1};
  int64_t groups_ = 1;
  bool bias_ = true;
};

class Conv2d : public Module {
 public:
  explicit Conv2d(const Conv2dOptions& options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  Conv2dOptions options;
};

// BatchNorm1d/2d/3d: the same parameters and buffers; they differ in the input ranks they accept.
class BatchNormNd : public Module {
 public:
  BatchNormNd(const char* name, DimVector ranks, int64_t num_features, double eps, double momentum, bool affine,
              bool track_running_stats);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
  int64_t num_features;
  double eps, momentum;

 private:
  DimVector ranks_;
};

class BatchNorm2d : public BatchNormNd {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true)
      : BatchNormNd("BatchNorm2d", {4}, num_features, eps, momentum, affine, track_running_stats) {}
};

class LayerNorm : public Module {
 public:
  explicit LayerNorm(DimVector normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
  DimVector normalized_shape;
  double eps;
};

class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5) : Module("Dropout"), p(p) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double p;
};

class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim);
  Tensor forward(const Tensor& indices) override;
  Tensor weight;
};

// Parameter-free layers.
class ReLU : public Module {
 public:
  ReLU() : Module("ReLU") {}
  Tensor forward(const Tensor& x) override;
};
class Tanh : public Module {
 public:
  Tanh() : Module("Tanh") {}
  Tensor forward(const Tensor& x) override;
};
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) override;
  int64_t start_dim, end_dim;
};
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(int64_t kernel_size, std::optional<int64_t> stride = {}, int64_t padding = 0)
      : Module("MaxPool2d"), kernel_size(kernel_size), stride(stride.value_or(kernel_size)), padding(padding) {}
  Tensor forward(const Tensor& x) override;
  int64_t kernel_size, stride, padding;
};

// An LSTM/GRU/RNN over a sequence: forward returns the output; last_state holds (h_n, c_n) of the last call.
class LSTM : public Module {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool batch_first = false);
  Tensor forward(const Tensor& x) override;
  std::tuple<Tensor, Tensor, Tensor> forward_with_state(const Tensor& x, const std::vector<Tensor>& hx = {});
  std::string extra_repr() const override;
  RNNOptions options;
  int64_t input_size, hidden_size;
};

class Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  template <class M>
  Sequential& push_back(std::shared_ptr<M> m) {
    register_module(std::to_string(named_children().size()), std::move(m));
    return *this;
  }
  Tensor forward(const Tensor& x) override;
};

}  // namespace ember::nn
#include "ember/nn/modules_extra.h"  // more layers: activations, Conv1d, GRU, cells, losses, ...
