// Gradient formulas of the reduction, scan, sort and norm op families, which record them next to each op
// (ops/reduce.cpp, scan.cpp, sort.cpp; Note [Recording an op]). They are written with ember ops, so they are
// differentiable again. `keep` is the shape of the reduction's result in keepdim form (size 1 on reduced dims).
#pragma once

#include "ember/autograd/node.h"

namespace ember::autograd {

// t (a reduction's result or gradient) in keepdim form.
Tensor restore_reduced(const Tensor& t, IntArrayRef keep);
// sum's gradient: g broadcast back to the input's `sizes`.
Tensor sum_backward(const Tensor& g, IntArrayRef keep, IntArrayRef sizes);
// r = prod(x, dims); correct with zeros in x.
Tensor prod_backward(const Tensor& g, const Tensor& x, const Tensor& r, IntArrayRef dims, IntArrayRef keep);
// r = var(x, dims, correction).
Tensor var_backward(const Tensor& g, const Tensor& x, IntArrayRef dims, double correction, IntArrayRef keep);
// r = vector norm of order `ord` (not 0) of x over dims; PyTorch's norm_backward (0 where the norm is 0).
Tensor norm_backward(const Tensor& g, const Tensor& x, const Tensor& r, double ord, IntArrayRef dims, IntArrayRef keep);
// flip(cumsum(flip(t))) along dim, recorded as one node (cumsum's gradient).
Tensor reversed_cumsum(const Tensor& t, int64_t dim);
// y = cumprod(x, dim); correct with zeros in x.
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& y, int64_t dim);
// y = logcumsumexp(x, dim).
Tensor logcumsumexp_backward(const Tensor& g, const Tensor& x, const Tensor& y, int64_t dim);

// Records values = op(x) that picks the elements of x at `indices` along dim (sort, topk, and max/min/kthvalue/
// median/mode along a dim): the gradient goes back to those positions. keepdim: values has x's rank.
void record_value_selecting(const char* name, const Tensor& x, Tensor& values, const Tensor& indices, int64_t dim,
                            bool keepdim);
// Records r = an extremum (or median) of x over dims: the gradient is split evenly among the elements of x equal to
// r (NaN equal to NaN), as PyTorch does for amax/amin and the whole-tensor max/min/median.
void record_evenly_distributed(const char* name, const Tensor& x, Tensor& r, IntArrayRef dims, IntArrayRef keep);

}  // namespace ember::autograd
