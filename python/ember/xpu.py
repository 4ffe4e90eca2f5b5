"""ember.xpu: Intel GPUs, which ember does not support; behaves as PyTorch built without XPU (Note [Absent
devices])."""

from . import _absent_device as _a

_QUIET = {
    "is_available": _a.returning(False, "is_available", "False: ember has no XPU backend."),
    "device_count": _a.returning(0, "device_count", "0: ember has no XPU backend."),
    "is_initialized": _a.returning(False, "is_initialized", "False: no XPU device is ever initialised."),
    "is_bf16_supported": _a.returning(False, "is_bf16_supported", "False: no XPU device."),
    "is_tf32_supported": _a.returning(False, "is_tf32_supported", "False: no XPU device."),
    "empty_cache": _a.returning(None, "empty_cache", "Nothing to release: no XPU memory is ever allocated."),
    "memory_stats": _a.stats("memory_stats"),
    "memory_stats_as_nested_dict": _a.stats("memory_stats_as_nested_dict"),
    "reset_peak_memory_stats": _a.returning(None, "reset_peak_memory_stats", "No statistics to reset."),
    "reset_accumulated_memory_stats": _a.returning(None, "reset_accumulated_memory_stats", "No statistics."),
}
for _name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"):
    _QUIET[_name] = _a.returning(0, _name, "0 bytes: no XPU memory is ever allocated.")
for _name in ("manual_seed", "manual_seed_all", "seed", "seed_all"):
    _QUIET[_name] = _a.returning(
        None, _name, "No effect: there is no XPU generator to seed (as PyTorch's lazy seeding)."
    )

_a.make(
    globals(),
    quiet=_QUIET,
    raising=(
        "init",
        "current_device",
        "set_device",
        "synchronize",
        "get_device_name",
        "get_device_properties",
        "get_device_capability",
        "get_arch_list",
        "current_stream",
        "set_stream",
        "stream",
        "initial_seed",
        "get_rng_state",
        "get_rng_state_all",
        "set_rng_state",
        "set_rng_state_all",
        "mem_get_info",
        "device",
        "device_of",
        "Stream",
        "Event",
    ),  # fmt: skip
    error=lambda name: AssertionError("ember not compiled with XPU enabled"),
)
