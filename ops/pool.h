#pragma once
// 2-D pooling over the last two dims of [N, C, H, W] or unbatched [C, H, W] floating tensors, with
// PyTorch's output sizes: (H + 2 pad - dilation (k - 1) - 1) / stride + 1, rounded up with
// ceil_mode (a last window must then still start inside the input or its left padding).
// max_pool2d propagates NaN and takes the first maximum of a window; its gradient goes to that
// element. Each op is differentiable to any order.
#include <optional>
#include <tuple>

#include "ember/core/kernels/pool.h"
#include "ember/core/tensor.h"

namespace ember {

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
