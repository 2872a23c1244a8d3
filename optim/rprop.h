#pragma once
// Rprop (resilient backpropagation), step for step as torch.optim.Rprop (single-tensor path): each
// element keeps a step size that grows by eta_plus while its gradient keeps its sign and shrinks by
// eta_minus when the sign flips (and that element then skips its update), clamped to step_sizes;
// the parameter moves by its step size against the gradient's sign.
// State: "step", "prev" (the last gradient used), "step_size".
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Rprop({.lr = 0.01}); defaults as torch.optim.Rprop.
struct RpropOptions {
  double lr = 1e-2;
  Betas etas{0.5, 1.2};          // (eta_minus, eta_plus)
  Betas step_sizes{1e-6, 50.0};  // (min, max)
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, etas, step_sizes, maximize, master_weights.
  static const std::vector<Field<RpropOptions>>& fields();
};

class Rprop : public Optimizer {
 public:
  explicit Rprop(NamedParameters params, RpropOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit Rprop(std::vector<ParamGroup> groups, RpropOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
