// cuDNN for the CUDA backend: the per-(device, thread) handle (Note [Library handles] in cublas.h), status checks
// whose messages name the op and the shapes, and owning wrappers of the descriptors. Included by CUDA sources only.
#pragma once

#include <cudnn.h>

#include <vector>

#include "ember/backend/cuda/cublas.h"
#include "ember/dtype.h"

// The convolution descriptors belong to cuDNN's legacy API, deprecated in cuDNN 9 but complete and supported; the
// graph API would need a plan per shape for the same calls (Note [Convolutions on cuDNN] in conv_glue.h).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace ember::cuda {

// "CUDNN_STATUS_BAD_PARAM (cuDNN's last error message, if any)".
std::string cudnn_status_text(cudnnStatus_t s);

#define EMBER_CUDNN_CHECK(expr, ...)                                                                                   \
  do {                                                                                                                 \
    const cudnnStatus_t st_ = (expr);                                                                                  \
    if (st_ != CUDNN_STATUS_SUCCESS) [[unlikely]]                                                                      \
      ::ember::fail<::ember::Error>(__VA_ARGS__, ": cuDNN error ", ::ember::cuda::cudnn_status_text(st_), " (", #expr, \
                                    ")");                                                                              \
  } while (0)

// The calling thread's cuDNN handle for `device`, bound to its current stream.
cudnnHandle_t cudnn_handle(int device);

// cuDNN's data type for an ember dtype (float32, float64, float16, bfloat16); raises NotImplementedError naming
// `op` otherwise.
cudnnDataType_t cudnn_dtype(ScalarType t, const char* op);

// Owning descriptors (created on construction, destroyed with the object).
class TensorDesc {
 public:
  TensorDesc();
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  void set(cudnnDataType_t t, const std::vector<int>& dims, const std::vector<int>& strides);
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

class FilterDesc {
 public:
  FilterDesc();
  ~FilterDesc();
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  void set(cudnnDataType_t t, const std::vector<int>& dims);
  cudnnFilterDescriptor_t get() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
 public:
  ConvDesc();
  ~ConvDesc();
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  void set(const std::vector<int>& pad, const std::vector<int>& stride, const std::vector<int>& dilation, int groups,
           cudnnDataType_t compute, cudnnMathType_t math);
  void set_math(cudnnMathType_t math);
  cudnnConvolutionDescriptor_t get() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
};

}  // namespace ember::cuda

#pragma GCC diagnostic pop
