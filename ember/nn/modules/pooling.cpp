#include "ember/nn/modules/pooling.h"

#include "ember/nn/functional/pooling.h"
#include "ember/nn/modules/detail/util.h"

namespace ember::nn {

using detail::bool_str;
using detail::int_or_tuple_str;
using detail::tuple_str;

namespace {

// The functional ops of each family, indexed by D - 1.
using MaxPoolFn = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef,
                                                bool);
using MaxPoolValuesFn = Tensor (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
using AdaptiveAvgFn = Tensor (*)(const Tensor&, IntArrayRef);
using AdaptiveMaxFn = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef);
using UnpoolFn = Tensor (*)(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef);
constexpr MaxPoolFn kMaxPool[] = {&max_pool1d_with_indices, &max_pool2d_with_indices, &max_pool3d_with_indices};
constexpr MaxPoolValuesFn kMaxPoolValues[] = {&max_pool1d, &max_pool2d, &max_pool3d};
constexpr AdaptiveAvgFn kAdaptiveAvg[] = {&adaptive_avg_pool1d, &adaptive_avg_pool2d, &adaptive_avg_pool3d};
constexpr AdaptiveMaxFn kAdaptiveMax[] = {&adaptive_max_pool1d, &adaptive_max_pool2d, &adaptive_max_pool3d};
constexpr UnpoolFn kUnpool[] = {&max_unpool1d, &max_unpool2d, &max_unpool3d};

template <size_t D>
std::string pool_name(const char* family) {
  return std::string(family) + std::to_string(D) + "d";
}

template <size_t D>
void check_sizes(const std::string& name, const PoolOptions<D>& o) {
  for (const DimVector* v : {&o.kernel_size, &o.stride_, &o.padding_, &o.dilation_})
    EMBER_CHECK_VALUE(v->size() <= 1 || v->size() == D, name, ": expected 1 or ", D,
                      " value(s) per size argument, got ", shape_str(*v));
  EMBER_CHECK_VALUE(!o.kernel_size.empty(), name, ": kernel_size must be given");
}

// One value repeated over the D dims, as torch.nn's _pair / _triple.
template <size_t D>
DimVector expanded(const DimVector& v) {
  return v.size() == 1 ? DimVector(D, v[0]) : v;
}

template <size_t D>
PoolOptions<D> int_options(int64_t kernel, std::optional<int64_t> stride, int64_t padding) {
  PoolOptions<D> o(kernel);
  if (stride) o.stride(*stride);
  o.padding(padding);
  return o;
}

}  // namespace

// ---- MaxPoolNd

template <size_t D>
MaxPoolNd<D>::MaxPoolNd(PoolOptions<D> o) : Module(pool_name<D>("MaxPool")), options(std::move(o)) {
  check_sizes(name(), options);
}

template <size_t D>
MaxPoolNd<D>::MaxPoolNd(int64_t kernel, std::optional<int64_t> stride, int64_t padding, int64_t dilation,
                        bool ceil_mode)
    : MaxPoolNd(int_options<D>(kernel, stride, padding).dilation(dilation).ceil_mode(ceil_mode)) {}

template <size_t D>
Tensor MaxPoolNd<D>::forward(const Tensor& x) {
  const auto& o = options;
  return kMaxPoolValues[D - 1](x, o.kernel_size, o.stride_or_kernel(), o.padding_, o.dilation_, o.ceil_mode_);
}

template <size_t D>
std::pair<Tensor, Tensor> MaxPoolNd<D>::forward_with_indices(const Tensor& x) {
  const auto& o = options;
  return kMaxPool[D - 1](x, o.kernel_size, o.stride_or_kernel(), o.padding_, o.dilation_, o.ceil_mode_);
}

template <size_t D>
std::string MaxPoolNd<D>::extra_repr() const {
  const auto& o = options;
  return "kernel_size=" + int_or_tuple_str(o.kernel_size) + ", stride=" + int_or_tuple_str(o.stride_or_kernel()) +
         ", padding=" + int_or_tuple_str(o.padding_) + ", dilation=" + int_or_tuple_str(o.dilation_) +
         ", ceil_mode=" + bool_str(o.ceil_mode_);
}

// ---- AvgPoolNd

template <size_t D>
AvgPoolNd<D>::AvgPoolNd(PoolOptions<D> o) : Module(pool_name<D>("AvgPool")), options(std::move(o)) {
  check_sizes(name(), options);
  EMBER_CHECK_VALUE(D != 1 || !options.divisor_override_, name(), " has no divisor_override");
  EMBER_CHECK_VALUE(!options.divisor_override_ || *options.divisor_override_ != 0, name(),
                    ": divisor must be not zero");
}

template <size_t D>
AvgPoolNd<D>::AvgPoolNd(int64_t kernel, std::optional<int64_t> stride, int64_t padding, bool ceil_mode,
                        bool count_include_pad)
    : AvgPoolNd(int_options<D>(kernel, stride, padding).ceil_mode(ceil_mode).count_include_pad(count_include_pad)) {}

template <size_t D>
Tensor AvgPoolNd<D>::forward(const Tensor& x) {
  const auto& o = options;
  if constexpr (D == 1) {
    return avg_pool1d(x, o.kernel_size, o.stride_or_kernel(), o.padding_, o.ceil_mode_, o.count_include_pad_);
  } else {
    constexpr auto fn = D == 2 ? &avg_pool2d : &avg_pool3d;
    return fn(x, o.kernel_size, o.stride_or_kernel(), o.padding_, o.ceil_mode_, o.count_include_pad_,
              o.divisor_override_);
  }
}

// torch.nn.AvgPool1d keeps its sizes as 1-tuples; AvgPool2d/3d as given.
template <size_t D>
std::string AvgPoolNd<D>::extra_repr() const {
  const auto& o = options;
  auto str = [](const DimVector& v) { return D == 1 ? tuple_str(v) : int_or_tuple_str(v); };
  return "kernel_size=" + str(o.kernel_size) + ", stride=" + str(o.stride_or_kernel()) + ", padding=" + str(o.padding_);
}

// ---- adaptive pooling

template <size_t D>
AdaptiveAvgPoolNd<D>::AdaptiveAvgPoolNd(DimVector size)
    : Module(pool_name<D>("AdaptiveAvgPool")), output_size(std::move(size)) {
  EMBER_CHECK_VALUE(output_size.size() == 1 || output_size.size() == D, name(), ": output_size must have 1 or ", D,
                    " values, got ", shape_str(output_size));
}

template <size_t D>
Tensor AdaptiveAvgPoolNd<D>::forward(const Tensor& x) {
  return kAdaptiveAvg[D - 1](x, output_size);
}

template <size_t D>
std::string AdaptiveAvgPoolNd<D>::extra_repr() const {
  return "output_size=" + int_or_tuple_str(output_size);
}

template <size_t D>
AdaptiveMaxPoolNd<D>::AdaptiveMaxPoolNd(DimVector size)
    : Module(pool_name<D>("AdaptiveMaxPool")), output_size(std::move(size)) {
  EMBER_CHECK_VALUE(output_size.size() == 1 || output_size.size() == D, name(), ": output_size must have 1 or ", D,
                    " values, got ", shape_str(output_size));
}

template <size_t D>
Tensor AdaptiveMaxPoolNd<D>::forward(const Tensor& x) {
  return forward_with_indices(x).first;
}

template <size_t D>
std::pair<Tensor, Tensor> AdaptiveMaxPoolNd<D>::forward_with_indices(const Tensor& x) {
  return kAdaptiveMax[D - 1](x, output_size);
}

template <size_t D>
std::string AdaptiveMaxPoolNd<D>::extra_repr() const {
  return "output_size=" + int_or_tuple_str(output_size);
}

// ---- MaxUnpoolNd

template <size_t D>
MaxUnpoolNd<D>::MaxUnpoolNd(PoolOptions<D> o) : Module(pool_name<D>("MaxUnpool")), options(std::move(o)) {
  check_sizes(name(), options);
}

template <size_t D>
MaxUnpoolNd<D>::MaxUnpoolNd(int64_t kernel, std::optional<int64_t> stride, int64_t padding)
    : MaxUnpoolNd(int_options<D>(kernel, stride, padding)) {}

template <size_t D>
Tensor MaxUnpoolNd<D>::forward(const Tensor& x, const Tensor& indices, IntArrayRef output_size) {
  const auto& o = options;
  return kUnpool[D - 1](x, indices, o.kernel_size, o.stride_or_kernel(), o.padding_, output_size);
}

// torch.nn.MaxUnpool*d keeps its sizes as D-tuples.
template <size_t D>
std::string MaxUnpoolNd<D>::extra_repr() const {
  const auto& o = options;
  return "kernel_size=" + tuple_str(expanded<D>(o.kernel_size)) +
         ", stride=" + tuple_str(expanded<D>(o.stride_or_kernel())) + ", padding=" + tuple_str(expanded<D>(o.padding_));
}

#define EMBER_NN_POOL_INSTANCES(D)     \
  template class MaxPoolNd<D>;         \
  template class AvgPoolNd<D>;         \
  template class AdaptiveAvgPoolNd<D>; \
  template class AdaptiveMaxPoolNd<D>; \
  template class MaxUnpoolNd<D>;
EMBER_NN_POOL_INSTANCES(1)
EMBER_NN_POOL_INSTANCES(2)
EMBER_NN_POOL_INSTANCES(3)
#undef EMBER_NN_POOL_INSTANCES

}  // namespace ember::nn
