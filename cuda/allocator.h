#pragma once
// The CUDA caching allocator (allocator.cpp), registered for DeviceType::CUDA: what it holds, and
// how to give its cache back to the driver.
#include <cstdint>

namespace ember::cuda {

/// Returns every cached free block of every device to the driver (after waiting for the device's
/// stream, so no queued kernel still uses one).
void release_cached_blocks();
/// Bytes held by live tensors on cuda:index.
int64_t allocated_bytes(int index);
/// Bytes the allocator holds from the driver on cuda:index: live and cached.
int64_t reserved_bytes(int index);

}  // namespace ember::cuda
