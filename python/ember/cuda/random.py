"""The CUDA generators (torch.cuda's random functions). Each device has one ember.Generator (Philox, Note [Random
numbers]); its state is a CPU uint8 tensor of 16 bytes (seed, offset), as for the CPU generator.

As in PyTorch, the seeding functions do nothing where CUDA is unavailable (so that ember.manual_seed-style code runs
on any machine), while reading or setting a state needs a device. The generators exist without initialising CUDA;
seeding one does not initialise it either."""

from .. import _C
from ._utils import _device_index


def _generators():
    return _C._cuda_default_generators()


def _generator(device, what):
    """The default generator of `device` ('cuda', an index, None: the current device), checking CUDA is usable."""
    _C._cuda_check(what)
    idx = _device_index(device)
    if idx < 0:
        idx = _C._cuda_current_device()
    gens = _generators()
    if not 0 <= idx < len(gens):
        raise RuntimeError(f"{what}: invalid device ordinal {idx} ({len(gens)} devices)")
    return gens[idx]


def get_rng_state(device="cuda"):
    """The state of `device`'s generator as a CPU uint8 tensor."""
    return _generator(device, "get_rng_state").get_state()


def get_rng_state_all():
    _C._cuda_check("get_rng_state_all")
    return [g.get_state() for g in _generators()]


def set_rng_state(new_state, device="cuda"):
    """Sets `device`'s generator state from a tensor that get_rng_state returned."""
    _generator(device, "set_rng_state").set_state(new_state)


def set_rng_state_all(new_states):
    _C._cuda_check("set_rng_state_all")
    for g, state in zip(_generators(), new_states):
        g.set_state(state)


def _current_generator():
    """The current device's generator, or None without CUDA. Before CUDA is initialised the current device is 0:
    seeding then acts on generator 0 without starting CUDA (PyTorch queues the call until initialisation)."""
    gens = _generators()
    if not gens:
        return None
    return gens[_C._cuda_current_device() if _C._cuda_is_initialized() else 0]


def manual_seed(seed):
    """Seeds the current device's generator (a no-op without CUDA, as in PyTorch)."""
    g = _current_generator()
    if g is not None:
        g.manual_seed(seed)


def manual_seed_all(seed):
    """Seeds every device's generator (a no-op without CUDA). ember.manual_seed does this too."""
    _C._cuda_manual_seed(seed, True)


def seed():
    """Seeds the current device's generator from a non-deterministic source (a no-op without CUDA)."""
    g = _current_generator()
    if g is not None:
        g.seed()


def seed_all():
    """Seeds every device's generator with one non-deterministic seed (a no-op without CUDA)."""
    gens = _generators()
    if gens:
        s = gens[0].seed()
        for g in gens[1:]:
            g.manual_seed(s)


def initial_seed():
    """The current device's generator's seed."""
    return _generator(None, "initial_seed").initial_seed()
