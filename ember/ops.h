// The public operators. Each validates its arguments (errors name the op, shapes and dtypes), decides
// the output's dtype, device and shape, allocates it, and calls the device's kernel (backend/kernels.h).
// Implementations are split by concern under ember/ops/.
#pragma once

#include <optional>
#include <vector>

#include "ember/generator.h"
#include "ember/ops/binary.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/ops/sort.h"
#include "ember/ops/ternary.h"
#include "ember/ops/unary.h"
#include "ember/tensor.h"

namespace ember {

// ---- creation (ops/creation.cpp)
Tensor empty(IntArrayRef size, TensorOptions opts = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions opts = {});
Tensor zeros(IntArrayRef size, TensorOptions opts = {});
Tensor ones(IntArrayRef size, TensorOptions opts = {});
Tensor full(IntArrayRef size, const Scalar& value, TensorOptions opts = {});  // dtype defaults from value
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions opts = {});
Tensor arange(const Scalar& end, TensorOptions opts = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions opts = {});
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0, TensorOptions opts = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions opts = {});
// *_like: dtype and device default to the input's; the layout is contiguous.
Tensor empty_like(const Tensor& t, TensorOptions opts);
Tensor empty_like(const Tensor& t);
Tensor zeros_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor ones_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<ScalarType> dtype = std::nullopt);
// A tensor holding a copy of host data of type src_dtype, converted to opts' dtype and device.
Tensor from_blob_copy(const void* data, ScalarType src_dtype, IntArrayRef size, TensorOptions opts);
// A tensor that shares external host memory; `deleter` runs when the storage is released.
Tensor from_blob(void* data, ScalarType dtype, IntArrayRef size, IntArrayRef strides, Device device,
                 std::function<void()> deleter, size_t storage_nbytes);

// ---- views (ops/views.cpp): share storage with the input
Tensor view(const Tensor& t, IntArrayRef size);
// The same bytes read as another dtype (PyTorch's Tensor.view(dtype)); with a different element size the last
// dimension (stride 1) is split or merged. Not differentiable.
Tensor view(const Tensor& t, ScalarType dtype);
Tensor reshape(const Tensor& t, IntArrayRef size);
Tensor permute(const Tensor& t, IntArrayRef dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor t(const Tensor& t);
Tensor expand(const Tensor& t, IntArrayRef size);
Tensor expand_as(const Tensor& t, const Tensor& other);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor squeeze(const Tensor& t, IntArrayRef dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor flatten(const Tensor& t, int64_t start = 0, int64_t end = -1);
Tensor unflatten(const Tensor& t, int64_t dim, IntArrayRef sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step = 1);
Tensor as_strided(const Tensor& t, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> offset = {});
Tensor diagonal(const Tensor& t, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
Tensor alias(const Tensor& t);       // a new TensorImpl over the same storage, without history (detach)
Tensor view_alias(const Tensor& t);  // the same, as a differentiable view (identity gradient)
Tensor contiguous(const Tensor& t);
Tensor clone(const Tensor& t);
// The shape of broadcasting a and b; `op` names the caller in the error.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op = "broadcast_shapes");

// ---- copies and conversions (ops/copy.cpp)
const Tensor& copy_(const Tensor& dst, const Tensor& src);  // broadcasts src, casts, crosses devices
const Tensor& fill_(const Tensor& t, const Scalar& value);
Tensor to(const Tensor& t, ScalarType dtype, bool copy = false);
Tensor to(const Tensor& t, Device device, std::optional<ScalarType> dtype = std::nullopt, bool copy = false);
Scalar item(const Tensor& t);

// ---- type promotion (ops/promotion.cpp)
// torch.result_type over tensors and weak scalars: dimensioned tensors outrank 0-d tensors, which
// outrank Python numbers, each only when of a higher category (bool < integral < floating).
struct ResultTypeState {
  ScalarType dim_result = ScalarType::Bool, zero_dim_result = ScalarType::Bool, wrapped_result = ScalarType::Bool;
  bool has_dim = false, has_zero_dim = false, has_wrapped = false;
  void update(const Tensor& t);
  void update(const Scalar& s);
  ScalarType result() const;
};
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);

// ---- random (ops/random.cpp); gen = nullptr uses the device's default generator
Tensor rand(IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randn(IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randperm(int64_t n, Generator* gen = nullptr, TensorOptions opts = {});
Tensor normal(double mean, double std, IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(const Tensor& mean, double std, Generator* gen = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* gen = nullptr);
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
Tensor bernoulli(const Tensor& t, double p, Generator* gen = nullptr);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false, Generator* gen = nullptr);
const Tensor& uniform_(const Tensor& t, double from = 0, double to = 1, Generator* gen = nullptr);
const Tensor& normal_(const Tensor& t, double mean = 0, double std = 1, Generator* gen = nullptr);
const Tensor& bernoulli_(const Tensor& t, double p, Generator* gen = nullptr);
const Tensor& random_(const Tensor& t, int64_t from, std::optional<int64_t> to, Generator* gen = nullptr);

}  // namespace ember
