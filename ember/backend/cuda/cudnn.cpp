// cuDNN handles, errors and descriptors (cudnn.h).
#include "ember/backend/cuda/cudnn.h"

#include <string>

#include "ember/backend/cuda/blas_glue.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // the legacy convolution API (cudnn.h)

namespace ember::cuda {

std::string cudnn_status_text(cudnnStatus_t s) {
  std::string r = cudnnGetErrorString(s);
  char last[512] = {};
  cudnnGetLastErrorString(last, sizeof(last));  // cuDNN 9's detail on the failing call, when it recorded one
  if (last[0]) r += detail::cat(" [", last, "]");
  return r;
}

namespace {
struct CudnnTag {};
}  // namespace

cudnnHandle_t cudnn_handle(int device) {
  cudnnHandle_t h = thread_handle<CudnnTag, cudnnHandle_t>(device, [device] {
    cudnnHandle_t made = nullptr;
    EMBER_CUDNN_CHECK(cudnnCreate(&made), "cuDNN: creating a handle for cuda:", device);
    return made;
  });
  EMBER_CUDNN_CHECK(cudnnSetStream(h, stream_of(device)), "cuDNN: binding the current stream of cuda:", device);
  return h;
}

cudnnDataType_t cudnn_dtype(ScalarType t, const char* op) {
  switch (t) {
    case ScalarType::Float32: return CUDNN_DATA_FLOAT;
    case ScalarType::Float64: return CUDNN_DATA_DOUBLE;
    case ScalarType::Float16: return CUDNN_DATA_HALF;
    case ScalarType::BFloat16: return CUDNN_DATA_BFLOAT16;
    default: fail<NotImplementedError>(op, ": cuDNN supports float32, float64, float16 and bfloat16, not ", t);
  }
}

TensorDesc::TensorDesc() { EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_), "cuDNN: creating a tensor descriptor"); }
TensorDesc::~TensorDesc() { cudnnDestroyTensorDescriptor(d_); }
void TensorDesc::set(cudnnDataType_t t, const std::vector<int>& dims, const std::vector<int>& strides) {
  EMBER_CUDNN_CHECK(cudnnSetTensorNdDescriptor(d_, t, static_cast<int>(dims.size()), dims.data(), strides.data()),
                    "cuDNN: tensor descriptor of dims ", dims_str(dims));
}

FilterDesc::FilterDesc() { EMBER_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d_), "cuDNN: creating a filter descriptor"); }
FilterDesc::~FilterDesc() { cudnnDestroyFilterDescriptor(d_); }
void FilterDesc::set(cudnnDataType_t t, const std::vector<int>& dims) {
  EMBER_CUDNN_CHECK(cudnnSetFilterNdDescriptor(d_, t, CUDNN_TENSOR_NCHW, static_cast<int>(dims.size()), dims.data()),
                    "cuDNN: filter descriptor of dims ", dims_str(dims));
}

ConvDesc::ConvDesc() {
  EMBER_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d_), "cuDNN: creating a convolution descriptor");
}
ConvDesc::~ConvDesc() { cudnnDestroyConvolutionDescriptor(d_); }
void ConvDesc::set(const std::vector<int>& pad, const std::vector<int>& stride, const std::vector<int>& dilation,
                   int groups, cudnnDataType_t compute, cudnnMathType_t math) {
  EMBER_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(d_, static_cast<int>(pad.size()), pad.data(), stride.data(),
                                                    dilation.data(), CUDNN_CROSS_CORRELATION, compute),
                    "cuDNN: convolution descriptor with padding ", dims_str(pad), ", stride ", dims_str(stride),
                    ", dilation ", dims_str(dilation));
  EMBER_CUDNN_CHECK(cudnnSetConvolutionGroupCount(d_, groups), "cuDNN: convolution groups ", groups);
  set_math(math);
}
void ConvDesc::set_math(cudnnMathType_t math) {
  EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(d_, math), "cuDNN: convolution math type ", static_cast<int>(math));
}

}  // namespace ember::cuda
