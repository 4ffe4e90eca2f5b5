// The diagonal family (diag, diag_embed, diagflat, trace, fill_diagonal_, block_diag, tril/triu_indices) and the
// *_scatter ops that write a view's region of a copy (diag_embed is one). Compositions of existing ops, except the
// *_scatter ops and fill_diagonal_, which record one formula each (Note [Composite forwards]).
#include "ember/ops/diagonal.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <vector>

#include "ember/autograd/detail/shape_grad.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/scalar_check.h"

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
  EMBER_CHECK(std::ranges::equal(slot, src.sizes()), op,
              ": expected src to have a size equal to the slice of self. "
              "src size = ",
              shape_str(src.sizes()), ", slice size = ", shape_str(slot));
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

// sum over i in [0, rows) of clamp(i + a, 0, col), in closed form: the widths of a triangle's rows.
__int128 clamped_sum(__int128 a, __int128 rows, __int128 col) {
  __int128 total = 0;
  const __int128 lo = std::max<__int128>(a, 1), hi = std::min<__int128>(a + rows - 1, col - 1);
  if (hi >= lo) total += (lo + hi) * (hi - lo + 1) / 2;
  const __int128 full_lo = std::max<__int128>(a, col), full_hi = a + rows - 1;
  if (full_hi >= full_lo) total += col * (full_hi - full_lo + 1);
  return total;
}

// The (row, col) pairs of a triangle of a row x col matrix, row-major, as a [2, count] tensor. The count comes first,
// in closed form and 128-bit arithmetic, so that a triangle too large fails before any work, and only the rows that
// hold an element are visited (a loop over all rows of tril_indices(2**62, 0) would not end).
Tensor tri_indices(int64_t row, int64_t col, int64_t offset, TensorOptions opts, bool lower) {
  const char* op = lower ? "tril_indices" : "triu_indices";
  EMBER_CHECK(row >= 0, op, ": row must be non-negative, got ", row);
  EMBER_CHECK(col >= 0, op, ": col must be non-negative, got ", col);
  const ScalarType dtype = opts.dtype_or(ScalarType::Int64);
  EMBER_CHECK(dtype == ScalarType::Int64 || dtype == ScalarType::Int32, op, ": dtype must be int64 or int32, got ",
              dtype);
  // lower: row i holds j <= i + offset; upper: j >= i + offset
  const __int128 count = lower ? clamped_sum(__int128(offset) + 1, row, col)
                               : __int128(row) * col - clamped_sum(offset, row, col);
  EMBER_CHECK(count <= std::numeric_limits<int64_t>::max() / 16, op, ": ", row, " x ", col, " with offset ", offset,
              " has too many indices for a tensor");
  const int64_t n = static_cast<int64_t>(count);
  Tensor r = empty({{2, n}}, TensorOptions(ScalarType::Int64));
  int64_t* rows = r.data<int64_t>();
  int64_t* cols = rows + n;
  const __int128 first = lower ? std::max<__int128>(0, -(__int128(offset))) : 0;
  const __int128 last = lower ? row : std::min<__int128>(row, __int128(col) - offset);  // rows past it are empty
  int64_t k = 0;
  for (__int128 i = first; i < last && k < n; ++i) {
    const int64_t lo = lower ? 0 : static_cast<int64_t>(std::clamp<__int128>(i + offset, 0, col));
    const int64_t hi = lower ? static_cast<int64_t>(std::clamp<__int128>(i + offset + 1, 0, col)) : col;
    for (int64_t j = lo; j < hi; ++j, ++k) rows[k] = static_cast<int64_t>(i), cols[k] = j;
  }
  return to(r, opts.device_, dtype);
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

}  // namespace

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
  EMBER_CHECK(t.dim() == 1 || t.dim() == 2,
              "diag(): Supports 1D or 2D tensors (matrix or a vector expected), got "
              "shape ",
              shape_str(t.sizes()));
  if (t.dim() == 1) return diag_embed(t, d, 0, 1);
  return clone(diagonal(t, d));
}

Tensor diagflat(const Tensor& t, int64_t offset) { return diag_embed(reshape(t, {{-1}}), offset, 0, 1); }

Tensor trace(const Tensor& t) {
  refuse_complex_half("trace", t.dtype());  // Note [complex32]
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
  check_scalar_fits(value, t.dtype(), "fill_diagonal_");
  EMBER_CHECK(t.dim() >= 2, "fill_diagonal_: dimensions must larger than 1 (got shape ", shape_str(t.sizes()), ")");
  for (int64_t s : t.sizes())
    EMBER_CHECK(t.dim() == 2 || s == t.sizes()[0],
                "fill_diagonal_: all dimensions of input must be of equal length "
                "(got shape ",
                shape_str(t.sizes()), ")");
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

}  // namespace ember
