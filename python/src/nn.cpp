// The neural-network op families' bindings: each family has its own file (nn_<family>.cpp) with an init
// function called here. Functions of torch.nn.functional go into ember._C._nn (exported by
// python/ember/nn/functional.py); those PyTorch also has at top level (torch.softmax) into ember._C.
#include "common.h"

namespace ember::py {

void init_nn_rnn(nb::module_& m, nb::module_& nn);
void init_nn_linear(nb::module_& m, nb::module_& nn);
void init_nn_activation(nb::module_& m, nb::module_& nn);
void init_nn_loss(nb::module_& m, nb::module_& nn);
void init_nn_spatial(nb::module_& m, nb::module_& nn);
void init_nn_conv(nb::module_& m, nb::module_& nn);

void init_nn(nb::module_& m, nb::module_& nn) {
  init_nn_conv(m, nn);
  init_nn_loss(m, nn);
  init_nn_spatial(m, nn);
  init_nn_activation(m, nn);
  init_nn_rnn(m, nn);
  init_nn_linear(m, nn);
}

}  // namespace ember::py
