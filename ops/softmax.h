#pragma once
// softmax and log_softmax along one dim (declared from the op table, ember/ops/functions.h),
// computed stably (the max of each slice is subtracted before exp). Floating tensors only, as in
// PyTorch. Both save their output for backward, which runs one fused kernel unless a graph of the
// gradient is being built (create_graph).
#include "ember/core/kernels/softmax.h"
#include "ember/ops/functions.h"

namespace ember::detail {

/// -log_probs at each position's target class along dim 1: [N, C, d...] and int64 [N, d...] (in
/// [0, C)) give [N, d...]; a gather, differentiable as any.
Tensor nll_at_targets(const Tensor& log_probs, const Tensor& target);

/// -log_softmax(logits, 1) at each row's target class: float32/float64 [N, C] logits and int64
/// targets [N], each in [0, C) (the caller checks the range), give the [N] losses of cross entropy's
/// rows. Where the device has the fused kernels it saves only two statistics a row: the [N, C]
/// log-probabilities are never written, and the gradient, grad * (softmax - onehot), is one pass.
/// Elsewhere (other dtypes) it is log_softmax and nll_at_targets; a create_graph backward is a
/// differentiable formula.
Tensor log_softmax_nll(const Tensor& logits, const Tensor& target);

}  // namespace ember::detail
