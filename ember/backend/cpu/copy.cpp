// Copy with casting and fill: the CPU elementwise kernels of the tensor core.
#include "ember/backend/cpu/loops.h"
#include "ember/backend/kernels.h"

namespace ember::cpu {
namespace {

void copy(const Tensor& dst, const Tensor& src) {
  StridedIter it = StridedIter::make({&dst, &src}, dst.sizes());
  dispatch_all(dst.dtype(), [&](auto o) {
    using Out = decltype(o);
    dispatch_all(src.dtype(), [&](auto i) {
      using In = decltype(i);
      unary_loop<Out, In>(it, [](In v) { return convert<Out>(v); });
    });
  });
}

void fill(const Tensor& dst, const Scalar& value) {
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  dispatch_all(dst.dtype(), [&](auto o) {
    using Out = decltype(o);
    const Out v = value.to<Out>();
    nullary_loop<Out>(it, [v] { return v; });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(copy, CPU, copy)
EMBER_REGISTER_KERNEL(fill, CPU, fill)

}  // namespace ember::cpu
