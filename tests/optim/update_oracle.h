#pragma once
// The optimizers' update rules written with tensor ops, op by op as torch.optim's single-tensor
// code: the test oracle of the update kernels (core/kernels/optim.h), which are the only path
// Ember's optimizers take. Each function updates `param` and its state in place.
#include "ember/core/kernels/optim.h"
#include "ember/core/tensor.h"

namespace ember::testing {

/// momentum_buffer undefined without momentum; on the first step it is overwritten with d.
void sgd_oracle(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdStep& a);
void adam_oracle(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                 const Tensor& max_exp_avg_sq, const AdamStep& a);
void rmsprop_oracle(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg,
                    const Tensor& momentum_buffer, const RmspropStep& a);
void adagrad_oracle(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradStep& a);

}  // namespace ember::testing
