// CUDA kernels of fused scaled dot-product attention (core/kernels/attention.h;
// cuda/kernels/attention.cu). The kernels read contiguous [batch, rows, cols] operands: q, k, v,
// the mask and grad_out are made so here (a broadcast batch dim or mask is copied out in full, the
// price of the simple kernels).
#include <utility>

#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/kernels/attention.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

struct Prepared {
  AttentionShape shape;
  Tensor q, k, v, mask;
};

Prepared prepare(const AttentionInputs& in) {
  check_floating_compute(in.q.dtype(), "scaled_dot_product_attention");
  Prepared p;
  p.q = contiguous_data(in.q);
  p.k = contiguous_data(in.k);
  p.v = contiguous_data(in.v);
  AttentionShape& s = p.shape;
  s.L = in.q.size(-2);
  s.S = in.k.size(-2);
  s.E = in.q.size(-1);
  s.Ev = in.v.size(-1);
  s.batch = 1;
  for (int64_t d = 0; d + 2 < in.q.dim(); ++d) s.batch *= in.q.size(d);
  s.scale = in.scale;
  s.causal = in.causal;
  if (in.mask.defined()) {
    p.mask = contiguous_data(in.mask);
    s.mask = in.mask.dtype() == kBool ? AttentionMask::Bool : AttentionMask::Additive;
  }
  return p;
}

void cuda_attention_forward(const Tensor& out, const Tensor& logsumexp, const Tensor& probs,
                            const AttentionInputs& in) {
  const Prepared p = prepare(in);
  On on(out);
  launch_attention_forward(in.q.dtype(), p.shape, p.q.data_ptr(), p.k.data_ptr(), p.v.data_ptr(),
                           p.mask.defined() ? p.mask.data_ptr() : nullptr, out.data_ptr(), logsumexp.data_ptr(),
                           probs.defined() ? probs.data_ptr() : nullptr, on.stream);
}

void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// The kernels write contiguous gradients: a gradient in another layout (the stub allows any) is
// written to a contiguous buffer first and copied into place after.
Tensor contiguous_target(const Tensor& t) {
  return !t.defined() || t.is_contiguous() ? t : empty(t.sizes(), t.options());
}

void cuda_attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                             const Tensor& grad_out, const Tensor& out, const Tensor& logsumexp,
                             const Tensor& probs, const AttentionInputs& in) {
  const Prepared p = prepare(in);
  const Tensor g = contiguous_data(grad_out);
  const Tensor gq = contiguous_target(grad_q), gk = contiguous_target(grad_k), gv = contiguous_target(grad_v);
  On on(g);
  TensorScratch scratch(g.device());
  launch_attention_backward(in.q.dtype(), p.shape, p.q.data_ptr(), p.k.data_ptr(), p.v.data_ptr(),
                            data_or_null(p.mask), g.data_ptr(), out.data_ptr(), logsumexp.data_ptr(),
                            data_or_null(probs), data_or_null(gq), data_or_null(gk), data_or_null(gv), scratch,
                            on.stream);
  for (auto [target, written] : {std::pair{grad_q, gq}, std::pair{grad_k, gk}, std::pair{grad_v, gv}})
    if (target.defined() && !target.is_same(written)) copy_data(target, written);
}

}  // namespace

EMBER_REGISTER_KERNEL(attention_forward_stub, DeviceType::CUDA, (widened<&cuda_attention_forward, 0, 1, 2>));
EMBER_REGISTER_KERNEL(attention_backward_stub, DeviceType::CUDA, (widened<&cuda_attention_backward, 0, 1, 2>));

}  // namespace ember::cuda
