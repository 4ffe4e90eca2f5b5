// Helpers shared by the NumPy (numpy.cpp) and DLPack (dlpack.cpp) bindings.
#pragma once

#include "common.h"

namespace ember::py {

template <class... A>
[[noreturn]] inline void buffer_error(const A&... a) {
  PyErr_SetString(PyExc_BufferError, detail::cat(a...).c_str());
  throw nb::python_error();
}

// Storage deleters run wherever the last reference goes, possibly on a thread without the GIL; once the
// interpreter is shutting down the Python owner is left alone (leaked) rather than touched.
template <class F>
inline void with_gil(F&& f) {
  if (PyGILState_Check()) {
    f();
    return;
  }
#if PY_VERSION_HEX >= 0x030D0000
  if (!Py_IsInitialized() || Py_IsFinalizing()) return;
#else
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
#endif
  PyGILState_STATE s = PyGILState_Ensure();
  f();
  PyGILState_Release(s);
}

// Tensors of no elements may have a null data pointer; consumers that read null as "allocate for me"
// (NumPy does) get this address instead.
alignas(64) inline char g_empty_data[64];

}  // namespace ember::py
