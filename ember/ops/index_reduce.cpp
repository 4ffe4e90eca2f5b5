// put_ and index_reduce: index ops composed of index_put_ and scatter_reduce (their gradients come from those).
#include "ember/ops/index.h"

#include <string_view>
#include <vector>

#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

const Tensor& put_(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate) {
  refuse_complex_half("take_put_cpu", t.dtype());  // Note [complex32]
  check_same_device("put_", {&t, &index, &source});
  EMBER_CHECK_TYPE(index.dtype() == ScalarType::Int64, "put_(): Expected a long tensor for index, but got ",
                   index.dtype());
  EMBER_CHECK(t.dtype() == source.dtype(),
              "put_(): self and source expected to have the same dtype, but got "
              "self.dtype = ",
              t.dtype(), " and source.dtype = ", source.dtype());
  EMBER_CHECK_INDEX(index.numel() == source.numel(),
                    "put_(): Expected source and index to have the same number of "
                    "elements, but got source.numel() = ",
                    source.numel(), ", index.numel() = ", index.numel());
  if (index.numel() == 0) return t;
  EMBER_CHECK_INDEX(t.numel() > 0, "put_(): cannot put into an empty tensor (index of ", index.numel(), " elements)");
  const std::vector<Tensor> idx{reshape(index, {{-1}})};
  if (t.is_contiguous()) {
    index_put_(view(t, {{-1}}), idx, reshape(source, {{-1}}), accumulate);
  } else {
    Tensor flat = index_put(reshape(t, {{-1}}), idx, reshape(source, {{-1}}), accumulate);
    t.copy_(reshape(flat, t.sizes()));
  }
  return t;
}

Tensor put(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate) {
  return put_(clone(t), index, source, accumulate);
}

namespace {

// index (a vector along dim) as a scatter index of source's shape.
Tensor index_reduce_index(const Tensor& self, int64_t& dim, const Tensor& index, const Tensor& source,
                          std::string_view reduce, const char* op) {
  check_same_device(op, {&self, &index, &source});
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "index_reduce(): Expected "
              "reduce to be one of prod, mean, amax or amin but got ",
              reduce, ".");
  EMBER_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector, but got dim: ", index.dim(),
                    " with type: ", index.dtype(), " and size: ", shape_str(index.sizes()));
  EMBER_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, op,
              "(): Expected dtype int32/int64 for index but got: ", index.dtype());
  EMBER_CHECK(self.dtype() == source.dtype(), op, "(): self (", self.dtype(), ") and source (", source.dtype(),
              ") must have the same scalar type");
  dim = wrap_dim(dim, self.dim(), op);
  const Tensor src = source.dim() == 0 ? reshape(source, {{1}}) : source;
  EMBER_CHECK(std::max<int64_t>(self.dim(), 1) == src.dim(), op,
              "(): Self and source should have same number of "
              "dimensions (self ",
              shape_str(self.sizes()), ", source ", shape_str(source.sizes()), ")");
  EMBER_CHECK(index.numel() == src.sizes()[dim], op, "(): Number of indices (", index.numel(),
              ") should be equal to "
              "source.size(dim): (",
              src.sizes()[dim], "), for dim: ", dim);
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(d == dim || self.sizes()[d] == src.sizes()[d], op,
                "(): self and source must have the same size "
                "except along dim ",
                dim, " (self ", shape_str(self.sizes()), ", source ", shape_str(source.sizes()), ")");
  // Checked here, so that a bad index names this op with PyTorch's IndexError rather than scatter_reduce's
  // RuntimeError (on a GPU the scatter kernel checks it: Note [Deferred device errors]).
  if (index.numel() && index.device().is_cpu()) {
    const auto [lo, hi] = host_extrema(index);
    EMBER_CHECK_INDEX(lo.to_int() >= 0 && hi.to_int() < (self.dim() ? self.sizes()[dim] : 1),
                      "index out of range in self");
  }
  DimVector shape(src.dim(), 1);
  shape[dim] = index.numel();
  return expand(reshape(to(index, ScalarType::Int64), shape), src.sizes());
}

}  // namespace

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self) {
  const Tensor idx = index_reduce_index(self, dim, index, source, reduce, "index_reduce");
  const Tensor s = self.dim() == 0 ? reshape(self, {{1}}) : self;
  const Tensor src = source.dim() == 0 ? reshape(source, {{1}}) : source;
  return reshape(scatter_reduce(s, dim, idx, src, reduce, include_self), self.sizes());
}

const Tensor& index_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                            std::string_view reduce, bool include_self) {
  const Tensor idx = index_reduce_index(self, dim, index, source, reduce, "index_reduce_");
  if (self.dim() == 0) {
    self.copy_(index_reduce(self, dim, index, source, reduce, include_self));
    return self;
  }
  scatter_reduce_(self, dim, idx, source.dim() == 0 ? reshape(source, {{1}}) : source, reduce, include_self);
  return self;
}

}  // namespace ember
