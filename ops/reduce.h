#pragma once
// Reductions over dimensions. An empty `dims` reduces every dimension; keepdim leaves reduced
// dims in place with size 1. Integer and bool sums accumulate in int64, as in PyTorch.
#include <optional>
#include <tuple>

#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

enum class ReduceOp : uint8_t { Sum, Max, Min };
/// Kernel: out (contiguous, input's shape with `dims` set to 1) = op over `dims` of in.
/// `dims` is sorted, unique and non-empty; in has out's dtype.
using ReduceFn = void (*)(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims);
EMBER_DECLARE_STUB(reduce_stub, ReduceFn);

Tensor sum(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false);
/// Floating tensors only.
Tensor mean(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false);
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
