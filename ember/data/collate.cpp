#include "ember/data/collate.h"

#include <algorithm>
#include <cstring>

#include "ember/data/shared_memory.h"
#include "ember/ops.h"

namespace ember::data {

Tensor collate_stack(const std::vector<Tensor>& batch, bool shared) {
  EMBER_CHECK(!batch.empty(), "stack expects a non-empty TensorList");
  const Tensor& first = batch[0];
  ScalarType dtype = first.dtype();
  bool any_grad = false, all_cpu = true, plain = true;
  for (size_t i = 0; i < batch.size(); ++i) {
    const Tensor& t = batch[i];
    EMBER_CHECK(std::ranges::equal(t.sizes(), first.sizes()), "stack expects each tensor to be equal size, but got ",
                shape_str(first.sizes()), " at entry 0 and ", shape_str(t.sizes()), " at entry ", i);
    dtype = promote_types(dtype, t.dtype());
    any_grad = any_grad || t.requires_grad();
    all_cpu = all_cpu && t.device().is_cpu();
    plain = plain && t.is_contiguous() && t.dtype() == first.dtype();
  }
  // Tensors that need autograd take the ordinary path (out= refuses them, and they cannot cross processes).
  if (any_grad || !all_cpu) return stack(batch, 0);
  DimVector size{int64_t(batch.size())};
  for (int64_t s : first.sizes()) size.push_back(s);
  // In a worker the batch goes straight into a segment: sending it then moves only its handle.
  Tensor out = shared ? empty_shared(size, dtype) : empty(size, TensorOptions(dtype));
  if (!plain) return stack(batch, 0, out);
  // Samples of one dtype, each contiguous (the usual case): one memcpy per sample, no strided iteration.
  const size_t n = first.nbytes();
  char* dst = static_cast<char*>(out.data_ptr());
  for (const Tensor& t : batch) {
    if (n) std::memcpy(dst, t.data_ptr(), n);
    dst += n;
  }
  return out;
}

}  // namespace ember::data
