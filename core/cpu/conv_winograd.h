#pragma once
// float32 2-D convolutions by Winograd's minimal filtering, F(4x4, 3x3), through oneDNN's
// jit_wino_4x3 kernels, which it has for AVX-512 machines: 4x fewer multiplies than
// im2col + GEMM for the 3x3, stride-1 convolutions that make up most of a ResNet. Each pass is
// cut over the threads by samples, or for small images by channels, each chunk single-threaded
// inside oneDNN (which never starts an OpenMP thread: see gemm.cpp). The rounding
// differs from the direct sum's: about 2e-6 of the output's largest magnitude, against 3e-7
// (bench/README.md). set_conv_winograd(false) (core/kernels/conv.h) keeps every convolution on
// im2col. Each function returns false, having written nothing, where the dtype, the geometry, the
// channel counts or the machine do not suit; the caller then takes the im2col path.
#include "ember/core/kernels/conv.h"

namespace ember::cpu {

bool winograd_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Conv2dParams& p);
bool winograd_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                const Conv2dParams& p);
bool winograd_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                                 const Conv2dParams& p);

}  // namespace ember::cpu
