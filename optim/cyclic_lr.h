#pragma once
// CyclicLR (Smith, "Cyclical Learning Rates"), as torch.optim.lr_scheduler.CyclicLR.
#include <functional>
#include <string>
#include <vector>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

/// Settings of CyclicLR beyond base_lr and max_lr; defaults as torch.
struct CyclicOptions {
  int64_t step_size_up = 2000;
  int64_t step_size_down = 0;  // 0: as step_size_up
  /// triangular: constant amplitude; triangular2: halved each cycle; exp_range: gamma^iteration.
  enum class Mode { Triangular, Triangular2, ExpRange } mode = Mode::Triangular;
  double gamma = 1.0;
  /// A custom amplitude scale (replaces mode's) of the cycle number or, with scale_by_cycle
  /// false, of the iteration.
  std::function<double(double)> scale_fn;
  bool scale_by_cycle = true;
  /// Cycles "momentum" (SGD, RMSprop) or the first of Adam's "betas" inversely to the lr.
  bool cycle_momentum = true;
  double base_momentum = 0.8;
  double max_momentum = 0.9;
  /// One momentum bound per parameter group (torch's lists); empty: the scalar for every group.
  std::vector<double> base_momentums, max_momentums;
};

/// The lr goes from base_lr up to max_lr over step_size_up steps and back over step_size_down,
/// cycle after cycle. Sets each group's lr to its base_lr when built (and momentum to
/// max_momentum), as torch does; stores "max_momentum" and "base_momentum" in each group.
/// CyclicLR(opt, {0.001}, {0.1}): one value for every group, or one per group.
class CyclicLR : public LRScheduler {
 public:
  CyclicLR(Optimizer& optimizer, std::vector<double> base_lrs, std::vector<double> max_lrs,
           CyclicOptions options = {});

 protected:
  std::vector<double> get_lr() override;

 private:
  double scale(double cycle) const;

  std::vector<double> max_lrs_;
  CyclicOptions options_;
  double total_size_, step_ratio_;
  std::string momentum_key_;  // "momentum" or "betas"; empty without cycling
  std::vector<double> base_momentums_, max_momentums_;
};

}  // namespace ember::optim
