#pragma once
// Adam and AdamW, step for step as torch.optim.Adam / AdamW (single-tensor path):
//   t += 1;  g = ±grad, plus weight_decay * p for Adam's L2 decay
//   AdamW instead: p *= 1 - lr * weight_decay
//   m = lerp(m, g, 1 - beta1);  v = beta2 v + (1 - beta2) g²;  amsgrad: v_max = max(v_max, v)
//   p -= lr / (1 - beta1^t) * m / (sqrt(v or v_max) / sqrt(1 - beta2^t) + eps)
// State: "step" (0-d float32), "exp_avg", "exp_avg_sq", and "max_exp_avg_sq" with amsgrad.
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Adam({.lr = 3e-4, .betas = {0.9, 0.95}}); defaults as torch.optim.Adam.
struct AdamOptions {
  double lr = 1e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;
  /// Weight decay applied to the parameter (AdamW) instead of added to the gradient.
  bool decoupled_weight_decay = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, betas, eps, weight_decay, amsgrad, maximize,
  /// decoupled_weight_decay, master_weights.
  static const std::vector<Field<AdamOptions>>& fields();
};

/// AdamW({.lr = 3e-4, .weight_decay = 0.1}); defaults as torch.optim.AdamW.
struct AdamWOptions {
  double lr = 1e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// AdamW's hyperparameters: Adam's, with decoupled_weight_decay true.
  AdamOptions adam() const { return {lr, betas, eps, weight_decay, amsgrad, maximize, true, master_weights}; }
};

class Adam : public Optimizer {
 public:
  /// Adam(model.named_parameters(), {.lr = 1e-3}).
  explicit Adam(NamedParameters params, AdamOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit Adam(std::vector<ParamGroup> groups, AdamOptions options = {});

 protected:
  Adam(std::string name, Hyperparams defaults, std::vector<ParamGroup> groups);
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

/// Adam with decoupled weight decay (Loshchilov & Hutter): the decay multiplies the parameter by
/// 1 - lr * weight_decay and never enters the moments.
class AdamW : public Adam {
 public:
  explicit AdamW(NamedParameters params, AdamWOptions options = {});
  explicit AdamW(std::vector<ParamGroup> groups, AdamWOptions options = {});
};

}  // namespace ember::optim
