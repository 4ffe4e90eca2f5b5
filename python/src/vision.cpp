#include "common.h"

namespace ember::py {

void init_vision(nb::module_& m) {}

}  // namespace ember::py
