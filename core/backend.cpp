#include "ember/core/backend.h"

#include "ember/core/error.h"

namespace ember {
namespace {

const DeviceBackend* g_backends[kNumDeviceTypes] = {};

const DeviceBackend* backend_of(DeviceType type) { return g_backends[static_cast<int>(type)]; }

// Why `device` cannot be used, or an empty string when it can.
std::string unusable(Device device) {
  if (device.is_cpu()) return {};
  const DeviceBackend* b = backend_of(device.type);
  if (b == nullptr)
    return "this build of Ember has no CUDA backend (build with -DEMBER_CUDA=ON on a machine with the CUDA Toolkit)";
  const int n = b->device_count();
  if (n == 0) return "the CUDA runtime finds none (" + b->why_none() + ")";
  if (device.index >= n)
    return detail::str("this machine has ", n, " CUDA device", n == 1 ? "" : "s", " (cuda:0",
                       n > 1 ? detail::str(" to cuda:", n - 1) : std::string(), ")");
  return {};
}

}  // namespace

void register_backend(DeviceType type, const DeviceBackend* backend) {
  g_backends[static_cast<int>(type)] = backend;
}

bool backend_built(DeviceType type) { return type == DeviceType::CPU || backend_of(type) != nullptr; }

int device_count(DeviceType type) {
  if (type == DeviceType::CPU) return 1;
  const DeviceBackend* b = backend_of(type);
  return b ? b->device_count() : 0;
}

void check_device(Device device, std::string_view what) {
  std::string why = unusable(device);
  if (!why.empty()) throw Error(detail::str("no CUDA device: ", what, " on ", device, ": ", why));
}

namespace cuda {

bool is_available() { return device_count() > 0; }

int device_count() { return ember::device_count(DeviceType::CUDA); }

void synchronize(int index) {
  if (index < 0) {
    check_device(Device::cuda(0), "synchronize");
    for (int i = 0; i < device_count(); ++i) backend_of(DeviceType::CUDA)->synchronize(i);
    return;
  }
  check_device(Device::cuda(static_cast<int16_t>(index)), "synchronize");
  backend_of(DeviceType::CUDA)->synchronize(index);
}

void empty_cache() {
  if (is_available()) backend_of(DeviceType::CUDA)->empty_cache();
}

std::string get_device_name(int index) {
  check_device(Device::cuda(static_cast<int16_t>(index)), "get_device_name");
  return backend_of(DeviceType::CUDA)->device_name(index);
}

int64_t memory_allocated(int index) {
  check_device(Device::cuda(static_cast<int16_t>(index)), "memory_allocated");
  return backend_of(DeviceType::CUDA)->memory_allocated(index);
}

int64_t memory_reserved(int index) {
  check_device(Device::cuda(static_cast<int16_t>(index)), "memory_reserved");
  return backend_of(DeviceType::CUDA)->memory_reserved(index);
}

}  // namespace cuda

}  // namespace ember
