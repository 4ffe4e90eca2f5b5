// Linear layers: Linear, Bilinear and Identity.
#pragma once

#include <string>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// y = x W^T + b; weight [out, in], both U(-1/sqrt(in), 1/sqrt(in)).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true)
      : Linear("Linear", in_features, out_features, bias) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t in_features, out_features;

 protected:
  Linear(std::string name, int64_t in_features, int64_t out_features, bool bias);  // a subclass's name
};

// y[o] = x1^T W[o] x2 + b[o]; weight [out, in1, in2], both U(-1/sqrt(in1), 1/sqrt(in1)).
class Bilinear : public Module {
 public:
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  using Module::forward;  // one input: NotImplementedError
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t in1_features, in2_features, out_features;
};

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& x) override { return x; }
};

}  // namespace ember::nn
