#pragma once
// L-BFGS, step for step as torch.optim.LBFGS (from minFunc): step(closure) runs up to max_iter
// iterations, each taking the two-loop recursion's direction over the last history_size steps and
// gradient changes, a fixed step (lr; the first scaled by 1/|g|_1) or a strong-Wolfe line search,
// and calls the closure (which zeroes the gradients, computes the loss, runs backward and returns
// the loss) as often as it needs. One parameter group; the state is the optimizer's, kept under
// the first parameter's name as PyTorch keeps it (counters "func_evals", "n_iter"; "d", "t",
// "prev_flat_grad", "prev_loss", "H_diag"; the history "old_dirs" and "old_stps" as [k, n]
// rows, "ro" [k], "al"), so state_dict() saves it and a resume goes on bit for bit.
// NB: the scalar recurrences (step length, curvature ratios, line search) run in double, as
// PyTorch's do for float64 parameters; for float32 ones PyTorch keeps some of them in float32.
#include <functional>

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// LBFGS({.lr = 1, .strong_wolfe = true}); defaults as torch.optim.LBFGS.
struct LBFGSOptions {
  double lr = 1;
  double max_iter = 20;
  double max_eval = 0;  // 0: max_iter * 5 / 4 (PyTorch's None)
  double tolerance_grad = 1e-7;
  double tolerance_change = 1e-9;
  double history_size = 100;
  bool strong_wolfe = false;  // PyTorch's line_search_fn="strong_wolfe"
  bool maximize = false;
  /// The fields by hyperparameter name: lr, max_iter, max_eval, tolerance_grad, tolerance_change,
  /// history_size, strong_wolfe, maximize.
  static const std::vector<Field<LBFGSOptions>>& fields();
};

class LBFGS : public Optimizer {
 public:
  using Closure = std::function<Tensor()>;
  explicit LBFGS(NamedParameters params, LBFGSOptions options = {});
  /// One optimization step; returns the loss of the closure's first evaluation. Runs without
  /// recording the graph; the closure runs with recording on.
  Tensor step(const Closure& closure);

 protected:
  /// Unused: L-BFGS updates every parameter at once, in step(closure).
  void update(const ParamUpdate& u) override;
  void validate(const Hyperparams& o) const override;
  StateKind state_kind(const std::string&) const override { return StateKind::Free; }

 private:
  struct Evaluation {
    double loss;
    Tensor flat_grad;
  };
  std::vector<Tensor> params() const;
  Tensor gather_flat_grad(bool maximize) const;
  void add_grad(double step, const Tensor& direction) const;
  /// The loss and gradient at x + t d (the parameters are put back to x afterwards).
  Evaluation directional_evaluate(const Closure& closure, const std::vector<Tensor>& x, double t, const Tensor& d,
                                  bool maximize) const;
};

}  // namespace ember::optim
