#include "common.h"

namespace ember::py {

void init_data(nb::module_& m) {}

}  // namespace ember::py
