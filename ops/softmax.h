#pragma once
// softmax and log_softmax along one dim, computed stably (the max of each slice is subtracted
// before exp). Floating tensors only, as in PyTorch. Both save their output for backward, which
// runs one fused kernel unless a graph of the gradient is being built (create_graph).
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out (contiguous) = softmax, or log_softmax when `log`, of in along dim; in has out's
/// shape and dtype, any layout.
using SoftmaxFn = void (*)(const Tensor& out, const Tensor& in, int64_t dim, bool log);
EMBER_DECLARE_STUB(softmax_stub, SoftmaxFn);
/// Kernel: grad_in (contiguous) from grad and the forward output y along dim:
/// softmax: y * (grad - sum(grad * y)); log_softmax: grad - exp(y) * sum(grad). Any layouts.
using SoftmaxBackwardFn = void (*)(const Tensor& grad_in, const Tensor& grad, const Tensor& y,
                                   int64_t dim, bool log);
EMBER_DECLARE_STUB(softmax_backward_stub, SoftmaxBackwardFn);

/// exp(t) / sum(exp(t)) along dim: softmax(logits, -1) gives probabilities over the last dim.
Tensor softmax(const Tensor& t, int64_t dim);
/// t - logsumexp(t, dim): the log of softmax without its underflow.
Tensor log_softmax(const Tensor& t, int64_t dim);

}  // namespace ember
