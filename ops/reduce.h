#pragma once
// Reductions over dimensions. An empty `dims` reduces every dimension; keepdim leaves reduced
// dims in place with size 1; dims may be negative; a 0-d tensor accepts dim 0 or -1. Integer and
// bool sums accumulate in int64, as in PyTorch. NaN propagates through max/min/amax/amin.
#include <optional>
#include <tuple>

#include "ember/core/kernels/reduce.h"
#include "ember/core/tensor.h"

namespace ember {

/// Sum over dims: sum(x, {0}) of a [B, N] tensor is the [N] column sum.
Tensor sum(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false);
/// Floating tensors only.
Tensor mean(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false);
/// Maximum / minimum over dims (values only). The gradient is shared evenly among the elements
/// equal to the result, as in PyTorch.
Tensor amax(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false);
/// The largest / smallest element as a 0-d tensor (amax over all dims); empty tensors refused.
Tensor max(const Tensor& t);
Tensor min(const Tensor& t);
/// (values, int64 indices) of the max / min along dim, PyTorch's torch.max(t, dim). The first
/// maximum wins ties; the gradient goes to the element at the index.
std::tuple<Tensor, Tensor> max(const Tensor& t, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim = false);
/// Index (int64) of the max / min along dim, or into the flattened tensor when dim is omitted.
Tensor argmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
/// Variance sum((x - mean)^2) / (N - correction) over dims (correction 1: unbiased). Floating.
Tensor var(const Tensor& t, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false);
/// sqrt(var(...)).
Tensor std(const Tensor& t, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false);
/// log(sum(exp(t))) over dims, computed as m + log(sum(exp(t - m))) with m the max so that it
/// neither overflows nor underflows. Integer inputs give float32.
Tensor logsumexp(const Tensor& t, IntArrayRef dims, bool keepdim = false);
/// Vector p-norm over dims (all by default): p = 2, 1, inf, -inf (min |x|), 0 (count of nonzeros)
/// or any other p, (sum |x|^p)^(1/p). Floating. Where the norm is 0 the gradient is 0 (not NaN).
Tensor norm(const Tensor& t, double p = 2, IntArrayRef dims = {}, bool keepdim = false);

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
