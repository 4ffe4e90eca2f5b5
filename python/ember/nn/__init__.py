"""ember.nn: modules, parameters, initialisation and the functional API (the math runs in C++)."""

from . import attention, functional, init, parallel, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all  # noqa: F401
from .parallel import DataParallel, DistributedDataParallel  # noqa: F401
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
