// The kernels of the indexing ops (ops/index.cpp, ops/shape.cpp): gather and scatter by index, nonzero, and the
// positions of repeat_interleave.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "ember/backend/kernels.h"

namespace ember {

// Note [Index kernels]
// Every op of this family that moves data by index reduces to two kernels over operands of one iteration shape:
//   index_gather:  out[i] = src[i + idx[i] * d.stride]
//   index_scatter: dst[i + idx[i] * d.stride] = src[i]   (or combines with the element there)
// src (dst) is a view of the indexed tensor restrided to the iteration shape with stride 0 along the indexed dim,
// and idx an int64 tensor broadcast to that shape. So one kernel serves index_select, gather, take and advanced
// indexing, the other scatter, index_add/copy/fill, index_put and masked_scatter. The kernels wrap negative
// indices where the op allows them, and raise fail_out_of_bounds' error for any out of bounds before touching memory.
// Several indexed dims (advanced indexing) are first folded by index_offsets into one tensor of element offsets, which
// the two kernels then take with d.size < 0 (already checked).
struct IndexDim {
  int64_t size = -1;   // the size of the indexed dim; < 0: idx holds checked element offsets
  int64_t stride = 1;  // of the indexed dim, in elements
  int64_t dim = 0;     // named in the bounds error
  bool wrap = true;    // -size <= idx < 0 counts from the end (advanced indexing, take); else out of bounds
};
enum class ScatterMode : uint8_t { Copy, Add, Mul, Max, Min };

// Raises an out-of-bounds index error of op's type: RuntimeError for gather and the scatter family, IndexError for
// the others (index_select, the index_* ops, take, indexing), as PyTorch does.
template <class... A>
[[noreturn]] void fail_out_of_bounds(const char* op, const A&... message) {
  if (op && (std::strcmp(op, "gather") == 0 || std::strncmp(op, "scatter", 7) == 0)) fail<Error>(message...);
  fail<IndexError>(message...);
}

// `op` names the caller in errors (nullptr: PyTorch's bare indexing message). Copy needs src of dst's dtype;
// the combining modes too (the op casts). dst must not overlap itself outside the indexed dim.
EMBER_DECLARE_KERNEL(index_gather, const Tensor& out, const Tensor& src, const Tensor& idx, const IndexDim& d,
                     const char* op)
EMBER_DECLARE_KERNEL(index_scatter, ScatterMode mode, const Tensor& dst, const Tensor& src, const Tensor& idx,
                     const IndexDim& d, const char* op)
// offsets = sum over k of wrap(indices[k]) * dims[k].stride; the indices broadcast to offsets' shape.
EMBER_DECLARE_KERNEL(index_offsets, const Tensor& offsets, const std::vector<Tensor>& indices,
                     const std::vector<IndexDim>& dims, const char* op)
// out: int64 [count, self.dim()], the coordinates of self's nonzero elements in row-major order.
EMBER_DECLARE_KERNEL(nonzero, const Tensor& out, const Tensor& self)
// out[j] = i for the repeats[i] consecutive positions of block i; repeats: int64, non-negative, summing to
// out's size.
EMBER_DECLARE_KERNEL(repeat_index, const Tensor& out, const Tensor& repeats)

}  // namespace ember
