#pragma once
// The kernel contract of fused scaled dot-product attention (ops/attention.h): softmax(q k^T *
// scale + mask) v without materialising the [L, S] scores of more than a block of query rows, and
// its backward from the row log-sum-exps. Ops call these stubs; each backend (core/cpu/, cuda/)
// registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/kernels/widen.h"
#include "ember/core/tensor.h"

namespace ember {

/// What one fused attention call reads. q [*, L, E], k [*, S, E], v [*, S, Ev] share their batch
/// dims `*` (already broadcast: stride 0 where expanded) and one floating dtype; the last two dims
/// of each are row- or column-major (gemm_layout_ok). mask is undefined or [*, L, S] of any
/// layout, bool (true = takes part) or q's dtype (added to the scores). causal hides key j from
/// query i when j > i (the top-left aligned triangle, as PyTorch).
struct AttentionInputs {
  Tensor q, k, v, mask;
  bool causal = false;
  double scale = 1.0;
};

/// Kernel: out [*, L, Ev] (contiguous) = softmax(q k^T * scale + mask) v, and logsumexp [*, L]
/// (contiguous) of each row of the masked scores; probs [*, L, S] (contiguous), when defined,
/// receives the probabilities themselves (0 for hidden keys) for the backward. A row whose keys
/// are all masked out gets zero output and logsumexp -inf (PyTorch's result for such rows).
using AttentionForwardFn = void (*)(const Tensor& out, const Tensor& logsumexp, const Tensor& probs,
                                    const AttentionInputs& in);
EMBER_DECLARE_STUB(attention_forward_stub, AttentionForwardFn);

/// Kernel: the gradients of the forward's out (out, logsumexp and probs as it wrote them; probs
/// undefined means: recompute them from logsumexp) for grad_out [*, L, Ev] (any layout):
/// grad_q [*, L, E], grad_k [*, S, E], grad_v [*, S, Ev], each overwritten, or undefined when not
/// wanted; their last dim has unit stride, their other dims any non-overlapping layout (the op
/// gives each the layout of its input). Fully masked rows contribute nothing.
using AttentionBackwardFn = void (*)(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                                     const Tensor& grad_out, const Tensor& out, const Tensor& logsumexp,
                                     const Tensor& probs, const AttentionInputs& in);
EMBER_DECLARE_STUB(attention_backward_stub, AttentionBackwardFn);

/// The inputs of a widened attention kernel: all read.
template <>
struct WidenArg<AttentionInputs> {
  static bool has_16bit(const AttentionInputs& a) {
    return WidenArg<Tensor>::has_16bit(a.q) || WidenArg<Tensor>::has_16bit(a.mask);
  }
  static AttentionInputs apply(const AttentionInputs& a, detail::Widening& w, bool) {
    AttentionInputs r = a;
    r.q = w.widen(a.q, false), r.k = w.widen(a.k, false), r.v = w.widen(a.v, false);
    r.mask = w.widen(a.mask, false);
    return r;
  }
};

}  // namespace ember
