// Trains a small CNN from C++ alone: 12x12 images holding a noisy horizontal or vertical bar; Conv2d, BatchNorm2d,
// ReLU, MaxPool2d, Flatten and Linear layers, cross-entropy, backward and SGD steps; prints held-out accuracy.
#include <iostream>

#include "ember/ember.h"

using namespace ember;

namespace {

// n images [n, 1, 12, 12]: a bar of ones at a random row (label 0) or column (label 1), plus noise.
std::pair<Tensor, Tensor> make_data(int64_t n) {
  Tensor labels = randint(0, 2, DimVector{n});
  Tensor pos = randint(1, 11, DimVector{n});
  Tensor coords = arange(12).view(DimVector{1, 12});
  Tensor hit = eq(coords, pos.view(DimVector{n, 1})).to(ScalarType::Float32);  // [n, 12]: the bar's position
  Tensor rows = hit.view(DimVector{n, 12, 1}).expand(DimVector{n, 12, 12});
  Tensor cols = hit.view(DimVector{n, 1, 12}).expand(DimVector{n, 12, 12});
  Tensor is_col = labels.to(ScalarType::Float32).view(DimVector{n, 1, 1});
  Tensor images = rows * (1.0 - is_col) + cols * is_col + randn(DimVector{n, 12, 12}) * 0.3;
  return {images.view(DimVector{n, 1, 12, 12}), labels};
}

}  // namespace

int main() {
  manual_seed(0);
  auto [x, y] = make_data(512);
  auto [x_test, y_test] = make_data(256);

  auto model = std::make_shared<nn::Sequential>();
  model->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 8, 3).padding(1)));
  model->push_back(std::make_shared<nn::BatchNorm2d>(8));
  model->push_back(std::make_shared<nn::ReLU>());
  model->push_back(std::make_shared<nn::MaxPool2d>(2));
  model->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(8, 16, 3).padding(1)));
  model->push_back(std::make_shared<nn::ReLU>());
  model->push_back(std::make_shared<nn::MaxPool2d>(2));
  model->push_back(std::make_shared<nn::Flatten>());
  model->push_back(std::make_shared<nn::Linear>(16 * 3 * 3, 2));
  std::cout << *model << "\n";

  const double lr = 0.05;
  for (int epoch = 0; epoch < 6; ++epoch) {
    double total = 0;
    for (int64_t b = 0; b < 512; b += 64) {
      Tensor loss = cross_entropy(model->forward(x.narrow(0, b, 64)), y.narrow(0, b, 64));
      model->zero_grad();
      loss.backward();
      autograd::NoGradGuard no_grad;
      for (Tensor& p : model->parameters()) binary_op(BinaryOp::Sub, p, p.grad() * lr, p);
      total += loss.item<double>();
    }
    std::cout << "epoch " << epoch << "  mean loss " << total / 8 << "\n";
  }
  model->eval();
  autograd::NoGradGuard no_grad;
  const double accuracy = mean(eq(argmax(model->forward(x_test), 1), y_test).to(ScalarType::Float32)).item<double>();
  std::cout << "held-out accuracy " << accuracy << "\n";
  return accuracy > 0.9 ? 0 : 1;
}
