#pragma once
// Winograd's F(4x4, 3x3) for float32 3x3 stride-1 convolutions, Ember's own, for machines where
// oneDNN has no Winograd kernel (AVX2: oneDNN 2.6's are AVX-512 only). Every 4x4 output tile is
// A^T [(G g G^T) . (B^T d B)] A, with d the 6x6 input patch (Lavin and Gray's matrices, points 0,
// +-1, +-2): 36 multiplies where the direct sum takes 144. Batched over tiles, each of the 36
// transformed positions is one GEMM over the channels (core/cpu/gemm.h), between transforms that
// stay in cache, a chunk of tile rows at a time:
//  - forward: out = winograd(input, weight);
//  - input gradient: the forward of grad_out with the weight turned 180 degrees and its channels
//    swapped, padded 2 - padding;
//  - weight gradient: per position, (A grad A^T) @ (B^T d B)^T summed over the tiles, then G^T . G.
// The transforms' coefficients (up to 8) cost precision: outputs and input gradients round within
// about 1.5e-5 of their largest magnitude, weight gradients 3.5e-6, where the direct sum gives 4e-7
// (set_conv_winograd(false) in core/kernels/conv.h keeps these layers off it).
// Each function returns false, having written nothing, where the algorithm does not apply: not
// float32 3x3 stride 1, dilation 1, one group, padding 0 to 2; planes or channel counts too small
// for it to pay (measured, conv_winograd.cpp); an operand with an inf or NaN, or large enough that
// the transforms' sums could overflow where the direct sum does not (PyTorch's answers then come
// from im2col or the direct kernels, which the caller takes).
#include "ember/core/kernels/conv.h"

namespace ember::cpu {

bool winograd_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Conv2dParams& p);
bool winograd_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                const Conv2dParams& p);
bool winograd_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                                 const Conv2dParams& p);

/// Whether an F(4x4, 3x3) Winograd product of these float32 operands can be inf or NaN only where
/// the direct sum is: neither holds an inf or NaN, and their magnitudes, multiplied, summed over
/// `channels` and grown by the transforms (by up to 36100), stay in float range. x is the input
/// (the output gradient for the input gradient's product). Also gates oneDNN's kernels.
bool winograd_product_in_range(const Tensor& x, const Tensor& weight, int64_t channels);
/// The same for the weight gradient of input x [N, C, H, W] and grad_out [N, K, oH, oW], summed
/// over N * ceil(oH / 4) * ceil(oW / 4) tiles of 36 positions (grown by up to 62500).
bool winograd_weight_grad_in_range(const Tensor& x, const Tensor& grad_out);

}  // namespace ember::cpu
