#pragma once
// The kernel contract of 2-D convolution forward and its two gradients (ops/conv.h). Ops call these
// stubs; each backend (core/cpu/, cuda/) registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/size2.h"
#include "ember/core/tensor.h"

namespace ember {

/// Geometry of a convolution, for kernels (kernel size comes from the weight). `padding` is added
/// before the first row/column and after the last; `extra_padding` after the last only, on top of
/// it: 1 for padding="same" with an even total, and negative (trailing rows/columns left unread)
/// for a transposed convolution's output_padding. Kernels take the output size from their
/// tensors, so only the ops' shape computations read `extra_padding`.
struct Conv2dParams {
  Size2 stride = 1, padding = 0, dilation = 1;
  int64_t groups = 1;
  Size2 extra_padding = 0;
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

/// Whether the CPU's float32 3x3 stride-1 convolutions may use Winograd's F(4x4, 3x3): oneDNN's
/// kernels on AVX-512 from 32 channels (core/cpu/conv_onednn.h), Ember's own elsewhere from 64
/// (core/cpu/conv_winograd.h). 4x fewer multiplies; rounding differences of about 2e-6 (oneDNN's)
/// or 1.5e-5 (Ember's) of the output's scale instead of 4e-7. On by default; process-wide.
void set_conv_winograd(bool enabled);
bool conv_winograd();
EMBER_DECLARE_STUB(conv2d_input_grad_stub, Conv2dInputGradFn);
EMBER_DECLARE_STUB(conv2d_weight_grad_stub, Conv2dWeightGradFn);

}  // namespace ember
