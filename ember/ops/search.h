// Binary search over sorted sequences (searchsorted, bucketize) and membership (isin), ops/search.cpp.
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// side: "left" or "right" (right=True and side="left" contradict: an error). out_int32: int32 result.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = {}, const Tensor& sorter = {});
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = {}, const Tensor& sorter = {});
// boundaries: 1-d.
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& input, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// Bool of elements' shape: whether each element occurs in test_elements (NaN occurs nowhere).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false, bool invert = false);

}  // namespace ember
