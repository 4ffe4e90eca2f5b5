// Joining (cat, stack and their h/v/d/column forms) and splitting (split, chunk, unbind, tensor_split and the
// h/v/d splits). The pieces of a split are views recorded as one node; the joins copy through the copy kernel.
#include "ember/ops/split_stack.h"

#include <algorithm>
#include <vector>

#include "ember/autocast.h"
#include "ember/autograd/detail/shape_grad.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/sizes.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

void check_writable(const Tensor& t, const char* op) {
  EMBER_CHECK(!has_internal_overlap(t), op,
              ": unsupported operation: more than one element of the written-to tensor "
              "refers to a single memory location. Please clone() the tensor before performing the operation.");
}

// PyTorch keeps accepting 1-d empty tensors in cat whatever the other inputs' shapes (a legacy rule).
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// The result of an op that may write into `out`: checks out's shape and dtype, or allocates.
Tensor output_for(const Tensor& out, IntArrayRef shape, ScalarType dtype, Device device, const char* op) {
  if (!out.defined()) return empty(shape, TensorOptions(dtype).device(device));
  EMBER_CHECK(std::ranges::equal(out.sizes(), shape), op, "(): out= has shape ", shape_str(out.sizes()),
              " but the result has shape ", shape_str(shape));
  EMBER_CHECK(can_cast(dtype, out.dtype()), op, "(): input types can't be cast to the desired output type ",
              out.dtype(), " (result type ", dtype, ")");
  EMBER_CHECK(out.device() == device, op,
              "(): Expected all tensors to be on the same device, but found at least two "
              "devices, ",
              device, " and ", out.device(), "! (out=)");
  check_writable(out, op);
  return out;
}

// out= takes no part in autograd (as in PyTorch): an error when the op would have to record.
void check_out_without_grad(const std::vector<Tensor>& tensors, const Tensor& out, const char* op) {
  EMBER_CHECK(!out.defined() || !autograd::any_needs_grad(tensors, &out), op,
              "(): functions with out=... arguments "
              "don't support automatic differentiation, but one of the arguments requires grad.");
}

Tensor atleast(const Tensor& t, int64_t n) {
  if (t.dim() >= n) return t;
  DimVector shape(n - t.dim(), 1);
  for (int64_t s : t.sizes()) shape.push_back(s);
  return reshape(t, shape);
}

// The gradient of each input of cat is its block of the result's gradient.
void record_cat(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& r) {
  DimVector lengths;  // along dim; -1: a legacy empty input (its gradient is empty too)
  for (const Tensor& t : tensors) lengths.push_back(is_legacy_empty(t) ? -1 : t.sizes()[dim]);
  auto n = autograd::make_node("CatBackward0", autograd::pointers(tensors),
                               [dim, lengths](FormulaNode& n, TensorList& g) {
                                 TensorList r(lengths.size());
                                 int64_t at = 0;
                                 for (size_t i = 0; i < lengths.size(); ++i) {
                                   const int64_t len = lengths[i];
                                   if (n.needs(i))
                                     r[i] = len < 0 ? autograd::zeros_for(g[0], {{0}}) : narrow(g[0], dim, at, len);
                                   at += std::max<int64_t>(len, 0);
                                 }
                                 return r;
                               });
  autograd::set_history(r, n);
}

int64_t hvd_dim(const Tensor& t, char which) {
  const int64_t need = which == 'h' ? 1 : which == 'v' ? 2 : 3;
  const char* name = which == 'h' ? "hsplit" : which == 'v' ? "vsplit" : "dsplit";
  EMBER_CHECK(t.dim() >= need, "torch.", name, " requires a tensor with at least ", need, " dimension",
              which == 'h' ? "" : "s", ", but got a tensor with ", t.dim(), " dimension", t.dim() == 1 ? "" : "s", "!");
  return which == 'h' ? (t.dim() == 1 ? 0 : 1) : which == 'v' ? 0 : 2;
}

}  // namespace

// ---------------------------------------------------------------------------------------- joining

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out) {
  if (!out.defined()) EMBER_AUTOCAST(autocast::kPromoteCpu, cat, tensors, dim, out);
  if (!out.defined()) EMBER_PY_DISPATCH(Tensor, "aten.cat.default", tensors, dim);
  EMBER_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  const Tensor* ref = nullptr;
  ScalarType dtype = tensors[0].dtype();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    EMBER_CHECK(t.device() == tensors[0].device(),
                "torch.cat(): Expected all tensors to be on the same device, but "
                "found at least two devices, ",
                tensors[0].device(), " and ", t.device(), "!");
    dtype = promote_types(dtype, t.dtype());
    if (!ref && !is_legacy_empty(t)) ref = &t;
  }
  const Device device = tensors[0].device();
  check_out_without_grad(tensors, out, "cat");
  const bool grad = !out.defined() && autograd::any_needs_grad(tensors);
  if (!ref) {  // all inputs are 1-d and empty
    dim = wrap_dim(dim, 1, "cat");
    Tensor r = output_for(out, {{0}}, dtype, device, "cat");
    if (out.defined()) out.bump_version();
    if (grad) record_cat(tensors, dim, r);
    return r;
  }
  dim = wrap_dim(dim, ref->dim(), "cat");
  DimVector shape(ref->sizes());
  shape[dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_legacy_empty(t)) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
                t.dim());
    for (int64_t d = 0; d < t.dim(); ++d)
      EMBER_CHECK(d == dim || t.sizes()[d] == ref->sizes()[d], "Sizes of tensors must match except in dimension ", dim,
                  ". Expected size ", ref->sizes()[d], " but got size ", t.sizes()[d], " for tensor number ", i,
                  " in the list.");
    shape[dim] = checked_add(shape[dim], t.sizes()[dim], "cat", "the output size");
  }
  Tensor r = output_for(out, shape, dtype, device, "cat");
  if (out.defined())
    for (const Tensor& t : tensors)
      EMBER_CHECK(!may_overlap(out, t),
                  "torch.cat(): unsupported operation: some elements of the input tensor and "
                  "the written-to tensor refer to a single memory location.");
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (is_legacy_empty(t)) continue;
    const int64_t n = t.sizes()[dim];
    if (n) copy_into(narrow(r, dim, offset, n), t);
    offset += n;
  }
  if (out.defined()) out.bump_version();
  if (grad) record_cat(tensors, dim, r);
  return r;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out) {
  if (!out.defined()) EMBER_AUTOCAST(autocast::kPromoteCpu, stack, tensors, dim, out);
  if (!out.defined()) EMBER_PY_DISPATCH(Tensor, "aten.stack.default", tensors, dim);
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  check_same_device("stack", tensors);
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(std::ranges::equal(tensors[i].sizes(), tensors[0].sizes()),
                "stack expects each tensor to be equal "
                "size, but got ",
                shape_str(tensors[0].sizes()), " at entry 0 and ", shape_str(tensors[i].sizes()), " at entry ", i);
  dim = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  check_out_without_grad(tensors, out, "stack");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, dim));
  return cat(parts, dim, out);
}

Tensor hstack(const std::vector<Tensor>& tensors, const Tensor& out) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  check_out_without_grad(tensors, out, "hstack");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(atleast(t, 1));
  return cat(parts, parts[0].dim() == 1 ? 0 : 1, out);
}

Tensor vstack(const std::vector<Tensor>& tensors, const Tensor& out) {
  EMBER_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  check_out_without_grad(tensors, out, "vstack");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(atleast(t, 2));
  return cat(parts, 0, out);
}

// ---------------------------------------------------------------------------------------- splitting

namespace {

// The pieces of split/chunk/unbind are views recorded as ONE node whose formula joins the pieces' gradients
// (zeros for pieces that got none): O(size) work in backward, where a node per piece would embed each piece's
// gradient in a zero tensor of the whole input (O(pieces * size), quadratic for a time loop over unbind).
std::vector<Tensor> record_pieces(const Tensor& t, std::vector<Tensor> pieces, int64_t dim, bool stacked,
                                  const char* name) {
  std::vector<DimVector> shapes;
  for (auto& p : pieces) shapes.emplace_back(p.sizes());
  auto n = autograd::make_node(name, {&t}, [dim, stacked, shapes](autograd::FormulaNode&, autograd::TensorList& g) {
    Tensor like;
    for (auto& x : g)
      if (x.defined()) like = x;
    std::vector<Tensor> parts;
    for (size_t i = 0; i < g.size(); ++i)
      parts.push_back(g[i].defined() ? g[i] : zeros(shapes[i], TensorOptions(like.dtype()).device(like.device())));
    return autograd::TensorList{stacked ? stack(parts, dim) : cat(parts, dim)};
  });
  if (n) {
    n->num_outputs = static_cast<uint32_t>(pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) autograd::set_history(pieces[i], n, static_cast<uint32_t>(i), true);
  }
  return pieces;
}

// Runs f (which makes the pieces with view ops) without recording: the pieces get one node instead.
template <class F>
std::vector<Tensor> pieces_of(const Tensor& t, int64_t dim, bool stacked, const char* name, F&& f) {
  const Tensor* in[] = {&t};
  if (!autograd::needs_grad(in)) return f();
  std::vector<Tensor> r;
  {
    autograd::NoGradGuard off;
    r = f();
  }
  return record_pieces(t, std::move(r), dim, stacked, name);
}

}  // namespace

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "split expects at least a 1-dimensional tensor");
  dim = wrap_dim(dim, t.dim(), "split");
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t size = t.sizes()[dim];
  EMBER_CHECK(split_size > 0 || size == 0,
              "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  const int64_t n = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  return pieces_of(t, dim, false, "SplitBackward0", [&] {
    std::vector<Tensor> r;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t start = std::min(i * split_size, size);
      r.push_back(narrow(t, dim, start, std::min(split_size, size - start)));
    }
    return r;
  });
}
std::vector<Tensor> split_with_sizes(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "split_with_sizes expects at least a 1-dimensional tensor");
  dim = wrap_dim(dim, t.dim(), "split_with_sizes");
  const int64_t size = t.sizes()[dim];
  int64_t total = 0;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
                shape_str(sizes));
    total += s;
  }
  EMBER_CHECK(total == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
              " (input tensor's size at dimension ", dim, "), but got split_sizes=", shape_str(sizes));
  return pieces_of(t, dim, false, "SplitWithSizesBackward0", [&] {
    std::vector<Tensor> r;
    int64_t start = 0;
    for (int64_t s : sizes) {
      r.push_back(narrow(t, dim, start, s));
      start += s;
    }
    return r;
  });
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  dim = wrap_dim(dim, t.dim(), "chunk");
  const int64_t size = t.sizes()[dim], split_size = (size + chunks - 1) / chunks;
  if (size == 0) return split_with_sizes(t, DimVector(chunks, 0), dim);  // `chunks` empty pieces, as PyTorch
  return split(t, split_size, dim);
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  EMBER_CHECK_INDEX(t.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  dim = wrap_dim(dim, t.dim(), "unbind");
  return pieces_of(t, dim, true, "UnbindBackward0", [&] {
    std::vector<Tensor> r;
    for (int64_t i = 0; i < t.sizes()[dim]; ++i) r.push_back(select(t, dim, i));
    return r;
  });
}

Tensor atleast_1d(const Tensor& t) { return atleast(t, 1); }
Tensor atleast_2d(const Tensor& t) { return atleast(t, 2); }
Tensor atleast_3d(const Tensor& t) {
  if (t.dim() == 0) return reshape(t, {{1, 1, 1}});
  if (t.dim() == 1) return reshape(t, {{1, t.numel(), 1}});
  if (t.dim() == 2) return unsqueeze(t, 2);
  return t;
}

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
              dim, ", but the size of the dimension ", t.sizes()[dim], " is not divisible by the split_size ", sections,
              "!");
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

}  // namespace ember
