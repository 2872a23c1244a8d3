#pragma once
// Differentiable copies: clone, and conversion to another dtype or device.
#include "ember/core/tensor.h"

namespace ember {

/// A contiguous copy that stays in the graph.
Tensor clone(const Tensor& t);
/// t itself if it already has `dtype`, else a converted copy (gradient converted back).
Tensor to(const Tensor& t, DType dtype);
/// t itself if it is already on `device`, else a copy there (gradient copied back).
Tensor to(const Tensor& t, Device device);

}  // namespace ember
