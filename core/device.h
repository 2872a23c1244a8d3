#pragma once
// Where a tensor's storage lives. CPU always; CUDA when the cuda/ backend is built and registers
// its kernels (core never names it).
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace ember {

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

/// A device type and index: Device(), Device::cuda(0), Device("cuda:1").
struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = 0) : type(t), index(i) {}  // NOLINT: implicit
  /// Parses "cpu", "cuda", "cuda:1".
  explicit Device(std::string_view spec);
  static constexpr Device cpu() { return Device(); }
  static constexpr Device cuda(int16_t index = 0) { return Device(DeviceType::CUDA, index); }

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  std::string str() const;
  friend bool operator==(const Device&, const Device&) = default;
};

std::ostream& operator<<(std::ostream& os, DeviceType t);
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace ember
