#pragma once
// 2-D convolution (cross-correlation, as in PyTorch) by im2col + GEMM. Input [N, C, H, W] or
// unbatched [C, H, W], weight [O, C / groups, kH, kW], optional bias [O]; output
// [N, O, (H + 2 pH - dH (kH - 1) - 1) / sH + 1, (same for W)]. Differentiable in input, weight and
// bias, to any order (the gradients are convolutions again).
// conv2d(x, w, b, /*stride=*/2, /*padding=*/1) is declared from the op table
// (ember/ops/functions.h); bias may be an undefined Tensor().
#include "ember/core/kernels/conv.h"
#include "ember/ops/functions.h"

namespace ember {

namespace detail {
/// The gradient of conv2d with respect to its input [N, C, H, W] (`input_shape`), given the
/// output gradient: a transposed convolution. Differentiable in grad_out and weight.
Tensor conv2d_input_backward(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_shape,
                             const Conv2dParams& p);
/// The gradient of conv2d with respect to its weight (`weight_shape`). Differentiable in grad_out
/// and input.
Tensor conv2d_weight_backward(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_shape,
                              const Conv2dParams& p);
}  // namespace detail

}  // namespace ember
