#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer, std::string name)
    : optimizer_(&optimizer), name_(std::move(name)) {}

void LRScheduler::start() {
  base_lrs_.clear();
  for (auto& g : groups()) {
    g.options.set_default("initial_lr", g.get("lr"));
    base_lrs_.push_back(g.get("initial_lr"));
  }
  initial_step();
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  is_initial_ = true;
  try {
    step();
  } catch (...) {
    is_initial_ = false;
    throw;
  }
  is_initial_ = false;
}

std::vector<double> LRScheduler::lr_at_zero() {
  auto& gs = groups();
  std::vector<double> saved = group_lrs();
  for (size_t i = 0; i < gs.size(); ++i) gs[i].options.set("lr", base_lrs_[i]);
  is_initial_ = true;
  std::vector<double> lrs;
  try {
    lrs = get_lr();
  } catch (...) {
    is_initial_ = false;
    for (size_t i = 0; i < gs.size(); ++i) gs[i].options.set("lr", saved[i]);
    throw;
  }
  is_initial_ = false;
  return lrs;
}

void LRScheduler::restart() {
  auto& gs = groups();
  EMBER_CHECK_VALUE(gs.size() == base_lrs_.size(), name_, ": the optimizer has ", gs.size(),
                    " parameter groups, the scheduler was built for ", base_lrs_.size());
  const int64_t saved = last_epoch_;
  last_epoch_ = 0;
  std::vector<double> lrs;
  try {
    lrs = lr_at_zero();
  } catch (...) {
    last_epoch_ = saved;
    throw;
  }
  for (size_t i = 0; i < gs.size(); ++i) gs[i].options.set("lr", lrs[i]);
  last_lr_ = group_lrs();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> out;
  for (const auto& g : groups()) out.push_back(g.get("lr"));
  return out;
}

void LRScheduler::step() {
  auto& gs = groups();
  EMBER_CHECK_VALUE(gs.size() == base_lrs_.size(), name_, ".step: the optimizer has ", gs.size(),
                    " parameter groups, the scheduler was built for ", base_lrs_.size());
  ++last_epoch_;
  ++step_count_;
  std::vector<double> lrs;
  try {
    lrs = get_lr();
  } catch (...) {  // leave the schedule where it was
    --last_epoch_;
    --step_count_;
    throw;
  }
  for (size_t i = 0; i < gs.size(); ++i) gs[i].options.set("lr", lrs[i]);
  last_lr_ = group_lrs();
}

SchedulerStateDict LRScheduler::state_dict() const {
  SchedulerStateDict s;
  s.scalars["last_epoch"] = static_cast<double>(last_epoch_);
  s.scalars["step_count"] = static_cast<double>(step_count_);
  s.lists["base_lrs"] = base_lrs_;
  s.lists["last_lr"] = last_lr_;
  return s;
}

void LRScheduler::load_state_dict(const SchedulerStateDict& state) {
  const std::string where = name_ + ".load_state_dict";
  auto scalar = [&](const char* key) {
    auto it = state.scalars.find(key);
    EMBER_CHECK_KEY(it != state.scalars.end(), where, ": the state has no '", key, "'");
    return it->second;
  };
  auto list = [&](const char* key) {
    auto it = state.lists.find(key);
    EMBER_CHECK_KEY(it != state.lists.end(), where, ": the state has no '", key, "'");
    EMBER_CHECK_VALUE(it->second.size() == groups().size(), where, ": '", key, "' has ",
                      it->second.size(), " values, the optimizer has ", groups().size(),
                      " parameter groups");
    return it->second;
  };
  int64_t last_epoch = static_cast<int64_t>(scalar("last_epoch"));
  int64_t step_count = static_cast<int64_t>(scalar("step_count"));
  std::vector<double> base = list("base_lrs"), last = list("last_lr");
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  base_lrs_ = std::move(base);
  last_lr_ = std::move(last);
}

std::vector<double> per_group_bound(const std::vector<double>& values, double fallback, size_t groups,
                                    const char* scheduler, const char* what) {
  if (values.empty()) return std::vector<double>(groups, fallback);
  EMBER_CHECK_VALUE(values.size() == groups, scheduler, ": expected ", groups, " values for ", what,
                    " (one per parameter group), got ", values.size());
  return values;
}

namespace {

std::vector<LambdaLR::Fn> checked_functions(std::vector<LambdaLR::Fn> fns, size_t groups, const char* scheduler) {
  EMBER_CHECK_VALUE(fns.size() == groups, scheduler, ": expected ", groups,
                    " functions (one per parameter group), got ", fns.size());
  for (const auto& f : fns) EMBER_CHECK_VALUE(static_cast<bool>(f), scheduler, ": empty function");
  return fns;
}

}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, Fn fn)
    : LambdaLR(optimizer, std::vector<Fn>(optimizer.param_groups().size(), fn)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Fn> fns)
    : LRScheduler(optimizer, "LambdaLR"), fns_(checked_functions(std::move(fns), groups().size(), "LambdaLR")) {
  start();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> out;
  for (size_t i = 0; i < base_lrs_.size(); ++i) out.push_back(base_lrs_[i] * fns_[i](last_epoch_));
  return out;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, Fn fn)
    : MultiplicativeLR(optimizer, std::vector<Fn>(optimizer.param_groups().size(), fn)) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<Fn> fns)
    : LRScheduler(optimizer, "MultiplicativeLR"),
      fns_(checked_functions(std::move(fns), groups().size(), "MultiplicativeLR")) {
  start();
}

void MultiplicativeLR::restart() {
  auto& gs = groups();
  EMBER_CHECK_VALUE(gs.size() == fns_.size(), name_, ": the optimizer has ", gs.size(),
                    " parameter groups, the scheduler was built for ", fns_.size());
  last_epoch_ = 0;
  for (size_t i = 0; i < gs.size(); ++i) gs[i].options.set("lr", gs[i].get("lr") * fns_[i](0));
  last_lr_ = group_lrs();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= fns_[i](last_epoch_);
  return lrs;
}

}  // namespace ember::optim
