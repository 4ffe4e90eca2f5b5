"""ember.utils, as torch.utils: helpers outside the tensor API proper."""

import os as _os

from . import benchmark, checkpoint, data, dlpack, hooks  # noqa: F401

# The folder to give CMake (CMAKE_PREFIX_PATH) so that find_package(ember) finds the C++ package shipped in the wheel:
# headers, libember and the CMake config, beside ember._C (Note [The C++ package] in CMakeLists.txt). As
# torch.utils.cmake_prefix_path. An editable install from a source tree has none: use `cmake --install` there.
cmake_prefix_path = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))), "share", "cmake")
