"""ember.mps: Apple's Metal GPUs, which ember does not support; behaves as PyTorch without the MPS backend (Note
[Absent devices])."""

from . import _absent_device as _a

_NATIVE = {  # PyTorch's names for what each function would call, as its messages say
    "synchronize": "deviceSynchronize",
    "empty_cache": "emptyCache",
    "get_rng_state": "getDefaultGenerator",
    "set_rng_state": "getDefaultGenerator",
    "seed": "getDefaultGenerator",
    "current_allocated_memory": "getCurrentAllocatedMemory",
    "driver_allocated_memory": "getDriverAllocatedMemory",
    "recommended_max_memory": "getRecommendedMaxMemory",
    "set_per_process_memory_fraction": "setMemoryFraction",
    "compile_shader": "compileShader",
    "current_stream": "getCurrentStream",
    "default_stream": "getDefaultStream",
    "set_stream": "setCurrentStream",
}

_a.make(
    globals(),
    quiet={
        "is_available": _a.returning(False, "is_available", "False: ember has no MPS backend."),
        "device_count": _a.returning(0, "device_count", "0: ember has no MPS backend."),
        "manual_seed": _a.returning(None, "manual_seed", "No effect: there is no MPS generator (as PyTorch's)."),
    },
    raising=tuple(_NATIVE),
    error=lambda name: RuntimeError(f"Cannot execute {_NATIVE[name]}() without MPS backend."),
)
