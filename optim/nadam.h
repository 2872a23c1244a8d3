#pragma once
// NAdam (Adam with Nesterov momentum, Dozat), step for step as torch.optim.NAdam (single-tensor
// path):
//   g = ±grad (+ weight_decay * p, or p *= 1 - lr weight_decay when decoupled)
//   mu_t = beta1 (1 - 0.5 * 0.96^(t momentum_decay));  mu_product *= mu_t
//   m = lerp(m, g, 1 - beta1);  v = beta2 v + (1 - beta2) g²;  denom = sqrt(v / (1 - beta2^t)) + eps
//   p -= lr (1 - mu_t) / (1 - mu_product) g / denom + lr mu_{t+1} / (1 - mu_product mu_{t+1}) m / denom
// State: "step", "mu_product" (0-d float32, as torch keeps it), "exp_avg", "exp_avg_sq".
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// NAdam({.lr = 2e-3}); defaults as torch.optim.NAdam.
struct NAdamOptions {
  double lr = 2e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum_decay = 4e-3;
  bool decoupled_weight_decay = false;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, betas, eps, weight_decay, momentum_decay,
  /// decoupled_weight_decay, maximize, master_weights.
  static const std::vector<Field<NAdamOptions>>& fields();
};

class NAdam : public Optimizer {
 public:
  explicit NAdam(NamedParameters params, NAdamOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit NAdam(std::vector<ParamGroup> groups, NAdamOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  /// "mu_product", the running product of momentum coefficients, is a per-parameter number.
  StateKind state_kind(const std::string& key) const override {
    return key == "mu_product" ? StateKind::Scalar : Optimizer::state_kind(key);
  }
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
