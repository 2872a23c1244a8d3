#pragma once
// ASGD (averaged stochastic gradient descent), step for step as torch.optim.ASGD (single-tensor
// path): SGD with a decaying step eta = lr / (1 + lambd lr t)^alpha and a weight decay of
// lambd eta, and a running average "ax" of the iterates that starts at step t0.
// State: "step", "eta", "mu" (0-d, their values rounded to float32 as torch's float32 scalars
// round them), "ax".
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// ASGD({.lr = 0.01}); defaults as torch.optim.ASGD.
struct ASGDOptions {
  double lr = 1e-2;
  double lambd = 1e-4;
  double alpha = 0.75;
  double t0 = 1e6;
  double weight_decay = 0;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, lambd, alpha, t0, weight_decay, maximize, master_weights.
  static const std::vector<Field<ASGDOptions>>& fields();
};

class ASGD : public Optimizer {
 public:
  explicit ASGD(NamedParameters params, ASGDOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit ASGD(std::vector<ParamGroup> groups, ASGDOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  /// "eta" and "mu" are per-parameter numbers.
  StateKind state_kind(const std::string& key) const override {
    return key == "eta" || key == "mu" ? StateKind::Scalar : Optimizer::state_kind(key);
  }
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
