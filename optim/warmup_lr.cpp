#include "ember/optim/warmup_lr.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ember::optim {

WarmupCosineLR::WarmupCosineLR(Optimizer& optimizer, int64_t warmup_steps, int64_t total_steps,
                               double min_lr)
    : LRScheduler(optimizer, "WarmupCosineLR"),
      warmup_steps_(warmup_steps),
      total_steps_(total_steps),
      min_lr_(min_lr) {
  EMBER_CHECK_VALUE(warmup_steps >= 0 && total_steps > warmup_steps,
                    "WarmupCosineLR: need 0 <= warmup_steps < total_steps, got warmup_steps ",
                    warmup_steps, ", total_steps ", total_steps);
  start();
}

std::vector<double> WarmupCosineLR::get_lr() {
  const double t = static_cast<double>(last_epoch_);
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    if (last_epoch_ < warmup_steps_) {
      lrs.push_back(base * ((t + 1) / static_cast<double>(warmup_steps_)));
    } else if (last_epoch_ >= total_steps_) {
      lrs.push_back(min_lr_);
    } else {
      const double p = (t - static_cast<double>(warmup_steps_)) /
                       static_cast<double>(total_steps_ - warmup_steps_);
      lrs.push_back(min_lr_ + (base - min_lr_) * 0.5 * (1.0 + std::cos(std::numbers::pi * p)));
    }
  }
  return lrs;
}

NoamDecay::NoamDecay(Optimizer& optimizer, int64_t d_model, int64_t warmup_steps)
    : LRScheduler(optimizer, "NoamDecay"), d_model_(d_model), warmup_steps_(warmup_steps) {
  EMBER_CHECK_VALUE(d_model > 0 && warmup_steps > 0,
                    "NoamDecay: d_model and warmup_steps must be "
                    "positive, got ",
                    d_model, " and ", warmup_steps);
  start();
}

std::vector<double> NoamDecay::get_lr() {
  const double s = static_cast<double>(last_epoch_ + 1);
  const double factor =
      std::pow(static_cast<double>(d_model_), -0.5) *
      std::min(std::pow(s, -0.5), s * std::pow(static_cast<double>(warmup_steps_), -1.5));
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
