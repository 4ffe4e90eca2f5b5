// The profiler's CUDA timing (ProfilerActivity.CUDA): a timing event recorded on the current stream before and
// after each kernel-slot call, turned into host-clock times at the end of the session against one base event per
// device whose host time is taken when the device is idle (ember/profiler/profiler.h DeviceTimer). Also emit_nvtx's
// ranges, through ember.cuda's NVTX calls (runtime_api.cpp).
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/cuda.h"
#include "ember/profiler/profiler.h"

namespace ember::cuda {
namespace {

int64_t host_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class CudaTimer final : public profiler::DeviceTimer {
 public:
  int64_t record(Device d) override {
    const int dev = d.index >= 0 ? d.index : current_device();
    std::lock_guard<std::mutex> l(mu_);
    auto& base = bases_[dev];
    if (!base.event) {
      // The device drains first so that the base event runs at about the host time read beside it.
      synchronize(dev);
      base.event = std::make_unique<Event>(true);
      base.host_ns = host_ns();
      base.event->record(current_stream(dev));
      base.event->synchronize();
    }
    auto e = std::make_unique<Event>(true);
    e->record(current_stream(dev));
    events_.push_back({std::move(e), dev});
    return static_cast<int64_t>(events_.size()) - 1;
  }

  int64_t to_host_ns(int64_t handle) override {
    std::lock_guard<std::mutex> l(mu_);
    if (handle < 0 || handle >= static_cast<int64_t>(events_.size())) return -1;
    auto& [e, dev] = events_[handle];
    auto it = bases_.find(dev);
    if (!e || it == bases_.end() || !it->second.event) return -1;
    e->synchronize();
    const double ms = it->second.event->elapsed_time(*e);
    return it->second.host_ns + static_cast<int64_t>(ms * 1e6);
  }

  void release() override {
    std::lock_guard<std::mutex> l(mu_);
    events_.clear();
    bases_.clear();
  }

 private:
  struct Base {
    std::unique_ptr<Event> event;
    int64_t host_ns = 0;
  };
  std::mutex mu_;
  std::vector<std::pair<std::unique_ptr<Event>, int>> events_;
  std::map<int, Base> bases_;
};

[[maybe_unused]] const bool registered = [] {
  profiler::register_device_timer(DeviceType::CUDA, new CudaTimer());  // leaked: lives as long as the process
  profiler::register_range_marker({[](const char* name) { nvtx_range_push(name); }, [] { nvtx_range_pop(); }});
  return true;
}();

}  // namespace
}  // namespace ember::cuda
