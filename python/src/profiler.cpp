// ember.profiler's C++ side (ember/profiler/profiler.h): start/stop the recorder, user scopes, NVTX. Events come
// back as tuples that ember/autograd/profiler_util.py turns into FunctionEvents.
#include <nanobind/stl/string.h>

#include "common.h"
#include "ember/profiler/profiler.h"

namespace ember::py {

namespace {

nb::tuple event_tuple(const profiler::Event& e) {
  nb::list shapes;
  for (const auto& s : e.shapes) {
    nb::list l;
    for (int64_t x : s) l.append(x);
    shapes.append(l);
  }
  nb::list dtypes;
  for (const auto& d : e.dtypes) dtypes.append(d);
  return nb::make_tuple(e.name, static_cast<int>(e.kind), e.id, e.parent, e.start_ns, e.end_ns, e.thread,
                        device_type_name(e.device.type), static_cast<int>(e.device.index), shapes, dtypes, e.bytes,
                        e.address, e.device_start_ns, e.device_end_ns);
}

}  // namespace

void init_profiler(nb::module_& m) {
  m.def(
      "_profiler_start",
      [](bool record_shapes, bool profile_memory, bool device_timing) {
        profiler::start({record_shapes, profile_memory, device_timing});
      },
      nb::arg("record_shapes") = false, nb::arg("profile_memory") = false, nb::arg("device_timing") = false);
  m.def("_profiler_stop", [] {
    std::vector<profiler::Event> events;
    {
      nb::gil_scoped_release r;  // device timing may wait for the GPU
      events = profiler::stop();
    }
    nb::list out;
    for (const auto& e : events) out.append(event_tuple(e));
    return out;
  });
  m.def("_profiler_clear", &profiler::clear);
  m.def("_profiler_enabled", &profiler::enabled);
  m.def("_record_function_enter", &profiler::push_scope, nb::arg("name"));
  m.def("_record_function_exit", &profiler::pop_scope, nb::arg("handle"));
  m.def(
      "_record_function_event_id",
      [](int64_t handle) { return handle ? reinterpret_cast<profiler::RecordScope*>(handle)->id() : int64_t(0); },
      nb::arg("handle"));
  m.def("_nvtx_available", &profiler::nvtx_available);
  m.def("_set_nvtx", &profiler::set_nvtx, nb::arg("on"));
}

}  // namespace ember::py
