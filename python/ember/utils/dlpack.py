"""DLPack exchange, as torch.utils.dlpack (see docs/interop.md).

`to_dlpack(tensor)` returns a "dltensor" capsule (the unversioned protocol, which every consumer reads)
that shares the tensor's memory; `from_dlpack(obj)` takes an object with `__dlpack__` (preferred: it
negotiates the versioned protocol and CUDA streams) or a capsule. A capsule can be consumed only once.
"""

import enum

from .. import _C

__all__ = ["DLDeviceType", "to_dlpack", "from_dlpack"]


class DLDeviceType(enum.IntEnum):
    """dlpack.h's DLDeviceType: the first item of `__dlpack_device__()`."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """A "dltensor" capsule viewing `tensor`'s memory (no copy); it keeps the memory alive until consumed
    and released, or garbage-collected unconsumed."""
    return _C._to_dlpack(tensor)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor sharing the memory of `ext_tensor` (an object with `__dlpack__`, or a DLPack capsule)."""
    return _C.from_dlpack(ext_tensor, device=device, copy=copy)
