#pragma once
// Adadelta (Zeiler), step for step as torch.optim.Adadelta (single-tensor path):
//   g = ±grad + weight_decay * p;  sq = rho sq + (1 - rho) g²
//   delta = sqrt(acc + eps) / sqrt(sq + eps) * g;  acc = rho acc + (1 - rho) delta²;  p -= lr delta
// State: "step", "square_avg", "acc_delta".
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Adadelta({.lr = 1.0, .rho = 0.9}); defaults as torch.optim.Adadelta.
struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, rho, eps, weight_decay, maximize, master_weights.
  static const std::vector<Field<AdadeltaOptions>>& fields();
};

class Adadelta : public Optimizer {
 public:
  explicit Adadelta(NamedParameters params, AdadeltaOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit Adadelta(std::vector<ParamGroup> groups, AdadeltaOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
