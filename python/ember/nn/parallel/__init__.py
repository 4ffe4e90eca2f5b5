"""ember.nn.parallel: DataParallel (single-process data parallelism on one machine's GPUs)."""
from .data_parallel import DataParallel  # noqa: F401
