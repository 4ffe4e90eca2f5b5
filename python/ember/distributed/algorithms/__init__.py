"""ember.distributed.algorithms: DistributedDataParallel's communication hooks."""

from . import ddp_comm_hooks  # noqa: F401
