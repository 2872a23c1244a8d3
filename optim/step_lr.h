#pragma once
// Multiplicative decays, computed recursively from each group's current lr exactly as
// torch.optim.lr_scheduler does (so sequences match it bit for bit).
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

/// lr *= gamma every step_size steps: StepLR(opt, 30, 0.1).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// lr *= gamma at each milestone (gamma^k for a milestone listed k times):
/// MultiStepLR(opt, {30, 80}, 0.1).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<int64_t> milestones_;
  double gamma_;
};

/// lr *= gamma every step: ExponentialLR(opt, 0.99).
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lr() override;

 private:
  double gamma_;
};

/// The lr factor goes linearly from start_factor to end_factor over total_iters steps, then
/// stays: LinearLR(opt, 0.1, 1.0, 500) is a linear warmup.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

/// The lr is scaled by factor until total_iters steps, then back to the initial lr:
/// ConstantLR(opt, 0.5, 4) halves the first four steps' lr (torch's ConstantLR).
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;

 private:
  double factor_;
  int64_t total_iters_;
};

/// The lr factor decays as (1 - t / total_iters)^power to 0 at total_iters, then stays:
/// PolynomialLR(opt, 100, 2.0).
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t total_iters_;
  double power_;
};

}  // namespace ember::optim
