#pragma once
// Functional batch and layer normalization, as torch.nn.functional.batch_norm / layer_norm. Both
// run fused CPU kernels forward and backward (the gradient of input, weight and bias from one
// reduction and one elementwise pass); when a graph of the gradient is being built
// (create_graph) the backward is written with differentiable ops instead, so second derivatives
// work.
#include "ember/core/kernels/normalization.h"
#include "ember/core/tensor.h"

namespace ember {

/// Normalizes each channel (dim 1) of an [N, C] or [N, C, *] input: (x - mean) / sqrt(var + eps)
/// * weight + bias. Training uses the batch statistics (biased variance) and updates
/// running_mean / running_var in place (no grad, version bumped) with the unbiased variance:
/// running = (1 - momentum) * running + momentum * batch. Evaluation uses the running statistics.
/// weight, bias and the running statistics ([C]) may be undefined Tensors (in evaluation the
/// running statistics are required). Differentiable in input, weight and bias.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);

/// Normalizes over the last normalized_shape.size() dims (which must equal normalized_shape):
/// (x - mean) / sqrt(var + eps) * weight + bias with the biased variance; weight and bias have
/// normalized_shape and may be undefined. Differentiable in input, weight and bias.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

}  // namespace ember
