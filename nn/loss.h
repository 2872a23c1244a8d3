#pragma once
// Loss functions (torch.nn.functional's), built from differentiable ops so they need no backward
// of their own.
#include <string>

#include "ember/core/tensor.h"

namespace ember::nn::functional {

/// How a loss reduces its elementwise values: kept, averaged, summed; BatchMean (kl_div's only)
/// sums and divides by the batch size, the mathematically right KL divergence.
enum class Reduction { None, Mean, Sum, BatchMean };

/// "none", "mean", "sum" (and "batchmean"), PyTorch's names; an unknown one is a ValueError naming
/// `op` and the name.
Reduction reduction_from_string(const std::string& name, const char* op = "loss");
const char* reduction_name(Reduction reduction);
/// The loss reduced as `reduction` says (BatchMean refused: only kl_div takes it).
Tensor reduce_loss(const Tensor& loss, Reduction reduction);

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

/// -(t log(p) + (1 - t) log(1 - p)) for probabilities p and targets t of one shape, each log
/// clamped at -100; PyTorch's gradient (p - t) / max(p (1 - p), 1e-12). Values outside [0, 1] are
/// refused. weight (optional, broadcast) weighs each element.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                            Reduction reduction = Reduction::Mean);
/// 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target (broadcast); the
/// gradient clamp(d, -delta, delta), as PyTorch's (delta, not NaN, at an infinite target).
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean, double delta = 1.0);
/// KL(target || exp(input)) pointwise: target (log target - input), 0 where target is 0 (with
/// log_target: exp(target) (target - input)). Takes Reduction::BatchMean.
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
              bool log_target = false);
/// exp(input) - target input (log_input), else input - target log(input + eps); full adds
/// Stirling's approximation of log(target!) where target > 1.
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true, bool full = false,
                        double eps = 1e-8, Reduction reduction = Reduction::Mean);
/// 0.5 (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) with full), var clamped to eps in
/// value only; var is input's shape, or lacks its last dim, or has it 1. A negative var is refused.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, Reduction reduction = Reduction::Mean);

}  // namespace ember::nn::functional
