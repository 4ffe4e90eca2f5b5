"""The caching allocator's statistics and controls (PyTorch's torch.cuda.memory_* functions, with its keys).

Before CUDA is initialised nothing has been allocated: the statistics are empty or zero and the controls do nothing,
without initialising CUDA (as PyTorch)."""
import collections

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
    reset_peak_memory_stats(device)


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
    rows = [("Allocated memory", "allocated_bytes", _format_size), ("Active memory", "active_bytes", _format_size),
            ("Requested memory", "requested_bytes", _format_size),
            ("GPU reserved memory", "reserved_bytes", _format_size),
            ("Non-releasable memory", "inactive_split_bytes", _format_size),
            ("Allocations", "allocation", _format_count), ("Active allocs", "active", _format_count),
            ("GPU reserved segments", "segment", _format_count),
            ("Non-releasable allocs", "inactive_split", _format_count)]
    width = 75
    line, dline = "|" + "-" * width + "|", "|" + "=" * width + "|"
    out = [dline, "|" + f"ember CUDA memory summary, device ID {idx}".center(width) + "|", line,
           "|" + (f"  CUDA OOMs: {stats.get('num_ooms', 0):<12d}|  cudaMalloc retries: "
                  f"{stats.get('num_alloc_retries', 0):<d}").ljust(width) + "|",
           "|" + (f"  cudaMalloc calls: {stats.get('num_device_alloc', 0):<5d}|  cudaFree calls: "
                  f"{stats.get('num_device_free', 0):<d}").ljust(width) + "|",
           dline, "|" + "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ".ljust(width) + "|",
           line]
    pools = [("all", "")] if abbreviated else [("all", ""), ("large_pool", "      from large pool"),
                                               ("small_pool", "      from small pool")]
    for title, key, fmt in rows:
        for pool, label in pools:
            cells = [fmt(stats.get(f"{key}.{pool}.{k}", 0)) for k in ("current", "peak", "allocated", "freed")]
            out.append("|" + f" {(label or title):<22}|" + "|".join(f" {c:>10} " for c in cells) + "|")
        out.append(line)
    for title, key in (("Oversize allocations", "oversize_allocations"), ("Oversize GPU segments", "oversize_segments")):
        cells = [_format_count(stats.get(f"{key}.{k}", 0)) for k in ("current", "peak", "allocated", "freed")]
        out.append("|" + f" {title:<22}|" + "|".join(f" {c:>10} " for c in cells) + "|")
    out.append(dline)
    return "\n".join(out) + "\n"
