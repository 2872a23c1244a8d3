#pragma once
// The kernel contract of the optimizers' update steps (optim/*.cpp): one pass over a parameter and
// its state updates both in place, following torch.optim's single-tensor formulas op by op. Every
// tensor a kernel gets is contiguous, on one device, of the parameter's dtype (float32 or float64)
// and element count; optional state (a momentum buffer that the settings do not use) is undefined.
// Ops call these stubs; each backend (core/cpu/, cuda/) registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// One SGD step: d = (maximize ? -g : g) + weight_decay * p; with momentum, b = d on the first
/// step (`first`), else b = momentum * b + (1 - dampening) * d, and d = nesterov ? d + momentum * b
/// : b; then p -= lr * d.
struct SgdStep {
  double lr, weight_decay, momentum, dampening;
  bool nesterov, maximize, first;
};
using SgdStepFn = void (*)(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                           const SgdStep& a);
EMBER_DECLARE_STUB(sgd_step_stub, SgdStepFn);

/// One Adam(W) step at count t: step_size = lr / (1 - beta1^t), bc2_sqrt = sqrt(1 - beta2^t),
/// decay = 1 - lr * weight_decay (decoupled: AdamW); max_exp_avg_sq only with amsgrad.
struct AdamStep {
  double beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
  double step_size, bc2_sqrt, decay;
};
using AdamStepFn = void (*)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                            const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamStep& a);
EMBER_DECLARE_STUB(adam_step_stub, AdamStepFn);

/// One RMSprop step; grad_avg only when centered, momentum_buffer only when momentum > 0.
struct RmspropStep {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};
using RmspropStepFn = void (*)(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                               const Tensor& grad_avg, const Tensor& momentum_buffer,
                               const RmspropStep& a);
EMBER_DECLARE_STUB(rmsprop_step_stub, RmspropStepFn);

/// One Adagrad step with the decayed learning rate clr = lr / (1 + (t - 1) lr_decay).
struct AdagradStep {
  double clr, weight_decay, eps;
  bool maximize;
};
using AdagradStepFn = void (*)(const Tensor& param, const Tensor& grad, const Tensor& sum,
                               const AdagradStep& a);
EMBER_DECLARE_STUB(adagrad_step_stub, AdagradStepFn);

/// Loss scaling's unscale (optim/grad_scaler.h), one pass over a gradient: grad *= inv_scale in place,
/// and found_inf (a float32 tensor of one element on grad's device) set to 1 if grad held an inf or a
/// NaN (left as it is otherwise, so one found_inf gathers a whole optimizer's gradients). inv_scale
/// is float32's, as PyTorch's: grad * float(inv_scale) in grad's dtype.
using UnscaleFn = void (*)(const Tensor& grad, const Tensor& found_inf, float inv_scale);
EMBER_DECLARE_STUB(unscale_stub, UnscaleFn);

}  // namespace ember
