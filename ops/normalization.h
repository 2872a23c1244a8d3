#pragma once
// Functional batch and layer normalization, as torch.nn.functional.batch_norm / layer_norm
// (declared from the op table, ember/ops/functions.h). Both run fused CPU kernels forward and
// backward (the gradient of input, weight and bias from one reduction and one elementwise pass);
// when a graph of the gradient is being built (create_graph) the backward is written with
// differentiable ops instead, so second derivatives work.
//
// batch_norm normalizes each channel (dim 1) of an [N, C] or [N, C, *] input: (x - mean) /
// sqrt(var + eps) * weight + bias. Training uses the batch statistics (biased variance) and updates
// running_mean / running_var in place (no grad, version bumped) with the unbiased variance:
// running = (1 - momentum) * running + momentum * batch. Evaluation uses the running statistics.
// weight, bias and the running statistics ([C]) may be undefined Tensors (in evaluation the running
// statistics are required). layer_norm normalizes over the last normalized_shape.size() dims (which
// must equal normalized_shape) with the biased variance; weight and bias have normalized_shape and
// may be undefined. Both are differentiable in input, weight and bias.
#include <functional>
#include <initializer_list>

#include "ember/core/kernels/normalization.h"
#include "ember/ops/functions.h"

namespace ember::detail {
/// A 16-bit input whose defined parameters are all float32 (a float32 model's norm layer fed a
/// 16-bit activation, as under autocast): PyTorch's CPU norms take it, computing in float32 and
/// rounding the output once to the input's dtype; the norms here then do the same.
bool float32_params_of_16bit_input(const Tensor& input, std::initializer_list<std::reference_wrapper<const Tensor>> params);
/// batch_norm after its argument checks, also with a single value per channel (whose variance is
/// 0): group_norm and instance_norm run through it. A running update then needs more than one.
Tensor batch_norm_checked(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                          const Tensor& weight, const Tensor& bias, bool training, double momentum, double eps);
}  // namespace ember::detail
