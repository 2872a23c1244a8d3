#pragma once
// The interface a device backend plugs into core besides its kernels (core/dispatch.h) and its
// allocator (core/storage.h): how many devices there are, why there are none, and the device-wide
// calls (synchronize, empty_cache). cuda/ registers one for DeviceType::CUDA when the library is
// built with it; without a registered backend a device type has no devices, and every call that
// needs one throws an ember::Error starting "no CUDA device: " that says how to get one.
//
// The CUDA backend is a library of its own, libember_cuda.so beside libember.so, opened on the
// first call that asks about CUDA (any below, a CUDA allocation, a CUDA kernel's dispatch): a
// process that never does maps none of CUDA's libraries. EMBER_CUDA_BACKEND=<path> names another
// file (an empty value: none). When it cannot be opened (no toolkit on the machine), CUDA has no
// devices and the errors quote the loader's reason.
//
//   if (ember::cuda::is_available()) model.to(Device::cuda());
#include <cstdint>
#include <string>
#include <string_view>

#include "ember/core/device.h"

namespace ember {

/// What a backend answers for its device type (plain function pointers: registered by a static
/// initialiser, read from anywhere).
struct DeviceBackend {
  /// Devices this process can use; 0 when the runtime finds none (no GPU, no driver).
  int (*device_count)();
  /// Why device_count() is 0, in the runtime's words ("cudaGetDeviceCount: cudaErrorInsufficientDriver ...").
  std::string (*why_none)();
  /// Waits until every kernel and copy queued on `index` has finished.
  void (*synchronize)(int index);
  /// Hands the memory cached by the backend's allocator back to the driver.
  void (*empty_cache)();
  /// The device's marketing name ("NVIDIA H100 80GB HBM3").
  std::string (*device_name)(int index);
  /// Bytes held by live tensors / by the allocator (live and cached) on `index`.
  int64_t (*memory_allocated)(int index);
  int64_t (*memory_reserved)(int index);
  /// The version of the backend's kernel library, as it numbers it (cudnnGetVersion() for CUDA).
  int64_t (*library_version)();
  /// A timing mark queued on the stream of every device this process has used, the elapsed
  /// milliseconds of device work between two marks (waiting for the second; the longest across
  /// devices), and the mark's release (the profiler's device times).
  void* (*timing_mark)();
  double (*elapsed_ms)(void* start, void* end);
  void (*release_timing_mark)(void* mark) noexcept;
};

/// Registers the backend of a device type (cuda/ does it for CUDA).
void register_backend(DeviceType type, const DeviceBackend* backend);
/// Whether a backend for `type` is built and could be loaded (the CPU's always is); opens the
/// CUDA backend's library if it is not open yet.
bool backend_built(DeviceType type);
/// Opens the backend library of `type` once (later calls return at once); true when its backend
/// is registered. Thread-safe.
bool load_backend(DeviceType type);
/// Devices of `type` this process can use: 0 without a backend or without a device.
int device_count(DeviceType type);
/// Throws an ember::Error "no CUDA device: <what> on cuda:1: <why>" unless `device` is one this
/// process can use (the CPU always is).
void check_device(Device device, std::string_view what);

namespace cuda {
/// True when this build has the CUDA backend and the machine at least one CUDA device.
bool is_available();
/// Usable CUDA devices (0 without a device or without the backend).
int device_count();
/// Waits for every kernel queued on cuda:index (-1: on every device).
void synchronize(int index = -1);
/// Returns the CUDA allocator's cached free blocks to the driver (nothing to do without a device).
void empty_cache();
/// The name of cuda:index.
std::string get_device_name(int index = 0);
/// Bytes held by live tensors on cuda:index, and by the allocator there (live and cached).
int64_t memory_allocated(int index = 0);
int64_t memory_reserved(int index = 0);
/// cuDNN's version (cudnnGetVersion(), 91900 for 9.19.0); Error when the backend is not loaded.
int64_t cudnn_version();
/// Timing marks on the streams of the CUDA devices in use (DeviceBackend::timing_mark); nullptr
/// when CUDA is not available. elapsed_ms of a null mark is 0.
void* record_timing_mark();
double elapsed_ms(void* start, void* end);
void release_timing_mark(void* mark) noexcept;
}  // namespace cuda

}  // namespace ember
