#pragma once
// The CUDA runtime as the backend uses it: the devices (counted once), a guard that makes a device
// current, one stream per device on which every kernel, copy and library call of that device is
// queued (so work runs in the order it was asked for, and memory freed on the host may be reused
// at once by the next kernel), and a per-device error slot through which kernels report values they
// refuse (core's backend interface, core/backend.h, is registered from runtime.cpp).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "ember/core/device.h"

namespace ember::cuda {

/// CUDA devices this process can use; 0 when the runtime finds none (counted on first call).
int devices();
/// Why devices() is 0, in the runtime's words.
std::string why_no_devices();
/// Throws "no CUDA device: <what> on cuda:N: ..." unless cuda:N exists (core's check_device).
void require_device(Device device, std::string_view what);

/// Makes cuda:index current for its lifetime, then restores the previous device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

/// The stream of cuda:index (created on first use, never destroyed: it outlives every tensor).
cudaStream_t stream(int index);
/// The compute capability of cuda:index as major * 10 + minor (90 for an H100 or H200).
int compute_capability(int index);
/// Waits for everything queued on cuda:index.
void synchronize_device(int index);

/// The error slot of cuda:index: two int64 in device memory, zero until a kernel reports.
int64_t* error_slot(int index);
/// After a kernel that may report: waits for the stream, and if the slot holds a report, clears it
/// and throws. `message(code, value)` words the error (as the CPU kernel would); the exception
/// type follows the code (IndexError for an index, ValueError for a division by zero).
void check_error_slot(int index, std::string (*message)(int64_t code, int64_t value, const void* context),
                      const void* context);

}  // namespace ember::cuda
