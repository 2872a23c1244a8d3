#pragma once
// Scratch memory for CPU kernels, from the tensor allocator, which keeps large freed blocks for
// the next request of their size: a training step asks for the same buffers every step, and fresh
// pages (malloc's large blocks are mmapped anew each time) cost a page fault each.
#include <algorithm>
#include <cstdint>

#include "ember/core/factory.h"

namespace ember::cpu {

/// n elements of T (at least one), uninitialised.
template <typename T>
Tensor scratch(int64_t n) {
  return empty({std::max<int64_t>(n, 1)}, TensorOptions(dtype_of<T>));
}

}  // namespace ember::cpu
