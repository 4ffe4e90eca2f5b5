// What a build without CUDA links instead of backend/cuda: no devices, and a clear error on use.
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {

namespace {
[[noreturn]] void not_built(const char* what) {
  fail<Error>(what, ": ember was built without CUDA support (rebuild with -DEMBER_CUDA=ON on a machine with "
                    "the CUDA toolkit)");
}
}  // namespace

bool is_built() { return false; }
int device_count() { return 0; }
bool is_available() { return false; }
int current_device() { not_built("current_device"); }
void set_device(int) { not_built("set_device"); }
void synchronize(int) { not_built("synchronize"); }
std::string device_name(int) { not_built("get_device_name"); }
Allocator* allocator(int) { not_built("cuda allocator"); }
Stream current_stream(int) { not_built("current_stream"); }
void set_current_stream(Stream) { not_built("set_current_stream"); }
void memcpy(void*, const void*, size_t, CopyKind, int) { not_built("cuda memcpy"); }
void check_available(const char* what) { not_built(what); }

}  // namespace ember::cuda
