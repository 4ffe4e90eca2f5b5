#include "ember/generator.h"

#include <random>

#include "ember/cuda.h"
#include "ember/error.h"

namespace ember {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> g(mu_);
  return seed_;
}

uint64_t Generator::seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32 | rd()) & ((1ull << 63) - 1);
  manual_seed(s);
  return s;
}

PhiloxState Generator::state() const {
  std::lock_guard<std::mutex> g(mu_);
  return {seed_, offset_};
}

void Generator::set_state(PhiloxState s) {
  std::lock_guard<std::mutex> g(mu_);
  seed_ = s.seed;
  offset_ = s.offset;
}

PhiloxState Generator::take(uint64_t words) {
  std::lock_guard<std::mutex> g(mu_);
  PhiloxState s{seed_, offset_};
  offset_ += (words + 3) / 4;
  return s;
}

Generator& default_generator(Device device) {
  static Generator cpu(kCPU);
  if (device.is_cpu()) return cpu;
  if (device.is_meta()) {
    static Generator meta(kMeta);
    return meta;
  }
  static Generator* cuda_gens = [] {
    // One per device, made once; the count is fixed for the life of the process.
    int n = cuda::device_count();
    auto* g = static_cast<Generator*>(::operator new(sizeof(Generator) * (n > 0 ? n : 1)));
    for (int i = 0; i < n; ++i) new (g + i) Generator(Device(DeviceType::CUDA, i));
    return g;
  }();
  int idx = device.has_index() ? device.index : cuda::current_device();
  EMBER_CHECK(idx >= 0 && idx < cuda::device_count(), "invalid CUDA device ", device);
  return cuda_gens[idx];
}

void manual_seed(uint64_t seed) {
  default_generator(kCPU).manual_seed(seed);
  for (int i = 0, n = cuda::device_count(); i < n; ++i)
    default_generator(Device(DeviceType::CUDA, i)).manual_seed(seed);
}

}  // namespace ember
