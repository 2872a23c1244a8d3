#pragma once
// Shape ops (declared from the op table, ember/ops/functions.h). Views share storage with their
// input (reshape when the layout allows, view, permute, transpose, t, expand, squeeze/unsqueeze,
// slice/narrow, select, unbind); contiguous() and reshape of an incompatible layout copy. Gradients
// flow back through every one of them. expand's -1 keeps a size.
#include "ember/core/strided.h"  // as_strided_data, expand_data
#include "ember/ops/functions.h"

namespace ember {

/// Zeros of in_shape with `grad` at slice(dim, start, end, step): the gradient of slice.
Tensor slice_backward(const Tensor& grad, IntArrayRef in_shape, int64_t dim, int64_t start,
                      int64_t end, int64_t step);

/// The shape `shape` with a -1 entry resolved against numel; errors name `op`.
DimVector infer_shape(IntArrayRef shape, int64_t numel, const char* op);

}  // namespace ember
