// CPU memory: every block starts on a 64-byte boundary (a cache line, an AVX-512 packet).
// NB: Eigen aligns its vector loops on the destination's address and computes the elements before
// the first aligned one with scalar code, which rounds differently from the vector code for exp,
// tanh, rsqrt and the like; a fresh output always aligned the same way keeps the bits of a result
// independent of where the heap put it. Blocks come from plain malloc (faster than aligned_alloc
// for the many tiny tensors), over-allocated by 64 bytes and moved up to the next boundary, with
// malloc's pointer kept in the 8 bytes before the block.
#include <cstdint>
#include <cstdlib>
#include <new>

#include "ember/core/storage.h"

namespace ember::cpu {
namespace {

constexpr uintptr_t kAlignment = 64;

void* cpu_allocate(size_t nbytes) {
  if (nbytes > SIZE_MAX - kAlignment) throw std::bad_alloc();
  void* raw = std::malloc(nbytes + kAlignment);
  if (!raw) throw std::bad_alloc();
  // malloc's blocks are 8-byte aligned at least, so this leaves 8 to 64 bytes before the block.
  uintptr_t p = (reinterpret_cast<uintptr_t>(raw) + kAlignment) & ~(kAlignment - 1);
  reinterpret_cast<void**>(p)[-1] = raw;
  return reinterpret_cast<void*>(p);
}
void cpu_deallocate(void* p) {
  if (p) std::free(static_cast<void**>(p)[-1]);
}

const Allocator kCpuAllocator{&cpu_allocate, &cpu_deallocate};
[[maybe_unused]] const bool registered = (register_allocator(DeviceType::CPU, &kCpuAllocator), true);

}  // namespace
}  // namespace ember::cpu
