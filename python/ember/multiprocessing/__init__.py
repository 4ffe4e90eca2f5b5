"""ember.multiprocessing: a drop-in for Python's multiprocessing whose queues, pipes and process arguments move
ember tensors into shared memory and send only a handle (see reductions.py and docs/data.md).

Everything multiprocessing offers is re-exported (Process, Queue, Pipe, Pool, get_context, ...), plus the sharing
strategies (get/set_sharing_strategy, get_all_sharing_strategies) and spawn(), as in torch.multiprocessing.
"""

import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

from ._sharing import get_all_sharing_strategies, get_sharing_strategy, set_sharing_strategy
from .reductions import init_reductions
from .spawn import (  # noqa: F401
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = list(_mp.__all__) + [
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
]

init_reductions()
