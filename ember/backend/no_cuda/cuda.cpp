// What a build without CUDA links instead of backend/cuda: no devices, and a clear error on use.
#include "ember/backend/cuda_version.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {

namespace {
[[noreturn]] void not_built(const char* what) {
  fail<Error>(what,
              ": ember was built without CUDA support (rebuild with -DEMBER_CUDA=ON on a machine with "
              "the CUDA toolkit)");
}
}  // namespace

bool is_built() { return false; }
int device_count() { return 0; }
bool is_available() { return false; }
bool is_initialized() { return false; }
void init() { not_built("init"); }
int current_device() { not_built("current_device"); }
void set_device(int) { not_built("set_device"); }
void synchronize(int) { not_built("synchronize"); }
std::string device_name(int) { not_built("get_device_name"); }
DeviceProperties device_properties(int) { not_built("get_device_properties"); }
void mem_get_info(int, size_t*, size_t*) { not_built("mem_get_info"); }
int cudnn_version() { return 0; }
int runtime_version() { return 0; }
Allocator* allocator(int) { not_built("cuda allocator"); }
Stream current_stream(int) { not_built("current_stream"); }
void set_current_stream(Stream) { not_built("set_stream"); }
Stream default_stream(int) { not_built("default_stream"); }
Stream new_stream(int, int) { not_built("Stream"); }
int stream_priority(Stream) { not_built("Stream.priority"); }
void priority_range(int*, int*) { not_built("Stream.priority_range"); }
bool stream_query(Stream) { not_built("Stream.query"); }
void stream_synchronize(Stream) { not_built("Stream.synchronize"); }
void stream_wait_stream(Stream, Stream) { not_built("Stream.wait_stream"); }
Event::Event(bool enable_timing, bool blocking) : timing_(enable_timing), blocking_(blocking) {}
Event::~Event() = default;
void Event::record(Stream) { not_built("Event.record"); }
void Event::wait(Stream) { not_built("Event.wait"); }
bool Event::query() const { return true; }
void Event::synchronize() const {}
float Event::elapsed_time(const Event&) const { not_built("Event.elapsed_time"); }
uintptr_t record_marker(Stream) { not_built("record_marker"); }
bool marker_done(uintptr_t) { return true; }
void destroy_marker(uintptr_t) {}
void record_stream(void*, Stream) { not_built("record_stream"); }
void memcpy(void*, const void*, size_t, CopyKind, int, bool) { not_built("cuda memcpy"); }
void* pinned_allocate(size_t) { not_built("pin_memory"); }
void pinned_free(void*) { not_built("pin_memory"); }
bool is_pinned(const void*) { return false; }
void record_pinned_use(const void*, Stream) { not_built("pin_memory"); }
Allocator* pinned_allocator() { not_built("pinned memory allocator"); }
void check_available(const char* what) { not_built(what); }
bool can_device_access_peer(int, int) { not_built("can_device_access_peer"); }
uintptr_t current_blas_handle() { not_built("current_blas_handle"); }
std::vector<int> arch_list() { return {}; }
std::string error_string(int code) { return "CUDA error " + std::to_string(code) + " (ember was built without CUDA)"; }
// torch.cuda.nvtx's stub in a build without CUDA raises this.
namespace {
[[noreturn]] void no_nvtx() { fail<Error>("NVTX functions not installed. Are you sure you have a CUDA build?"); }
}  // namespace
int nvtx_range_push(const char*) { no_nvtx(); }
int nvtx_range_pop() { no_nvtx(); }
void nvtx_mark(const char*) { no_nvtx(); }
uint64_t nvtx_range_start(const char*) { no_nvtx(); }
void nvtx_range_end(uint64_t) { no_nvtx(); }

}  // namespace ember::cuda
