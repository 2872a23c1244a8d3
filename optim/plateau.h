#pragma once
// ReduceLROnPlateau, as torch.optim.lr_scheduler.ReduceLROnPlateau: cuts every group's lr by
// `factor` once a metric has not improved for more than `patience` steps, then waits `cooldown`
// steps before counting again. Steps take the metric: scheduler.step(val_loss).
#include <cstdint>
#include <vector>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

struct ReduceLROnPlateauOptions {
  enum class Mode { Min, Max } mode = Mode::Min;  // Min: lower metric is better
  double factor = 0.1;
  int64_t patience = 10;
  /// Rel: an improvement beats best * (1 ∓ threshold); Abs: best ∓ threshold.
  enum class ThresholdMode { Rel, Abs } threshold_mode = ThresholdMode::Rel;
  double threshold = 1e-4;
  int64_t cooldown = 0;
  /// Lower bound of every group's lr; min_lrs (one per group) overrides it when not empty.
  double min_lr = 0;
  std::vector<double> min_lrs;
  /// A cut smaller than eps is skipped.
  double eps = 1e-8;
};

class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  ReduceLROnPlateau(const ReduceLROnPlateau&) = delete;
  ReduceLROnPlateau& operator=(const ReduceLROnPlateau&) = delete;

  /// Records one metric value and cuts the lrs if it has stalled.
  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  /// The best metric so far (inf for Min, -inf for Max before the first step).
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }

  /// {"last_epoch", "best", "num_bad_epochs", "cooldown_counter"} and {"last_lr", "min_lrs"}.
  SchedulerStateDict state_dict() const;
  void load_state_dict(const SchedulerStateDict& state);

 private:
  bool is_better(double a, double best) const;

  Optimizer* optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  int64_t last_epoch_ = 0;
  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
