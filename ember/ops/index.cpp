// Gather, scatter, masks and advanced indexing: validation, and the restrided views of Note [Index kernels]
// through which every op here reaches one of two kernels (index_gather, index_scatter). Masks become index
// tensors through nonzero. Gradient formulas sit with the ops and save the index tensors, not the data (except
// scatter_reduce's prod, amax and amin); in-place forms record as their out-of-place op (Note [In-place ops]).
#include <cmath>
#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/detail/shape_grad.h"
#include "ember/backend/kernels/index.h"
#include "ember/cuda.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/scalar_check.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

void check_writable(const Tensor& t, const char* op) {
  EMBER_CHECK(!has_internal_overlap(t), op,
              ": unsupported operation: more than one element of the written-to tensor "
              "refers to a single memory location. Please clone() the tensor before performing the operation.");
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.device() == b.device(), op,
              "(): Expected all tensors to be on the same device, but found at least two "
              "devices, ",
              a.device(), " and ", b.device(), "!");
}

// An operand an in-place op reads while writing `self`: copied first when the two share memory.
Tensor unaliased(const Tensor& self, const Tensor& t) { return may_overlap(self, t) ? clone(t) : t; }

// A 0-d t as 1-d, for the kernels: a plain view, never recorded.
Tensor as_1d(const Tensor& t) { return t.dim() == 0 ? make_view(t, {{1}}, {{1}}, t.storage_offset()) : t; }

// t viewed with `sizes` and its own strides, except stride 0 along `dim`, the dim the index walks.
Tensor restride(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  DimVector st(t.strides());
  st[dim] = 0;
  return make_view(t, sizes, st, t.storage_offset());
}

// A vector index laid along `dim` of `shape` (stride 0 on the other dims).
Tensor along(const Tensor& index, IntArrayRef shape, int64_t dim) {
  DimVector st(shape.size(), 0);
  st[dim] = index.dim() ? index.strides()[0] : 0;
  return make_view(index, shape, st, index.storage_offset());
}

// gather, scatter, index_select, index_add and index_copy take no negative indices (PyTorch's rule).
IndexDim index_dim(const Tensor& t, int64_t dim, bool wrap = false) {
  return {t.sizes()[dim], t.strides()[dim], dim, wrap};
}

// The int32 or int64 vector index of index_select and the index_* ops, as an int64 vector.
Tensor vector_index(const Tensor& index, const char* op, bool int64_only = false) {
  EMBER_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector, got shape ", shape_str(index.sizes()));
  EMBER_CHECK(index.dtype() == ScalarType::Int64 || (!int64_only && index.dtype() == ScalarType::Int32), op,
              "(): Expected dtype ", int64_only ? "int64" : "int32 or int64", " for index, got ", index.dtype());
  return as_1d(to(index, ScalarType::Int64));
}

// ---------------------------------------------------------------------------------------- gather / scatter

int64_t size_or_1(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

void check_gather_shapes(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == nd,
              "gather(): Index tensor must have the same number of "
              "dimensions as input tensor (index of shape ",
              shape_str(index.sizes()), ", input of shape ", shape_str(self.sizes()), ")");
  for (int64_t d = 0; d < nd; ++d)
    EMBER_CHECK(d == dim || size_or_1(index, d) <= size_or_1(self, d), "gather(): Size does not match at dimension ", d,
                " expected index ", shape_str(index.sizes()), " to be smaller than self ", shape_str(self.sizes()),
                " apart from dimension ", dim);
}

void check_scatter_shapes(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == nd, op,
              "(): Index tensor must have the same number of dimensions "
              "as self tensor (index of shape ",
              shape_str(index.sizes()), ", self of shape ", shape_str(self.sizes()), ")");
  if (src)
    EMBER_CHECK(std::max<int64_t>(src->dim(), 1) == nd, op,
                "(): Index tensor must have the same number of dimensions "
                "as src tensor (index of shape ",
                shape_str(index.sizes()), ", src of shape ", shape_str(src->sizes()), ")");
  bool fits = true;
  for (int64_t d = 0; d < nd; ++d) {
    fits &= d == dim || size_or_1(index, d) <= size_or_1(self, d);
    fits &= !src || size_or_1(index, d) <= size_or_1(*src, d);
  }
  if (src)
    EMBER_CHECK(fits, op, "(): Expected index ", shape_str(index.sizes()), " to be smaller than self ",
                shape_str(self.sizes()), " apart from dimension ", dim, " and to be smaller size than src ",
                shape_str(src->sizes()));
  EMBER_CHECK(fits, op, "(): Expected index ", shape_str(index.sizes()), " to be smaller than self ",
              shape_str(self.sizes()), " apart from dimension ", dim);
}

// self[index[i][j]][j] (op)= src[i][j] for dim 0, without the version bump. src undefined: `value` everywhere.
void scatter_into(ScatterMode mode, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  const Scalar& value, const char* op) {
  dim = wrap_dim(dim, self.dim(), op);
  EMBER_CHECK(index.dtype() == ScalarType::Int64, op, "(): Expected dtype int64 for index, got ", index.dtype());
  refuse_complex_half(src.defined() ? "scatter_gather_tensor_cpu" : "scatter_gather_scalar_cpu",  // Note [complex32]
                      self.dtype());
  if (src.defined()) {
    EMBER_CHECK(src.dtype() == self.dtype(), op, "(): Expected self.dtype to be equal to src.dtype (got ", self.dtype(),
                " and ", src.dtype(), ")");
    check_same_device(self, src, op);
  }
  check_same_device(self, index, op);
  check_writable(self, op);
  if (index.numel() == 0) return;
  check_scatter_shapes(self, dim, index, src.defined() ? &src : nullptr, op);
  Tensor s = as_1d(self), i = as_1d(unaliased(self, index));
  Tensor v;
  if (src.defined()) {
    Tensor s1 = as_1d(unaliased(self, src));
    v = make_view(s1, i.sizes(), s1.strides(), s1.storage_offset());
  } else {
    v = expand(full({}, value, TensorOptions(self.dtype()).device(self.device())), i.sizes());
  }
  index_scatter_kernel[self.device()](mode, restride(s, i.sizes(), dim), v, i, index_dim(s, dim), op);
}

ScatterMode legacy_reduce_mode(std::optional<std::string_view> reduce) {
  if (!reduce) return ScatterMode::Copy;
  if (*reduce == "add") return ScatterMode::Add;
  if (*reduce == "multiply") return ScatterMode::Mul;
  fail<Error>("scatter(): reduce argument must be either add or multiply, got '", *reduce, "'");
}

// The value that leaves any other unchanged under mode (amax: the lowest value of the dtype).
Scalar identity_of(ScatterMode mode, ScalarType dtype) {
  if (mode == ScatterMode::Add) return Scalar(int64_t{0});
  if (mode == ScatterMode::Mul) return Scalar(int64_t{1});
  const bool lowest = mode == ScatterMode::Max;
  if (dtype == ScalarType::Bool) return Scalar(!lowest);
  if (is_floating(dtype)) return Scalar(lowest ? -INFINITY : INFINITY);
  return dispatch_all(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>)
      return Scalar(static_cast<int64_t>(lowest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
    else
      return Scalar(0.0);
  });
}

// ---------------------------------------------------------------------------------------- advanced indexing

// Where an index of advanced indexing reads or writes self: the restrided self and one int64 index, both of
// the result's shape (Note [Index kernels]).
struct IndexPlan {
  Tensor self;  // restrided: stride 0 on the dims the index walks
  Tensor idx;
  IndexDim d;
  DimVector shape;
};

// Bool masks become the long indices of their true elements (a k-dim mask gives k indices); a 0-d mask becomes a
// new dim of size 1 indexed by [0] (true) or [] (false). Integer indices become int64.
std::vector<Tensor> expand_masks(Tensor& self, const std::vector<Tensor>& indices) {
  std::vector<Tensor> r;
  for (const Tensor& idx : indices) {
    if (!idx.defined()) {
      r.emplace_back();
      continue;
    }
    const ScalarType t = idx.dtype();
    EMBER_CHECK_INDEX(is_integral(t, true), "tensors used as indices must be long, int, byte or bool tensors (got ", t,
                      ")");
    check_same_device(self, idx, "index");
    if (t != ScalarType::Bool && t != ScalarType::UInt8) {
      r.push_back(to(idx, ScalarType::Int64));
      continue;
    }
    const int64_t d = static_cast<int64_t>(r.size());
    if (idx.dim() == 0) {
      self = unsqueeze(self, d);
      r.push_back(item(idx).to_bool() ? zeros({{1}}, TensorOptions(ScalarType::Int64).device(self.device()))
                                      : empty({{0}}, TensorOptions(ScalarType::Int64).device(self.device())));
      continue;
    }
    EMBER_CHECK_INDEX(d + idx.dim() <= self.dim(), "too many indices for tensor of dimension ", self.dim(), " (got ",
                      d + idx.dim(), ")");
    for (int64_t j = 0; j < idx.dim(); ++j)
      EMBER_CHECK_INDEX(idx.sizes()[j] == self.sizes()[d + j], "The shape of the mask ", shape_str(idx.sizes()),
                        " at index ", j, " does not match the shape of the indexed tensor ", shape_str(self.sizes()),
                        " at index ", d + j);
    // A mask over dims that merge into one (x[x > 0] on a contiguous x) indexes the merged dim with the positions
    // of its flattened trues: one nonzero column and one index, not k columns folded into offsets afterwards.
    bool merge = idx.dim() > 1;
    for (int64_t j = d; merge && j + 1 < d + idx.dim(); ++j)
      merge = self.strides()[j] == self.strides()[j + 1] * self.sizes()[j + 1];
    if (merge) {
      DimVector shape, strides;
      for (int64_t j = 0; j < self.dim(); ++j) {
        if (j > d && j < d + idx.dim()) continue;  // merged into dim d
        shape.push_back(j == d ? idx.numel() : self.sizes()[j]);
        strides.push_back(j == d ? self.strides()[d + idx.dim() - 1] : self.strides()[j]);
      }
      self = make_view(self, shape, strides, self.storage_offset());
      r.push_back(select(nonzero(reshape(idx, {{-1}})), 1, 0));
      continue;
    }
    Tensor nz = nonzero(idx);
    for (int64_t j = 0; j < idx.dim(); ++j) r.push_back(select(nz, 1, j));
  }
  EMBER_CHECK_INDEX(static_cast<int64_t>(r.size()) <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim(), " (got ", r.size(), ")");
  return r;
}

bool broadcast_into(DimVector& shape, IntArrayRef s) {
  const size_t n = std::max(shape.size(), s.size());
  DimVector r(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = i < n - shape.size() ? 1 : shape[i - (n - shape.size())];
    const int64_t b = i < n - s.size() ? 1 : s[i - (n - s.size())];
    if (a != b && a != 1 && b != 1) return false;
    r[i] = a == 1 ? b : a;
  }
  shape = r;
  return true;
}

// check_first: fold even a single index into checked offsets, so that a write fails before touching anything.
IndexPlan plan_index(const Tensor& self_in, const std::vector<Tensor>& indices_in, bool check_first) {
  Tensor self = self_in;
  std::vector<Tensor> indices = expand_masks(self, indices_in);
  DimVector dims;  // the indexed dims of self
  std::vector<Tensor> used;
  for (size_t k = 0; k < indices.size(); ++k)
    if (indices[k].defined()) {
      dims.push_back(static_cast<int64_t>(k));
      used.push_back(indices[k]);
    }
  EMBER_CHECK_INDEX(!used.empty(), "index(): expected at least one index tensor");
  DimVector b(used[0].sizes());
  bool ok = true;
  for (const Tensor& t : used) ok &= broadcast_into(b, t.sizes());
  if (!ok) {
    std::string shapes;
    for (const Tensor& t : used) shapes += (shapes.empty() ? "" : ", ") + shape_str(t.sizes());
    fail<IndexError>("shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
  }
  // Indexed dims that are not adjacent move to the front, and the result's index dims with them.
  const int64_t k = static_cast<int64_t>(dims.size());
  DimVector orig(dims);
  if (dims.back() - dims[0] + 1 != k) {
    DimVector perm(dims);
    for (int64_t d = 0; d < self.dim(); ++d)
      if (!std::ranges::count(dims, d)) perm.push_back(d);
    self = permute(self, perm);
    for (int64_t j = 0; j < k; ++j) dims[j] = j;
  }
  const int64_t start = dims[0], nb = static_cast<int64_t>(b.size());
  IndexPlan p;
  DimVector st;
  for (int64_t d = 0; d < start; ++d) {
    p.shape.push_back(self.sizes()[d]);
    st.push_back(self.strides()[d]);
  }
  for (int64_t s : b) {
    p.shape.push_back(s);
    st.push_back(0);
  }
  for (int64_t d = start + k; d < self.dim(); ++d) {
    p.shape.push_back(self.sizes()[d]);
    st.push_back(self.strides()[d]);
  }
  p.self = make_view(self, p.shape, st, self.storage_offset());
  auto place = [&](const Tensor& t) {  // t broadcast to b, laid on the result's index dims
    Tensor e = expand(t, b);
    DimVector est(p.shape.size(), 0);
    for (int64_t j = 0; j < nb; ++j) est[start + j] = e.strides()[j];
    return make_view(e, p.shape, est, e.storage_offset());
  };
  if (k == 1 && !check_first) {
    p.idx = place(used[0]);
    p.d = {self.sizes()[start], self.strides()[start], orig[0]};
    return p;
  }
  std::vector<Tensor> expanded;
  std::vector<IndexDim> ds;
  for (int64_t j = 0; j < k; ++j) {
    expanded.push_back(expand(used[j], b));
    ds.push_back({self.sizes()[start + j], self.strides()[start + j], orig[j]});
  }
  Tensor offsets = empty(b, TensorOptions(ScalarType::Int64).device(self.device()));
  if (offsets.numel()) index_offsets_kernel[self.device()](offsets, expanded, ds, nullptr);
  p.idx = place(offsets);
  p.d = {};
  return p;
}

DimVector mask_shape(const Tensor& self, const Tensor& mask, const char* op) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, op, ": expected BoolTensor for mask, got ", mask.dtype());
  check_same_device(self, mask, op);
  return broadcast_shapes(self.sizes(), mask.sizes(), op);
}

// An out-of-place op's result before it is written: a copy of self that records nothing.
Tensor copy_of(const Tensor& self) {
  Tensor r = empty_like(self);
  copy_into(r, self);
  return r;
}

bool is_one(const Scalar& s) { return s.is_floating() ? s.to_double() == 1.0 : s.to_int() == 1; }

// The index tensors a formula saved (one entry per index, undefined where there was none).
std::vector<Tensor> saved_list(const FormulaNode& n, size_t from) {
  std::vector<Tensor> r;
  for (size_t i = from; i < n.saved.size(); ++i) r.push_back(n.saved_tensor(i));
  return r;
}

// scatter (mode Copy: self's gradient is zero where src was written; src undefined: the value form) and
// scatter_add. src's gradient is the result's gradient where each element of src went.
void record_scatter(const Tensor& r, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    bool add) {
  const Tensor* in[] = {&self, src.defined() ? &src : nullptr};
  const char* name = add ? "ScatterAddBackward0" : src.defined() ? "ScatterBackward0" : "ScatterBackward1";
  auto n = autograd::make_node(
      name, in,
      [add, dim, src_sizes = src.defined() ? DimVector(src.sizes()) : DimVector()](FormulaNode& n, TensorList& g) {
        Tensor idx = n.saved_tensor(0);
        TensorList r(2);
        if (n.needs(0)) r[0] = add ? g[0] : scatter(g[0], dim, idx, Scalar(0.0));
        if (n.needs(1)) r[1] = autograd::grow_to(gather(g[0], dim, idx), src_sizes);
        return r;
      });
  if (!n) return;
  n->save(index);
  autograd::set_history(r, n);
}

// scatter with reduce="add"/"multiply" has no formula (as in PyTorch): backward raises.
void record_scatter_reduce_legacy(const Tensor& r, const Tensor& self, const Tensor& src) {
  const Tensor* in[] = {&self, src.defined() ? &src : nullptr};
  autograd::record_not_implemented("scatter with reduce", in, std::span(&r, 1));
}

enum class Reduce : uint8_t { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(std::string_view reduce) {
  if (reduce == "sum") return Reduce::Sum;
  if (reduce == "prod") return Reduce::Prod;
  if (reduce == "mean") return Reduce::Mean;
  if (reduce == "amax") return Reduce::Amax;
  if (reduce == "amin") return Reduce::Amin;
  fail<Error>("scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
}

// Whether scatter_reduce's formula reads self, src and the result (else only the index).
bool reads_data(Reduce r) { return r == Reduce::Prod || r == Reduce::Amax || r == Reduce::Amin; }

// self = self (op) src at the index, without the version bump; include_self false: the old values take no part.
void scatter_reduce_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Reduce reduce,
                         bool include_self) {
  const char* op = "scatter_reduce";
  const ScatterMode mode = reduce == Reduce::Prod   ? ScatterMode::Mul
                           : reduce == Reduce::Amax ? ScatterMode::Max
                           : reduce == Reduce::Amin ? ScatterMode::Min
                                                    : ScatterMode::Add;  // sum, and mean (divided afterwards)
  EMBER_CHECK(src.dtype() == self.dtype(), op, "(): Expected self.dtype to be equal to src.dtype (got ", self.dtype(),
              " and ", src.dtype(), ")");
  Tensor source = unaliased(self, src);  // read after self's first write below
  if (!include_self) scatter_into(ScatterMode::Copy, self, dim, index, {}, identity_of(mode, self.dtype()), op);
  scatter_into(mode, self, dim, index, source, {}, op);
  if (reduce == Reduce::Mean) {
    Tensor count = include_self ? ones_like(self) : zeros_like(self);
    scatter_into(ScatterMode::Add, count, dim, index, ones_like(source), {}, op);
    count = where(eq(count, 0), Operand(1), count);
    copy_into(self, is_floating(self.dtype()) ? div(self, count) : div(self, count, "floor"));
  }
}

// t's leading block of `shape` (the part of scatter's src that the index reads).
Tensor leading(const Tensor& t, IntArrayRef shape) {
  Tensor r = t;
  if (t.dim() != static_cast<int64_t>(shape.size())) return r;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) != shape[d]) r = narrow(r, d, 0, shape[d]);
  return r;
}

// PyTorch's scatter_reduce_backward. Saved: the index; for prod, amax and amin also self, src and the result.
TensorList scatter_reduce_backward(const FormulaNode& n, const Tensor& grad, int64_t dim, Reduce reduce,
                                   bool include_self, IntArrayRef src_sizes) {
  const Tensor index = n.saved_tensor(0);
  const bool need_self = n.needs(0), need_src = n.needs(1);
  Tensor gs, gsrc;
  switch (reduce) {
    case Reduce::Sum:
      gs = grad;
      if (need_src) gsrc = gather(grad, dim, index);
      break;
    case Reduce::Mean: {  // each output is its inputs' mean: they share its gradient equally
      Tensor count = include_self ? ones_like(grad) : zeros_like(grad);
      count = scatter_add(count, dim, index, ones_like(index, grad.dtype()));
      count = masked_fill(count, eq(count, 0), 1);
      gs = div(grad, count);
      if (need_src) gsrc = div(gather(grad, dim, index), gather(count, dim, index));
      break;
    }
    case Reduce::Prod: {
      // The product of the others, computed without dividing by a zero factor.
      Tensor self = n.saved_tensor(1), src = leading(n.saved_tensor(2), index.sizes()), result = n.saved_tensor(3);
      if (need_self) {
        Tensor masked_self = masked_fill(self, eq(self, 0), 1);
        gs = div(mul(grad, scatter_reduce(masked_self, dim, index, src, "prod", include_self)), masked_self);
      }
      if (need_src) {
        Tensor src_zero = eq(src, 0);
        Tensor zeros_there = scatter_add(zeros_like(self), dim, index, to(src_zero, self.dtype()));
        Tensor src_num_zeros = gather(zeros_there, dim, index);
        Tensor single_zero = logical_and(src_zero, eq(src_num_zeros, 1));
        Tensor others = scatter_reduce(self, dim, index, masked_fill(src, single_zero, 1), "prod", include_self);
        gsrc = where(single_zero, gather(mul(grad, others), dim, index),
                     div(gather(mul(grad, result), dim, index), masked_fill(src, src_zero, 1)));
        if (autograd::is_grad_enabled() && item(any(gt(src_num_zeros, 1))).to_bool())
          gsrc = autograd::delayed_error(gsrc,
                                         "scatter_reduce(): Double backward is unsupported for src when >1 "
                                         "zeros in src are scattered to the same position in self");
      }
      break;
    }
    case Reduce::Amax:
    case Reduce::Amin: {  // ties share the gradient equally
      Tensor self = n.saved_tensor(1), src = leading(n.saved_tensor(2), index.sizes()), result = n.saved_tensor(3);
      Tensor self_is_result = to(eq(self, result), grad.dtype());
      // Without include_self, an old value equal to the result by chance took no part (PyTorch counts it).
      if (!include_self) self_is_result = scatter(self_is_result, dim, index, Scalar(0.0));
      Tensor src_is_result = to(eq(src, gather(result, dim, index)), grad.dtype());
      Tensor share = div(grad, scatter_add(self_is_result, dim, index, src_is_result));
      gs = mul(self_is_result, share);
      if (need_src) gsrc = mul(src_is_result, gather(share, dim, index));
      break;
    }
  }
  TensorList r(2);
  if (need_self) r[0] = include_self ? gs : scatter(gs, dim, index, Scalar(0.0));
  if (need_src) r[1] = autograd::grow_to(gsrc, src_sizes);
  return r;
}

// self.index_op(dim, index, source): source has self's shape except along dim, where it has one slice per index.
void index_scatter_into(ScatterMode mode, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        const char* op) {
  dim = wrap_dim(dim, self.dim(), op);
  check_same_device(self, index, op);
  check_same_device(self, source, op);
  Tensor idx = vector_index(index, op);
  EMBER_CHECK(self.dtype() == source.dtype(), op, "(): self (", type_label(self.dtype()), ") and source (",
              type_label(source.dtype()), ") must have the same scalar type");
  Tensor s = as_1d(self), src = as_1d(source);
  EMBER_CHECK(s.dim() == src.dim(), op,
              "(): When source and destination are not scalars, their dimensionality must "
              "match. Source dimensionality (",
              source.dim(), "), destination dimensionality (", self.dim(), ")");
  EMBER_CHECK_INDEX(idx.numel() == src.sizes()[dim], op, "(): Number of indices (", idx.numel(),
                    ") should be equal to source.size(dim) (", src.sizes()[dim], ")");
  for (int64_t d = 0; d < s.dim(); ++d)
    EMBER_CHECK(d == dim || s.sizes()[d] == src.sizes()[d], op,
                "(): source tensor shape must match self tensor shape, "
                "excluding the specified dimension. Got self.shape = ",
                shape_str(self.sizes()), " source.shape = ", shape_str(source.sizes()));
  check_writable(self, op);
  if (src.numel() == 0) return;
  index_scatter_kernel[self.device()](mode, restride(s, src.sizes(), dim), unaliased(self, src),
                                      along(unaliased(self, idx), src.sizes(), dim), index_dim(s, dim), op);
}

void index_add_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  EMBER_CHECK(self.dtype() == source.dtype(), "index_add_(): self (", type_label(self.dtype()), ") and source (",
              type_label(source.dtype()), ") must have the same scalar type");
  if (is_integral(self.dtype(), true))
    EMBER_CHECK(!alpha.is_floating(),
                "index_add_(): For integral input tensors, argument alpha must not be a floating "
                "point number.");
  const Tensor scaled = is_one(alpha) ? source : to(mul(source, alpha), self.dtype());
  if (is_complex(self.dtype()) && self.dim() > 0 && source.dim() > 0) [[unlikely]] {
    // The adding kernels add real numbers: add the (re, im) pairs (as index_put_into's accumulation).
    const Tensor target = self.is_conj() ? conj(self) : self;
    const Tensor v = resolve_conj(self.is_conj() ? conj(scaled) : scaled);
    index_scatter_into(ScatterMode::Add, view_as_real(target), wrap_dim(dim, self.dim(), "index_add_"), index,
                       view_as_real(v), "index_add_");
    return;
  }
  index_scatter_into(ScatterMode::Add, self, dim, index, scaled, "index_add_");
}

void index_fill_into(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_scalar_fits(value, self.dtype(), "index_fill_");
  dim = wrap_dim(dim, self.dim(), "index_fill_");
  check_same_device(self, index, "index_fill_");
  Tensor idx = vector_index(index, "index_fill_", true), s = as_1d(self);
  check_writable(self, "index_fill_");
  DimVector shape(s.sizes());
  shape[dim] = idx.numel();
  if (checked_numel(shape, "index_fill_")) {
    Tensor v = expand(full({}, value, TensorOptions(self.dtype()).device(self.device())), shape);
    Tensor i = along(unaliased(self, idx), shape, dim);
    index_scatter_kernel[self.device()](ScatterMode::Copy, restride(s, shape, dim), v, i, index_dim(s, dim, true),
                                        "index_fill_");
  }
}

void index_put_into(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  EMBER_CHECK(values.dtype() == self.dtype(), "Index put requires the source and destination dtypes match, got ",
              type_label(self.dtype()), " for the destination and ", type_label(values.dtype()), " for the source.");
  check_same_device(self, values, "index_put_");
  check_writable(self, "index_put_");
  if (accumulate && is_complex(self.dtype())) [[unlikely]] {
    // The accumulating kernels add real numbers: a complex accumulation adds the (re, im) pairs, the indices naming
    // the leading dims. A conjugate view accumulates the conjugated values into its memory.
    const Tensor target = self.is_conj() ? conj(self) : self;
    const Tensor v = resolve_conj(self.is_conj() ? conj(values) : values);
    index_put_into(view_as_real(target), indices, view_as_real(v), true);
    return;
  }
  IndexPlan p = plan_index(self, indices, true);
  DimVector shape(p.shape);
  EMBER_CHECK(values.dim() <= static_cast<int64_t>(shape.size()) && broadcast_into(shape, values.sizes()) &&
                  std::ranges::equal(shape, p.shape),
              "shape mismatch: value tensor of shape ", shape_str(values.sizes()),
              " cannot be broadcast to indexing result of shape ", shape_str(p.shape));
  if (checked_numel(p.shape, "index_put_")) {
    Tensor v = expand(unaliased(self, values), p.shape);
    index_scatter_kernel[self.device()](accumulate ? ScatterMode::Add : ScatterMode::Copy, p.self, v,
                                        unaliased(self, p.idx), p.d, nullptr);
  }
}

void masked_scatter_into(const Tensor& self, const Tensor& mask, const Tensor& source) {
  refuse_complex_half("masked_scatter", self.dtype());  // Note [complex32]
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  EMBER_CHECK(self.dtype() == source.dtype(), "masked_scatter: expected self and source to have same dtypes but got ",
              type_label(self.dtype()), " and ", type_label(source.dtype()));
  check_same_device(self, mask, "masked_scatter_");
  Tensor s = as_1d(self);
  // The mask as indexing takes it: over dims of self that merge, one index column to find and scatter by, not one per
  // dim ([64, 1024] at half density, one thread: 226 -> 126 us; PyTorch 113). s becomes the merged view.
  std::vector<Tensor> where_true = expand_masks(s, {expand(as_1d(mask), s.sizes())});
  const int64_t n = where_true[0].numel();
  EMBER_CHECK(source.numel() >= n, "masked_scatter_: Number of elements of source (", source.numel(),
              ") < number of ones in mask (", n, ")");
  index_put_into(s, where_true, narrow(reshape(source, {{-1}}), 0, 0, n), false);
}

}  // namespace

// ---------------------------------------------------------------------------------------- gather / scatter

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  EMBER_PY_DISPATCH(Tensor, "aten.gather.default", self, dim, index, false);
  dim = wrap_dim(dim, self.dim(), "gather");
  EMBER_CHECK(index.dtype() == ScalarType::Int64, "gather(): Expected dtype int64 for index, got ", index.dtype());
  refuse_complex_half("scatter_gather_tensor_cpu", self.dtype());  // Note [complex32]
  check_same_device(self, index, "gather");
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (index.numel()) {
    check_gather_shapes(self, dim, index);
    Tensor s = as_1d(self), i = as_1d(index);
    index_gather_kernel[self.device()](as_1d(out), restride(s, i.sizes(), dim), i, index_dim(s, dim), "gather");
  }
  // Each element goes back where it was read from; one read twice gets both gradients.
  if (auto n = autograd::make_node("GatherBackward0", {&self},
                                   [dim, in = DimVector(self.sizes())](FormulaNode& n, TensorList& g) {
                                     Tensor r = autograd::zeros_for(g[0], in);  // zeros of its own, added into in place
                                     scatter_add_(r, dim, n.saved_tensor(0), g[0]);
                                     return TensorList{r};
                                   })) {
    n->save(index);
    autograd::set_history(out, n);
  }
  return out;
}

const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       std::optional<std::string_view> reduce) {
  if (autograd::needs_grad({&self, &src}))
    return autograd::inplace_with_grad(self, "scatter_", [&] { return scatter(self, dim, index, src, reduce); });
  scatter_into(legacy_reduce_mode(reduce), self, dim, index, src, {}, "scatter");
  self.bump_version();
  return self;
}

const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                       std::optional<std::string_view> reduce) {
  if (autograd::needs_grad({&self}))
    return autograd::inplace_with_grad(self, "scatter_", [&] { return scatter(self, dim, index, value, reduce); });
  scatter_into(legacy_reduce_mode(reduce), self, dim, index, {}, value, "scatter");
  self.bump_version();
  return self;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               std::optional<std::string_view> reduce) {
  if (!reduce) EMBER_PY_DISPATCH(Tensor, "aten.scatter.src", self, dim, index, src);
  const ScatterMode mode = legacy_reduce_mode(reduce);
  Tensor r = copy_of(self);
  scatter_into(mode, r, dim, index, src, {}, "scatter");
  if (mode == ScatterMode::Copy)
    record_scatter(r, self, dim, index, src, false);
  else
    record_scatter_reduce_legacy(r, self, src);
  return r;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               std::optional<std::string_view> reduce) {
  if (!reduce) EMBER_PY_DISPATCH(Tensor, "aten.scatter.value", self, dim, index, value);
  const ScatterMode mode = legacy_reduce_mode(reduce);
  Tensor r = copy_of(self);
  scatter_into(mode, r, dim, index, {}, value, "scatter");
  if (mode == ScatterMode::Copy)
    record_scatter(r, self, dim, index, {}, false);
  else
    record_scatter_reduce_legacy(r, self, {});
  return r;
}

const Tensor& scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (autograd::needs_grad({&self, &src}))
    return autograd::inplace_with_grad(self, "scatter_add_", [&] { return scatter_add(self, dim, index, src); });
  scatter_into(ScatterMode::Add, self, dim, index, src, {}, "scatter_add");
  self.bump_version();
  return self;
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_AUTOCAST(autocast::kPromoteCuda, scatter_add, self, dim, index, src);
  EMBER_PY_DISPATCH(Tensor, "aten.scatter_add.default", self, dim, index, src);
  Tensor r = copy_of(self);
  scatter_into(ScatterMode::Add, r, dim, index, src, {}, "scatter_add");
  record_scatter(r, self, dim, index, src, true);
  return r;
}

const Tensor& scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self) {
  const Reduce red = parse_reduce(reduce);
  if (autograd::needs_grad({&self, &src})) {
    // A formula that reads self gets the old self as a copy, as self is about to be overwritten.
    return autograd::inplace_with_grad(self, "scatter_reduce_", [&] {
      return scatter_reduce(reads_data(red) ? clone(self) : self, dim, index, src, reduce, include_self);
    });
  }
  scatter_reduce_into(self, dim, index, src, red, include_self);
  self.bump_version();
  return self;
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self) {
  const Reduce red = parse_reduce(reduce);
  Tensor r = copy_of(self);
  scatter_reduce_into(r, dim, index, src, red, include_self);
  auto n = autograd::make_node(
      "ScatterReduceBackward0", {&self, &src},
      [dim, red, include_self, src_sizes = DimVector(src.sizes())](FormulaNode& n, TensorList& g) {
        return scatter_reduce_backward(n, g[0], dim, red, include_self, src_sizes);
      });
  if (n) {
    n->save(index);
    if (reads_data(red)) {
      n->save(self);
      n->save(src);
    }
    autograd::set_history(r, n);
    if (reads_data(red)) n->save_output(r);
  }
  return r;
}

// ---------------------------------------------------------------------------------------- index_*

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  EMBER_PY_DISPATCH(Tensor, "aten.index_select.default", self, dim, index);
  dim = wrap_dim(dim, self.dim(), "index_select");
  check_same_device(self, index, "index_select");
  Tensor idx = vector_index(index, "index_select"), s = as_1d(self);
  EMBER_CHECK_INDEX(self.dim() > 0 || idx.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                    idx.numel(), " value(s)");
  DimVector shape(s.sizes());
  shape[dim] = idx.numel();
  const TensorOptions o = TensorOptions(self.dtype()).device(self.device());
  Tensor out = empty(self.dim() ? IntArrayRef(shape) : IntArrayRef(), o);  // a fresh 0-d result for a 0-d self
  if (out.numel())
    index_gather_kernel[self.device()](as_1d(out), restride(s, shape, dim), along(idx, shape, dim), index_dim(s, dim),
                                       "index_select");
  if (auto n = autograd::make_node("IndexSelectBackward0", {&self},
                                   [dim, in = DimVector(self.sizes())](FormulaNode& n, TensorList& g) {
                                     Tensor r = autograd::zeros_for(g[0], in);  // zeros of its own, added into in place
                                     index_add_(r, dim, n.saved_tensor(0), g[0]);
                                     return TensorList{r};
                                   })) {
    n->save(idx);
    autograd::set_history(out, n);
  }
  return out;
}

const Tensor& index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) {
  if (autograd::needs_grad({&self, &source}))
    return autograd::inplace_with_grad(self, "index_add_", [&] { return index_add(self, dim, index, source, alpha); });
  index_add_into(self, dim, index, source, alpha);
  self.bump_version();
  return self;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  EMBER_PY_DISPATCH(Tensor, "aten.index_add.default", self, dim, index, source, alpha);
  // source's gradient: the slices of the result's gradient it was added into (the unfold formula relies on it).
  auto n = autograd::make_node("IndexAddBackward0", {&self, &source},
                               [dim, alpha, src_sizes = DimVector(source.sizes())](FormulaNode& n, TensorList& g) {
                                 TensorList r(2);
                                 if (n.needs(0)) r[0] = g[0];
                                 if (n.needs(1)) {
                                   Tensor gs = autograd::grow_to(index_select(g[0], dim, n.saved_tensor(0)), src_sizes);
                                   r[1] = is_one(alpha) ? gs : mul(gs, alpha);
                                 }
                                 return r;
                               });
  Tensor r = autograd::untracked(n != nullptr, [&] {
    Tensor r = copy_of(self);
    index_add_into(r, dim, index, source, alpha);
    return r;
  });
  if (n) {
    n->save(index);
    autograd::set_history(r, n);
  }
  return r;
}

const Tensor& index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  if (autograd::needs_grad({&self, &source}))
    return autograd::inplace_with_grad(self, "index_copy_", [&] { return index_copy(self, dim, index, source); });
  index_scatter_into(ScatterMode::Copy, self, dim, index, source, "index_copy_");
  self.bump_version();
  return self;
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  EMBER_AUTOCAST(autocast::kPromoteCpu, index_copy, self, dim, index, source);
  Tensor r = copy_of(self);
  index_scatter_into(ScatterMode::Copy, r, dim, index, source, "index_copy_");
  if (auto n = autograd::make_node("IndexCopyBackward0", {&self, &source},
                                   [dim, src_sizes = DimVector(source.sizes())](FormulaNode& n, TensorList& g) {
                                     Tensor idx = n.saved_tensor(0);
                                     TensorList r(2);
                                     if (n.needs(0)) r[0] = index_fill(g[0], dim, idx, Scalar(0.0));
                                     if (n.needs(1)) r[1] = autograd::grow_to(index_select(g[0], dim, idx), src_sizes);
                                     return r;
                                   })) {
    n->save(to(index, ScalarType::Int64));  // index_fill takes int64 only
    autograd::set_history(r, n);
  }
  return r;
}

const Tensor& index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  if (dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]: the handler updates self
    if (dispatch::offer("aten.index_fill_.int_Scalar", self, dim, index, value)) return self;
  }
  if (autograd::needs_grad({&self}))
    return autograd::inplace_with_grad(self, "index_fill_", [&] { return index_fill(self, dim, index, value); });
  index_fill_into(self, dim, index, value);
  self.bump_version();
  return self;
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor r = copy_of(self);
  index_fill_into(r, dim, index, value);
  if (auto n = autograd::make_node("IndexFillBackward0", {&self}, [dim](FormulaNode& n, TensorList& g) {
        return TensorList{index_fill(g[0], dim, n.saved_tensor(0), Scalar(0.0))};
      })) {
    n->save(index);
    autograd::set_history(r, n);
  }
  return r;
}

// ---------------------------------------------------------------------------------------- advanced indexing

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  // Offered with PyTorch's Tensor?[] indices: an undefined tensor (a dim not indexed) goes as None.
  EMBER_PY_DISPATCH(Tensor, "aten.index.Tensor", self, indices);
  // Each element goes back where it was read from; one read twice gets both gradients. A mode sees PyTorch's
  // new_zeros and index_put(accumulate=True) (Note [Python dispatch]).
  auto n = autograd::make_node("IndexBackward0", {&self},
                               [in = DimVector(self.sizes())](FormulaNode& n, TensorList& g) {
                                 Tensor z;
                                 if (dispatch::enabled()) [[unlikely]] {
                                   if (auto r = dispatch::offer("aten.new_zeros.default", g[0], IntArrayRef(in)))
                                     z = dispatch::result<Tensor>(std::move(*r));
                                 }
                                 if (!z.defined()) z = autograd::zeros_for(g[0], in);
                                 return TensorList{index_put(z, saved_list(n, 0), g[0], /*accumulate=*/true)};
                               });
  Tensor out = autograd::untracked(n != nullptr, [&] {
    IndexPlan p = plan_index(self, indices, false);
    Tensor out = empty(p.shape, TensorOptions(self.dtype()).device(self.device()));
    if (out.numel()) index_gather_kernel[self.device()](out, p.self, p.idx, p.d, nullptr);
    return out;
  });
  if (n) {
    for (const Tensor& i : indices) n->save(i);
    autograd::set_history(out, n);
  }
  return out;
}

const Tensor& index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                         bool accumulate) {
  if (dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]: the handler updates self
    if (dispatch::offer("aten.index_put_.default", self, indices, values, accumulate)) return self;
  }
  if (autograd::needs_grad({&self, &values}))
    return autograd::inplace_with_grad(self, "index_put_",
                                       [&] { return index_put(self, indices, values, accumulate); });
  index_put_into(self, indices, values, accumulate);
  self.bump_version();
  return self;
}

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  EMBER_AUTOCAST(autocast::kPromoteCuda, index_put, self, indices, values, accumulate);
  EMBER_PY_DISPATCH(Tensor, "aten.index_put.default", self, indices, values, accumulate);
  // Without accumulate the written elements of self are lost. Every value gets the gradient of the element it
  // was written to, duplicates included (as PyTorch); the engine sums it over the dims values was broadcast along.
  auto n = autograd::make_node("IndexPutBackward0", {&self, &values}, [accumulate](FormulaNode& n, TensorList& g) {
    std::vector<Tensor> idx = saved_list(n, 0);
    TensorList r(2);
    if (n.needs(0)) r[0] = accumulate ? g[0] : index_put(g[0], idx, autograd::zeros_for(g[0], {}), false);
    if (n.needs(1)) r[1] = index(g[0], idx);
    return r;
  });
  Tensor r = autograd::untracked(n != nullptr, [&] {
    Tensor r = copy_of(self);
    index_put_into(r, indices, values, accumulate);
    return r;
  });
  if (n) {
    for (const Tensor& i : indices) n->save(i);
    autograd::set_history(r, n);
  }
  return r;
}

// ---------------------------------------------------------------------------------------- masks

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  DimVector shape = mask_shape(self, mask, "masked_select");
  if (shape.empty()) shape.push_back(1);
  return index(expand(self, shape), {expand(mask, shape)});  // recorded by expand and index
}

const Tensor& masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source) {
  if (autograd::needs_grad({&self, &source}))
    return autograd::inplace_with_grad(self, "masked_scatter_", [&] { return masked_scatter(self, mask, source); });
  masked_scatter_into(self, mask, source);
  self.bump_version();
  return self;
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  // source's leading elements went, in order, to the true positions; the rest were not read.
  auto n = autograd::make_node(
      "MaskedScatterBackward0", {&self, &source},
      [src_sizes = DimVector(source.sizes()), count = source.numel()](FormulaNode& n, TensorList& g) {
        Tensor mask = n.saved_tensor(0);
        TensorList r(2);
        if (n.needs(0)) r[0] = masked_fill(g[0], mask, 0);
        if (n.needs(1)) r[1] = reshape(autograd::grow_to(masked_select(g[0], mask), {{count}}), src_sizes);
        return r;
      });
  Tensor r = autograd::untracked(n != nullptr, [&] {
    Tensor r = copy_of(expand(self, mask_shape(self, mask, "masked_scatter")));
    masked_scatter_into(r, mask, source);
    return r;
  });
  if (n) {
    n->save(mask);
    autograd::set_history(r, n);
  }
  return r;
}

const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  check_same_device(self, mask, "masked_fill_");
  check_writable(self, "masked_fill_");
  check_scalar_fits(value, self.dtype(), "masked_fill_");
  if (dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]: the handler updates self
    if (dispatch::offer("aten.masked_fill_.Scalar", self, mask, value)) return self;
  }
  if (autograd::needs_grad({&self}))
    return autograd::inplace_with_grad(self, "masked_fill_", [&] { return masked_fill(self, mask, value); });
  Tensor m = unaliased(self, expand(mask, self.sizes()));
  ternary_op(TernaryOp::Where, m, full({}, value, TensorOptions(self.dtype()).device(self.device())), self, self);
  return self;
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_fill only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  check_same_device(self, mask, "masked_fill");
  check_scalar_fits(value, self.dtype(), "masked_fill");
  EMBER_PY_DISPATCH(Tensor, "aten.masked_fill.Scalar", self, mask, value);
  // PyTorch's node: the filled elements get no gradient.
  auto n = autograd::make_node("MaskedFillBackward0", {&self}, [](FormulaNode& n, TensorList& g) {
    return TensorList{masked_fill(g[0], n.saved_tensor(0), 0)};
  });
  Tensor r = autograd::untracked(n != nullptr, [&] {
    return where(mask, full({}, value, TensorOptions(self.dtype()).device(self.device())), self);
  });
  if (n) {
    n->save(mask);
    autograd::set_history(r, n);
  }
  return r;
}

namespace {
void check_value_tensor(const Tensor& value, const char* op) {
  EMBER_CHECK(value.dim() == 0, op, " only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
              " dimension(s).");
}
}  // namespace

// A tensor value that requires grad fills through where, which differentiates with respect to it.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_value_tensor(value, "masked_fill");
  if (const Tensor * in[] = {&value}; !autograd::needs_grad(in)) return masked_fill(self, mask, item(value));
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_fill only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  check_same_device(self, mask, "masked_fill");
  return where(mask, to(value, self.device(), self.dtype()), self);
}

const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_value_tensor(value, "masked_fill_");
  if (const Tensor * in[] = {&self, &value}; autograd::needs_grad(in))
    return autograd::inplace_with_grad(self, "masked_fill_", [&] { return masked_fill(self, mask, value); });
  return masked_fill_(self, mask, item(value));
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  check_value_tensor(value, "index_fill");
  if (const Tensor * in[] = {&value}; !autograd::needs_grad(in)) return index_fill(self, dim, index, item(value));
  Tensor mask = index_fill(zeros(self.sizes(), TensorOptions(ScalarType::Bool).device(self.device())), dim, index,
                           true);
  return where(mask, to(value, self.device(), self.dtype()), self);
}

const Tensor& index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  check_value_tensor(value, "index_fill_");
  if (const Tensor * in[] = {&self, &value}; autograd::needs_grad(in))
    return autograd::inplace_with_grad(self, "index_fill_", [&] { return index_fill(self, dim, index, value); });
  return index_fill_(self, dim, index, item(value));
}

Tensor nonzero(const Tensor& self) {
  check_has_data(self, "nonzero");
  cuda::SyncOpName sync_op("nonzero");  // Note [Sync debug mode]
  const int64_t n = item(count_nonzero(self)).to_int();
  Tensor out = empty({{n, self.dim()}}, TensorOptions(ScalarType::Int64).device(self.device()));
  // The kernel tests elements against zero; complex32 ones it has no instantiation for are tested as a mask.
  if (n) nonzero_kernel[self.device()](out, contiguous(self.dtype() == ScalarType::ComplexHalf ? ne(self, 0) : self));
  return out;
}

std::vector<Tensor> nonzero_tuple(const Tensor& self) { return unbind(nonzero(as_1d(self)), 1); }

Tensor argwhere(const Tensor& self) { return nonzero(self); }

// ---------------------------------------------------------------------------------------- take

Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.dtype() == ScalarType::Int64, "take(): Expected a long tensor for index, but got ",
              type_label(index.dtype()));
  refuse_complex_half("take_cpu", self.dtype());  // Note [complex32]
  check_same_device(self, index, "take");
  auto n = autograd::make_node(
      "TakeBackward0", {&self}, [in = DimVector(self.sizes()), count = self.numel()](FormulaNode& n, TensorList& g) {
        Tensor flat = autograd::zeros_for(g[0], {{count}});
        return TensorList{reshape(index_put(flat, {n.saved_tensor(0)}, g[0], /*accumulate=*/true), in)};
      });
  Tensor out = autograd::untracked(n != nullptr, [&] {
    Tensor flat = reshape(self, {{-1}});
    Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
    if (out.numel() == 0) return out;
    Tensor src = make_view(flat, index.sizes(), DimVector(index.dim(), 0), flat.storage_offset());
    index_gather_kernel[self.device()](out, src, index, {flat.numel(), flat.strides()[0], 0}, "take");
    return out;
  });
  if (n) {
    n->save(index);
    autograd::set_history(out, n);
  }
  return out;
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == ScalarType::Int64, "torch.take_along_dim(): dtype of indices should be Long but got ",
              type_label(indices.dtype()));
  if (!dim) return gather(reshape(self, {{-1}}), 0, reshape(indices, {{-1}}));
  const int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  EMBER_CHECK(self.dim() == indices.dim(),
              "torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got ",
              self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  if (self.dim() == 0) return gather(self, 0, indices);
  DimVector self_sizes(self.sizes());
  self_sizes[d] = indices.sizes()[d];
  DimVector shape = broadcast_shapes(self_sizes, indices.sizes(), "take_along_dim");
  DimVector self_shape(shape);
  self_shape[d] = self.sizes()[d];
  return gather(expand(self, self_shape), d, expand(indices, shape));
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.dtype() == ScalarType::Int64, "one_hot is only applicable to index tensor (got dtype ", self.dtype(),
              ")");
  DimVector shape(self.sizes());
  if (self.numel() == 0) {
    EMBER_CHECK(num_classes != -1, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return zeros(shape, TensorOptions(ScalarType::Int64).device(self.device()));
  }
  const auto [lo, hi] = host_extrema(self);
  EMBER_CHECK(lo.to_int() >= 0, "Class values must be non-negative.");
  const int64_t top = hi.to_int();
  if (num_classes == -1)
    num_classes = top + 1;
  else
    EMBER_CHECK(top < num_classes, "Class values must be smaller than num_classes.");
  shape.push_back(num_classes);
  Tensor out = zeros(shape, TensorOptions(ScalarType::Int64).device(self.device()));
  scatter_into(ScatterMode::Copy, out, -1, unsqueeze(self, -1), {}, 1, "one_hot");
  return out;
}

}  // namespace ember
