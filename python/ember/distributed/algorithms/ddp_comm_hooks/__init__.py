"""Communication hooks for DistributedDataParallel.register_comm_hook (torch.distributed.algorithms.ddp_comm_hooks)."""

from . import default_hooks  # noqa: F401
