// NumPy and DLPack interop (docs/interop.md): numpy.cpp and dlpack.cpp.
#include "common.h"

namespace ember::py {

void init_numpy(nb::module_& m);
void init_dlpack(nb::module_& m);

void init_interop(nb::module_& m) {
  init_numpy(m);
  init_dlpack(m);
}

}  // namespace ember::py
