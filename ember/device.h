// A device is a type (cpu, cuda, meta) and an index (-1: "the current one", as in torch.device('cuda')). The meta
// device holds shapes without data (docs/meta.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ember {

enum class DeviceType : int8_t { CPU, CUDA, Meta };
inline constexpr int kNumDeviceTypes = 3;

// "cpu", "cuda", "meta": the type as torch.device(...).type names it.
const char* device_type_name(DeviceType t);

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;

  Device() = default;
  constexpr Device(DeviceType t, int i = -1) : type(t), index(static_cast<int8_t>(i)) {}
  explicit Device(std::string_view spec);  // "cpu", "cuda", "cuda:1"; throws RuntimeError on bad specs

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool has_index() const { return index >= 0; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

inline constexpr Device kCPU{DeviceType::CPU};
inline constexpr Device kMeta{DeviceType::Meta};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace ember
