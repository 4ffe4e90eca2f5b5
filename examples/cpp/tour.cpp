// The C++ API: the same tensor core the Python package wraps.
#include <iostream>

#include "ember/ember.h"

int main() {
  using namespace ember;
  Tensor x = arange(6.0).view({{2, 3}}).t();  // a transposed view of [[0, 1, 2], [3, 4, 5]]
  std::cout << "x = " << x << "\ncontiguous: " << x.is_contiguous() << "\n";
  Tensor y = zeros({{3, 2}}, TensorOptions(ScalarType::Float64));
  y.copy_(x);  // casts float32 to float64
  std::cout << "y = " << y << "\n";
  manual_seed(0);
  std::cout << "randn: " << randn({{2, 2}}) << "\n";
  // Autograd from C++: the same engine the Python package uses.
  Tensor w = arange(3.0);
  w.set_requires_grad(true);
  Tensor z = exp(w * w);
  z.backward(ones_like(z));
  std::cout << "d exp(w^2)/dw = " << w.grad() << "\n";
  try {
    x.view({{4}});
  } catch (const Error& e) {
    std::cout << "error: " << e.what() << "\n";
  }
}
