#pragma once
// 2-D convolution (cross-correlation, as in PyTorch) by im2col + GEMM. Input [N, C, H, W] or
// unbatched [C, H, W], weight [O, C / groups, kH, kW], optional bias [O]; output
// [N, O, (H + 2 pH - dH (kH - 1) - 1) / sH + 1, (same for W)]. Differentiable in input, weight and
// bias, to any order (the gradients are convolutions again).
#include <cstdint>
#include <ostream>

#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// A (height, width) pair of sizes; one integer means both: Size2(2), Size2{1, 2}.
struct Size2 {
  int64_t h = 0, w = 0;
  Size2(int64_t both) : h(both), w(both) {}  // NOLINT: implicit, as PyTorch takes stride=2
  Size2(int64_t h_, int64_t w_) : h(h_), w(w_) {}
  bool operator==(const Size2&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Size2& s);  // "[h, w]"

/// Geometry of a convolution, for kernels (kernel size comes from the weight).
struct Conv2dParams {
  Size2 stride = 1, padding = 0, dilation = 1;
  int64_t groups = 1;
};

/// Kernel: out [N, O, oH, oW] = conv(input [N, C, H, W], weight, bias (undefined: none)); all
/// contiguous and of one floating dtype.
using Conv2dFn = void (*)(const Tensor& out, const Tensor& input, const Tensor& weight,
                          const Tensor& bias, const Conv2dParams& p);
/// Kernel: grad_input [N, C, H, W] (overwritten) from grad_out [N, O, oH, oW] and weight.
using Conv2dInputGradFn = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                   const Tensor& weight, const Conv2dParams& p);
/// Kernel: grad_weight [O, C / groups, kH, kW] (overwritten) from grad_out and input.
using Conv2dWeightGradFn = void (*)(const Tensor& grad_weight, const Tensor& grad_out,
                                    const Tensor& input, const Conv2dParams& p);
EMBER_DECLARE_STUB(conv2d_stub, Conv2dFn);
EMBER_DECLARE_STUB(conv2d_input_grad_stub, Conv2dInputGradFn);
EMBER_DECLARE_STUB(conv2d_weight_grad_stub, Conv2dWeightGradFn);

/// conv2d(x, w, b, /*stride=*/2, /*padding=*/1); bias may be an undefined Tensor().
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              Size2 stride = 1, Size2 padding = 0, Size2 dilation = 1, int64_t groups = 1);

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
