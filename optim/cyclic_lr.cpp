#include "ember/optim/cyclic_lr.h"

#include <cmath>

namespace ember::optim {
namespace {

std::vector<double> per_group(std::vector<double> values, size_t groups, const char* what) {
  if (values.size() == 1) values.assign(groups, values[0]);
  EMBER_CHECK_VALUE(values.size() == groups, "CyclicLR: expected ", groups, " ", what,
                    " values (one per parameter group), got ", values.size());
  return values;
}

}  // namespace

CyclicLR::CyclicLR(Optimizer& optimizer, std::vector<double> base_lrs, std::vector<double> max_lrs,
                   CyclicOptions options)
    : LRScheduler(optimizer, "CyclicLR"), options_(std::move(options)) {
  auto& gs = groups();
  base_lrs = per_group(std::move(base_lrs), gs.size(), "base_lr");
  max_lrs_ = per_group(std::move(max_lrs), gs.size(), "max_lr");
  EMBER_CHECK_VALUE(options_.step_size_up > 0, "CyclicLR: step_size_up must be positive, got ",
                    options_.step_size_up);
  EMBER_CHECK_VALUE(options_.step_size_down >= 0, "CyclicLR: step_size_down must not be negative, got ",
                    options_.step_size_down);
  const double up = static_cast<double>(options_.step_size_up);
  const double down = options_.step_size_down > 0 ? static_cast<double>(options_.step_size_down) : up;
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  for (size_t i = 0; i < gs.size(); ++i) gs[i].options.set("lr", base_lrs[i]);
  if (options_.cycle_momentum) {
    const Hyperparams& d = optimizer.defaults();
    momentum_key_ = d.contains("momentum") ? "momentum" : d.contains("betas") ? "betas" : "";
    EMBER_CHECK_VALUE(!momentum_key_.empty(), "CyclicLR: ", optimizer.name(),
                      " has neither momentum nor betas to cycle; set cycle_momentum = false");
    base_momentums_ = per_group_bound(options_.base_momentums, options_.base_momentum, gs.size(), "CyclicLR",
                                      "base_momentum");
    max_momentums_ = per_group_bound(options_.max_momentums, options_.max_momentum, gs.size(), "CyclicLR",
                                     "max_momentum");
    for (size_t i = 0; i < gs.size(); ++i) {
      auto& g = gs[i];
      if (momentum_key_ == "betas")
        g.options.set("betas", Betas{max_momentums_[i], g.options.pair("betas").second});
      else
        g.options.set("momentum", max_momentums_[i]);
      g.options.set("max_momentum", max_momentums_[i]);
      g.options.set("base_momentum", base_momentums_[i]);
    }
  }
  start();
  base_lrs_ = std::move(base_lrs);  // NB: as torch, the schedule's base is base_lr, not initial_lr
}

double CyclicLR::scale(double x) const {
  if (options_.scale_fn) return options_.scale_fn(x);
  switch (options_.mode) {
    case CyclicOptions::Mode::Triangular: return 1.0;
    case CyclicOptions::Mode::Triangular2: return 1 / std::pow(2.0, x - 1);
    case CyclicOptions::Mode::ExpRange: return std::pow(options_.gamma, x);
  }
  return 1.0;
}

std::vector<double> CyclicLR::get_lr() {
  const double epoch = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + epoch / total_size_);
  const double x = 1.0 + epoch / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  // exp_range scales by iteration; the others (and a custom scale_fn by default) by cycle.
  const bool by_cycle = options_.scale_fn ? options_.scale_by_cycle : options_.mode != CyclicOptions::Mode::ExpRange;
  const double amplitude = scale(by_cycle ? cycle : epoch);
  // NB: during the constructor's step 0 base_lrs_ still holds the groups' initial lrs, which the
  // constructor has just set to base_lr.
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i)
    lrs.push_back(base_lrs_[i] + (max_lrs_[i] - base_lrs_[i]) * scale_factor * amplitude);
  if (!momentum_key_.empty()) {
    auto& gs = groups();
    for (size_t i = 0; i < gs.size(); ++i) {
      const double m = max_momentums_[i] - (max_momentums_[i] - base_momentums_[i]) * scale_factor * amplitude;
      if (momentum_key_ == "betas")
        gs[i].options.set("betas", Betas{m, gs[i].options.pair("betas").second});
      else
        gs[i].options.set("momentum", m);
    }
  }
  return lrs;
}

}  // namespace ember::optim
