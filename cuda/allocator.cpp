// Device memory for tensors. cudaMalloc and cudaFree are slow and cudaFree synchronises the whole
// device, so freed blocks are kept, per device, on free lists by size class and handed to the next
// allocation of that class, as PyTorch's caching allocator does: sizes are rounded up to 512 bytes
// below 1 MiB and to an eighth of their power of two above (at most 12.5% slack), and a training
// step, which allocates the same sizes every step, soon allocates nothing new from the driver.
// Reuse is safe without events because every kernel of a device runs on its one stream: a block
// freed on the host is reused only by work queued after the work that last used it.
// When cudaMalloc runs out of memory, the cache is emptied and the allocation tried once more.
// A free never calls the driver and never throws: storages are freed from destructors, at exit too,
// when the CUDA runtime may already be gone (the pools themselves are never destroyed).
#include "ember/cuda/allocator.h"

#include <array>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/storage.h"
#include "ember/cuda/check.h"
#include "ember/cuda/runtime.h"

namespace ember::cuda {
namespace {

constexpr size_t kSmall = size_t{1} << 20;  // 1 MiB
constexpr size_t kMinBlock = 512;
constexpr int kMaxDevices = 64;

size_t size_class(size_t n) {
  if (n < kSmall) return (n + kMinBlock - 1) / kMinBlock * kMinBlock;
  const size_t step = (size_t{1} << (63 - __builtin_clzll(n))) / 8;
  return (n + step - 1) / step * step;
}

std::string bytes(size_t n) {
  if (n >= (size_t{1} << 30)) return ::ember::detail::str(static_cast<double>(n) / (1 << 30), " GiB");
  if (n >= (size_t{1} << 20)) return ::ember::detail::str(static_cast<double>(n) / (1 << 20), " MiB");
  return ::ember::detail::str(n, " bytes");
}

struct Pool {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void*>> free;  // by size class
  size_t allocated = 0;  // live blocks, by class size
  size_t cached = 0;     // blocks on the free lists
};

std::array<Pool, kMaxDevices>& pools() {
  static auto* p = new std::array<Pool, kMaxDevices>;  // never destroyed (see above)
  return *p;
}

// Frees the cached blocks of one device; its stream is drained first.
void release_cached(int index, Pool& pool) {
  std::vector<void*> blocks;
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    for (auto& [size, list] : pool.free) blocks.insert(blocks.end(), list.begin(), list.end());
    pool.free.clear();
    pool.cached = 0;
  }
  if (blocks.empty()) return;
  DeviceGuard guard(index);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream(index)));
  for (void* p : blocks) EMBER_CUDA_CHECK(cudaFree(p));
}

void* cuda_allocate(size_t nbytes, Device device) {
  require_device(device, "cannot allocate memory");
  if (nbytes == 0) return nullptr;
  const int index = device.index;
  Pool& pool = pools()[static_cast<size_t>(index)];
  const size_t size = size_class(nbytes);
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto it = pool.free.find(size);
    if (it != pool.free.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      pool.cached -= size;
      pool.allocated += size;
      return p;
    }
  }
  DeviceGuard guard(index);
  void* p = nullptr;
  cudaError_t status = cudaMalloc(&p, size);
  if (status == cudaErrorMemoryAllocation) {  // once more, with the cache given back
    cudaGetLastError();
    release_cached(index, pool);
    status = cudaMalloc(&p, size);
  }
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    size_t live;
    {
      std::lock_guard<std::mutex> lock(pool.mutex);
      live = pool.allocated;
    }
    throw Error(::ember::detail::str("CUDA out of memory: allocating ", bytes(size), " on ", device, " failed (",
                                     bytes(live), " held by tensors, ", bytes(free_bytes), " free of ", bytes(total),
                                     "; the cache was emptied and the allocation retried)"));
  }
  EMBER_CUDA_CHECK(status);
  std::lock_guard<std::mutex> lock(pool.mutex);
  pool.allocated += size;
  return p;
}

void cuda_deallocate(void* p, size_t nbytes, Device device) noexcept {
  if (p == nullptr) return;
  Pool& pool = pools()[static_cast<size_t>(device.index)];
  const size_t size = size_class(nbytes);
  try {
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.free[size].push_back(p);
    pool.allocated -= size;
    pool.cached += size;
  } catch (...) {
    // No memory to file the block under: it is leaked rather than freed, as a free must not
    // call the driver (it may be exit) nor throw.
  }
}

const Allocator kCudaAllocator{&cuda_allocate, &cuda_deallocate};
[[maybe_unused]] const bool registered = (register_allocator(DeviceType::CUDA, &kCudaAllocator), true);

}  // namespace

void release_cached_blocks() {
  for (int i = 0; i < devices(); ++i) release_cached(i, pools()[static_cast<size_t>(i)]);
}

int64_t allocated_bytes(int index) {
  Pool& pool = pools()[static_cast<size_t>(index)];
  std::lock_guard<std::mutex> lock(pool.mutex);
  return static_cast<int64_t>(pool.allocated);
}

int64_t reserved_bytes(int index) {
  Pool& pool = pools()[static_cast<size_t>(index)];
  std::lock_guard<std::mutex> lock(pool.mutex);
  return static_cast<int64_t>(pool.allocated + pool.cached);
}

}  // namespace ember::cuda
