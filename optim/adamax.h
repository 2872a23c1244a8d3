#pragma once
// Adamax (Adam with the infinity norm), step for step as torch.optim.Adamax (single-tensor path):
//   g = ±grad + weight_decay * p;  m = lerp(m, g, 1 - beta1);  u = max(beta2 u, |g| + eps)
//   p -= lr / (1 - beta1^t) * m / u
// State: "step", "exp_avg", "exp_inf".
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Adamax({.lr = 2e-3}); defaults as torch.optim.Adamax.
struct AdamaxOptions {
  double lr = 2e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, betas, eps, weight_decay, maximize, master_weights.
  static const std::vector<Field<AdamaxOptions>>& fields();
};

class Adamax : public Optimizer {
 public:
  explicit Adamax(NamedParameters params, AdamaxOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit Adamax(std::vector<ParamGroup> groups, AdamaxOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
