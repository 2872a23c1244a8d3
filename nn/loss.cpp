#include "ember/nn/loss.h"

#include <limits>

#include "ember/core/factory.h"
#include "ember/ops/activation.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/convert.h"
#include "ember/ops/index.h"
#include "ember/ops/reduce.h"
#include "ember/ops/softmax.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember::nn::functional {
namespace {

Tensor reduce(const Tensor& loss, Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Sum: return sum(loss);
    case Reduction::Mean: return mean(loss);
  }
  return loss;
}

void check_same_shape(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_VALUE(input.sizes() == target.sizes(), op, ": input of shape ", input.sizes(),
                    " and target of shape ", target.sizes(), " differ");
}

// Checks [N, C, d...] against [N, d...] and returns the per-element -log p[target] with ignored
// positions zeroed, plus the float mask of counted positions.
std::pair<Tensor, Tensor> picked_nll(const Tensor& log_probs, const Tensor& target, int64_t ignore_index,
                                     const char* op) {
  EMBER_CHECK_VALUE(log_probs.dim() >= 2, op, ": input must be [N, C] or [N, C, d...], got ",
                    log_probs.sizes());
  EMBER_CHECK_TYPE(target.dtype() == kInt64 || target.dtype() == kInt32, op,
                   ": target must hold class indices (int64), got ", target.dtype());
  DimVector expected = log_probs.sizes().vec();
  expected.erase(expected.begin() + 1);
  EMBER_CHECK_VALUE(target.sizes() == IntArrayRef(expected), op, ": target of shape ", target.sizes(),
                    " does not match input of shape ", log_probs.sizes(), " (expected ",
                    IntArrayRef(expected), ")");
  Tensor idx = target.to(kInt64);
  Tensor keep = ne(idx, ignore_index);
  Tensor safe = where(keep, idx, scalar_tensor(0, kInt64));
  int64_t classes = log_probs.size(1);
  Tensor bad = logical_and(keep, logical_or(lt(safe, 0), ge(safe, classes)));
  if (sum(bad.to(kInt64)).item<int64_t>() != 0) {
    const int64_t at = argmax(reshape(bad.to(kInt64), {-1})).item<int64_t>();
    EMBER_CHECK_INDEX(false, op, ": target ", reshape(idx, {-1}).select(0, at).item<int64_t>(),
                      " (element ", at, ") is out of range for ", classes, " classes; expected a class in [0, ",
                      classes, ") or ignore_index ", ignore_index);
  }
  Tensor picked = squeeze(gather(log_probs, 1, unsqueeze(safe, 1)), 1);
  Tensor mask = keep.to(log_probs.dtype());
  return {neg(picked) * mask, mask};
}

Tensor masked_reduce(const Tensor& loss, const Tensor& mask, Reduction reduction) {
  if (reduction != Reduction::Mean) return reduce(loss, reduction);
  // NB: when every target is ignored the mean is 0/0, NaN, as in PyTorch, but its gradient must be
  // 0 (PyTorch's), not 0 * (1/0). The count is read on the host (picked_nll has already synced for
  // its range check), which keeps the common case at one division.
  const double count = sum(mask).item<double>();
  if (count == 0) return sum(loss) * 0.0 + std::numeric_limits<double>::quiet_NaN();
  return sum(loss) / count;
}

}  // namespace

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int64_t ignore_index, Reduction reduction) {
  auto [loss, mask] = picked_nll(log_probs, target, ignore_index, "nll_loss");
  return masked_reduce(loss, mask, reduction);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, int64_t ignore_index, Reduction reduction,
                     double label_smoothing) {
  EMBER_CHECK_VALUE(label_smoothing >= 0.0 && label_smoothing <= 1.0,
                    "cross_entropy: label_smoothing must be in [0, 1], got ", label_smoothing);
  EMBER_CHECK_VALUE(input.dim() >= 2, "cross_entropy: input must be [N, C] or [N, C, d...], got ",
                    input.sizes());
  Tensor log_probs = log_softmax(input, 1);
  auto [loss, mask] = picked_nll(log_probs, target, ignore_index, "cross_entropy");
  if (label_smoothing > 0.0) {
    // The uniform part: the mean over classes of -log p, on counted positions only.
    double classes = static_cast<double>(input.size(1));
    Tensor smooth = neg(sum(log_probs, {1})) * mask / classes;
    loss = loss * (1.0 - label_smoothing) + smooth * label_smoothing;
  }
  return masked_reduce(loss, mask, reduction);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_same_shape(input, target, "mse_loss");
  Tensor d = input - target;
  return reduce(d * d, reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_same_shape(input, target, "l1_loss");
  return reduce(abs(input - target), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  check_same_shape(input, target, "smooth_l1_loss");
  EMBER_CHECK_VALUE(beta >= 0, "smooth_l1_loss: beta must be non-negative, got ", beta);
  Tensor d = abs(input - target);
  if (beta == 0.0) return reduce(d, reduction);
  Tensor loss = where(lt(d, beta), d * d * (0.5 / beta), d - 0.5 * beta);
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& pos_weight, Reduction reduction) {
  check_same_shape(input, target, "binary_cross_entropy_with_logits");
  // log(1 + e^-|x|) + max(-x, 0) = -log sigmoid(x), computed without overflow.
  Tensor log_sig_neg = log(exp(neg(abs(input))) + 1.0) + relu(neg(input));
  Tensor loss;
  if (pos_weight.defined()) {
    Tensor weight = (pos_weight - 1.0) * target + 1.0;
    loss = (1.0 - target) * input + weight * log_sig_neg;
  } else {
    loss = (1.0 - target) * input + log_sig_neg;
  }
  return reduce(loss, reduction);
}

}  // namespace ember::nn::functional
