// Helpers shared by the C++ layers' sources (modules.cpp, modules_extra.cpp): PyTorch's default initialisation
// and the formatting of extra_repr values as Python prints them. Internal: not part of the public headers.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/ops.h"
#include "ember/nn/modules.h"
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


// ---- convolutions

template <size_t D>
inline void check_conv(const char* name, const ConvOptions<D>& o) {
  EMBER_CHECK(o.groups_ > 0 && o.in_channels % o.groups_ == 0 && o.out_channels % o.groups_ == 0, name,
              ": in_channels (", o.in_channels, ") and out_channels (", o.out_channels,
              ") must be divisible by groups (", o.groups_, ")");
  EMBER_CHECK(o.kernel_size.size() == D && o.stride_.size() == D && o.padding_.size() == D &&
                  o.output_padding_.size() == D && o.dilation_.size() == D,
              name, ": expected ", D, " value(s) per size argument");
}

inline int64_t prod(IntArrayRef v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

inline bool all_eq(IntArrayRef v, int64_t x) {
  for (int64_t e : v)
    if (e != x) return false;
  return true;
}

// torch.nn's _ConvNd.extra_repr.
template <size_t D>
inline std::string conv_repr(const ConvOptions<D>& o, bool has_bias) {
  std::string s = std::to_string(o.in_channels) + ", " + std::to_string(o.out_channels) +
                  ", kernel_size=" + tuple_str(o.kernel_size) + ", stride=" + tuple_str(o.stride_);
  if (!all_eq(o.padding_, 0)) s += ", padding=" + tuple_str(o.padding_);
  if (!all_eq(o.dilation_, 1)) s += ", dilation=" + tuple_str(o.dilation_);
  if (!all_eq(o.output_padding_, 0)) s += ", output_padding=" + tuple_str(o.output_padding_);
  if (o.groups_ != 1) s += ", groups=" + std::to_string(o.groups_);
  if (!has_bias) s += ", bias=False";
  return s;
}

}  // namespace ember::nn::detail
