#pragma once
// Cosine schedules: CosineAnnealingLR (torch's recursive form, so it matches it bit for bit) and
// the one-cycle policy OneCycleLR.
#include <string>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

/// lr follows eta_min + (base_lr - eta_min) (1 + cos(pi t / T_max)) / 2, computed recursively from
/// the current lr as torch does; past T_max it rises again (a period of 2 T_max).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> lr_at_zero() override;  // torch's closed form (its rounding)

 private:
  int64_t T_max_;
  double eta_min_;
};

/// SGDR (Loshchilov & Hutter): lr = eta_min + (base_lr - eta_min) (1 + cos(pi T_cur / T_i)) / 2,
/// where T_cur counts steps since the last restart and the period T_i starts at T_0 and is
/// multiplied by T_mult at each restart: CosineAnnealingWarmRestarts(opt, 10, 2).
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0);

  /// And "T_cur", "T_i".
  SchedulerStateDict state_dict() const override;
  void load_state_dict(const SchedulerStateDict& state) override;

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t T_0_, T_mult_;
  double eta_min_;
  int64_t T_cur_ = -1, T_i_;
};

/// Settings of OneCycleLR beyond max_lr and total_steps; defaults as torch.
struct OneCycleOptions {
  double pct_start = 0.3;
  enum class Anneal { Cos, Linear } anneal_strategy = Anneal::Cos;
  /// Cycles "momentum" (SGD, RMSprop) or the first of Adam's "betas" inversely to the lr.
  bool cycle_momentum = true;
  double base_momentum = 0.85;
  double max_momentum = 0.95;
  /// One momentum bound per parameter group (torch's lists); empty: the scalar for every group.
  std::vector<double> base_momentums, max_momentums;
  double div_factor = 25;
  double final_div_factor = 1e4;
  bool three_phase = false;
};

/// The 1cycle policy (Smith & Topin): the lr rises from max_lr / div_factor to max_lr over
/// pct_start of total_steps, then anneals to initial_lr / final_div_factor (three_phase: back to
/// the initial lr first). Stores "initial_lr", "max_lr", "min_lr" (and "max_momentum",
/// "base_momentum") in each group. Stepping past total_steps is an error.
/// OneCycleLR(opt, {0.1}, 1000): one max_lr for every group, or one per group.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, int64_t total_steps,
             OneCycleOptions options = {});

 protected:
  std::vector<double> get_lr() override;

 private:
  struct Phase {
    double end_step;
    const char* start_lr;
    const char* end_lr;
    const char* start_momentum;
    const char* end_momentum;
  };
  double anneal(double start, double end, double pct) const;
  /// Sets momentum, or the first of Adam's betas.
  void set_momentum(ParamGroup& group, double momentum) const;

  int64_t total_steps_;
  OneCycleOptions options_;
  std::vector<Phase> phases_;
  std::string momentum_key_;  // "momentum" or "betas"; empty without cycling
};

}  // namespace ember::optim
