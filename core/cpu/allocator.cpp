// CPU memory: every block starts on a 64-byte boundary (a cache line, an AVX-512 packet).
// NB: Eigen aligns its vector loops on the destination's address and computes the elements before
// the first aligned one with scalar code, which rounds differently from the vector code for exp,
// tanh, rsqrt and the like; a fresh output always aligned the same way keeps the bits of a result
// independent of where the heap put it. Blocks come from plain malloc (faster than aligned_alloc
// for the many tiny tensors), over-allocated by 64 bytes and moved up to the next boundary, with
// malloc's pointer kept in the 8 bytes before the block.
//
// Large blocks are cached. A training step frees and allocates the same sizes every step, and
// malloc hands a freed multi-megabyte block back to the kernel (munmap, or a trim of the heap's
// top), so the next step faults every page in again: that was a quarter of the time of a small
// CNN's step (measured, bench/). A block of kCacheMin bytes or more is rounded up to a size class
// (eight per power of two: at most 12.5% slack), and when freed waits on its class's free list
// for the next allocation of that class, up to kCacheLimit bytes in all (further frees go back to
// malloc). Sanitizer builds skip the cache, so that AddressSanitizer still sees a use after free.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "ember/core/storage.h"

namespace ember::cpu {
namespace {

constexpr uintptr_t kAlignment = 64;
constexpr size_t kCacheMin = size_t{256} << 10;
constexpr size_t kCacheLimit = size_t{1} << 30;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCaching = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCaching = false;
#else
constexpr bool kCaching = true;
#endif
#else
constexpr bool kCaching = true;
#endif

void* aligned_malloc(size_t nbytes) {
  if (nbytes > SIZE_MAX - kAlignment) throw std::bad_alloc();
  void* raw = std::malloc(nbytes + kAlignment);
  if (!raw) throw std::bad_alloc();
  // malloc's blocks are 8-byte aligned at least, so this leaves 8 to 64 bytes before the block.
  uintptr_t p = (reinterpret_cast<uintptr_t>(raw) + kAlignment) & ~(kAlignment - 1);
  reinterpret_cast<void**>(p)[-1] = raw;
  return reinterpret_cast<void*>(p);
}
void aligned_free(void* p) { std::free(static_cast<void**>(p)[-1]); }

bool cached(size_t nbytes) { return kCaching && nbytes >= kCacheMin; }

// nbytes (>= kCacheMin) rounded up to the next multiple of an eighth of its power of two.
size_t size_class(size_t nbytes) {
  const size_t step = (size_t{1} << (63 - __builtin_clzll(nbytes))) / 8;
  return (nbytes + step - 1) / step * step;
}

class BlockCache {
 public:
  void* take(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(size);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    bytes_ -= size;
    return p;
  }
  bool keep(void* p, size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes_ + size > kCacheLimit) return false;
    free_[size].push_back(p);
    bytes_ += size;
    return true;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t bytes_ = 0;
};

// Never destroyed: tensors held by other static objects may be freed after this file's statics.
BlockCache& cache() {
  static auto* c = new BlockCache;
  return *c;
}

// The statistics count the bytes asked for (not the size class), as PyTorch's allocated bytes do.
std::atomic<int64_t> g_allocated{0};
std::atomic<int64_t> g_peak{0};

void count(int64_t delta) {
  const int64_t now = g_allocated.fetch_add(delta, std::memory_order_relaxed) + delta;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void* take_block(size_t nbytes) {
  if (!cached(nbytes)) return aligned_malloc(nbytes);
  const size_t size = size_class(nbytes);
  if (void* p = cache().take(size)) return p;
  return aligned_malloc(size);
}

void* cpu_allocate(size_t nbytes, Device) {
  void* p = take_block(nbytes);
  count(static_cast<int64_t>(nbytes));
  return p;
}

void cpu_deallocate(void* p, size_t nbytes, Device) noexcept {
  if (!p) return;
  count(-static_cast<int64_t>(nbytes));
  if (!cached(nbytes) || !cache().keep(p, size_class(nbytes))) aligned_free(p);
}

const Allocator kCpuAllocator{&cpu_allocate, &cpu_deallocate};
[[maybe_unused]] const bool registered = (register_allocator(DeviceType::CPU, &kCpuAllocator), true);

}  // namespace
}  // namespace ember::cpu

bool ember::cpu_allocator_caches() { return ember::cpu::kCaching; }
int64_t ember::cpu_memory_allocated() { return ember::cpu::g_allocated.load(std::memory_order_relaxed); }
int64_t ember::cpu_max_memory_allocated() { return ember::cpu::g_peak.load(std::memory_order_relaxed); }
void ember::reset_cpu_peak_memory() {
  ember::cpu::g_peak.store(ember::cpu::g_allocated.load(std::memory_order_relaxed), std::memory_order_relaxed);
}
