#pragma once
// 2-D convolutions (forward and both gradients) on oneDNN's primitives, by one
// of two algorithms:
//  - Winograd: float32 3x3 stride-1 convolutions with 32 or more channels,
//  through the
//    jit_wino_4x3 kernels oneDNN has for AVX-512 machines: 4x fewer multiplies
//    than im2col + GEMM. The rounding differs from the direct sum's: about 2e-6
//    of the output's largest magnitude, against 3e-7 (bench/README.md).
//    set_conv_winograd(false) (core/kernels/conv.h) turns it off.
//  - Direct: any geometry (stride, padding, dilation, groups) in float32 or
//  bfloat16. bfloat16 reads
//    16-bit operands, accumulates in float32 and rounds once (the weight
//    gradient's sum over the batch too), on the AVX512_BF16 and AMX kernels;
//    onednn_conv_native says where the machine has them. float16 has no oneDNN
//    CPU kernel in the version Debian ships.
// Each pass is cut over Ember's threads by samples, or for small batches by
// channels, each chunk single-threaded inside oneDNN (which then never starts
// an OpenMP thread: see gemm.cpp). Each function returns false, having written
// nothing, where the algorithm does not suit the dtype, the geometry or the
// machine; the caller then takes im2col (widened, for 16-bit dtypes).
#include "ember/core/dtype.h"
#include "ember/core/kernels/conv.h"

namespace ember::cpu {

enum class ConvAlgorithm { Winograd, Direct };

bool onednn_conv2d(ConvAlgorithm algorithm, const Tensor& out, const Tensor& input, const Tensor& weight,
                   const Tensor& bias, const Conv2dParams& p);
bool onednn_conv2d_input_grad(ConvAlgorithm algorithm, const Tensor& grad_input, const Tensor& grad_out,
                              const Tensor& weight, const Conv2dParams& p);
bool onednn_conv2d_weight_grad(ConvAlgorithm algorithm, const Tensor& grad_weight, const Tensor& grad_out,
                               const Tensor& input, const Conv2dParams& p);

/// Whether the direct algorithm takes `dtype` on this machine: float32
/// everywhere oneDNN has a kernel (which only tests route there: the code path
/// the bfloat16 one shares), bfloat16 where the CPU has AVX512_BF16.
bool onednn_conv_native(DType dtype);

/// For tests: lets bfloat16 take the direct algorithm on any kernel oneDNN has,
/// where the machine lacks bfloat16 instructions: AVX-512 machines emulate them
/// (oneDNN has no bfloat16 convolution at all, not even its reference one,
/// without AVX-512). Off by default: the emulated and reference kernels are
/// slower than widening to float32.
void set_onednn_conv_any_kernel(bool allowed);

}  // namespace ember::cpu
