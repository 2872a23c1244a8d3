#pragma once
// RAdam (rectified Adam, Liu et al.), step for step as torch.optim.RAdam (single-tensor path):
//   g = ±grad (+ weight_decay * p, or p *= 1 - lr weight_decay when decoupled)
//   m = lerp(m, g, 1 - beta1);  v = beta2 v + (1 - beta2) g²
//   rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
//   rho_t > 5: p -= lr m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t, with the
//   rectification r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t));
//   else p -= lr m / (1 - beta1^t) (SGD with momentum while the variance estimate is unreliable).
// State: "step", "exp_avg", "exp_avg_sq".
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// RAdam({.lr = 1e-3}); defaults as torch.optim.RAdam.
struct RAdamOptions {
  double lr = 1e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool decoupled_weight_decay = false;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, betas, eps, weight_decay, decoupled_weight_decay,
  /// maximize, master_weights.
  static const std::vector<Field<RAdamOptions>>& fields();
};

class RAdam : public Optimizer {
 public:
  explicit RAdam(NamedParameters params, RAdamOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit RAdam(std::vector<ParamGroup> groups, RAdamOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
