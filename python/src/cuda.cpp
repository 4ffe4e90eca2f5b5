// ember.cuda and ember.backends: the CUDA runtime (ember/cuda.h) for the Python package python/ember/cuda/. Streams
// cross the boundary as (device, handle) pairs; python/ember/cuda/streams.py wraps them in PyTorch's classes.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>

#include "common.h"
#include "ember/backend/caching_allocator.h"
#include "ember/backend/cuda_version.h"
#include "ember/backend/cufft_plan_cache.h"
#include "ember/cuda.h"
#include "ember/generator.h"

namespace ember::py {

namespace {

cuda::Stream make_stream(int device, uintptr_t handle) { return cuda::Stream{device, reinterpret_cast<void*>(handle)}; }
nb::tuple stream_tuple(cuda::Stream s) { return nb::make_tuple(s.device, reinterpret_cast<uintptr_t>(s.handle)); }

bool& flag(std::string_view name) {
  cuda::Flags& f = cuda::flags();
  if (name == "allow_tf32_matmul") return f.allow_tf32_matmul;
  if (name == "allow_fp16_reduced_precision_reduction") return f.allow_fp16_reduced_precision_reduction;
  if (name == "allow_bf16_reduced_precision_reduction") return f.allow_bf16_reduced_precision_reduction;
  if (name == "cudnn_enabled") return f.cudnn_enabled;
  if (name == "cudnn_benchmark") return f.cudnn_benchmark;
  if (name == "cudnn_deterministic") return f.cudnn_deterministic;
  if (name == "cudnn_allow_tf32") return f.cudnn_allow_tf32;
  fail<ValueError>("unknown CUDA backend flag '", name, "'");
}

nb::dict flat_stats(const AllocatorStats& s) {
  nb::dict d;
  for (auto& [k, v] : s.flat()) d[k.c_str()] = v;
  return d;
}

CachingAllocator* caching(int device) { return static_cast<CachingAllocator*>(cuda::allocator(device)); }

// Note [Sync debug mode]: 'warn' as a Python UserWarning (an error where a warnings filter makes it one). The waiting
// thread may have released the GIL.
void warn_sync(const std::string& msg) {
  nb::gil_scoped_acquire g;
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw nb::python_error();
}

// torch.cuda.memory_snapshot()'s segment dictionaries.
nb::dict segment_dict(int device, const SegmentSnapshot& s) {
  nb::dict d;
  d["device"] = device;
  d["address"] = s.address;
  d["total_size"] = s.total_size;
  d["allocated_size"] = s.allocated_size;
  d["active_size"] = s.active_size;
  d["requested_size"] = s.requested_size;
  d["stream"] = s.stream;
  d["segment_type"] = s.small ? "small" : "large";
  nb::list blocks;
  for (const auto& b : s.blocks) {
    nb::dict bd;
    bd["address"] = b.address;
    bd["size"] = b.size;
    bd["requested_size"] = b.requested;
    bd["state"] = b.state;
    blocks.append(bd);
  }
  d["blocks"] = blocks;
  return d;
}

}  // namespace

void init_cuda(nb::module_& m) {
  m.def("_cuda_is_built", &cuda::is_built);
  m.def("_cuda_device_count", &cuda::device_count);
  m.def("_cuda_is_initialized", &cuda::is_initialized);
  m.def("_cuda_init", &cuda::init);
  m.def(
      "_cuda_check", [](const char* what) { cuda::check_available(what); },
      nb::arg("what"));  // names the Python function
  m.def("_cuda_current_device", &cuda::current_device);
  m.def("_cuda_set_device", &cuda::set_device, nb::arg("device"));
  m.def(
      "_cuda_synchronize",
      [](int i) {
        nb::gil_scoped_release r;  // other Python threads (data loading) run while this one waits
        cuda::synchronize(i);
      },
      nb::arg("device") = -1);
  m.def("_cuda_device_name", &cuda::device_name);
  m.def(
      "_cuda_device_properties",
      [](int i) {
        cuda::DeviceProperties p = cuda::device_properties(i);
        return nb::make_tuple(p.name, p.major, p.minor, p.total_memory, p.multi_processor_count);
      },
      nb::arg("device"));
  m.def(
      "_cuda_mem_get_info",
      [](int i) {
        size_t free_b = 0, total_b = 0;
        cuda::mem_get_info(i, &free_b, &total_b);
        return nb::make_tuple(free_b, total_b);
      },
      nb::arg("device"));
  m.def("_cudnn_version", &cuda::cudnn_version);
  m.def("_cuda_runtime_version", &cuda::runtime_version);

  // The allocator. Before CUDA is initialised nothing has been allocated: PyTorch's answers (an empty dict), without
  // initialising it.
  m.def(
      "_cuda_memory_stats",
      [](int i) { return cuda::is_initialized() ? flat_stats(caching(i)->detailed_stats()) : nb::dict(); },
      nb::arg("device"));
  m.def(
      "_cuda_reset_peak_memory_stats",
      [](int i) {
        if (cuda::is_initialized()) caching(i)->reset_peak_stats();
      },
      nb::arg("device"));
  m.def(
      "_cuda_reset_accumulated_memory_stats",
      [](int i) {
        if (cuda::is_initialized()) caching(i)->reset_accumulated_stats();
      },
      nb::arg("device"));
  m.def("_cuda_empty_cache", [] {
    if (!cuda::is_initialized()) return;
    for (int i = 0; i < cuda::device_count(); ++i) cuda::allocator(i)->empty_cache();
    cuda::pinned_allocator()->empty_cache();
  });
  m.def("_cuda_host_memory_stats", []() -> nb::dict {
    nb::dict d;
    if (!cuda::is_initialized()) return d;
    const MemoryStats s = cuda::pinned_allocator()->stats();
    const std::pair<const char*, int64_t> items[] = {
        {"allocated_bytes.current", s.allocated}, {"allocated_bytes.peak", s.peak_allocated},
        {"reserved_bytes.current", s.reserved},   {"reserved_bytes.peak", s.peak_reserved},
        {"num_host_alloc", s.num_sys_allocs},     {"num_host_free", s.num_sys_frees}};
    for (auto& [key, value] : items) d[key] = value;
    return d;
  });

  m.def(
      "_cuda_set_memory_fraction",
      [](double fraction, int i) {
        // 1.0: the device's own capacity is the bound, so no limit (and no "allowed" in out-of-memory messages).
        const size_t total = cuda::device_properties(i).total_memory;
        caching(i)->set_memory_limit(fraction >= 1.0 ? SIZE_MAX
                                                     : static_cast<size_t>(fraction * static_cast<double>(total)));
      },
      nb::arg("fraction"), nb::arg("device"));
  m.def("_cuda_memory_snapshot", [] {
    nb::list r;
    if (!cuda::is_initialized()) return r;
    for (int i = 0; i < cuda::device_count(); ++i)
      for (const SegmentSnapshot& s : caching(i)->snapshot()) r.append(segment_dict(i, s));
    return r;
  });
  m.def(
      "_cuda_raw_alloc",
      [](size_t nbytes, int device, uintptr_t stream) {
        return reinterpret_cast<uintptr_t>(caching(device)->allocate(nbytes, stream));
      },
      nb::arg("nbytes"), nb::arg("device"), nb::arg("stream"));
  m.def(
      "_cuda_raw_delete",
      [](uintptr_t ptr) {
        void* p = reinterpret_cast<void*>(ptr);
        if (!p) return;
        EMBER_CHECK(cuda::is_initialized(),
                    "caching_allocator_delete: the pointer was not allocated by ember's caching "
                    "allocator (CUDA is not initialised)");
        for (int i = 0; i < cuda::device_count(); ++i)
          if (caching(i)->owns(p)) return caching(i)->deallocate(p, 0);
        fail<Error>("caching_allocator_delete: invalid device pointer: ", p);
      },
      nb::arg("ptr"));

  // Generators (Note [Random numbers]): one per device, made without initialising CUDA.
  m.def("_cuda_default_generators", [] {
    nb::list r;
    for (int i = 0; i < cuda::device_count(); ++i)
      r.append(nb::cast(&default_generator(Device(DeviceType::CUDA, i)), nb::rv_policy::reference));
    return nb::tuple(r);
  });

  // Note [Sync debug mode].
  cuda::set_sync_warning_handler(&warn_sync);
  m.def("_cuda_get_sync_debug_mode", &cuda::sync_debug_mode);
  m.def("_cuda_set_sync_debug_mode", &cuda::set_sync_debug_mode);

  m.def("_cuda_can_device_access_peer", &cuda::can_device_access_peer);
  m.def("_cuda_current_blas_handle", &cuda::current_blas_handle);
  m.def("_cuda_arch_list", &cuda::arch_list);
  m.def("_cuda_error_string", &cuda::error_string);
  m.def(
      "_nvtx_range_push", [](const std::string& msg) { return cuda::nvtx_range_push(msg.c_str()); }, nb::arg("msg"));
  m.def("_nvtx_range_pop", &cuda::nvtx_range_pop);
  m.def(
      "_nvtx_mark", [](const std::string& msg) { cuda::nvtx_mark(msg.c_str()); }, nb::arg("msg"));
  m.def(
      "_nvtx_range_start", [](const std::string& msg) { return cuda::nvtx_range_start(msg.c_str()); }, nb::arg("msg"));
  m.def("_nvtx_range_end", &cuda::nvtx_range_end);

  // Streams and events.
  m.def(
      "_cuda_new_stream", [](int device, int priority) { return stream_tuple(cuda::new_stream(device, priority)); },
      nb::arg("device"), nb::arg("priority"));
  m.def(
      "_cuda_current_stream", [](int device) { return stream_tuple(cuda::current_stream(device)); }, nb::arg("device"));
  m.def(
      "_cuda_default_stream", [](int device) { return stream_tuple(cuda::default_stream(device)); }, nb::arg("device"));
  m.def(
      "_cuda_set_stream", [](int device, uintptr_t h) { cuda::set_current_stream(make_stream(device, h)); },
      nb::arg("device"), nb::arg("stream"));
  m.def(
      "_cuda_stream_query", [](int device, uintptr_t h) { return cuda::stream_query(make_stream(device, h)); },
      nb::arg("device"), nb::arg("stream"));
  m.def(
      "_cuda_stream_synchronize",
      [](int device, uintptr_t h) {
        nb::gil_scoped_release r;
        cuda::stream_synchronize(make_stream(device, h));
      },
      nb::arg("device"), nb::arg("stream"));
  m.def(
      "_cuda_stream_priority", [](int device, uintptr_t h) { return cuda::stream_priority(make_stream(device, h)); },
      nb::arg("device"), nb::arg("stream"));
  m.def("_cuda_stream_priority_range", [] {
    int least = 0, greatest = 0;
    cuda::priority_range(&least, &greatest);
    return nb::make_tuple(least, greatest);
  });
  m.def(
      "_cuda_stream_wait_stream",
      [](int d, uintptr_t h, int od, uintptr_t oh) {
        cuda::stream_wait_stream(make_stream(d, h), make_stream(od, oh));
      },
      nb::arg("device"), nb::arg("stream"), nb::arg("other_device"), nb::arg("other_stream"));
  nb::class_<cuda::Event>(m, "_CudaEvent")
      .def(nb::init<bool, bool>(), nb::arg("enable_timing") = false, nb::arg("blocking") = false)
      .def("record", [](cuda::Event& e, int d, uintptr_t h) { e.record(make_stream(d, h)); })
      .def("wait", [](cuda::Event& e, int d, uintptr_t h) { e.wait(make_stream(d, h)); })
      .def("query", &cuda::Event::query)
      .def("synchronize",
           [](const cuda::Event& e) {
             nb::gil_scoped_release r;
             e.synchronize();
           })
      .def("elapsed_time", &cuda::Event::elapsed_time)
      .def_prop_ro("device_index",
                   [](const cuda::Event& e) -> nb::object {
                     if (e.device() < 0) return nb::none();
                     return nb::int_(e.device());
                   })
      .def_prop_ro("cuda_event", [](const cuda::Event& e) { return reinterpret_cast<uintptr_t>(e.handle()); })
      .def_prop_ro("enable_timing", &cuda::Event::enable_timing)
      .def_prop_ro("blocking", &cuda::Event::blocking);

  // ember.backends: the switches the CUDA kernels read (ember::cuda::flags()).
  m.def(
      "_cuda_get_flag", [](std::string_view name) { return flag(name); }, nb::arg("name"));
  m.def(
      "_cuda_set_flag", [](std::string_view name, bool v) { flag(name) = v; }, nb::arg("name"), nb::arg("value"));
  // ember.backends.cuda.cufft_plan_cache (PyTorch's torch._cufft_* functions).
  m.def("_cufft_get_plan_cache_size", &cuda::cufft_plan_cache_size, nb::arg("device_index"));
  m.def("_cufft_get_plan_cache_max_size", &cuda::cufft_plan_cache_max_size, nb::arg("device_index"));
  m.def("_cufft_set_plan_cache_max_size", &cuda::set_cufft_plan_cache_max_size, nb::arg("device_index"),
        nb::arg("max_size"));
  m.def("_cufft_clear_plan_cache", &cuda::clear_cufft_plan_cache, nb::arg("device_index"));

  // Tensor methods that concern pinned memory and streams.
  auto cls = nb::type<Tensor>();
  cls.attr("pin_memory") = nb::cpp_function(
      [](const Tensor& t, nb::handle) { return cuda::pin_memory(t); }, nb::is_method(), nb::scope(cls),
      nb::name("pin_memory"), nb::arg("device") = nb::none(),
      nb::sig("def pin_memory(self, device: device | None = None) -> Tensor"),
      R"(Returns a copy of the CPU tensor ``self`` in pinned (page-locked) memory; ``self`` when it is pinned already.

Copies between pinned memory and a GPU can run asynchronously (``non_blocking=True``) and are faster. Needs CUDA.

Args:
    device (:class:`ember.device`, optional): ignored (PyTorch's deprecated argument).)");
  cls.attr("is_pinned") = nb::cpp_function([](const Tensor& t, nb::handle) { return cuda::is_pinned(t); },
                                           nb::is_method(), nb::scope(cls), nb::name("is_pinned"),
                                           nb::arg("device") = nb::none(),
                                           nb::sig("def is_pinned(self, device: device | None = None) -> bool"),
                                           R"(Returns whether ``self`` is in pinned (page-locked) CPU memory.

Args:
    device (:class:`ember.device`, optional): ignored (PyTorch's deprecated argument).)");
  // stream: an ember.cuda.Stream (its device_index and cuda_stream).
  cls.attr("record_stream") = nb::cpp_function(
      [](const Tensor& t, nb::handle stream) {
        EMBER_CHECK_TYPE(nb::hasattr(stream, "cuda_stream") && nb::hasattr(stream, "device_index"),
                         "record_stream(): argument 'stream' must be ember.cuda.Stream");
        const int device = nb::cast<int>(stream.attr("device_index"));
        const auto h = nb::cast<uintptr_t>(stream.attr("cuda_stream"));
        EMBER_CHECK(t.is_cuda(), "record_stream: expected a CUDA tensor, got one on ", t.device());
        EMBER_CHECK(t.device().index == device, "record_stream: the tensor is on ", t.device(),
                    " but the stream on cuda:", device);
        // Memory from outside (DLPack) is not the allocator's: its owner orders its reuse.
        const Storage& st = t.impl()->storage();
        if (st->data() && !st->is_external()) cuda::record_stream(st->data(), make_stream(device, h));
      },
      nb::is_method(), nb::scope(cls), nb::name("record_stream"), nb::arg("stream"),
      nb::sig("def record_stream(self, stream: Stream) -> None"),
      R"(Marks the CUDA tensor ``self`` as used by ``stream``, whose queued work must finish before its memory is reused.

The caching allocator otherwise orders reuse only with the stream the memory was allocated on; call this when
another stream reads or writes ``self``.

Args:
    stream (:class:`ember.cuda.Stream`): the stream that uses ``self``.)");
}

}  // namespace ember::py
