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

// Options of a D-dimensional convolution (Conv1d/2d/3d; ConvTranspose2d uses output_padding). Sizes
// given as one value apply to every spatial dim.
template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in, int64_t out, int64_t kernel) : in_channels(in), out_channels(out), kernel_size(D, kernel) {}
  ConvOptions(int64_t in, int64_t out, DimVector kernel) : in_channels(in), out_channels(out), kernel_size(kernel) {}
  ConvOptions& stride(int64_t s) { stride_ = DimVector(D, s); return *this; }
  ConvOptions& stride(DimVector s) { stride_ = std::move(s); return *this; }
  ConvOptions& padding(int64_t p) { padding_ = DimVector(D, p); return *this; }
  ConvOptions& padding(DimVector p) { padding_ = std::move(p); return *this; }
  ConvOptions& output_padding(int64_t p) { output_padding_ = DimVector(D, p); return *this; }
  ConvOptions& output_padding(DimVector p) { output_padding_ = std::move(p); return *this; }
  ConvOptions& dilation(int64_t d) { dilation_ = DimVector(D, d); return *this; }
  ConvOptions& dilation(DimVector d) { dilation_ = std::move(d); return *this; }
  ConvOptions& groups(int64_t g) { groups_ = g; return *this; }
  ConvOptions& bias(bool b) { bias_ = b; return *this; }
  int64_t in_channels, out_channels;
  DimVector kernel_size, stride_ = DimVector(D, 1), padding_ = DimVector(D, 0), output_padding_ = DimVector(D, 0),
                         dilation_ = DimVector(D, 1);
  int64_t groups_ = 1;
  bool bias_ = true;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

// Conv1d/2d/3d: weight [out, in / groups, k...].
template <size_t D>
class ConvNd : public Module {
 public:
  explicit ConvNd(const ConvOptions<D>& options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  ConvOptions<D> options;
};
extern template class ConvNd<1>;
extern template class ConvNd<2>;
extern template class ConvNd<3>;
using Conv1d = ConvNd<1>;
using Conv2d = ConvNd<2>;
using Conv3d = ConvNd<3>;

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
