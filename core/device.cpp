#include "ember/core/device.h"

#include <charconv>

#include "ember/core/error.h"

namespace ember {

Device::Device(std::string_view spec) {
  std::string_view kind = spec.substr(0, spec.find(':'));
  if (kind == "cpu") {
    type = DeviceType::CPU;
  } else if (kind == "cuda") {
    type = DeviceType::CUDA;
  } else {
    throw ValueError(detail::str("Device: unknown device '", spec, "' (expected cpu or cuda[:N])"));
  }
  if (kind.size() < spec.size()) {
    std::string_view num = spec.substr(kind.size() + 1);
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), index);
    EMBER_CHECK_VALUE(ec == std::errc() && ptr == num.data() + num.size() && index >= 0,
                      "Device: bad device index in '", spec, "'");
  }
}

std::string Device::str() const {
  return type == DeviceType::CPU ? std::string("cpu") : "cuda:" + std::to_string(index);
}

std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << (t == DeviceType::CPU ? "cpu" : "cuda");
}
std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
