#include "common.h"

namespace ember::py {

void init_optim(nb::module_& m) {}

}  // namespace ember::py
