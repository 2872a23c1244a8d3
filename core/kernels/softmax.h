#pragma once
// The kernel contract of softmax and log_softmax along one dim, forward and backward
// (ops/softmax.h). Ops call these stubs; each backend (core/cpu/, cuda/) registers its kernels into
// them.
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

/// Kernel: cross entropy's rows without their log-probabilities. For each row i of the contiguous
/// float32/float64 [N, C] logits: loss[i] = -log_softmax(logits[i])[target[i]] and stats[i] = (max,
/// log of the sum of exp(x - max)) of the row, as log_softmax computes them; target is int64 [N],
/// each in [0, C) (the caller checks). loss [N] and stats [N, 2] are contiguous, of the logits' dtype.
using LogSoftmaxNllFn = void (*)(const Tensor& loss, const Tensor& stats, const Tensor& logits, const Tensor& target);
EMBER_DECLARE_STUB(log_softmax_nll_stub, LogSoftmaxNllFn);
/// Kernel: its gradient, grad_logits[i] = grad[i] * (exp(y) - onehot(target[i])) with y = (logits[i]
/// - max) - log_sum recomputed from stats; grad_logits contiguous [N, C], grad [N] contiguous.
using LogSoftmaxNllBackwardFn = void (*)(const Tensor& grad_logits, const Tensor& grad, const Tensor& logits,
                                         const Tensor& stats, const Tensor& target);
EMBER_DECLARE_STUB(log_softmax_nll_backward_stub, LogSoftmaxNllBackwardFn);

}  // namespace ember
