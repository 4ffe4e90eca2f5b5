// Copies and conversions (ops/copy.cpp): copy_, fill_, to (dtype and device) and item.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

const Tensor& copy_(const Tensor& dst, const Tensor& src);  // broadcasts src, casts, crosses devices
const Tensor& fill_(const Tensor& t, const Scalar& value);
Tensor to(const Tensor& t, ScalarType dtype, bool copy = false);
Tensor to(const Tensor& t, Device device, std::optional<ScalarType> dtype = std::nullopt, bool copy = false);
Scalar item(const Tensor& t);

}  // namespace ember
