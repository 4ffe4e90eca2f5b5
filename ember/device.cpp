#include "ember/device.h"

#include <charconv>
#include <ostream>

#include "ember/error.h"

namespace ember {

Device::Device(std::string_view spec) {
  std::string_view kind = spec.substr(0, spec.find(':'));
  if (kind == "cpu")
    type = DeviceType::CPU;
  else if (kind == "cuda")
    type = DeviceType::CUDA;
  else if (kind == "meta")
    type = DeviceType::Meta;
  else
    fail<Error>("Expected one of cpu, cuda, meta device type at start of device string: ", spec);
  if (kind.size() == spec.size()) return;
  std::string_view num = spec.substr(kind.size() + 1);
  int i = -1;
  auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), i);
  EMBER_CHECK(ec == std::errc() && end == num.data() + num.size() && i >= 0 && i < 128 && !num.empty(),
              "Invalid device string: '", spec, "'");
  index = static_cast<int8_t>(i);
}

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::Meta: return "meta";
  }
  return "?";
}

std::string Device::str() const {
  std::string s = device_type_name(type);
  if (has_index()) s += ":" + std::to_string(index);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
