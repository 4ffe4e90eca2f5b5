// Reductions over any set of dims, with keepdim; and the reductions that also return indices.
#pragma once

#include <optional>
#include <utility>

#include "ember/tensor.h"

namespace ember {

// dims empty = all dims. dtype: the accumulation/output dtype for sum and prod (the input is cast).
Tensor sum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor nansum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor prod(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor mean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor nanmean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor all(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor any(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor count_nonzero(const Tensor& x, IntArrayRef dims = {});
// Whole-tensor max/min (a 0-d tensor; RuntimeError on empty input).
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
// Along a dim: (values, indices).
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
// dim nullopt: the index into the flattened tensor.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
// correction: 1 is Bessel's correction (unbiased), 0 the population statistic.
Tensor var(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
std::pair<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
std::pair<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);
// t summed over the dims that broadcast `size` to t's shape (Tensor.sum_to_size).
Tensor sum_to_size(const Tensor& t, IntArrayRef size);
// The normalised reduced dims of x (wrapped, sorted, unique; empty input means all) for the op `name`.
DimVector reduction_dims(const Tensor& x, IntArrayRef dims, const char* name);

}  // namespace ember
