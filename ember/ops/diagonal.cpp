// More shape ops (ops/shape_more.h), each a composition of existing ops: their gradients come from the ops they
// are made of, except for the *_scatter family, which records one formula (Note [Composite forwards]).
#include "ember/ops/diagonal.h"

#include <algorithm>
#include <cstdlib>

#include "ember/autograd/shape_grad.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// A copy of self with src written into view_fn's region of it. One node: self's gradient is g with the region
// zeroed (the same op with zeros as src), src's is the region of g.
template <class V>
Tensor view_scatter(const Tensor& self, const Tensor& src, const char* op, const char* node, V view_fn) {
  check_same_device(op, {&self, &src});
  DimVector slot;
  {
    autograd::NoGradGuard off;
    slot = DimVector(view_fn(self).sizes());
  }
  EMBER_CHECK(std::ranges::equal(slot, src.sizes()), op, ": expected src to have a size equal to the slice of self. "
              "src size = ", shape_str(src.sizes()), ", slice size = ", shape_str(slot));
  auto n = autograd::make_node(node, {&self, &src}, [view_fn, op, node, slot](FormulaNode& n, TensorList& g) {
    TensorList r(2);
    if (n.needs(0)) r[0] = view_scatter(g[0], autograd::zeros_for(g[0], slot), op, node, view_fn);
    if (n.needs(1)) r[1] = view_fn(g[0]);
    return r;
  });
  Tensor r = autograd::untracked(n != nullptr, [&] {
    Tensor c = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
    copy_into(c, self);
    if (src.numel()) copy_into(view_fn(c), src);
    return c;
  });
  if (n) autograd::set_history(r, n);
  return r;
}

Tensor atleast(const Tensor& t, int64_t n) {
  if (t.dim() >= n) return t;
  DimVector shape(n - t.dim(), 1);
  for (int64_t s : t.sizes()) shape.push_back(s);
  return reshape(t, shape);
}

// The (row, col) pairs of a triangle of a row x col matrix, row-major, as a [2, count] tensor.
Tensor tri_indices(int64_t row, int64_t col, int64_t offset, TensorOptions opts, bool lower) {
  const char* op = lower ? "tril_indices" : "triu_indices";
  EMBER_CHECK(row >= 0, op, ": row must be non-negative, got ", row);
  EMBER_CHECK(col >= 0, op, ": col must be non-negative, got ", col);
  const ScalarType dtype = opts.dtype_or(ScalarType::Int64);
  EMBER_CHECK(dtype == ScalarType::Int64 || dtype == ScalarType::Int32, op, ": dtype must be int64 or int32, got ",
              dtype);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i) {
    // lower: j <= i + offset; upper: j >= i + offset
    const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + offset, 0, col);
    const int64_t hi = lower ? std::clamp<int64_t>(i + offset + 1, 0, col) : col;
    for (int64_t j = lo; j < hi; ++j) rows.push_back(i), cols.push_back(j);
  }
  const int64_t count = static_cast<int64_t>(rows.size());
  rows.insert(rows.end(), cols.begin(), cols.end());
  return from_blob_copy(rows.data(), ScalarType::Int64, {{2, count}}, TensorOptions(dtype).device(opts.device_));
}

// t with `value` written on its main diagonal (and, with wrap, on the diagonals below it that a tall matrix
// repeats every col + 1 rows), as PyTorch's fill_diagonal_ walks the storage.
void fill_diagonal_raw(const Tensor& t, const Scalar& value, bool wrap) {
  int64_t stride = 0;
  for (int64_t s : t.strides()) stride += s;
  const int64_t height = t.sizes()[0], width = t.sizes()[1];
  const int64_t size = std::min(height, width);
  if (size > 0) as_strided(t, {{size}}, {{stride}}, t.storage_offset()).fill_(value);
  if (wrap && t.dim() == 2 && height > width + 1) {
    const int64_t step = width + 1, wrap_size = (t.numel() + step - 1) / step - size;
    if (wrap_size > 0)
      as_strided(t, {{wrap_size}}, {{stride}}, t.storage_offset() + t.strides()[0] * (width + 1)).fill_(value);
  }
}

// The out-of-place form of fill_diagonal_ (records its node; its gradient zeroes the same positions).
Tensor filled_diagonal(const Tensor& t, const Scalar& value, bool wrap) {
  auto n = autograd::make_node("FillDiagonalBackward0", {&t}, [wrap](FormulaNode&, TensorList& g) {
    return TensorList{filled_diagonal(g[0], 0, wrap)};
  });
  Tensor r = autograd::untracked(n != nullptr, [&] {
    Tensor c = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
    copy_into(c, t);
    fill_diagonal_raw(c, value, wrap);
    return c;
  });
  if (n) autograd::set_history(r, n);
  return r;
}

int64_t first_dim_of_size3(IntArrayRef shape) {
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 3) return static_cast<int64_t>(i);
  fail<Error>("cross: no dimension of size 3 in input (shape ", shape_str(shape), ")");
}

Tensor cross_along(const Tensor& a_in, const Tensor& b_in, int64_t dim, const char* op) {
  check_same_device(op, {&a_in, &b_in});
  auto ab = broadcast_tensors({a_in, b_in});
  const Tensor &a = ab[0], &b = ab[1];
  auto c = [&](const Tensor& x, int64_t i) { return select(x, dim, i); };
  Tensor x = sub(mul(c(a, 1), c(b, 2)), mul(c(a, 2), c(b, 1)));
  Tensor y = sub(mul(c(a, 2), c(b, 0)), mul(c(a, 0), c(b, 2)));
  Tensor z = sub(mul(c(a, 0), c(b, 1)), mul(c(a, 1), c(b, 0)));
  return stack({x, y, z}, dim);
}

int64_t hvd_dim(const Tensor& t, char which) {
  const int64_t need = which == 'h' ? 1 : which == 'v' ? 2 : 3;
  const char* name = which == 'h' ? "hsplit" : which == 'v' ? "vsplit" : "dsplit";
  EMBER_CHECK(t.dim() >= need, "torch.", name, " requires a tensor with at least ", need, " dimension",
              which == 'h' ? "" : "s", ", but got a tensor with ", t.dim(), " dimension",
              t.dim() == 1 ? "" : "s", "!");
  return which == 'h' ? (t.dim() == 1 ? 0 : 1) : which == 'v' ? 0 : 2;
}

// Makes self take view's geometry in place: a metadata-only change, bumping the version (as PyTorch), and, when
// recording, the view's node as self's grad_fn.
const Tensor& take_geometry(const Tensor& self, const Tensor& view, const char* op) {
  if (autograd::needs_grad({&self})) autograd::check_inplace(self, op);
  const auto& fn = view.grad_fn();
  self.impl()->set_sizes_strides(view.sizes(), view.strides(), view.storage_offset());
  self.bump_version();
  if (fn) autograd::set_history(self, fn, 0, /*is_view=*/true);
  return self;
}

}  // namespace

// ---------------------------------------------------------------------------------------- the diagonal family

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = t.dim() + 1;
  dim1 = wrap_dim(dim1, n, "diag_embed");
  dim2 = wrap_dim(dim2, n, "diag_embed");
  EMBER_CHECK(dim1 != dim2, "diag_embed: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t size = t.sizes().back() + std::abs(offset);
  DimVector shape(t.sizes().first(t.sizes().size() - 1));
  for (int64_t d : {std::min(dim1, dim2), std::max(dim1, dim2)}) shape.insert(d, size);
  const Tensor z = zeros(shape, TensorOptions(t.dtype()).device(t.device()));
  return view_scatter(z, t, "diag_embed", "DiagEmbedBackward0",
                      [offset, dim1, dim2](const Tensor& x) { return diagonal(x, offset, dim1, dim2); });
}

Tensor diag(const Tensor& t, int64_t d) {
  EMBER_CHECK(t.dim() == 1 || t.dim() == 2, "diag(): Supports 1D or 2D tensors (matrix or a vector expected), got "
              "shape ", shape_str(t.sizes()));
  if (t.dim() == 1) return diag_embed(t, d, 0, 1);
  return clone(diagonal(t, d));
}

Tensor diagflat(const Tensor& t, int64_t offset) { return diag_embed(reshape(t, {{-1}}), offset, 0, 1); }

Tensor trace(const Tensor& t) {
  EMBER_CHECK(t.dim() == 2, "trace: expected a matrix, but got tensor with dim ", t.dim(), " (shape ",
              shape_str(t.sizes()), ")");
  return sum(diagonal(t));
}

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, TensorOptions opts) {
  return tri_indices(row, col, offset, opts, true);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, TensorOptions opts) {
  return tri_indices(row, col, offset, opts, false);
}

const Tensor& fill_diagonal_(const Tensor& t, const Scalar& value, bool wrap) {
  EMBER_CHECK(t.dim() >= 2, "fill_diagonal_: dimensions must larger than 1 (got shape ", shape_str(t.sizes()), ")");
  for (int64_t s : t.sizes())
    EMBER_CHECK(t.dim() == 2 || s == t.sizes()[0], "fill_diagonal_: all dimensions of input must be of equal length "
                "(got shape ", shape_str(t.sizes()), ")");
  if (autograd::needs_grad({&t}))
    return autograd::inplace_with_grad(t, "fill_diagonal_", [&] { return filled_diagonal(t, value, wrap); });
  fill_diagonal_raw(t, value, wrap);
  return t;
}

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return view_scatter(self, src, "diagonal_scatter", "DiagonalScatterBackward0",
                      [offset, dim1, dim2](const Tensor& x) { return diagonal(x, offset, dim1, dim2); });
}

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return view_scatter(self, src, "select_scatter", "SelectScatterBackward0",
                      [dim, index](const Tensor& x) { return select(x, dim, index); });
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  return view_scatter(self, src, "slice_scatter", "SliceScatterBackward0",
                      [dim, start, end, step](const Tensor& x) { return slice(x, dim, start, end, step); });
}

Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) {
  // The view is taken of the (contiguous) result, so its geometry counts from the result's first element.
  return view_scatter(self, src, "as_strided_scatter", "AsStridedScatterBackward0",
                      [size = DimVector(size), stride = DimVector(stride), storage_offset](const Tensor& x) {
                        return as_strided(contiguous(x), size, stride, storage_offset);
                      });
}

// ---------------------------------------------------------------------------------------- products, rotations

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  EMBER_CHECK(a.dtype() == b.dtype(), "cross: expected both inputs to have the same dtype, got ", a.dtype(), " and ",
              b.dtype());
  EMBER_CHECK(a.dim() == b.dim(), "linalg.cross: inputs must have the same number of dimensions (got shapes ",
              shape_str(a.sizes()), " and ", shape_str(b.sizes()), ")");
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), "cross");
  const int64_t d = dim ? wrap_dim(*dim, a.dim(), "cross") : first_dim_of_size3(shape);
  EMBER_CHECK(a.sizes()[d] == 3 && b.sizes()[d] == 3, "linalg.cross: inputs dimension ", dim ? *dim : d,
              " must have length 3. Got ", a.sizes()[d], " and ", b.sizes()[d]);
  return cross_along(a, b, d, "cross");
}

Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) { return cross(a, b, dim); }

Tensor kron(const Tensor& a, const Tensor& b) {
  check_same_device("kron", {&a, &b});
  const int64_t n = std::max(a.dim(), b.dim());
  DimVector as(n, 1), bs(n, 1), ai, bi, out;
  for (int64_t i = 0; i < a.dim(); ++i) as[n - a.dim() + i] = a.sizes()[i];
  for (int64_t i = 0; i < b.dim(); ++i) bs[n - b.dim() + i] = b.sizes()[i];
  for (int64_t i = 0; i < n; ++i) {
    ai.push_back(as[i]), ai.push_back(1);
    bi.push_back(1), bi.push_back(bs[i]);
    out.push_back(as[i] * bs[i]);
  }
  return reshape(mul(reshape(a, ai), reshape(b, bi)), out);
}

Tensor rot90(const Tensor& t, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "rot90: expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(t.dim() >= 2, "rot90: expected total dims >= 2, but got total dims = ", t.dim());
  const int64_t d0 = wrap_dim(dims[0], t.dim(), "rot90"), d1 = wrap_dim(dims[1], t.dim(), "rot90");
  EMBER_CHECK(d0 != d1, "rot90: expected rotation dims to be different, but got dim0 = ", d0, " and dim1 = ", d1);
  switch (((k % 4) + 4) % 4) {
    case 1: return transpose(flip(t, {{d1}}), d0, d1);
    case 2: return flip(t, {{d0, d1}});
    case 3: return transpose(flip(t, {{d0}}), d0, d1);
    default: return clone(t);
  }
}

Tensor block_diag(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) return empty({{1, 0}}, TensorOptions(default_dtype()));
  check_same_device("block_diag", tensors);
  ScalarType dtype = tensors[0].dtype();
  std::vector<Tensor> blocks;
  int64_t cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i, " has ",
                t.dim(), " dimensions");
    dtype = promote_types(dtype, t.dtype());
    blocks.push_back(t.dim() == 2 ? t : reshape(t, {{1, t.numel()}}));
    cols += blocks.back().sizes()[1];
  }
  const TensorOptions o = TensorOptions(dtype).device(tensors[0].device());
  std::vector<Tensor> rows;
  int64_t at = 0;
  for (const Tensor& b : blocks) {
    const int64_t r = b.sizes()[0], c = b.sizes()[1];
    rows.push_back(cat({zeros({{r, at}}, o), to(b, dtype), zeros({{r, cols - at - c}}, o)}, 1));
    at += c;
  }
  return cat(rows, 0);
}

Tensor cartesian_prod(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "cartesian_prod: expected at least one tensor");
  for (const Tensor& t : tensors)
    EMBER_CHECK(t.dim() == 1, "cartesian_prod: Expect a 1D vector, but got shape ", shape_str(t.sizes()));
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = reshape(g, {{-1}});
  return stack(grids, 1);
}

Tensor combinations(const Tensor& t, int64_t r, bool with_replacement) {
  EMBER_CHECK(t.dim() == 1, "combinations: Expect a 1D vector, but got shape ", shape_str(t.sizes()));
  EMBER_CHECK(r >= 0, "combinations: Expect a non-negative number, but got ", r);
  if (r == 0) return empty({{0}}, TensorOptions(t.dtype()).device(t.device()));
  const int64_t n = t.numel();
  // The index tuples in lexicographic order: increasing (non-decreasing with replacement) positions.
  std::vector<int64_t> idx;
  DimVector cur(r, 0);
  if (!with_replacement)
    for (int64_t i = 0; i < r; ++i) cur[i] = i;
  auto valid = [&] { return r == 0 || cur[r - 1] < n; };
  int64_t count = 0;
  while (valid()) {
    idx.insert(idx.end(), cur.begin(), cur.end());
    ++count;
    int64_t i = r - 1;  // the last position that can still move
    while (i >= 0 && cur[i] >= n - (with_replacement ? 1 : r - i)) --i;
    if (i < 0) break;
    ++cur[i];
    for (int64_t j = i + 1; j < r; ++j) cur[j] = with_replacement ? cur[i] : cur[j - 1] + 1;
  }
  const Tensor index = from_blob_copy(idx.data(), ScalarType::Int64, {{count * r}},
                                      TensorOptions(ScalarType::Int64).device(t.device()));
  return reshape(index_select(t, 0, index), {{count, r}});
}

// ---------------------------------------------------------------------------------------- dims, splitting, stacking

Tensor atleast_1d(const Tensor& t) { return atleast(t, 1); }
Tensor atleast_2d(const Tensor& t) { return atleast(t, 2); }
Tensor atleast_3d(const Tensor& t) {
  if (t.dim() == 0) return reshape(t, {{1, 1, 1}});
  if (t.dim() == 1) return reshape(t, {{1, t.numel(), 1}});
  if (t.dim() == 2) return unsqueeze(t, 2);
  return t;
}
Tensor ravel(const Tensor& t) { return reshape(t, {{-1}}); }

std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ", t.dim(),
              " dims");
  EMBER_CHECK(sections > 0, "tensor_split: number of sections must be larger than 0, got ", sections);
  dim = wrap_dim(dim, t.dim(), "tensor_split");
  const int64_t size = t.sizes()[dim], base = size / sections, extra = size % sections;
  DimVector sizes;
  for (int64_t i = 0; i < sections; ++i) sizes.push_back(base + (i < extra ? 1 : 0));
  return split_with_sizes(t, sizes, dim);
}

std::vector<Tensor> tensor_split_indices(const Tensor& t, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ", t.dim(),
              " dims");
  dim = wrap_dim(dim, t.dim(), "tensor_split");
  std::vector<Tensor> r;
  int64_t start = 0;
  for (int64_t i : indices) {
    r.push_back(slice(t, dim, start, i));
    start = i;
  }
  r.push_back(slice(t, dim, start, std::nullopt));
  return r;
}

std::vector<Tensor> hvd_split(const Tensor& t, int64_t sections, char which) {
  const int64_t dim = hvd_dim(t, which);
  const char* name = which == 'h' ? "hsplit" : which == 'v' ? "vsplit" : "dsplit";
  EMBER_CHECK(sections != 0 && t.sizes()[dim] % sections == 0, "torch.", name, " attempted to split along dimension ",
              dim, ", but the size of the dimension ", t.sizes()[dim], " is not divisible by the split_size ",
              sections, "!");
  return tensor_split(t, sections, dim);
}

std::vector<Tensor> hvd_split_indices(const Tensor& t, IntArrayRef indices, char which) {
  return tensor_split_indices(t, indices, hvd_dim(t, which));
}

Tensor dstack(const std::vector<Tensor>& tensors, const Tensor& out) {
  EMBER_CHECK(!tensors.empty(), "dstack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(atleast_3d(t));
  return cat(parts, 2, out);
}

Tensor column_stack(const std::vector<Tensor>& tensors, const Tensor& out) {
  EMBER_CHECK(!tensors.empty(), "column_stack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.dim() <= 1 ? reshape(t, {{t.numel(), 1}}) : t);
  return cat(parts, 1, out);
}

// ---------------------------------------------------------------------------------------- in place on metadata

const Tensor& unsqueeze_(const Tensor& t, int64_t dim) { return take_geometry(t, unsqueeze(t, dim), "unsqueeze_"); }
const Tensor& squeeze_(const Tensor& t, std::optional<int64_t> dim) {
  return take_geometry(t, dim ? squeeze(t, *dim) : squeeze(t), "squeeze_");
}
const Tensor& transpose_(const Tensor& t, int64_t d0, int64_t d1) {
  return take_geometry(t, transpose(t, d0, d1), "transpose_");
}
const Tensor& t_(const Tensor& x) {
  EMBER_CHECK(x.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", x.dim(), "D");
  return take_geometry(x, t(x), "t_");
}
const Tensor& as_strided_(const Tensor& t, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> offset) {
  return take_geometry(t, as_strided(t, size, stride, offset), "as_strided_");
}

const Tensor& resize_(const Tensor& t, IntArrayRef size) {
  EMBER_CHECK(!t.requires_grad(), "cannot resize variables that require grad");
  const int64_t numel = checked_numel(size, "resize_");
  const size_t need = static_cast<size_t>(t.storage_offset() + numel) * t.element_size();
  const DimVector strides = contiguous_strides(size);
  const Storage& old = t.impl()->storage();
  if (numel == 0 || need <= old->nbytes()) {
    t.impl()->set_sizes_strides(size, strides, t.storage_offset());
    return t;
  }
  // A larger storage holding the old bytes (Note: other tensors viewing the old storage keep it).
  Tensor bytes = empty({{static_cast<int64_t>(need)}}, TensorOptions(ScalarType::UInt8).device(t.device()));
  if (old->nbytes()) {
    Tensor old_bytes(IntrusivePtr<TensorImpl>(
        new TensorImpl(old, ScalarType::UInt8, {{static_cast<int64_t>(old->nbytes())}}, {{1}}, 0)));
    copy_into(narrow(bytes, 0, 0, static_cast<int64_t>(old->nbytes())), old_bytes);
  }
  TensorImpl fresh(bytes.impl()->storage(), t.dtype(), size, strides, t.storage_offset());
  t.impl()->set_data(fresh);
  return t;
}

const Tensor& put_(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate) {
  check_same_device("put_", {&t, &index, &source});
  EMBER_CHECK_TYPE(index.dtype() == ScalarType::Int64, "put_(): Expected a long tensor for index, but got ",
                   index.dtype());
  EMBER_CHECK(t.dtype() == source.dtype(), "put_(): self and source expected to have the same dtype, but got "
              "self.dtype = ", t.dtype(), " and source.dtype = ", source.dtype());
  EMBER_CHECK_INDEX(index.numel() == source.numel(), "put_(): Expected source and index to have the same number of "
                    "elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  if (index.numel() == 0) return t;
  EMBER_CHECK_INDEX(t.numel() > 0, "put_(): cannot put into an empty tensor (index of ", index.numel(),
                    " elements)");
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
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin", "index_reduce(): Expected "
              "reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  EMBER_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector, but got dim: ", index.dim(),
                    " with type: ", index.dtype(), " and size: ", shape_str(index.sizes()));
  EMBER_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, op,
              "(): Expected dtype int32/int64 for index but got: ", index.dtype());
  EMBER_CHECK(self.dtype() == source.dtype(), op, "(): self (", self.dtype(), ") and source (", source.dtype(),
              ") must have the same scalar type");
  dim = wrap_dim(dim, self.dim(), op);
  const Tensor src = source.dim() == 0 ? reshape(source, {{1}}) : source;
  EMBER_CHECK(std::max<int64_t>(self.dim(), 1) == src.dim(), op, "(): Self and source should have same number of "
              "dimensions (self ", shape_str(self.sizes()), ", source ", shape_str(source.sizes()), ")");
  EMBER_CHECK(index.numel() == src.sizes()[dim], op, "(): Number of indices (", index.numel(), ") should be equal to "
              "source.size(dim): (", src.sizes()[dim], "), for dim: ", dim);
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(d == dim || self.sizes()[d] == src.sizes()[d], op, "(): self and source must have the same size "
                "except along dim ", dim, " (self ", shape_str(self.sizes()), ", source ", shape_str(source.sizes()),
                ")");
  DimVector shape(src.dim(), 1);
  shape[dim] = index.numel();
  return expand(reshape(to(index, ScalarType::Int64), shape), src.sizes());
}

}  // namespace

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
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

Tensor sum_to_size(const Tensor& t, IntArrayRef size) {
  EMBER_CHECK(autograd::is_expandable_to(size, t.sizes()), "sum_to_size: size {", shape_str(size),
              "} is not expandable to size {", shape_str(t.sizes()), "}.");
  return autograd::sum_to(t, size);
}

}  // namespace ember
