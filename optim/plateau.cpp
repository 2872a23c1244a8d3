#include "ember/optim/plateau.h"

#include <algorithm>
#include <limits>

namespace ember::optim {

using Options = ReduceLROnPlateauOptions;

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options)
    : optimizer_(&optimizer), options_(std::move(options)) {
  EMBER_CHECK_VALUE(options_.factor < 1.0, "ReduceLROnPlateau: factor must be < 1, got ",
                    options_.factor);
  const size_t n = optimizer.param_groups().size();
  if (options_.min_lrs.empty()) {
    min_lrs_.assign(n, options_.min_lr);
  } else {
    EMBER_CHECK_VALUE(options_.min_lrs.size() == n, "ReduceLROnPlateau: expected ", n,
                      " min_lrs (one per parameter group), got ", options_.min_lrs.size());
    min_lrs_ = options_.min_lrs;
  }
  best_ = options_.mode == Options::Mode::Min ? std::numeric_limits<double>::infinity()
                                              : -std::numeric_limits<double>::infinity();
  for (const auto& g : optimizer.param_groups()) last_lr_.push_back(g.get("lr"));
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const bool rel = options_.threshold_mode == Options::ThresholdMode::Rel;
  if (options_.mode == Options::Mode::Min)
    return rel ? a < best * (1.0 - options_.threshold) : a < best - options_.threshold;
  return rel ? a > best * (options_.threshold + 1.0) : a > best + options_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  auto& groups = optimizer_->param_groups();
  if (groups.size() != min_lrs_.size()) {  // a group was added: the shared bound extends to it
    EMBER_CHECK_VALUE(options_.min_lrs.empty(), "ReduceLROnPlateau.step: the optimizer has ",
                      groups.size(), " parameter groups, min_lrs has ", min_lrs_.size());
    min_lrs_.assign(groups.size(), options_.min_lr);
  }
  last_epoch_ += 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (cooldown_counter_ > 0) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  if (num_bad_epochs_ > options_.patience) {
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].get("lr");
      const double new_lr = std::max(old_lr * options_.factor, min_lrs_[i]);
      if (old_lr - new_lr > options_.eps) groups[i].options.set("lr", new_lr);
    }
    cooldown_counter_ = options_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : groups) last_lr_.push_back(g.get("lr"));
}

SchedulerStateDict ReduceLROnPlateau::state_dict() const {
  SchedulerStateDict s;
  s.scalars["last_epoch"] = static_cast<double>(last_epoch_);
  s.scalars["best"] = best_;
  s.scalars["num_bad_epochs"] = static_cast<double>(num_bad_epochs_);
  s.scalars["cooldown_counter"] = static_cast<double>(cooldown_counter_);
  s.lists["last_lr"] = last_lr_;
  s.lists["min_lrs"] = min_lrs_;
  return s;
}

void ReduceLROnPlateau::load_state_dict(const SchedulerStateDict& state) {
  auto scalar = [&](const char* key) {
    auto it = state.scalars.find(key);
    EMBER_CHECK_KEY(it != state.scalars.end(),
                    "ReduceLROnPlateau.load_state_dict: the state has "
                    "no '",
                    key, "'");
    return it->second;
  };
  auto list = [&](const char* key) {
    auto it = state.lists.find(key);
    EMBER_CHECK_KEY(it != state.lists.end(),
                    "ReduceLROnPlateau.load_state_dict: the state has "
                    "no '",
                    key, "'");
    return it->second;
  };
  const double last_epoch = scalar("last_epoch"), best = scalar("best"),
               bad = scalar("num_bad_epochs"), cooldown = scalar("cooldown_counter");
  std::vector<double> last_lr = list("last_lr"), min_lrs = list("min_lrs");
  last_epoch_ = static_cast<int64_t>(last_epoch);
  best_ = best;
  num_bad_epochs_ = static_cast<int64_t>(bad);
  cooldown_counter_ = static_cast<int64_t>(cooldown);
  last_lr_ = std::move(last_lr);
  min_lrs_ = std::move(min_lrs);
}

}  // namespace ember::optim
