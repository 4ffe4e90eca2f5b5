// repr/str of tensors, following PyTorch's printing (torch/_tensor_str.py) so that output matches.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// ember.set_printoptions
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;  // summarise when numel exceeds this
  int64_t edgeitems = 3;
  int linewidth = 80;
  std::optional<bool> sci_mode;  // nullopt: decide from the data
};
PrintOptions& print_options();

// "tensor([[1., 2.]], dtype=float64, requires_grad=True)". The Python layer passes the grad_fn name
// (e.g. "MulBackward0") when there is one; `prefix` replaces "tensor(" for subclasses like Parameter.
std::string tensor_repr(const Tensor& t, std::string_view grad_fn = {}, std::string_view prefix = "tensor(");

}  // namespace ember
