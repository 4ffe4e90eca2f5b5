"""ember.version, as torch.version: the package version and the CUDA runtime it was built with ("13.0"; None in a
build without CUDA)."""

from . import _C

__version__ = "0.1.0"
debug = False
git_version = "Unknown"
hip = None


def _cuda():
    v = _C._cuda_runtime_version()
    return "%d.%d" % (v // 1000, (v % 1000) // 10) if v else None


cuda = _cuda()
