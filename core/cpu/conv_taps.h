#pragma once
// Convolutions into tiny planes (the last stages of a ResNet at small inputs: 1x1 and 2x2 feature
// maps) as sums of products over the whole batch, one per output position and kernel tap that
// reads inside the input: out[:, :, p] += x[:, :, q] @ w[:, :, t]^T, [N, C] @ [C, O]. A 3x3 layer
// with padding 1 on a 1x1 plane is then its centre tap alone, one GEMM, where im2col and oneDNN's
// direct kernels multiply the padding's zeros by the other eight (and make a thin product per
// sample). The input gradient and the weight gradient are the same sums transposed; a tap that
// reads only padding gets a zero weight gradient.
// Each function returns false, having written nothing, where the path does not apply or does not
// pay (measured, conv_taps.cpp): grouped convolutions, dtypes other than float32, 1x1 kernels
// (conv_kernel.cpp's own paths do better), output planes of more than one position (more than 4
// for the weight gradient), batches under 16 unless the padding leaves at most a quarter of the
// products.
// NB: like oneDNN's direct kernels, these sums leave the padding out, so the caller
// (conv_kernel.cpp) keeps an inf or NaN weight (forward) or output gradient (weight gradient) off
// them where there is padding: the definition's zeros times inf make NaN there (im2col's answer).
#include "ember/core/kernels/conv.h"

namespace ember::cpu {

/// Whether the path takes a convolution of this input and weight into an out_h x out_w plane, for
/// the forward and input gradient or for the weight gradient (the functions below also check it;
/// callers ask first to skip their finiteness checks elsewhere).
bool taps_suit(const Tensor& input, const Tensor& weight, int64_t out_h, int64_t out_w, const Conv2dParams& p,
               bool weight_grad);

bool taps_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const Conv2dParams& p);
bool taps_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                            const Conv2dParams& p);
bool taps_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                             const Conv2dParams& p);

}  // namespace ember::cpu
