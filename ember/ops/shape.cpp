// Shape ops: movedim, broadcasting, meshgrid, reordering (flip, roll, rot90), repetition (repeat, tile,
// repeat_interleave) and triangles (tril, triu). Copies go through the copy kernel over views that describe the
// result's layout (a stride-0 dim repeats, a negative stride reverses); the triangles' kernel copies each row's kept
// run and zeroes the rest.
// Gradient formulas sit with the ops; ops composed of others need none of their own.
#include "ember/ops/shape.h"

#include <algorithm>
#include <numeric>

#include "ember/autocast.h"
#include "ember/autograd/detail/shape_grad.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/index.h"
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

}  // namespace

Tensor movedim(const Tensor& t, IntArrayRef source, IntArrayRef destination) {
  const int64_t n = t.dim();
  EMBER_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (",
              shape_str(source), " dims) should contain the same number of dims as destination (",
              shape_str(destination), " dims)");
  DimVector src, dst;
  SmallVector<bool, 8> src_seen(std::max<int64_t>(n, 1), false), dst_seen(std::max<int64_t>(n, 1), false);
  for (size_t i = 0; i < source.size(); ++i) {
    src.push_back(wrap_dim(source[i], n, "movedim"));
    dst.push_back(wrap_dim(destination[i], n, "movedim"));
    EMBER_CHECK(!src_seen[src.back()], "movedim: repeated dim in `source` (", shape_str(source), ")");
    EMBER_CHECK(!dst_seen[dst.back()], "movedim: repeated dim in `destination` (", shape_str(destination), ")");
    src_seen[src.back()] = dst_seen[dst.back()] = true;
  }
  if (n == 0) return view_alias(t);
  // The destination slots get the moved dims; the other slots get the remaining dims in order.
  DimVector perm(n, -1);
  for (size_t i = 0; i < src.size(); ++i) perm[dst[i]] = src[i];
  int64_t rest = 0;
  for (int64_t& p : perm) {
    if (p >= 0) continue;
    while (src_seen[rest]) ++rest;
    p = rest++;
  }
  return permute(t, perm);
}

Tensor broadcast_to(const Tensor& t, IntArrayRef size) { return expand(t, size); }

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  std::vector<Tensor> r;
  // A tensor that already has the shape is returned itself, not an expanded view, as PyTorch does: a leaf stays a
  // leaf (Normal(loc, scale).loc is loc, and its .grad is the user's).
  for (const Tensor& t : tensors) r.push_back(std::ranges::equal(t.sizes(), shape) ? t : expand(t, shape));
  return r;
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), "torch.meshgrid: Expected at least one tensor");
  EMBER_CHECK(indexing == "ij" || indexing == "xy",
              "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
              "received: ",
              indexing);
  const int64_t n = static_cast<int64_t>(tensors.size());
  DimVector shape;
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() <= 1,
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ", shape_str(t.sizes()));
    EMBER_CHECK(t.dtype() == tensors[0].dtype(),
                "torch.meshgrid: Expected all tensors in the tensor list to have the "
                "same dtype, but got ",
                tensors[0].dtype(), " and ", t.dtype());
    EMBER_CHECK(t.device() == tensors[0].device(),
                "torch.meshgrid: Expected all tensors in the tensor list to be on "
                "the same device");
    shape.push_back(t.numel());
  }
  // "xy" is Cartesian indexing: the first two inputs vary along dims 1 and 0.
  const bool swap = indexing == "xy" && n >= 2;
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> r;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t pos = swap && i < 2 ? 1 - i : i;
    DimVector view_shape(n, 1);
    view_shape[pos] = tensors[i].numel();
    r.push_back(expand(reshape(tensors[i], view_shape), shape));
  }
  return r;
}

// ---------------------------------------------------------------------------------------- reordering

Tensor flip(const Tensor& t, IntArrayRef dims) {
  SmallVector<bool, 8> flipped(std::max<int64_t>(t.dim(), 1), false);
  for (int64_t d : dims) {
    d = wrap_dim(d, t.dim(), "flip");
    EMBER_CHECK(!flipped[d], "flip: dim ", d, " appears multiple times in the list of dims");
    flipped[d] = true;
  }
  // PyTorch flips other dims by copying a negatively strided view, and the last with a kernel that has no complex32
  // instantiation (Note [complex32]).
  if (t.dim() && flipped[t.dim() - 1] && t.sizes().back() > 1) refuse_complex_half("flip_cpu", t.dtype());
  // A view walking the flipped dims backwards (a negative stride from the last element); it never leaves
  // this function, since ember's views otherwise have non-negative strides.
  DimVector strides(t.strides());
  int64_t offset = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d)
    if (flipped[d] && t.sizes()[d] > 1) {
      offset += (t.sizes()[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  Tensor r = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
  if (t.numel()) copy_into(r, make_view(t, t.sizes(), strides, offset));
  if (auto n = autograd::make_node("FlipBackward0", {&t}, [dims = DimVector(dims)](FormulaNode&, TensorList& g) {
        return TensorList{flip(g[0], dims)};
      }))
    autograd::set_history(r, n);
  return r;
}

namespace {

// roll over a non-empty list of dims. roll runs it untracked when it records (its narrow views would record).
Tensor rolled(const Tensor& t, IntArrayRef shifts, IntArrayRef dims) {
  if (t.dim() == 0) {
    for (int64_t d : dims) wrap_dim(d, 0, "roll");
    return clone(t);
  }
  Tensor r = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
  if (t.numel() == 0) return r;
  // Along each rolled dim the output is two blocks, so all of it is 2^k block copies (no intermediate results).
  // A dim named twice rolls by the sum of its shifts.
  DimVector wrapped, shift;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], t.dim(), "roll"), size = t.sizes()[d];
    const int64_t s = ((shifts[i] % size) + size) % size;
    auto seen = std::ranges::find(wrapped, d);
    if (seen != wrapped.end()) {
      int64_t& acc = shift[seen - wrapped.begin()];
      acc = (acc + s) % size;
      continue;
    }
    wrapped.push_back(d);
    shift.push_back(s);
  }
  // A dim rolled by a multiple of its size is one block: leave it out, so that the 2^k blocks below are all
  // non-empty (fftshift of 25 size-1 dims walked 2^25 empty masks, 10 s).
  for (size_t i = wrapped.size(); i-- > 0;)
    if (shift[i] == 0) {
      wrapped.erase(i);
      shift.erase(i);
    }
  const int64_t k = static_cast<int64_t>(wrapped.size());
  for (int64_t mask = 0; mask < (int64_t{1} << k); ++mask) {
    Tensor dst = r, src = t;
    bool empty_block = false;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t d = wrapped[i], size = t.sizes()[d], s = shift[i];
      // bit clear: the output's [s, size) from the input's [0, size - s); set: [0, s) from [size - s, size)
      const bool tail = (mask >> i) & 1;
      const int64_t len = tail ? s : size - s;
      empty_block |= len == 0;
      if (empty_block) break;
      dst = narrow(dst, d, tail ? 0 : s, len);
      src = narrow(src, d, tail ? size - s : 0, len);
    }
    if (!empty_block) copy_into(dst, src);
  }
  return r;
}

}  // namespace

Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1,
                "roll(): expected one shift when dims is not given, got shifts=", shape_str(shifts));
    return view(roll(flatten(t), shifts, {{0}}), t.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  // Rolling back undoes it (a dim named twice rolls back by the sum of its shifts).
  auto n = autograd::make_node("RollBackward0", {&t},
                               [shifts = DimVector(shifts), dims = DimVector(dims)](FormulaNode&, TensorList& g) {
                                 DimVector back;
                                 for (int64_t s : shifts) back.push_back(-s);
                                 return TensorList{roll(g[0], back, dims)};
                               });
  Tensor r = autograd::untracked(n != nullptr, [&] { return rolled(t, shifts, dims); });
  if (n) autograd::set_history(r, n);
  return r;
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

// ---------------------------------------------------------------------------------------- repetition

Tensor repeat(const Tensor& t, IntArrayRef repeats) {
  const int64_t n = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(n >= t.dim(),
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
              "tensor (repeats ",
              shape_str(repeats), ", tensor of shape ", shape_str(t.sizes()), ")");
  DimVector final_shape(n);
  const int64_t lead = n - t.dim();
  bool overflow = false;  // raised after the negative repeats, which PyTorch reports first
  for (int64_t i = 0; i < n; ++i)
    overflow |= __builtin_mul_overflow(repeats[i], i < lead ? 1 : t.sizes()[i - lead], &final_shape[i]);
  EMBER_CHECK(std::ranges::all_of(repeats, [](int64_t r) { return r >= 0; }),
              "Trying to create tensor with negative dimension ", *std::ranges::min_element(repeats), ": ",
              shape_str(final_shape));
  EMBER_CHECK(!overflow, "repeat: the output size overflowed int64 (repeats ", shape_str(repeats), " of shape ",
              shape_str(t.sizes()), ")");
  // Each dim i becomes (repeats[i], size[i]) with stride 0 on the repeated part: one copy lays it out.
  DimVector sizes, strides;
  for (int64_t i = 0; i < n; ++i) {
    const bool has = i >= lead;
    sizes.push_back(repeats[i]);
    sizes.push_back(has ? t.sizes()[i - lead] : 1);
    strides.push_back(0);
    strides.push_back(has ? t.strides()[i - lead] : 0);
  }
  Tensor r = empty(final_shape, TensorOptions(t.dtype()).device(t.device()));
  if (r.numel()) copy_into(view(r, sizes), make_view(t, sizes, strides, t.storage_offset()));
  // The gradient sums the copies: over the repeat dims of the (repeats[i], size[i]) layout.
  if (auto n = autograd::make_node("RepeatBackward0", {&t},
                                   [sizes, in = DimVector(t.sizes())](FormulaNode&, TensorList& g) {
                                     DimVector copies;
                                     for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); i += 2)
                                       copies.push_back(i);
                                     return TensorList{reshape(sum(reshape(g[0], sizes), copies), in)};
                                   }))
    autograd::set_history(r, n);
  return r;
}

Tensor tile(const Tensor& t, IntArrayRef reps) {
  DimVector r(reps);
  while (static_cast<int64_t>(r.size()) < t.dim()) r.insert(0, 1);
  return repeat(t, r);
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim) {
  EMBER_CHECK(repeats >= 0, "repeat_interleave: repeats can not be negative, got ", repeats);
  // Over x: t, or t flattened when dim is not given (a 0-d t counts as 1-d).
  DimVector xs = dim ? DimVector(t.sizes()) : DimVector{t.numel()};
  const int64_t d = dim ? wrap_dim(*dim, t.dim(), "repeat_interleave") : 0;
  if (xs.empty()) xs.push_back(1);
  DimVector shape(xs), expanded(xs);
  shape[d] = checked_mul(shape[d], repeats, "repeat_interleave", "the output size");
  expanded.insert(d + 1, repeats);
  Tensor r = empty(shape, TensorOptions(t.dtype()).device(t.device()));
  // The gradient sums each element's copies: the repeats dim after d.
  auto n = autograd::make_node("RepeatInterleaveBackward0", {&t},
                               [d, expanded, in = DimVector(t.sizes())](FormulaNode&, TensorList& g) {
                                 const int64_t copies[] = {d + 1};
                                 return TensorList{reshape(sum(reshape(g[0], expanded), copies), in)};
                               });
  if (r.numel())
    autograd::untracked(n != nullptr,
                        [&] { copy_into(view(r, expanded), expand(unsqueeze(reshape(t, xs), d + 1), expanded)); });
  if (n) autograd::set_history(r, n);
  return r;
}

Tensor repeat_interleave(const Tensor& repeats) {
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got shape ",
              shape_str(repeats.sizes()));
  EMBER_CHECK(is_integral(repeats.dtype(), false), "repeat_interleave: repeats has to be Long or Int tensor, got ",
              repeats.dtype());
  Tensor r = contiguous(to(flatten(repeats), kCPU, ScalarType::Int64));
  const int64_t* p = r.data<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < r.numel(); ++i) {
    EMBER_CHECK(p[i] >= 0, "repeat_interleave: repeats can not be negative, got ", p[i]);
    total = checked_add(total, p[i], "repeat_interleave", "the sum of repeats");
  }
  // The repeats were read on the host (the output size and the check need them); the output is built on their device.
  Tensor out = empty({{total}}, TensorOptions(ScalarType::Int64).device(repeats.device()));
  if (total) {
    const Tensor reps = repeats.is_cuda() ? contiguous(to(flatten(repeats), ScalarType::Int64)) : r;
    repeat_index_kernel[repeats.device()](out, reps);
  }
  return out;
}

Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim) {
  Tensor x = dim ? t : flatten(t);
  const int64_t d = dim ? wrap_dim(*dim, x.dim(), "repeat_interleave") : 0;
  if (x.dim() == 0) x = reshape(x, {{1}});
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got shape ",
              shape_str(repeats.sizes()));
  const int64_t size = x.sizes()[d];
  Tensor reps = repeats;
  if (repeats.numel() == 1 && size != 1) reps = expand(reshape(repeats, {{1}}), {{size}});
  EMBER_CHECK(reps.numel() == size,
              "repeat_interleave: repeats must have the same size as input along dim, but got "
              "repeats.size(0) = ",
              reps.numel(), " and input.size(", d, ") = ", size);
  return index_select(x, d, repeat_interleave(reps));
}

// ---------------------------------------------------------------------------------------- triangles

namespace {

void check_triangle(const Tensor& t, const char* op) {
  EMBER_CHECK(t.dim() >= 2, op, ": input tensor must have at least 2 dimensions (got shape ", shape_str(t.sizes()),
              ")");
}

// The kernel's diagonal: any diagonal past the matrix keeps (or drops) the same elements as its edge.
int64_t clamp_diagonal(const Tensor& t, int64_t diagonal) {
  return std::clamp<int64_t>(diagonal, -t.sizes()[t.dim() - 2], t.sizes()[t.dim() - 1]);
}

Tensor triangle(const Tensor& t, int64_t diagonal, bool lower) {
  check_triangle(t, lower ? "tril" : "triu");
  // The gradient keeps the same triangle.
  auto n = autograd::make_node(lower ? "TrilBackward0" : "TriuBackward0", {&t},
                               [diagonal, lower](FormulaNode&, TensorList& g) {
                                 return TensorList{lower ? tril(g[0], diagonal) : triu(g[0], diagonal)};
                               });
  // A source whose rows are strided (a transposed view) reads one element per cache line; the copy kernel's tiled
  // transpose brings it into the result first, and the kernel then zeroes that in place.
  const bool strided_rows = t.strides()[t.dim() - 1] != 1 && t.sizes()[t.dim() - 1] > 1;
  Tensor r = strided_rows ? autograd::untracked(n != nullptr, [&] { return clone(t, MemoryFormat::Contiguous); })
                          : empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
  triangle_kernel[t.device()](r, strided_rows ? r : t, clamp_diagonal(t, diagonal), lower);
  if (n) autograd::set_history(r, n);
  return r;
}

const Tensor& triangle_(const Tensor& t, int64_t diagonal, bool lower) {
  const char* op = lower ? "tril_" : "triu_";
  check_triangle(t, op);
  check_writable(t, op);
  if (autograd::needs_grad({&t}))
    return autograd::inplace_with_grad(t, op, [&] { return triangle(t, diagonal, lower); });
  // The kernel writes a contiguous tensor; any other layout takes the result through a copy.
  if (!t.is_contiguous()) return copy_(t, triangle(t, diagonal, lower));
  triangle_kernel[t.device()](t, t, clamp_diagonal(t, diagonal), lower);
  t.bump_version();
  return t;
}

}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal) { return triangle(t, diagonal, true); }
Tensor triu(const Tensor& t, int64_t diagonal) { return triangle(t, diagonal, false); }
const Tensor& tril_(const Tensor& t, int64_t diagonal) { return triangle_(t, diagonal, true); }
const Tensor& triu_(const Tensor& t, int64_t diagonal) { return triangle_(t, diagonal, false); }

}  // namespace ember
