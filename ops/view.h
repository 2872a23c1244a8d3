#pragma once
// Shape ops. Views share storage with their input (reshape when the layout allows, view, permute,
// transpose, expand, squeeze/unsqueeze, slice/narrow, select); contiguous() and reshape of an
// incompatible layout copy. Gradients flow back through every one of them.
#include "ember/core/strided.h"  // as_strided_data, expand_data
#include "ember/core/tensor.h"

namespace ember {

/// Same data with a new shape; fails if the layout would need a copy. One entry may be -1.
Tensor view(const Tensor& t, IntArrayRef shape);
/// view() when possible, else a copy.
Tensor reshape(const Tensor& t, IntArrayRef shape);
Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor permute(const Tensor& t, IntArrayRef dims);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor contiguous(const Tensor& t);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
/// Broadcasts size-1 dims (and adds leading dims) without copying; -1 keeps a size.
Tensor expand(const Tensor& t, IntArrayRef shape);
/// Elements [start, end) in steps of `step` along dim (Python's t[start:end:step]).
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step = 1);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
/// Index `index` of dim, removing that dim.
Tensor select(const Tensor& t, int64_t dim, int64_t index);

/// Zeros of in_shape with `grad` at slice(dim, start, end, step): the gradient of slice.
Tensor slice_backward(const Tensor& grad, IntArrayRef in_shape, int64_t dim, int64_t start,
                      int64_t end, int64_t step);

/// The shape `shape` with a -1 entry resolved against numel; errors name `op`.
DimVector infer_shape(IntArrayRef shape, int64_t numel, const char* op);

}  // namespace ember
