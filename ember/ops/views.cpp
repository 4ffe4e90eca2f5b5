// View ops: new geometry over the same storage. Nothing here touches tensor data except reshape and
// contiguous/clone when a copy is unavoidable.
#include <algorithm>

#include "ember/autograd/functions.h"
#include "ember/backend/kernels.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/sizes.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// Records a view's formula (Note [Recording an op]); views save nothing.
template <class F>
Tensor recorded(const Tensor& in, Tensor out, const char* name, F&& f) {
  if (auto n = autograd::make_node(name, {&in}, std::forward<F>(f))) autograd::set_history(out, n, 0, /*is_view=*/true);
  return out;
}

// The gradient of the input of a view that picks elements without repeating any: zeros, with the view's
// region set to g. With create_graph the copy records, so this is differentiable (Note [In-place on views]).
template <class V>
Tensor embed(const Tensor& g, IntArrayRef in_sizes, V&& view_fn) {
  Tensor z = zeros(in_sizes, TensorOptions(g.dtype()).device(g.device()));
  view_fn(z).copy_(g);
  return z;
}

// The input's shape, for formulas that reshape the gradient back.
auto reshape_back(const Tensor& t) {
  return [in = DimVector(t.sizes())](FormulaNode&, TensorList& g) { return TensorList{reshape(g[0], in)}; };
}

// Resolves one -1 in `shape` against numel (PyTorch's infer_size).
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector r(shape);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == -1) {
      EMBER_CHECK(infer < 0, op, ": only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(r[i] >= 0, op, ": invalid shape dimension ", r[i], " in shape ", shape_str(shape));
      known *= r[i];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && numel % known == 0, op, ": shape '", shape_str(shape), "' is invalid for input of size ",
                numel);
    r[infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, op, ": shape '", shape_str(shape), "' is invalid for input of size ", numel);
  }
  return r;
}

// Strides for viewing (old sizes, old strides) as new sizes without a copy, or false when the new
// shape would split a dim that is not contiguous (PyTorch's computeStride).
bool view_strides(IntArrayRef os, IntArrayRef ost, IntArrayRef ns, int64_t numel, DimVector& out) {
  out = DimVector(ns.size(), 1);
  if (numel == 0) {  // any shape views an empty tensor; its own shape keeps its strides (as PyTorch)
    out = std::ranges::equal(os, ns) ? DimVector(ost) : contiguous_strides(ns);
    return true;
  }
  if (os.empty()) return true;
  int64_t view_d = static_cast<int64_t>(ns.size()) - 1;
  int64_t chunk_base = ost.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t td = static_cast<int64_t>(os.size()) - 1; td >= 0; --td) {
    tensor_numel *= os[td];
    if (td == 0 || (os[td - 1] != 1 && ost[td - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base;
        view_numel *= ns[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk_base = ost[td - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  DimVector r(n, 1);
  for (size_t i = n; i-- > 0;) {  // from the last dim, so the error names the one PyTorch names
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      fail<Error>(op, ": The size of tensor a (", da, ") must match the size of tensor b (", db,
                  ") at non-singleton dimension ", i);
    r[i] = da == 1 ? db : da;
  }
  return r;
}

Tensor view(const Tensor& t, IntArrayRef size) {
  EMBER_PY_DISPATCH(Tensor, "aten.view.default", t, size);
  DimVector shape = infer_size(size, t.numel(), "view");
  DimVector strides;
  EMBER_CHECK(view_strides(t.sizes(), t.strides(), shape, t.numel(), strides),
              "view size is not compatible with input tensor's size and stride (at least one dimension spans "
              "across two contiguous subspaces). Use .reshape(...) instead. (input shape ",
              shape_str(t.sizes()), ", strides ", shape_str(t.strides()), ", requested ", shape_str(size), ")");
  return recorded(t, make_view(t, shape, strides, t.storage_offset()), "ViewBackward0", reshape_back(t));
}

Tensor view(const Tensor& t, ScalarType dtype) {
  const int64_t from = int64_t(element_size(t.dtype())), to = int64_t(element_size(dtype));
  DimVector sizes(t.sizes()), strides(t.strides());
  int64_t offset = t.storage_offset();
  if (from != to) {
    const auto names = [&] { return std::string(dtype_name(t.dtype())) + " as " + std::string(dtype_name(dtype)); };
    EMBER_CHECK(t.dim() > 0, "view(dtype): self.dim() cannot be 0 to view ", names(), " (different element sizes)");
    EMBER_CHECK(strides.back() == 1, "view(dtype): self.stride(-1) must be 1 to view ", names(),
                " (different element sizes), but got ", strides.back());
    if (from > to) {
      const int64_t r = from / to;
      for (size_t i = 0; i + 1 < strides.size(); ++i) strides[i] *= r;
      sizes.back() *= r;
      offset *= r;
    } else {
      const int64_t r = to / from;
      EMBER_CHECK(sizes.back() % r == 0, "view(dtype): self.size(-1) must be divisible by ", r, " to view ", names(),
                  " (different element sizes), but got ", sizes.back());
      for (size_t i = 0; i + 1 < strides.size(); ++i)
        EMBER_CHECK(strides[i] % r == 0, "view(dtype): self.stride(", i, ") must be divisible by ", r, " to view ",
                    names(), " (different element sizes), but got ", strides[i]);
      EMBER_CHECK(offset % r == 0, "view(dtype): self.storage_offset() must be divisible by ", r, " to view ", names(),
                  " (different element sizes), but got ", offset);
      for (size_t i = 0; i + 1 < strides.size(); ++i) strides[i] /= r;
      sizes.back() /= r;
      offset /= r;
    }
  }
  return make_view(t, sizes, strides, offset, dtype);
}

Tensor reshape(const Tensor& t, IntArrayRef size) {
  EMBER_PY_DISPATCH(Tensor, "aten.reshape.default", t, size);
  DimVector shape = infer_size(size, t.numel(), "reshape");
  DimVector strides;
  if (view_strides(t.sizes(), t.strides(), shape, t.numel(), strides))
    return recorded(t, make_view(t, shape, strides, t.storage_offset()), "ViewBackward0", reshape_back(t));
  return view(clone(t).contiguous(), shape);
}

Tensor permute(const Tensor& t, IntArrayRef dims) {
  EMBER_PY_DISPATCH(Tensor, "aten.permute.default", t, dims);
  const int64_t n = t.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == n,
              "permute(): number of dimensions in the tensor input does not match the length of the desired "
              "ordering of dimensions i.e. input.dim() = ",
              n, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(n), strides(n);
  SmallVector<bool, 8> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[i], n, "permute");
    EMBER_CHECK(!seen[d], "permute(): duplicate dims are not allowed (dims = ", shape_str(dims), ")");
    seen[d] = true;
    sizes[i] = t.sizes()[d];
    strides[i] = t.strides()[d];
  }
  DimVector inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n, "permute")] = i;
  return recorded(t, make_view(t, sizes, strides, t.storage_offset()), "PermuteBackward0",
                  [inverse](FormulaNode&, TensorList& g) { return TensorList{permute(g[0], inverse)}; });
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  EMBER_PY_DISPATCH(Tensor, "aten.transpose.int", t, d0, d1);
  const int64_t n = t.dim();
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  DimVector sizes(t.sizes()), strides(t.strides());
  if (n > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return recorded(t, make_view(t, sizes, strides, t.storage_offset()), "TransposeBackward0",
                  [d0, d1, n](FormulaNode&, TensorList& g) { return TensorList{n ? transpose(g[0], d0, d1) : g[0]}; });
}

Tensor t(const Tensor& x) {
  EMBER_PY_DISPATCH(Tensor, "aten.t.default", x);
  EMBER_CHECK(x.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", x.dim(), "D");
  return x.dim() < 2 ? view_alias(x) : transpose(x, 0, 1);
}

Tensor view_alias(const Tensor& t) {
  return recorded(t, make_view(t, t.sizes(), t.strides(), t.storage_offset()), "AliasBackward0",
                  [](FormulaNode&, TensorList& g) { return TensorList{g[0]}; });
}

Tensor expand(const Tensor& t, IntArrayRef size) {
  EMBER_PY_DISPATCH(Tensor, "aten.expand.default", t, size);
  const int64_t n = static_cast<int64_t>(size.size()), nd = t.dim();
  EMBER_CHECK(n >= nd, "expand(", dtype_name(t.dtype()), " tensor of shape ", shape_str(t.sizes()),
              ", size=", shape_str(size), "): the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", nd, ")");
  DimVector sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t j = i - (n - nd);
    int64_t s = size[i];
    if (j < 0) {
      EMBER_CHECK(s >= 0, "expand: the expanded size of the tensor (", s,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      sizes[i] = s;
      strides[i] = s != 1 ? 0 : i + 1 < n ? sizes[i + 1] * strides[i + 1] : 1;
      continue;
    }
    const int64_t have = t.sizes()[j];
    if (s == -1) s = have;
    EMBER_CHECK(have == s || have == 1, "The expanded size of the tensor (", s, ") must match the existing size (",
                have, ") at non-singleton dimension ", i, ".  Target sizes: ", shape_str(size),
                ".  Tensor sizes: ", shape_str(t.sizes()));
    EMBER_CHECK(s >= 0, "expand: invalid size ", s, " at dimension ", i, " (target sizes ", shape_str(size), ")");
    sizes[i] = s;
    strides[i] = have == s ? t.strides()[j] : 0;
  }
  // The engine reduces the gradient to the input's shape (sum_to).
  return recorded(t, make_view(t, sizes, strides, t.storage_offset()), "ExpandBackward0",
                  [](FormulaNode&, TensorList& g) { return TensorList{g[0]}; });
}

Tensor expand_as(const Tensor& t, const Tensor& other) { return expand(t, other.sizes()); }

Tensor squeeze(const Tensor& t) {
  DimVector sizes, strides;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.sizes()[i] != 1) {
      sizes.push_back(t.sizes()[i]);
      strides.push_back(t.strides()[i]);
    }
  return recorded(t, make_view(t, sizes, strides, t.storage_offset()), "SqueezeBackward0", reshape_back(t));
}

Tensor squeeze(const Tensor& t, IntArrayRef dims) {
  SmallVector<bool, 8> drop(t.dim(), false);
  for (int64_t d : dims) {
    d = wrap_dim(d, t.dim(), "squeeze");
    if (t.dim() > 0 && t.sizes()[d] == 1) drop[d] = true;
  }
  DimVector sizes, strides;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (!drop[i]) {
      sizes.push_back(t.sizes()[i]);
      strides.push_back(t.strides()[i]);
    }
  return recorded(t, make_view(t, sizes, strides, t.storage_offset()), "SqueezeBackward1", reshape_back(t));
}

Tensor squeeze(const Tensor& t, int64_t dim) { return squeeze(t, IntArrayRef(&dim, 1)); }

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  EMBER_PY_DISPATCH(Tensor, "aten.unsqueeze.default", t, dim);
  dim = wrap_dim(dim, t.dim() + 1, "unsqueeze");
  DimVector sizes(t.sizes()), strides(t.strides());
  const int64_t st = dim < t.dim() ? t.sizes()[dim] * t.strides()[dim] : 1;
  sizes.insert(dim, 1);
  strides.insert(dim, st);
  return recorded(t, make_view(t, sizes, strides, t.storage_offset()), "UnsqueezeBackward0", reshape_back(t));
}

Tensor flatten(const Tensor& t, int64_t start, int64_t end) {
  start = wrap_dim(start, t.dim(), "flatten");
  end = wrap_dim(end, t.dim(), "flatten");
  EMBER_CHECK(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (t.dim() == 0) return reshape(t, {{1}});
  if (start == end) return view_alias(t);
  DimVector shape;
  int64_t prod = 1;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i < start || i > end)
      shape.push_back(t.sizes()[i]);
    else {
      prod *= t.sizes()[i];
      if (i == end) shape.push_back(prod);
    }
  }
  return reshape(t, shape);
}

Tensor ravel(const Tensor& t) { return reshape(t, {{-1}}); }

Tensor unflatten(const Tensor& t, int64_t dim, IntArrayRef sizes) {
  dim = wrap_dim(dim, t.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_size(sizes, t.sizes()[dim], "unflatten");
  DimVector shape;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i == dim)
      for (int64_t s : inner) shape.push_back(s);
    else
      shape.push_back(t.sizes()[i]);
  }
  return view(t, shape);
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(t.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim(), "narrow");
  EMBER_CHECK(length >= 0, "narrow(): length must be non-negative.");
  const int64_t size = t.sizes()[dim];
  EMBER_CHECK_INDEX(start >= -size && start <= size, "start out of range (expected to be in range of [", -size, ", ",
                    size, "], but got ", start, ")");
  if (start < 0) start += size;
  EMBER_CHECK(start + length <= size, "start (", start, ") + length (", length, ") exceeds dimension size (", size,
              ").");
  return slice(t, dim, start, start + length, 1);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(t.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim(), "select");
  const int64_t size = t.sizes()[dim];
  EMBER_CHECK_INDEX(index >= -size && index < size, "select(): index ", index, " out of range for tensor of size ",
                    shape_str(t.sizes()), " at dimension ", dim);
  if (index < 0) index += size;
  EMBER_PY_DISPATCH(Tensor, "aten.select.int", t, dim, index);
  DimVector sizes(t.sizes()), strides(t.strides());
  sizes.erase(dim);
  strides.erase(dim);
  return recorded(t, make_view(t, sizes, strides, t.storage_offset() + index * t.strides()[dim]), "SelectBackward0",
                  [in = DimVector(t.sizes()), dim, index](FormulaNode&, TensorList& g) {
                    EMBER_PY_DISPATCH(TensorList, "aten.select_backward.default", g[0], IntArrayRef(in), dim, index);
                    return TensorList{embed(g[0], in, [&](const Tensor& z) { return select(z, dim, index); })};
                  });
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start_, std::optional<int64_t> end_, int64_t step) {
  EMBER_CHECK_INDEX(t.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim(), "slice");
  EMBER_CHECK_VALUE(step > 0, "slice step must be positive, got ", step);
  const int64_t size = t.sizes()[dim];
  int64_t start = start_.value_or(0), end = end_.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  EMBER_PY_DISPATCH(Tensor, "aten.slice.Tensor", t, dim, start_, end_, step);
  DimVector sizes(t.sizes()), strides(t.strides());
  sizes[dim] = (end - start + step - 1) / step;
  strides[dim] *= step;
  return recorded(
      t, make_view(t, sizes, strides, t.storage_offset() + start * t.strides()[dim]), "SliceBackward0",
      [in = DimVector(t.sizes()), dim, start, end, step](FormulaNode&, TensorList& g) {
        EMBER_PY_DISPATCH(TensorList, "aten.slice_backward.default", g[0], IntArrayRef(in), dim, start, end, step);
        return TensorList{embed(g[0], in, [&](const Tensor& z) { return slice(z, dim, start, end, step); })};
      });
}

Tensor as_strided(const Tensor& t, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> offset_) {
  EMBER_CHECK(size.size() == stride.size(), "as_strided: mismatch in length of strides and shape (", shape_str(size),
              " vs ", shape_str(stride), ")");
  const int64_t offset = offset_.value_or(t.storage_offset());
  EMBER_CHECK(offset >= 0, "as_strided: Tensor: invalid storage offset ", offset);
  checked_numel(size, "as_strided");
  for (int64_t s : stride)
    EMBER_CHECK(s >= 0,
                "as_strided: Negative strides are not supported at the moment, got strides: ", shape_str(stride));
  const int64_t es = static_cast<int64_t>(t.element_size());
  const int64_t need = storage_nbytes(size, stride, offset, t.element_size(), "as_strided");
  const int64_t have = static_cast<int64_t>(t.impl()->storage()->nbytes());
  EMBER_CHECK(need <= have, "as_strided: sizes ", shape_str(size), ", strides ", shape_str(stride), ", storage offset ",
              offset, ", and itemsize ", es, " requiring a storage size of ", need,
              " are out of bounds for storage of size ", have);
  Tensor out = make_view(t, size, stride, offset);
  return recorded(t, out, "AsStridedBackward0",
                  [in = autograd::ViewGeometry::of(t), v = autograd::ViewGeometry::of(out)](
                      FormulaNode&, TensorList& g) { return TensorList{autograd::view_scatter(g[0], in, v)}; });
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = t.dim();
  dim1 = wrap_dim(dim1, n, "diagonal");
  dim2 = wrap_dim(dim2, n, "diagonal");
  EMBER_CHECK(n >= 2, "diagonal: expected a tensor with at least 2 dimensions, got ", n);
  EMBER_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t s1 = t.sizes()[dim1], s2 = t.sizes()[dim2];
  int64_t len, start = t.storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(s1, s2 - offset), 0);
    if (len) start += offset * t.strides()[dim2];
  } else {
    len = std::max<int64_t>(std::min(s1 + offset, s2), 0);
    if (len) start -= offset * t.strides()[dim1];
  }
  DimVector sizes, strides;
  for (int64_t i = 0; i < n; ++i)
    if (i != dim1 && i != dim2) {
      sizes.push_back(t.sizes()[i]);
      strides.push_back(t.strides()[i]);
    }
  sizes.push_back(len);
  strides.push_back(t.strides()[dim1] + t.strides()[dim2]);
  return recorded(
      t, make_view(t, sizes, strides, start), "DiagonalBackward0",
      [in = DimVector(t.sizes()), offset, dim1, dim2](FormulaNode&, TensorList& g) {
        return TensorList{embed(g[0], in, [&](const Tensor& z) { return diagonal(z, offset, dim1, dim2); })};
      });
}

Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  dim = wrap_dim(dim, t.dim(), "unfold");
  const int64_t have = t.dim() == 0 ? 1 : t.sizes()[dim];
  EMBER_CHECK(size <= have, "unfold: maximum size for tensor at dimension ", dim, " is ", have, " but size is ", size);
  EMBER_CHECK(size >= 0, "unfold: size is ", size, " but must be >= 0");
  EMBER_CHECK(step > 0, "unfold: step is ", step, " but must be > 0");
  DimVector sizes(t.sizes()), strides(t.strides());
  if (t.dim() == 0) {
    sizes.push_back(size);
    strides.push_back(1);
  } else {
    sizes[dim] = (have - size) / step + 1;
    strides[dim] = t.strides()[dim] * step;
    sizes.push_back(size);
    strides.push_back(t.strides()[dim]);
  }
  return recorded(t, make_view(t, sizes, strides, t.storage_offset()), "UnfoldBackward0",
                  [in = DimVector(t.sizes()), dim, size, step](FormulaNode&, TensorList& g) {
                    if (in.empty()) return TensorList{reshape(g[0], in)};
                    if (step >= size)  // windows do not overlap
                      return TensorList{embed(g[0], in, [&](const Tensor& z) { return unfold(z, dim, size, step); })};
                    // Overlapping windows: add each window's gradient at its positions along dim.
                    const int64_t windows = g[0].size(dim);
                    Tensor pos = add(unsqueeze(mul(arange(windows), step), 1), unsqueeze(arange(size), 0));
                    const int64_t src[] = {-1}, dst[] = {dim + 1}, flat_shape[] = {-1};
                    Tensor flat = flatten(movedim(g[0], src, dst), dim, dim + 1);
                    Tensor z = zeros(in, TensorOptions(g[0].dtype()).device(g[0].device()));
                    return TensorList{index_add(z, dim, reshape(pos, flat_shape).to(g[0].device()), flat)};
                  });
}

// Not a differentiable view: no base, no history (detach); it shares the version counter.
Tensor alias(const Tensor& t) {
  Tensor a(make_intrusive<TensorImpl>(t.impl()->storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset()));
  a.impl()->set_conj(t.is_conj());
  return a;
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  EMBER_PY_DISPATCH(Tensor, "aten.clone.default", t, std::string("contiguous_format"));  // PyTorch's composition
  Tensor r = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
  copy_into(r, t);
  return recorded(t, r, "CloneBackward0", [](FormulaNode&, TensorList& g) { return TensorList{g[0]}; });
}

Tensor clone(const Tensor& t) {
  EMBER_PY_DISPATCH(Tensor, "aten.clone.default", t);
  Tensor r = empty_like(t);
  copy_into(r, t);
  return recorded(t, r, "CloneBackward0", [](FormulaNode&, TensorList& g) { return TensorList{g[0]}; });
}

}  // namespace ember
