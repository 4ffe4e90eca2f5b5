"""The caching allocator's statistics and controls (PyTorch's torch.cuda.memory_* functions, with its keys).

Before CUDA is initialised nothing has been allocated: the statistics are empty or zero and the controls do nothing,
without initialising CUDA (as PyTorch)."""

import collections
import os
import warnings

from .. import _C
from ._utils import _device_index


def _index(device):
    idx = _device_index(device)
    return _C._cuda_current_device() if idx < 0 else idx


def memory_stats(device=None):
    """The allocator's statistics as PyTorch's flat dictionary: "<stat>.<all|small_pool|large_pool>.<current|peak|
    allocated|freed>" for allocated_bytes, reserved_bytes, active_bytes, requested_bytes, inactive_split_bytes,
    allocation, segment, active, inactive_split; and num_alloc_retries, num_ooms, num_device_alloc (cudaMalloc calls),
    num_device_free (cudaFree calls), ... Empty before CUDA is initialised."""
    if not _C._cuda_is_initialized():
        return collections.OrderedDict()
    return collections.OrderedDict(sorted(_C._cuda_memory_stats(_index(device)).items()))


def _stat(device, key):
    return memory_stats(device).get(key, 0)


def memory_allocated(device=None):
    """Bytes held by tensors on the device (block sizes, rounded up to 512 bytes)."""
    return _stat(device, "allocated_bytes.all.current")


def max_memory_allocated(device=None):
    return _stat(device, "allocated_bytes.all.peak")


def memory_reserved(device=None):
    """Bytes the allocator holds from the device (allocated plus cached)."""
    return _stat(device, "reserved_bytes.all.current")


def max_memory_reserved(device=None):
    return _stat(device, "reserved_bytes.all.peak")


def memory_cached(device=None):  # PyTorch's deprecated names
    return memory_reserved(device)


def max_memory_cached(device=None):
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None):
    if _C._cuda_is_initialized():
        _C._cuda_reset_peak_memory_stats(_index(device))


def reset_max_memory_allocated(device=None):
    """Deprecated (as in PyTorch): resets every peak statistic."""
    warnings.warn(
        "ember.cuda.reset_max_memory_allocated now calls ember.cuda.reset_peak_memory_stats, which resets "
        "/all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    """Deprecated (as in PyTorch): resets every peak statistic."""
    warnings.warn(
        "ember.cuda.reset_max_memory_cached now calls ember.cuda.reset_peak_memory_stats, which resets "
        "/all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def memory_stats_as_nested_dict(device=None):
    """memory_stats(device) as nested dictionaries: {"allocated_bytes": {"all": {"current": ...}}, ...}."""
    nested = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        d = nested
        for part in path:
            d = d.setdefault(part, {})
        d[last] = value
    return nested


def set_per_process_memory_fraction(fraction, device=None):
    """Limits the memory the caching allocator reserves on `device` to fraction * its total memory: a request that
    would pass it frees the cached blocks and retries, then raises OutOfMemoryError, as if the device were full."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _C._cuda_check("set_per_process_memory_fraction")
    _C._cuda_set_memory_fraction(fraction, _index(device))


def caching_allocator_alloc(size, device=None, stream=None):
    """size bytes from the caching allocator, for `stream` (default: the device's current stream), as an int
    address; give it back with caching_allocator_delete."""
    from .streams import Stream, current_stream

    _C._cuda_check("caching_allocator_alloc")
    idx = _index(device)
    if stream is None:
        stream = current_stream(idx)
    if isinstance(stream, Stream):
        stream = stream.cuda_stream
    if not isinstance(stream, int):
        raise TypeError(
            "Invalid type for stream argument, must be `ember.cuda.Stream` or `int` representing a pointer "
            "to a existing stream"
        )
    return _C._cuda_raw_alloc(size, idx, stream)


def caching_allocator_delete(mem_ptr):
    """Returns memory from caching_allocator_alloc to the caching allocator."""
    _C._cuda_raw_delete(mem_ptr)


def memory_snapshot():
    """The caching allocator's segments on every device: a list of dictionaries with PyTorch's keys (device, address,
    total_size, allocated_size, active_size, requested_size, stream, segment_type 'small'/'large', blocks: a list of
    {address, size, requested_size, state: 'active_allocated', 'active_pending_free' or 'inactive'})."""
    return _C._cuda_memory_snapshot()


def _nvml_handle(device):
    """pynvml's handle of `device`, as PyTorch gets it (NVML counts devices without CUDA_VISIBLE_DEVICES)."""
    try:
        import pynvml
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError("pynvml does not seem to be installed or it can't be imported.") from e
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as e:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?") from e
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(_nvml_index(device))


def _nvml_index(device):
    idx = _index(device)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        ids = [v.strip() for v in visible.split(",")]
        if all(v.isdigit() for v in ids) and idx < len(ids):
            return int(ids[idx])
    return idx


def memory_usage(device=None):
    """Percent of the last sample period during which device memory was read or written (NVML, through pynvml)."""
    pynvml, handle = _nvml_handle(device)
    return pynvml.nvmlDeviceGetUtilizationRates(handle).memory


def utilization(device=None):
    """Percent of the last sample period during which a kernel ran on the device (NVML, through pynvml)."""
    pynvml, handle = _nvml_handle(device)
    return pynvml.nvmlDeviceGetUtilizationRates(handle).gpu


def temperature(device=None):
    """The device's temperature in degrees Celsius (NVML, through pynvml)."""
    pynvml, handle = _nvml_handle(device)
    return pynvml.nvmlDeviceGetTemperature(handle, 0)  # NVML_TEMPERATURE_GPU


def power_draw(device=None):
    """The device's power draw in milliwatts (NVML, through pynvml)."""
    pynvml, handle = _nvml_handle(device)
    return pynvml.nvmlDeviceGetPowerUsage(handle)


def clock_rate(device=None):
    """The device's streaming multiprocessor clock in MHz (NVML, through pynvml)."""
    pynvml, handle = _nvml_handle(device)
    return pynvml.nvmlDeviceGetClockInfo(handle, 1)  # NVML_CLOCK_SM


def device_memory_used(device=None):
    """Bytes of device memory in use by every process, as NVML reports them (through pynvml)."""
    pynvml, handle = _nvml_handle(device)
    return pynvml.nvmlDeviceGetMemoryInfo(handle).used


def get_allocator_backend():
    """The device allocator: ember's caching allocator ('native', PyTorch's name for its own)."""
    return "native"


def list_gpu_processes(device=None):
    """A readable list of the processes running on the device and the memory each uses (NVML, through pynvml)."""
    try:
        import pynvml
    except ModuleNotFoundError:
        return "pynvml module not found, please install pynvml"
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded:
        return "cuda driver can't be loaded, is cuda enabled?"
    idx = _nvml_index(device)
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(pynvml.nvmlDeviceGetHandleByIndex(idx))
    lines = [f"GPU:{idx}"]
    if not procs:
        lines.append("no processes are running")
    for p in procs:
        lines.append(f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB GPU memory")
    return "\n".join(lines)


def reset_accumulated_memory_stats(device=None):
    if _C._cuda_is_initialized():
        _C._cuda_reset_accumulated_memory_stats(_index(device))


def empty_cache():
    """Returns the cached, unused device memory (and pinned host memory) to the driver."""
    _C._cuda_empty_cache()


def mem_get_info(device=None):
    """(free, total) bytes of the device, as the driver reports them (cudaMemGetInfo)."""
    _C._cuda_check("mem_get_info")
    return _C._cuda_mem_get_info(_index(device))


def host_memory_stats():
    """The pinned host memory allocator's statistics (allocated/reserved bytes, cudaHostAlloc/cudaFreeHost counts)."""
    return collections.OrderedDict(sorted(_C._cuda_host_memory_stats().items()))


def _format_size(n):
    for unit in ("B  ", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:6.0f} {unit}" if unit == "B  " else f"{n:6.2f} {unit}"
        n /= 1024.0


def _format_count(n):
    return f"{n:10d}"


def memory_summary(device=None, abbreviated=False):
    """A readable table of memory_stats(device): current, peak, allocated and freed totals per statistic."""
    stats = memory_stats(device)
    idx = _index(device) if _C._cuda_is_initialized() else max(_device_index(device), 0)
    rows = [
        ("Allocated memory", "allocated_bytes", _format_size),
        ("Active memory", "active_bytes", _format_size),
        ("Requested memory", "requested_bytes", _format_size),
        ("GPU reserved memory", "reserved_bytes", _format_size),
        ("Non-releasable memory", "inactive_split_bytes", _format_size),
        ("Allocations", "allocation", _format_count),
        ("Active allocs", "active", _format_count),
        ("GPU reserved segments", "segment", _format_count),
        ("Non-releasable allocs", "inactive_split", _format_count),
    ]
    width = 75
    line, dline = "|" + "-" * width + "|", "|" + "=" * width + "|"
    out = [
        dline,
        "|" + f"ember CUDA memory summary, device ID {idx}".center(width) + "|",
        line,
        "|"
        + (
            f"  CUDA OOMs: {stats.get('num_ooms', 0):<12d}|  cudaMalloc retries: {stats.get('num_alloc_retries', 0):<d}"
        ).ljust(width)
        + "|",
        "|"
        + (
            f"  cudaMalloc calls: {stats.get('num_device_alloc', 0):<5d}|  cudaFree calls: "
            f"{stats.get('num_device_free', 0):<d}"
        ).ljust(width)
        + "|",
        dline,
        "|" + "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ".ljust(width) + "|",
        line,
    ]
    pools = (
        [("all", "")]
        if abbreviated
        else [("all", ""), ("large_pool", "      from large pool"), ("small_pool", "      from small pool")]
    )
    for title, key, fmt in rows:
        for pool, label in pools:
            cells = [fmt(stats.get(f"{key}.{pool}.{k}", 0)) for k in ("current", "peak", "allocated", "freed")]
            out.append("|" + f" {(label or title):<22}|" + "|".join(f" {c:>10} " for c in cells) + "|")
        out.append(line)
    for title, key in (
        ("Oversize allocations", "oversize_allocations"),
        ("Oversize GPU segments", "oversize_segments"),
    ):
        cells = [_format_count(stats.get(f"{key}.{k}", 0)) for k in ("current", "peak", "allocated", "freed")]
        out.append("|" + f" {title:<22}|" + "|".join(f" {c:>10} " for c in cells) + "|")
    out.append(dline)
    return "\n".join(out) + "\n"
