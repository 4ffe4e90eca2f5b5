// Helpers shared by the C++ layers' sources (nn/modules/*.cpp): PyTorch's default initialisations and the formatting
// of extra_repr values as Python prints them. Internal: not part of the public headers.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/modules/conv.h"
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

// A size argument as the Python module keeps it: one value given prints as an int, several as a tuple.
inline std::string int_or_tuple_str(IntArrayRef v) { return v.size() == 1 ? std::to_string(v[0]) : tuple_str(v); }

// torch.nn.init's fans: dim 1 and dim 0 times the receptive field (the product of the dims after the first two).
inline std::pair<double, double> fans(const Tensor& t) {
  EMBER_CHECK_VALUE(t.dim() >= 2, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  double receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= static_cast<double>(t.size(d));
  return {static_cast<double>(t.size(1)) * receptive, static_cast<double>(t.size(0)) * receptive};
}

// torch.nn.init.xavier_uniform_ / xavier_normal_ with gain 1.
inline void xavier_uniform(const Tensor& t) {
  autograd::NoGradGuard no_grad;
  auto [in, out] = fans(t);
  const double bound = std::sqrt(6.0 / (in + out));
  uniform_(t, -bound, bound);
}
inline void xavier_normal(const Tensor& t) {
  autograd::NoGradGuard no_grad;
  auto [in, out] = fans(t);
  normal_(t, 0, std::sqrt(2.0 / (in + out)));
}

// ---- convolutions

template <size_t D>
inline void check_conv(const char* name, const ConvOptions<D>& o) {
  EMBER_CHECK_VALUE(o.groups_ > 0 && o.in_channels % o.groups_ == 0 && o.out_channels % o.groups_ == 0, name,
                    ": in_channels (", o.in_channels, ") and out_channels (", o.out_channels,
                    ") must be divisible by groups (", o.groups_, ")");
  EMBER_CHECK(o.kernel_size.size() == D && o.stride_.size() == D && o.padding_.size() == D &&
                  o.output_padding_.size() == D && o.dilation_.size() == D,
              name, ": expected ", D, " value(s) per size argument");
  EMBER_CHECK_VALUE(o.padding_str_.empty() || o.padding_str_ == "same" || o.padding_str_ == "valid", name,
                    ": invalid padding string '", o.padding_str_, "', should be one of {'valid', 'same'}");
  EMBER_CHECK_VALUE(o.padding_mode_ == "zeros" || o.padding_mode_ == "reflect" || o.padding_mode_ == "replicate" ||
                        o.padding_mode_ == "circular",
                    name,
                    ": padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
                    "padding_mode='",
                    o.padding_mode_, "'");
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
  if (!o.padding_str_.empty())
    s += ", padding=" + o.padding_str_;
  else if (!all_eq(o.padding_, 0))
    s += ", padding=" + tuple_str(o.padding_);
  if (!all_eq(o.dilation_, 1)) s += ", dilation=" + tuple_str(o.dilation_);
  if (!all_eq(o.output_padding_, 0)) s += ", output_padding=" + tuple_str(o.output_padding_);
  if (o.groups_ != 1) s += ", groups=" + std::to_string(o.groups_);
  if (!has_bias) s += ", bias=False";
  if (o.padding_mode_ != "zeros") s += ", padding_mode=" + o.padding_mode_;
  return s;
}

}  // namespace ember::nn::detail
