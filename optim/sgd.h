#pragma once
// Stochastic gradient descent with momentum, dampening, Nesterov momentum, L2 weight decay and
// maximize, step for step as torch.optim.SGD:
//   g = ±grad + weight_decay * p;  buf = momentum * buf + (1 - dampening) * g  (buf = g at first);
//   p -= lr * (nesterov ? g + momentum * buf : buf)   (plain g without momentum).
// State: "momentum_buffer" when momentum != 0.
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// SGD({.lr = 0.1, .momentum = 0.9}); defaults as torch.optim.SGD.
struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
  /// Step 16-bit parameters through a float32 master copy (state "master"; see Optimizer).
  bool master_weights = false;
  /// The fields by hyperparameter name: lr, momentum, dampening, weight_decay, nesterov, maximize, master_weights.
  static const std::vector<Field<SGDOptions>>& fields();
};

class SGD : public Optimizer {
 public:
  /// SGD(model.named_parameters(), {.lr = 0.1, .momentum = 0.9}).
  explicit SGD(NamedParameters params, SGDOptions options = {});
  /// Groups with their own hyperparameters; `options` gives the defaults.
  explicit SGD(std::vector<ParamGroup> groups, SGDOptions options = {});

 protected:
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
};

}  // namespace ember::optim
