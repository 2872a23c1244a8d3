#pragma once
// The kernel contract of batch and layer normalization: statistics, fused affine passes, gradients
// (ops/normalization.h). Ops call these stubs; each backend (core/cpu/, cuda/) registers its
// kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: per-channel mean and biased variance ([C], x's dtype) of x viewed as [N, C, S].
/// All tensors contiguous.
using BatchNormStatsFn = void (*)(const Tensor& mean, const Tensor& var, const Tensor& x, int64_t N,
                                  int64_t C, int64_t S);
EMBER_DECLARE_STUB(batch_norm_stats_stub, BatchNormStatsFn);
/// Kernel: per-channel sum(g) and sum(g * (x - mean[c])) ([C]) over [N, C, S]. All contiguous.
/// batch_mean: mean is x's own mean, rounded to x's dtype; a kernel may then take the sum about the
/// exact mean (the CPU's does).
using BatchNormGradSumsFn = void (*)(const Tensor& sum_g, const Tensor& sum_gx, const Tensor& g,
                                     const Tensor& x, const Tensor& mean, int64_t N, int64_t C, int64_t S,
                                     bool batch_mean);
EMBER_DECLARE_STUB(batch_norm_grad_sums_stub, BatchNormGradSumsFn);
/// Kernel: out = a * ka[c] + (b - b0[c]) * kb[c] + k[c] over [N, C, S]; a and ka, or b, b0 and
/// kb, may be undefined (no such term). All contiguous, of one dtype.
using ChannelAffineFn = void (*)(const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& b,
                                 const Tensor& b0, const Tensor& kb, const Tensor& k, int64_t N,
                                 int64_t C, int64_t S);
EMBER_DECLARE_STUB(channel_affine_stub, ChannelAffineFn);
/// Kernel: for each row of x viewed as [R, D]: mean[r], rstd[r] = 1 / sqrt(biased var + eps) and
/// out = (x - mean) * rstd * weight + bias (weight, bias [D], each may be undefined). Contiguous.
using LayerNormFn = void (*)(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                             const Tensor& weight, const Tensor& bias, double eps);
EMBER_DECLARE_STUB(layer_norm_stub, LayerNormFn);
/// Kernel: gradients of layer_norm from grad g ([R, D]) and the saved mean/rstd: grad_in [R, D],
/// grad_weight and grad_bias [D]; any of the three may be undefined (not wanted), as may weight. eps is
/// the forward's (a kernel may recompute the statistics more precisely than the saved ones).
using LayerNormBackwardFn = void (*)(const Tensor& grad_in, const Tensor& grad_weight,
                                     const Tensor& grad_bias, const Tensor& g, const Tensor& x,
                                     const Tensor& mean, const Tensor& rstd, const Tensor& weight, double eps);
EMBER_DECLARE_STUB(layer_norm_backward_stub, LayerNormBackwardFn);

}  // namespace ember
