// The CPU allocator through tensors: 64-byte alignment for every size, and reuse of freed large
// blocks (core/cpu/allocator.cpp), which keeps a training loop from faulting its activations'
// pages in again at every step.
#include <gtest/gtest.h>

#include <cstdint>

#include "ember/ember.h"

using namespace ember;

namespace {

uintptr_t address(const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); }

}  // namespace

TEST(AllocatorTest, EveryBlockIsAlignedTo64Bytes) {
  for (int64_t n : {1, 3, 17, 1000, 70000, 1 << 20, (1 << 20) + 5}) {
    Tensor t = empty({n}, TensorOptions(kUInt8));
    EXPECT_EQ(address(t) % 64, 0u) << n << " bytes";
  }
}

TEST(AllocatorTest, AFreedLargeBlockServesTheNextAllocationOfItsSizeClass) {
  if (!cpu_allocator_caches()) GTEST_SKIP() << "sanitizer builds do not cache blocks, so ASan sees every use after free";
  uintptr_t first;
  {
    Tensor a = empty({1 << 20}, TensorOptions(kFloat32));  // 4 MiB
    first = address(a);
  }
  Tensor b = empty({(1 << 20) - 1000}, TensorOptions(kFloat32));  // same class (within 1/8 of 4 MiB)
  EXPECT_EQ(address(b), first);
  Tensor c = empty({1 << 20}, TensorOptions(kFloat32));  // b still holds the block
  EXPECT_NE(address(c), first);
  // A cached block is not cleared: zeros() still writes its zeros.
  b.fill_(7.0);
  b = Tensor();
  Tensor z = zeros({1 << 20}, TensorOptions(kFloat32));
  EXPECT_EQ(z.sum().item<double>(), 0.0);
}
