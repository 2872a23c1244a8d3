// CPU memory: 64-byte aligned for anything a vector loop touches; tiny blocks come from plain
// malloc (16-byte aligned), which is faster, and Eigen maps them as unaligned anyway.
#include <algorithm>
#include <cstdlib>
#include <new>

#include "ember/core/storage.h"

namespace ember::cpu {
namespace {

void* cpu_allocate(size_t nbytes) {
  if (nbytes <= 256) {
    void* p = std::malloc(std::max<size_t>(nbytes, 1));
    if (!p) throw std::bad_alloc();
    return p;
  }
  size_t rounded = (std::max<size_t>(nbytes, 1) + 63) & ~size_t{63};
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw std::bad_alloc();
  return p;
}
void cpu_deallocate(void* p) { std::free(p); }

const Allocator kCpuAllocator{&cpu_allocate, &cpu_deallocate};
[[maybe_unused]] const bool registered = (register_allocator(DeviceType::CPU, &kCpuAllocator), true);

}  // namespace
}  // namespace ember::cpu
