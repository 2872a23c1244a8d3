#pragma once
// Two gradients the composite ops (ops/*_composite.cpp) share, where PyTorch's derivative is not
// the one autograd would find through the composition.
#include <functional>
#include <initializer_list>

#include "ember/core/tensor.h"

namespace ember::detail {

/// result, made to depend on each of `tensors` that requires grad with a zero gradient: PyTorch's
/// ops whose derivative is zero (heaviside's input, cdist with p = 0) give zeros, not None, and
/// the result requires grad when they do. Integer results and no-grad mode: result as it is.
Tensor with_zero_grad(Tensor result, std::initializer_list<std::reference_wrapper<const Tensor>> tensors);

/// where(keep, x, other) for a number `other`, with the gradient grad * keep (nan_to_num's and
/// nansum's): an infinite or NaN gradient stays NaN where x was replaced (where's would be 0).
Tensor keep_where(const Tensor& x, const Tensor& keep, Scalar other);

}  // namespace ember::detail
