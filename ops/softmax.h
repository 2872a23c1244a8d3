#pragma once
// softmax and log_softmax along one dim, computed stably (the max of each slice is subtracted
// before exp). Floating tensors only, as in PyTorch. Both save their output for backward, which
// runs one fused kernel unless a graph of the gradient is being built (create_graph).
#include "ember/core/kernels/softmax.h"
#include "ember/core/tensor.h"

namespace ember {

/// exp(t) / sum(exp(t)) along dim: softmax(logits, -1) gives probabilities over the last dim.
Tensor softmax(const Tensor& t, int64_t dim);
/// t - logsumexp(t, dim): the log of softmax without its underflow.
Tensor log_softmax(const Tensor& t, int64_t dim);

}  // namespace ember
