#include "ember/optim/step_lr.h"

#include <algorithm>
#include <cmath>

namespace ember::optim {

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer, "StepLR"), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  start();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer, "MultiStepLR"), milestones_(std::move(milestones)), gamma_(gamma) {
  start();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return lrs;
  double factor = std::pow(gamma_, static_cast<double>(count));  // gamma ** count, as in torch
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer, "ExponentialLR"), gamma_(gamma) {
  start();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (is_initial_) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer, "LinearLR"),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK_VALUE(start_factor > 0 && start_factor <= 1,
                    "LinearLR: start_factor must be in "
                    "(0, 1], got ",
                    start_factor);
  EMBER_CHECK_VALUE(end_factor >= 0 && end_factor <= 1,
                    "LinearLR: end_factor must be in [0, 1], "
                    "got ",
                    end_factor);
  EMBER_CHECK_VALUE(total_iters > 0, "LinearLR: total_iters must be positive, got ", total_iters);
  start();
}

std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (is_initial_ || last_epoch_ > total_iters_) return lrs;
  const double delta = end_factor_ - start_factor_;
  const double factor = 1.0 + delta / (static_cast<double>(total_iters_) * start_factor_ +
                                       static_cast<double>(last_epoch_ - 1) * delta);
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer, "ConstantLR"), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK_VALUE(factor >= 0 && factor <= 1,
                    "ConstantLR: Constant multiplicative factor expected to be between 0 and 1, got ", factor);
  start();
}

std::vector<double> ConstantLR::get_lr() {
  // Recursive, as torch's: the factor at step 0, its inverse at total_iters.
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= factor_;
  } else if (last_epoch_ == total_iters_) {
    for (double& lr : lrs) lr *= 1.0 / factor_;
  }
  return lrs;
}

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer, "PolynomialLR"), total_iters_(total_iters), power_(power) {
  EMBER_CHECK_VALUE(total_iters > 0, "PolynomialLR: total_iters must be positive, got ", total_iters);
  start();
}

std::vector<double> PolynomialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (is_initial_ || last_epoch_ > total_iters_) return lrs;
  const double t = static_cast<double>(last_epoch_), n = static_cast<double>(total_iters_);
  const double factor = std::pow((1.0 - t / n) / (1.0 - (t - 1) / n), power_);
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

}  // namespace ember::optim
