#pragma once
// Loss functions (torch.nn.functional's), built from differentiable ops so they need no backward
// of their own.
#include <string>

#include "ember/core/tensor.h"

namespace ember::nn::functional {

enum class Reduction { None, Mean, Sum };

/// -log_softmax(input)[target] for input [N, C] (or [N, C, d...], or one sample [C]) and int64
/// class indices [N] ([N, d...], or 0-d). Targets equal to ignore_index contribute nothing and are
/// not counted by Mean. label_smoothing mixes in the uniform distribution over the C classes.
/// weight ([C], optional) weighs each class; Mean then divides by the weights of the counted
/// targets. A floating target of input's shape holds class probabilities instead (Mean divides by
/// the number of positions; ignore_index must stay negative). PyTorch's formulas throughout.
Tensor cross_entropy(const Tensor& input, const Tensor& target, int64_t ignore_index = -100,
                     Reduction reduction = Reduction::Mean, double label_smoothing = 0.0,
                     const Tensor& weight = Tensor());
/// -weight[target] * input[target] for log-probabilities input [N, C] (or [N, C, d...], or [C]);
/// weight as in cross_entropy.
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int64_t ignore_index = -100,
                Reduction reduction = Reduction::Mean, const Tensor& weight = Tensor());
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
/// 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                      double beta = 1.0);
/// Sigmoid and binary cross entropy in one numerically stable expression; pos_weight (optional,
/// broadcast over the last dim) weighs the positive term, weight (optional, broadcast) each
/// element's loss.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& pos_weight = Tensor(),
                                        Reduction reduction = Reduction::Mean, const Tensor& weight = Tensor());

}  // namespace ember::nn::functional
