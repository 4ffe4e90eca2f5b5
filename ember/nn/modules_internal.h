// Helpers shared by the C++ layers' sources (modules.cpp, modules_extra.cpp): PyTorch's default initialisation
// and the formatting of extra_repr values as Python prints them. Internal: not part of the public headers.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/ops.h"
#include "ember/tensor.h"

namespace ember::nn::detail {

// PyTorch's default for Linear and Conv: kaiming_uniform_(a=sqrt(5)) on the weight, which is U(-b, b) with
// b = 1/sqrt(fan_in), and the same bound for the bias.
inline void default_init(Tensor& weight, Tensor& bias, int64_t fan_in) {
  autograd::NoGradGuard no_grad;
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  uniform_(weight, -bound, bound);
  if (bias.defined()) uniform_(bias, -bound, bound);
}

// A Python tuple: "(3, 3)", and "(3,)" for one element.
inline std::string tuple_str(IntArrayRef v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// A Python float's repr for the usual values: "1.0", "0.01", "1e-05".
inline std::string float_str(double v) {
  std::ostringstream s;
  s << v;
  std::string r = s.str();
  if (r.find_first_of(".eEn") == std::string::npos) r += ".0";  // n: inf / nan stay as they are
  return r;
}

inline const char* bool_str(bool b) { return b ? "True" : "False"; }

}  // namespace ember::nn::detail
