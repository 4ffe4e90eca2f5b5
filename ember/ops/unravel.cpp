// unravel_index: (indices // strides) % sizes, with the row-major strides of the shape (PyTorch's formula).
#include "ember/ops/unravel.h"

#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

std::vector<Tensor> unravel_index(const Tensor& indices, IntArrayRef shape) {
  EMBER_CHECK_TYPE(is_integral(indices.dtype(), false), "expected 'indices' to be integer dtype, but got ",
                   indices.dtype());
  std::string sizes = "(";
  for (size_t i = 0; i < shape.size(); ++i) sizes += (i ? ", " : "") + std::to_string(shape[i]);
  sizes += shape.size() == 1 ? ",)" : ")";
  for (int64_t s : shape) EMBER_CHECK_VALUE(s >= 0, "'shape' cannot have negative values, but got ", sizes);
  for (int64_t s : shape)
    EMBER_CHECK_VALUE(s > 0 || indices.numel() == 0,
                      "'shape' cannot have zero dimensions when 'indices' is non-empty, but got ", sizes);
  const int64_t d = static_cast<int64_t>(shape.size());
  std::vector<int64_t> strides(d, 1);
  for (int64_t i = d - 2; i >= 0; --i) strides[i] = checked_mul(strides[i + 1], shape[i + 1], "unravel_index", "shape");
  const int64_t len[] = {d};
  const TensorOptions opts = TensorOptions(ScalarType::Int64).device(indices.device());
  const Tensor st = from_blob_copy(strides.data(), ScalarType::Int64, len, opts);
  const Tensor sz = from_blob_copy(shape.data(), ScalarType::Int64, len, opts);
  return unbind(remainder(floor_divide(unsqueeze(indices, -1), st), sz), -1);
}

}  // namespace ember
