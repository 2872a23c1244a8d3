#pragma once
// Pieces the optimizers written with tensor ops share (Adadelta, Adamax, NAdam, RAdam), each as
// torch's single-tensor path computes it, so that float32 results round the same way.
#include "ember/core/tensor.h"
#include "ember/ops/functions.h"

namespace ember::optim::detail {

/// ±grad with weight decay: added to the gradient (L2, weight_decay * param), or, when
/// `decoupled` (AdamW's way), applied to the parameter itself first (param *= 1 - lr weight_decay).
inline Tensor decayed_grad(const Tensor& grad, const Tensor& param, bool maximize, double weight_decay,
                           bool decoupled = false, double lr = 0) {
  Tensor g = maximize ? neg(grad) : grad;
  if (weight_decay == 0) return g;
  if (!decoupled) return add(g, param, weight_decay);
  param.mul_(1 - lr * weight_decay);
  return g;
}

/// torch.lerp(start, end, weight) for a scalar weight: start + w (end - start) below 0.5, else
/// end - (end - start)(1 - w).
inline Tensor lerp_scalar(const Tensor& start, const Tensor& end, double weight) {
  Tensor diff = sub(end, start);
  return weight < 0.5 ? add(start, mul(diff, weight)) : sub(end, mul(diff, 1 - weight));
}

/// self + value * t1 * t2 (torch's addcmul).
inline Tensor addcmul_scalar(const Tensor& self, const Tensor& t1, const Tensor& t2, double value) {
  return add(self, mul(mul(t1, value), t2));
}

/// Writes `value` into the state tensor `state` (same shape).
inline void assign(const Tensor& state, const Tensor& value) { state.copy_(value); }

}  // namespace ember::optim::detail
