"""ember.nn.parallel: DataParallel (single-process data parallelism on one machine's GPUs) and
DistributedDataParallel (one process per replica, gradients averaged through ember.distributed)."""

from .data_parallel import DataParallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
