// CUDA kernels of fused scaled dot-product attention (core/kernels/attention.h;
// cuda/kernels/attention.cu). The kernels read contiguous [batch, rows, cols] operands: q, k, v,
// the mask and grad_out are made so here (a broadcast batch dim or mask is copied out in full, the
// price of the simple kernels).
#include "ember/core/copy.h"
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

void cuda_attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                             const Tensor& grad_out, const Tensor& out, const Tensor& logsumexp,
                             const Tensor& probs, const AttentionInputs& in) {
  const Prepared p = prepare(in);
  const Tensor g = contiguous_data(grad_out);
  On on(g);
  TensorScratch scratch(g.device());
  launch_attention_backward(in.q.dtype(), p.shape, p.q.data_ptr(), p.k.data_ptr(), p.v.data_ptr(),
                            data_or_null(p.mask), g.data_ptr(), out.data_ptr(), logsumexp.data_ptr(),
                            data_or_null(probs), data_or_null(grad_q), data_or_null(grad_k), data_or_null(grad_v),
                            scratch, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(attention_forward_stub, DeviceType::CUDA, (widened<&cuda_attention_forward, 0, 1, 2>));
EMBER_REGISTER_KERNEL(attention_backward_stub, DeviceType::CUDA, (widened<&cuda_attention_backward, 0, 1, 2>));

}  // namespace ember::cuda
