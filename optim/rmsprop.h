#pragma once
// RMSprop, step for step as torch.optim.RMSprop (single-tensor path):
//   g = ±grad + weight_decay * p;  sq = alpha sq + (1 - alpha) g²
//   avg = sqrt(sq) + eps, or centered: ga = lerp(ga, g, 1 - alpha), avg = sqrt(sq - ga²) + eps
//   momentum > 0: buf = momentum buf + g / avg, p -= lr buf;  else p -= lr g / avg
// State: "step", "square_avg", "momentum_buffer" when momentum > 0, "grad_avg" when centered.
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// RMSprop({.lr = 1e-3, .centered = true}); defaults as torch.optim.RMSprop.
struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, alpha, eps, weight_decay, momentum, centered, maximize, master_weights.
  static const std::vector<Field<RMSpropOptions>>& fields();
};

class RMSprop : public Optimizer {
 public:
  explicit RMSprop(NamedParameters params, RMSpropOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit RMSprop(std::vector<ParamGroup> groups, RMSpropOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
