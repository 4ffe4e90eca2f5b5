// Helpers shared by the op implementations (not part of the public API).
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "ember/sizes.h"  // checked_numel, storage_nbytes: every size computation (Note [Checked size arithmetic])
#include "ember/tensor.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef size);
// cuda without an index becomes the current device; checks that CUDA is usable.
Device resolve_device(Device d);
bool is_non_overlapping_and_dense(const Tensor& t);
// True when some element is reachable by two indices (a stride-0 dim of size > 1, or overlapping dims).
bool has_internal_overlap(const Tensor& t);
// True when a and b may touch a common byte of one storage.
bool may_overlap(const Tensor& a, const Tensor& b);
// copy_ without the version bump, for filling tensors an op has just allocated (new tensors start at
// version 0, as in PyTorch).
void copy_into(const Tensor& dst, const Tensor& src);
// A 0-d tensor holding `value` as `dtype` on `device`, for passing a Python number to a kernel. On the
// CPU it comes from a small per-thread ring of reused tensors (no allocation): callers must not keep it
// beyond the op.
Tensor scalar_tensor(const Scalar& value, ScalarType dtype, Device device);
// An elementwise op's tensor operand moved to the op's device. A 0-d CPU tensor joining a CUDA op stays on the host:
// the CUDA kernels take it by value (Note [CUDA elementwise launcher]), saving a host-to-device copy per op.
Tensor elementwise_operand(const Tensor& t, Device device);
// A tensor sharing t's storage with new geometry (and, for view(dtype), another dtype).
Tensor make_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::optional<ScalarType> dtype = std::nullopt);

// Raises PyTorch's "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
// (prefixed with `op`) unless every defined tensor is on one device. Ops taking several tensors call it before any
// launch; undefined tensors (optional arguments) and null pointers are skipped.
void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors);
void check_same_device(const char* op, const std::vector<Tensor>& tensors);
// Raises NotImplementedError for an op whose output's size depends on t's values, which a meta tensor does not have
// (Note [Meta device] in backend/meta/kernels.cpp).
void check_has_data(const Tensor& t, const char* op);
// (min, max) of a non-empty t on the host: a single device-to-host copy (one wait) when t is on a GPU.
std::pair<Scalar, Scalar> host_extrema(const Tensor& t);

}  // namespace ember
