#include "ember/core/backend.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "ember/core/error.h"

namespace ember {
namespace {

std::atomic<const DeviceBackend*> g_backends[kNumDeviceTypes] = {};

// The CUDA backend's library, beside libember.so (CMakeLists.txt names it in a build with CUDA).
#ifdef EMBER_CUDA_BACKEND_LIBRARY
constexpr const char* kCudaLibrary = EMBER_CUDA_BACKEND_LIBRARY;
#else
constexpr const char* kCudaLibrary = nullptr;
#endif

std::once_flag g_cuda_once;
std::string g_cuda_load_error;  // the loader's reason when the library would not open; set once

// The folder of the library this code is in (libember.so's, wherever it was installed).
std::filesystem::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&register_backend), &info) == 0 || info.dli_fname == nullptr) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

void open_cuda_library() {
  std::string path;
  if (const char* chosen = std::getenv("EMBER_CUDA_BACKEND"))
    path = chosen;
  else if (kCudaLibrary != nullptr)
    path = (own_folder() / kCudaLibrary).string();
  if (path.empty()) return;
  // Its static initialisers register the kernels, the allocator and the backend. NB: never closed.
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
    const char* why = dlerror();
    g_cuda_load_error = why != nullptr ? why : path + ": dlopen failed";
  }
}

const DeviceBackend* backend_of(DeviceType type) {
  const DeviceBackend* b = g_backends[static_cast<int>(type)].load(std::memory_order_acquire);
  if (b == nullptr && load_backend(type)) b = g_backends[static_cast<int>(type)].load(std::memory_order_acquire);
  return b;
}

// Why `device` cannot be used, or an empty string when it can.
std::string unusable(Device device) {
  if (device.is_cpu()) return {};
  const DeviceBackend* b = backend_of(device.type);
  if (b == nullptr && !g_cuda_load_error.empty())
    return "Ember's CUDA backend could not be loaded (" + g_cuda_load_error + ")";
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
  g_backends[static_cast<int>(type)].store(backend, std::memory_order_release);
}

bool load_backend(DeviceType type) {
  if (type == DeviceType::CUDA) std::call_once(g_cuda_once, open_cuda_library);
  return g_backends[static_cast<int>(type)].load(std::memory_order_acquire) != nullptr;
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

int64_t cudnn_version() {
  const DeviceBackend* b = backend_of(DeviceType::CUDA);
  if (b == nullptr) check_device(Device::cuda(0), "cudnn_version");  // throws, saying why
  return b->library_version();
}

void* record_timing_mark() { return is_available() ? backend_of(DeviceType::CUDA)->timing_mark() : nullptr; }

double elapsed_ms(void* start, void* end) {
  if (start == nullptr || end == nullptr) return 0.0;
  return backend_of(DeviceType::CUDA)->elapsed_ms(start, end);
}

void release_timing_mark(void* mark) noexcept {
  if (mark != nullptr) backend_of(DeviceType::CUDA)->release_timing_mark(mark);
}

}  // namespace cuda

}  // namespace ember
