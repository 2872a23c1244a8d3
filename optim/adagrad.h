#pragma once
// Adagrad, step for step as torch.optim.Adagrad (single-tensor path):
//   t += 1;  g = ±grad + weight_decay * p;  clr = lr / (1 + (t - 1) lr_decay)
//   sum += g²;  p -= clr g / (sqrt(sum) + eps)
// State: "step" and "sum" (starting at initial_accumulator_value). NB: torch creates the state
// when the optimizer is built, Ember at a parameter's first step; the updates are the same.
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Adagrad({.lr = 0.1, .lr_decay = 1e-4}); defaults as torch.optim.Adagrad.
struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;
  double weight_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, lr_decay, weight_decay, initial_accumulator_value,
  /// eps, maximize, master_weights.
  static const std::vector<Field<AdagradOptions>>& fields();
};

class Adagrad : public Optimizer {
 public:
  explicit Adagrad(NamedParameters params, AdagradOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit Adagrad(std::vector<ParamGroup> groups, AdagradOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
