#include "common.h"

namespace ember::py {

void init_serialize(nb::module_& m) {}

}  // namespace ember::py
