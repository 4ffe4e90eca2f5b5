"""ember.random (torch.random): the CPU generator's functions, and fork_rng.

The seeding and state functions are ember's top-level ones (the same objects, as in PyTorch); default_generator is
the CPU generator (Note [Random numbers] in docs/random.md)."""

import contextlib
import warnings

from . import _C
from ._C import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: F401

default_generator = _C.default_generator()

_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices"):
    """Forks the random number generators: a context manager on whose exit the CPU generator's state and those of
    the CUDA devices `devices` are what they were on entry.

    Args:
        devices (iterable of int, optional): the CUDA devices whose generators are forked; all of them when None
            (with a warning where there are several).
        enabled (bool): False forks nothing.

    Example::

        >>> with ember.random.fork_rng():
        ...     _ = ember.rand(3)
    """
    from . import cuda

    global _fork_rng_warned_already

    if not enabled:
        yield
        return

    if devices is None:
        num_devices = cuda.device_count()
        if num_devices > 1 and not _fork_rng_warned_already:
            warnings.warn(
                (
                    "CUDA reports that you have {num_devices} available devices, and you "
                    "have used {caller} without explicitly specifying which devices are being used. "
                    "For safety, we initialize *every* CUDA device by default, which "
                    "can be quite slow if you have a lot of GPUs.  If you know that you are only "
                    "making use of a few CUDA devices, set the environment variable CUDA_VISIBLE_DEVICES "
                    "or the '{devices_kw}' keyword argument of {caller} with the set of devices "
                    "you are actually using.  For example, if you are using CPU only, "
                    "set CUDA_VISIBLE_DEVICES= or devices=[]; if you are using "
                    "GPU 0 only, set CUDA_VISIBLE_DEVICES=0 or devices=[0].  To initialize "
                    "all devices and suppress this warning, set the '{devices_kw}' keyword argument "
                    "to `range(ember.cuda.device_count())`."
                ).format(num_devices=num_devices, caller=_caller, devices_kw=_devices_kw)
            )
            _fork_rng_warned_already = True
        devices = list(range(num_devices))
    else:
        devices = list(devices)  # a generator argument is traversed twice

    cpu_rng_state = get_rng_state()
    gpu_rng_states = [cuda.get_rng_state(device) for device in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)
        for device, gpu_rng_state in zip(devices, gpu_rng_states):
            cuda.set_rng_state(gpu_rng_state, device)
