#pragma once
// Loss functions (torch.nn.functional's), built from differentiable ops so they need no backward
// of their own.
#include <string>

#include "ember/core/tensor.h"

namespace ember::nn::functional {

enum class Reduction { None, Mean, Sum };

/// -log_softmax(input)[target] for input [N, C] (or [N, C, d...]) and int64 class indices [N]
/// ([N, d...]). Targets equal to ignore_index contribute nothing and are not counted by Mean.
/// label_smoothing mixes in the uniform distribution over the C classes.
Tensor cross_entropy(const Tensor& input, const Tensor& target, int64_t ignore_index = -100,
                     Reduction reduction = Reduction::Mean, double label_smoothing = 0.0);
/// -input[target] for log-probabilities input [N, C] (or [N, C, d...]).
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int64_t ignore_index = -100,
                Reduction reduction = Reduction::Mean);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
/// 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                      double beta = 1.0);
/// Sigmoid and binary cross entropy in one numerically stable expression; pos_weight (optional,
/// broadcast over the last dim) weighs the positive term.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& pos_weight = Tensor(),
                                        Reduction reduction = Reduction::Mean);

}  // namespace ember::nn::functional
