#pragma once
// Convolutions (cross-correlations, as in PyTorch) by im2col + GEMM.
//
// conv2d: input [N, C, H, W] or unbatched [C, H, W], weight [O, C / groups, kH, kW], optional bias
// [O]; output [N, O, (H + 2 pH - dH (kH - 1) - 1) / sH + 1, (same for W)]. conv1d is conv2d of
// [N, C, 1, L] (input [N, C, L] or [C, L], weight [O, C / groups, k]). Both also take padding by
// name (PaddingRule, PyTorch's padding="valid" | "same").
//
// conv_transpose2d: the adjoint of conv2d in its input, as torch.nn.functional.conv_transpose2d:
// input [N, Cin, H, W] (or [Cin, H, W]), weight [Cin, Cout / groups, kH, kW], output
// [N, Cout, (H - 1) sH - 2 pH + dH (kH - 1) + output_padding + 1, (same for W)].
//
// All are differentiable in input, weight and bias, to any order (their gradients are
// convolutions again). conv2d(x, w, b, /*stride=*/2, /*padding=*/1) and the others are declared
// from the op table (ember/ops/functions.h); bias may be an undefined Tensor().
#include <string_view>

#include "ember/core/kernels/conv.h"
#include "ember/ops/functions.h"

namespace ember {

/// Padding by name, as PyTorch's padding="valid" (none) and padding="same" (the output as large as
/// the input, for stride 1 only; an odd total puts the extra row or column at the bottom/right).
/// NB: an enum rather than a string, so that conv2d(x, w, b, 1, 0) stays unambiguous.
enum class PaddingRule { Valid, Same };

/// The rule PyTorch spells `name` ("valid" or "same"); `op` names the caller in the error.
PaddingRule padding_rule(std::string_view name, const char* op);
/// "valid" or "same".
const char* padding_rule_name(PaddingRule rule);

/// conv2d(x, w, b, 1, PaddingRule::Same): padding by name.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride, PaddingRule padding,
              Size2 dilation = 1, int64_t groups = 1);
/// conv1d(x, w, b, 1, PaddingRule::Same): padding by name.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, PaddingRule padding,
              int64_t dilation = 1, int64_t groups = 1);

/// The explicit padding "same" stands for with this kernel and dilation: `padding` before, and
/// `extra_padding` (0 or 1) after on top of it (so the total is dilation * (kernel - 1)).
Conv2dParams same_padding(Size2 kernel, Size2 dilation);

namespace detail {
/// The gradient of conv2d with respect to its input [N, C, H, W] (`input_shape`), given the
/// output gradient: a transposed convolution. Differentiable in grad_out and weight.
Tensor conv2d_input_backward(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_shape,
                             const Conv2dParams& p);
/// The gradient of conv2d with respect to its weight (`weight_shape`). Differentiable in grad_out
/// and input.
Tensor conv2d_weight_backward(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_shape,
                              const Conv2dParams& p);
/// The recorded conv2d of a checked 4-D input.
Tensor conv2d_4d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p);
}  // namespace detail

}  // namespace ember
