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

}  // namespace ember
