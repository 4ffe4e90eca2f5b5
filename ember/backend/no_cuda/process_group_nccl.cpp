// The NCCL backend in a build without CUDA: it exists, and says why it cannot be used.
#include "ember/distributed/process_group.h"
#include "ember/error.h"

namespace ember::distributed {

bool nccl_is_built() { return false; }

int nccl_version() { fail<Error>("NCCL: ember was built without CUDA support, so the nccl backend is unavailable"); }

std::shared_ptr<ProcessGroup> make_process_group_nccl(std::shared_ptr<Store>, int, int, const ProcessGroupOptions&) {
  fail<Error>(
      "[init_process_group] the nccl backend needs CUDA, but ember was built without CUDA support "
      "(use the gloo backend for CPU tensors)");
}

}  // namespace ember::distributed
