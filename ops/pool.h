#pragma once
// 2-D pooling (max_pool2d, max_pool2d_with_indices, avg_pool2d, adaptive_avg_pool2d,
// adaptive_max_pool2d, adaptive_max_pool2d_with_indices: declared from the op table,
// ember/ops/functions.h) over the last two dims of [N, C, H, W] or unbatched [C, H, W] floating
// tensors, with PyTorch's output sizes: (H + 2 pad - dilation (k - 1) - 1) / stride + 1, rounded up
// with ceil_mode (a last window must then still start inside the input or its left padding).
// max_pool2d propagates NaN and takes the first maximum of a window; its gradient goes to that
// element. The adaptive ops pool over windows [floor(i H / oH), ceil((i + 1) H / oH)) that tile the
// input (overlapping where oH does not divide H; output_size may exceed the input's). Each op is
// differentiable to any order.
#include "ember/core/kernels/pool.h"
#include "ember/ops/functions.h"
