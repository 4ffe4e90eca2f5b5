// Trains a small MLP from C++ alone: two interleaved spirals (a classic non-linear problem), the model built from
// ember::nn layers, cross-entropy, backward, and plain SGD steps; saves nothing, prints the accuracy.
#include <cmath>
#include <iostream>

#include "ember/ember.h"

using namespace ember;

int main() {
  manual_seed(0);
  // Two spirals: class k's points at angle t + k*pi, radius t.
  const int64_t n = 400;
  Tensor t = rand(DimVector{n}) * 3.0 * M_PI + 0.5;
  Tensor label = randint(0, 2, DimVector{n});
  Tensor angle = t + label.to(ScalarType::Float32) * M_PI;
  Tensor x = stack({t * cos(angle), t * sin(angle)}, 1) / 10.0 + randn(DimVector{n, 2}) * 0.02;

  auto model = std::make_shared<nn::Sequential>();
  model->push_back(std::make_shared<nn::Linear>(2, 64));
  model->push_back(std::make_shared<nn::Tanh>());
  model->push_back(std::make_shared<nn::Linear>(64, 64));
  model->push_back(std::make_shared<nn::Tanh>());
  model->push_back(std::make_shared<nn::Linear>(64, 2));
  std::cout << *model << "\n";

  const double lr = 0.5;
  for (int step = 0; step <= 1500; ++step) {
    Tensor loss = cross_entropy(model->forward(x), label);
    model->zero_grad();
    loss.backward();
    {
      autograd::NoGradGuard no_grad;
      for (Tensor& p : model->parameters()) binary_op(BinaryOp::Sub, p, p.grad() * lr, p);
    }
    if (step % 300 == 0) std::cout << "step " << step << "  loss " << loss.item<double>() << "\n";
  }
  autograd::NoGradGuard no_grad;
  const double accuracy = mean(eq(argmax(model->forward(x), 1), label).to(ScalarType::Float32)).item<double>();
  std::cout << "training accuracy " << accuracy << "\n";
  return accuracy > 0.95 ? 0 : 1;
}
