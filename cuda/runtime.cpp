#include "ember/cuda/runtime.h"

#include <cudnn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ember/core/backend.h"
#include "ember/core/error.h"
#include "ember/cuda/allocator.h"
#include "ember/cuda/check.h"
#include "ember/cuda/kernels/launch.h"

namespace ember::cuda {
namespace {

constexpr int kMaxDevices = 64;

struct DeviceCount {
  int count = 0;
  std::string why;
};

const DeviceCount& device_count_once() {
  static const DeviceCount c = [] {
    DeviceCount r;
    int n = 0;  // NB: left untouched when the call fails (no driver)
    const cudaError_t status = cudaGetDeviceCount(&n);
    if (status != cudaSuccess) {
      cudaGetLastError();
      r.why = ::ember::detail::str("cudaGetDeviceCount: ", cudaGetErrorName(status), ": ", cudaGetErrorString(status));
      n = 0;
    } else if (n == 0) {
      r.why = "cudaGetDeviceCount: no device";
    }
    r.count = n < kMaxDevices ? n : kMaxDevices;
    return r;
  }();
  return c;
}

// Per-device state made on first use: the stream and the error slot.
struct PerDevice {
  std::once_flag once;
  cudaStream_t stream = nullptr;
  int64_t* slot = nullptr;
  int capability = 0;  // major * 10 + minor
  std::atomic<bool> ready{false};  // the stream exists (a profiler's marks go on used devices only)
};

std::array<PerDevice, kMaxDevices>& per_device() {
  static auto* d = new std::array<PerDevice, kMaxDevices>;  // never destroyed: used until exit
  return *d;
}

PerDevice& state(int index) {
  require_device(Device::cuda(static_cast<int16_t>(index)), "CUDA");
  PerDevice& d = per_device()[static_cast<size_t>(index)];
  std::call_once(d.once, [&] {
    DeviceGuard guard(index);
    // NB: non-blocking: no implicit synchronisation with the legacy default stream of other code.
    EMBER_CUDA_CHECK(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
    void* slot = nullptr;
    EMBER_CUDA_CHECK(cudaMalloc(&slot, 2 * sizeof(int64_t)));
    EMBER_CUDA_CHECK(cudaMemset(slot, 0, 2 * sizeof(int64_t)));
    d.slot = static_cast<int64_t*>(slot);
    int major = 0, minor = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index));
    EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index));
    d.capability = major * 10 + minor;
    d.ready.store(true, std::memory_order_release);
  });
  return d;
}

// ---- core's backend interface
int backend_device_count() { return devices(); }
std::string backend_why_none() { return why_no_devices(); }
void backend_synchronize(int index) { synchronize_device(index); }
void backend_empty_cache() { release_cached_blocks(); }
std::string backend_device_name(int index) {
  cudaDeviceProp prop{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  return prop.name;
}
int64_t backend_memory_allocated(int index) { return allocated_bytes(index); }
int64_t backend_memory_reserved(int index) { return reserved_bytes(index); }
int64_t backend_library_version() { return static_cast<int64_t>(cudnnGetVersion()); }

// A mark: one timing event per device in use, on its stream.
using TimingMark = std::vector<std::pair<int, cudaEvent_t>>;

void* backend_timing_mark() {
  auto mark = std::make_unique<TimingMark>();
  for (int i = 0; i < devices(); ++i) {
    PerDevice& d = per_device()[static_cast<size_t>(i)];
    if (!d.ready.load(std::memory_order_acquire)) continue;
    DeviceGuard guard(i);
    cudaEvent_t event = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreate(&event));
    mark->emplace_back(i, event);
    EMBER_CUDA_CHECK(cudaEventRecord(event, d.stream));
  }
  return mark.release();
}

double backend_elapsed_ms(void* start, void* end) {
  double longest = 0.0;
  for (const auto& [device, to] : *static_cast<TimingMark*>(end))
    for (const auto& [same, from] : *static_cast<TimingMark*>(start))
      if (same == device) {
        EMBER_CUDA_CHECK(cudaEventSynchronize(to));
        float ms = 0.0f;
        EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
        longest = std::max(longest, static_cast<double>(ms));
      }
  return longest;
}

void backend_release_timing_mark(void* mark) noexcept {
  auto* events = static_cast<TimingMark*>(mark);
  for (const auto& [device, event] : *events) cudaEventDestroy(event);
  delete events;
}

const DeviceBackend kBackend{&backend_device_count,    &backend_why_none,           &backend_synchronize,
                             &backend_empty_cache,     &backend_device_name,        &backend_memory_allocated,
                             &backend_memory_reserved, &backend_library_version,    &backend_timing_mark,
                             &backend_elapsed_ms,      &backend_release_timing_mark};
[[maybe_unused]] const bool registered = (register_backend(DeviceType::CUDA, &kBackend), true);

}  // namespace

int devices() { return device_count_once().count; }

std::string why_no_devices() { return device_count_once().why; }

void require_device(Device device, std::string_view what) { check_device(device, what); }

DeviceGuard::DeviceGuard(int index) {
  EMBER_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ == index) {
    previous_ = -1;  // nothing to restore
    return;
  }
  EMBER_CUDA_CHECK(cudaSetDevice(index));
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);  // NB: a destructor does not throw
}

cudaStream_t stream(int index) { return state(index).stream; }

int compute_capability(int index) { return state(index).capability; }

void synchronize_device(int index) {
  DeviceGuard guard(index);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream(index)));
}

int64_t* error_slot(int index) { return state(index).slot; }

void check_error_slot(int index, std::string (*message)(int64_t code, int64_t value, const void* context),
                      const void* context) {
  PerDevice& d = state(index);
  int64_t report[2] = {0, 0};
  EMBER_CUDA_CHECK(cudaMemcpyAsync(report, d.slot, sizeof report, cudaMemcpyDeviceToHost, d.stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(d.stream));
  if (report[0] == 0) return;
  EMBER_CUDA_CHECK(cudaMemsetAsync(d.slot, 0, sizeof report, d.stream));
  const std::string text = message(report[0], report[1], context);
  if (report[0] == static_cast<int64_t>(KernelError::IndexOutOfRange)) throw IndexError(text);
  throw ValueError(text);
}

}  // namespace ember::cuda
