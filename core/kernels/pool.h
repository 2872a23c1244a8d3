#pragma once
// The kernel contract of 2-D max and average pooling, forward and backward (ops/pool.h). Ops call
// these stubs; each backend (core/cpu/, cuda/) registers its kernels into them.
#include <optional>

#include "ember/core/dispatch.h"
#include "ember/core/size2.h"
#include "ember/core/tensor.h"

namespace ember {

/// Geometry of a pooling, for kernels. `adaptive`: windows [floor(i H / oH), ceil((i + 1) H / oH))
/// and the kernel/stride/padding fields unused.
struct Pool2dParams {
  Size2 kernel = 1, stride = 1, padding = 0, dilation = 1;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;
  bool adaptive = false;
};

/// Kernel: out and indices [N, C, oH, oW] (indices int64, flat into each H x W plane) from the
/// contiguous input [N, C, H, W] (adaptive or not).
using MaxPool2dFn = void (*)(const Tensor& out, const Tensor& indices, const Tensor& input,
                             const Pool2dParams& p);
/// Kernel: grad_input [N, C, H, W] (overwritten) = grad_out scattered (summed) to `indices`.
using MaxPool2dBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                     const Tensor& indices);
/// Kernel: out [N, C, oH, oW] = window means of the contiguous input (adaptive or not).
using AvgPool2dFn = void (*)(const Tensor& out, const Tensor& input, const Pool2dParams& p);
/// Kernel: grad_input (overwritten) = the adjoint of AvgPool2dFn applied to grad_out.
using AvgPool2dBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                     const Pool2dParams& p);
EMBER_DECLARE_STUB(max_pool2d_stub, MaxPool2dFn);
EMBER_DECLARE_STUB(max_pool2d_backward_stub, MaxPool2dBackwardFn);
EMBER_DECLARE_STUB(avg_pool2d_stub, AvgPool2dFn);
EMBER_DECLARE_STUB(avg_pool2d_backward_stub, AvgPool2dBackwardFn);

}  // namespace ember
