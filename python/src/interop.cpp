// NumPy and DLPack interop (issue 3).
#include "common.h"

namespace ember::py {

void init_interop(nb::module_&) {}

}  // namespace ember::py
