#pragma once
// The convolutions of torch.nn.functional that Ember composes of its 2-D ones (ember/ops/conv.h),
// so autograd gives every gradient, to any order:
// - conv3d: a 3-D cross-correlation is the sum over the kernel's depth taps of 2-D ones on strided
//   depth slices; the kD slices are stacked along the channels (group by group) and every output
//   depth goes into the batch, so one conv2d does it all. input [N, C, D, H, W] (or [C, D, H, W]),
//   weight [O, C / groups, kD, kH, kW], bias [O] or undefined.
// - conv_transpose1d: conv_transpose2d over a 1 x L plane; weight [Cin, Cout / groups, k].
// - conv_transpose3d: every input depth slice goes into the batch and the depth taps along the
//   output channels, so one conv_transpose2d gives each (tap, input depth) plane; an index_add puts
//   plane (kd, d) at output depth d stride + kd dilation - padding. weight [Cin, Cout / groups, kD,
//   kH, kW].
#include "ember/core/size3.h"
#include "ember/core/tensor.h"
#include "ember/ops/conv.h"

namespace ember::nn::functional {

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), Size3 stride = 1,
              Size3 padding = 0, Size3 dilation = 1, int64_t groups = 1);
/// conv3d with padding by name ("valid", or "same" for stride 1: the extra unit after).
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size3 stride, PaddingRule padding,
              Size3 dilation = 1, int64_t groups = 1);
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), int64_t stride = 1,
                        int64_t padding = 0, int64_t output_padding = 0, int64_t groups = 1, int64_t dilation = 1);
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), Size3 stride = 1,
                        Size3 padding = 0, Size3 output_padding = 0, int64_t groups = 1, Size3 dilation = 1);

/// The (before, after) padding per dim that "same" stands for: dilation (kernel - 1) in all, the
/// odd unit after, as PyTorch puts it.
std::vector<std::pair<int64_t, int64_t>> same_padding_sides(IntArrayRef kernel, IntArrayRef dilation);
/// The output_padding that makes a transposed convolution's spatial output `size` (checked within
/// the stride - 1 (or dilation - 1) sizes the other options allow); `op` names the layer.
std::vector<int64_t> output_padding_for(const char* op, IntArrayRef input_spatial, IntArrayRef size, IntArrayRef kernel,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation);

}  // namespace ember::nn::functional
