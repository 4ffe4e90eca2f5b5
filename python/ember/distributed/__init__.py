"""ember.distributed: torch.distributed's collectives over Gloo (CPU tensors) and NCCL (CUDA tensors).

The stores, process groups and the work queue are C++ (ember/distributed/); this package holds the API:
init_process_group and its rendezvous, groups, the collectives and the object collectives."""


def is_available():
    return True


from ._grad_bucket import GradBucket  # noqa: E402,F401
from .distributed_c10d import *  # noqa: E402,F401,F403
from .distributed_c10d import (  # noqa: E402,F401
    _all_gather_base,
    _get_default_group,
    _get_default_store,
    _get_global_rank,
    _object_to_tensor,
    _reduce_scatter_base,
    _tensor_to_object,
)
from .rendezvous import rendezvous  # noqa: E402,F401
