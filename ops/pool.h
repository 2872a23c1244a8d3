#pragma once
// 2-D pooling over the last two dims of [N, C, H, W] or unbatched [C, H, W] floating tensors, with
// PyTorch's output sizes: (H + 2 pad - dilation (k - 1) - 1) / stride + 1, rounded up with
// ceil_mode (a last window must then still start inside the input or its left padding).
// max_pool2d propagates NaN and takes the first maximum of a window; its gradient goes to that
// element. Each op is differentiable to any order.
#include <optional>
#include <tuple>

#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"
#include "ember/ops/conv.h"  // Size2

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
/// contiguous input [N, C, H, W].
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

/// Window maxima: max_pool2d(x, 2) halves H and W. stride defaults to kernel_size; padding (at
/// most half the kernel) is never the maximum.
Tensor max_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride = std::nullopt,
                  Size2 padding = 0, Size2 dilation = 1, bool ceil_mode = false);
/// max_pool2d and the int64 position of each maximum, flat in its H x W plane (PyTorch's
/// return_indices=True).
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, Size2 kernel_size,
                                                   std::optional<Size2> stride = std::nullopt,
                                                   Size2 padding = 0, Size2 dilation = 1,
                                                   bool ceil_mode = false);
/// Window means. count_include_pad counts zero padding in the divisor; divisor_override replaces it.
Tensor avg_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride = std::nullopt,
                  Size2 padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// Means over output_size windows that tile the input: adaptive_avg_pool2d(x, 1) is global
/// average pooling.
Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size);

}  // namespace ember
