#pragma once
// Copies between host memory and a device through pinned (page-locked) staging buffers: the DMA
// engine reads and writes pinned memory directly, so a copy runs at the bus's speed, in chunks,
// double-buffered so that the host's memcpy of one chunk overlaps the transfer of the next.
#include <cstddef>

namespace ember::cuda {

/// Queues a copy of n bytes from host `src` to `dst` on cuda:index; returns when src may be reused.
void copy_to_device(void* dst, const void* src, size_t n, int index);
/// Copies n bytes from `src` on cuda:index to host `dst`, after the work queued before it; returns
/// when dst holds them.
void copy_to_host(void* dst, const void* src, size_t n, int index);

}  // namespace ember::cuda
