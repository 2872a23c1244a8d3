#pragma once
// Views of a tensor's storage outside autograd: what kernels, and ops preparing kernel inputs, use
// to look at data in another layout (a broadcast, a row of a batch) without recording anything.
// The autograd-aware views (view, expand, slice, ...) are in ops/view.h.
#include "ember/core/tensor.h"

namespace ember {

/// A view of t with the given layout, sharing its storage.
Tensor as_strided_data(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
/// t broadcast to `shape` (size-1 dims get stride 0, leading dims are added; -1 keeps a size).
Tensor expand_data(const Tensor& t, IntArrayRef shape);

}  // namespace ember
