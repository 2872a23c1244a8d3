#pragma once
// The poolings of torch.nn.functional that Ember composes of its 2-D ones (ember/ops/pool.h), so
// their gradients, to any order, are those ops': the 1-D ones pool a length L as a 1 x L plane; the
// 3-D ones pool every depth slice over (H, W), then the result along D as a D x (oH oW) plane with
// k x 1 windows (maxima and box sums are separable, and PyTorch's output sizes and divisors are
// per-dimension products, so the two passes give its values exactly); the power-average ones are
// avg_pool2d of x^p, as PyTorch computes them. Inputs are batched ([N, C, L], [N, C, D, H, W]) or
// not ([C, L], [C, D, H, W]); the positions of max_pool*_with_indices are flat in each channel's
// L or D x H x W, as PyTorch's.
#include <optional>
#include <tuple>

#include "ember/core/size2.h"
#include "ember/core/size3.h"
#include "ember/core/tensor.h"

namespace ember::nn::functional {

/// Window maxima along the last dim; stride defaults to kernel_size.
Tensor max_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride = std::nullopt,
                  int64_t padding = 0, int64_t dilation = 1, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, int64_t kernel_size,
                                                   std::optional<int64_t> stride = std::nullopt, int64_t padding = 0,
                                                   int64_t dilation = 1, bool ceil_mode = false);
/// Window means along the last dim; count_include_pad counts the zero padding in the divisor.
Tensor avg_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride = std::nullopt,
                  int64_t padding = 0, bool ceil_mode = false, bool count_include_pad = true);
/// Means (maxima) over output_size windows [floor(i L / out), ceil((i + 1) L / out)) tiling the last dim.
Tensor adaptive_avg_pool1d(const Tensor& input, int64_t output_size);
Tensor adaptive_max_pool1d(const Tensor& input, int64_t output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, int64_t output_size);

/// (sum over each window of x^p)^(1/p), PyTorch's power-average pooling (no padding).
Tensor lp_pool1d(const Tensor& input, double norm_type, int64_t kernel_size,
                 std::optional<int64_t> stride = std::nullopt, bool ceil_mode = false);
Tensor lp_pool2d(const Tensor& input, double norm_type, Size2 kernel_size, std::optional<Size2> stride = std::nullopt,
                 bool ceil_mode = false);
Tensor lp_pool3d(const Tensor& input, double norm_type, Size3 kernel_size, std::optional<Size3> stride = std::nullopt,
                 bool ceil_mode = false);

/// Window maxima over the last three dims.
Tensor max_pool3d(const Tensor& input, Size3 kernel_size, std::optional<Size3> stride = std::nullopt, Size3 padding = 0,
                  Size3 dilation = 1, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, Size3 kernel_size,
                                                   std::optional<Size3> stride = std::nullopt, Size3 padding = 0,
                                                   Size3 dilation = 1, bool ceil_mode = false);
/// Window means over the last three dims; divisor_override replaces the window's size as divisor.
Tensor avg_pool3d(const Tensor& input, Size3 kernel_size, std::optional<Size3> stride = std::nullopt, Size3 padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// Means (maxima) over the windows tiling D x H x W into output_size; a size of -1 keeps that dim's
/// (Python's None).
Tensor adaptive_avg_pool3d(const Tensor& input, Size3 output_size);
Tensor adaptive_max_pool3d(const Tensor& input, Size3 output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input, Size3 output_size);

}  // namespace ember::nn::functional
