#pragma once
// Reductions over dimensions: sum, mean, amax, amin, max, min, argmax, argmin, var, std,
// logsumexp, norm (declared from the op table, ember/ops/functions.h). An empty `dim` reduces every
// dimension (sum(x, {0}) of a [B, N] tensor is the [N] column sum); keepdim leaves reduced dims in
// place with size 1; dims may be negative; a 0-d tensor accepts dim 0 or -1. Integer and bool sums
// accumulate in int64, as in PyTorch. NaN propagates through max/min/amax/amin.
#include "ember/core/kernels/reduce.h"
#include "ember/ops/functions.h"

namespace ember {

/// Sums `t` down to `shape` (the inverse of broadcasting `shape` to t's shape): how broadcast
/// ops reduce their gradients.
Tensor sum_to(const Tensor& t, IntArrayRef shape);

/// Sorted unique wrapped dims; empty `dims` means all of them. Errors name `op`.
DimVector reduction_dims(IntArrayRef dims, int64_t ndim, const char* op);
/// t's shape with `dims` removed (keepdim=false) or set to 1 (keepdim=true).
DimVector reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim);
/// Reshapes a gradient of a reduction back to keepdim form so it broadcasts against the input.
Tensor unsqueeze_reduced(const Tensor& grad, IntArrayRef in_sizes, IntArrayRef dims, bool keepdim);

}  // namespace ember
