#include "ember/optim/cosine_lr.h"

#include <cmath>
#include <numbers>

namespace ember::optim {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer, "CosineAnnealingLR"), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  start();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  using std::numbers::pi;
  std::vector<double> lrs = group_lrs();
  if (is_initial_) return lrs;
  const double T = static_cast<double>(T_max_), e = static_cast<double>(last_epoch_);
  const int64_t period = 2 * T_max_;
  if ((((last_epoch_ - 1 - T_max_) % period) + period) % period == 0) {  // Python's modulo
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    return lrs;
  }
  const double ratio = (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T));
  for (double& lr : lrs) lr = ratio * (lr - eta_min_) + eta_min_;
  return lrs;
}

std::vector<double> CosineAnnealingLR::lr_at_zero() {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(0.0)) / 2);
  return lrs;
}

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(optimizer, "CosineAnnealingWarmRestarts"), T_0_(T_0), T_mult_(T_mult), eta_min_(eta_min),
      T_i_(T_0) {
  EMBER_CHECK_VALUE(T_0 > 0, "CosineAnnealingWarmRestarts: T_0 must be a positive integer, got ", T_0);
  EMBER_CHECK_VALUE(T_mult >= 1, "CosineAnnealingWarmRestarts: T_mult must be an integer >= 1, got ", T_mult);
  start();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  using std::numbers::pi;
  if (last_epoch_ == 0) {  // step 0, or a restart (SequentialLR): torch's step(epoch=0)
    T_i_ = T_0_;
    T_cur_ = 0;
  } else if (++T_cur_ >= T_i_) {
    T_cur_ %= T_i_;
    T_i_ *= T_mult_;
  }
  std::vector<double> lrs;
  for (double base : base_lrs_)
    lrs.push_back(eta_min_ + (base - eta_min_) *
                                 (1 + std::cos(pi * static_cast<double>(T_cur_) / static_cast<double>(T_i_))) / 2);
  return lrs;
}

SchedulerStateDict CosineAnnealingWarmRestarts::state_dict() const {
  SchedulerStateDict s = LRScheduler::state_dict();
  s.scalars["T_cur"] = static_cast<double>(T_cur_);
  s.scalars["T_i"] = static_cast<double>(T_i_);
  return s;
}

void CosineAnnealingWarmRestarts::load_state_dict(const SchedulerStateDict& state) {
  auto it_cur = state.scalars.find("T_cur"), it_i = state.scalars.find("T_i");
  EMBER_CHECK_KEY(it_cur != state.scalars.end() && it_i != state.scalars.end(),
                  "CosineAnnealingWarmRestarts.load_state_dict: the state has no 'T_cur' or 'T_i'");
  EMBER_CHECK_VALUE(it_i->second >= 1, "CosineAnnealingWarmRestarts.load_state_dict: T_i must be positive, got ",
                    it_i->second);
  LRScheduler::load_state_dict(state);
  T_cur_ = static_cast<int64_t>(it_cur->second);
  T_i_ = static_cast<int64_t>(it_i->second);
}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, int64_t total_steps,
                       OneCycleOptions options)
    : LRScheduler(optimizer, "OneCycleLR"), total_steps_(total_steps), options_(options) {
  EMBER_CHECK_VALUE(total_steps > 0, "OneCycleLR: total_steps must be positive, got ", total_steps);
  EMBER_CHECK_VALUE(options.pct_start >= 0 && options.pct_start <= 1,
                    "OneCycleLR: pct_start must be in [0, 1], got ", options.pct_start);
  auto& gs = groups();
  if (max_lrs.size() == 1) max_lrs.assign(gs.size(), max_lrs[0]);
  EMBER_CHECK_VALUE(max_lrs.size() == gs.size(), "OneCycleLR: expected ", gs.size(),
                    " max_lr values (one per parameter group), got ", max_lrs.size());
  const double pct = options.pct_start, total = static_cast<double>(total_steps);
  if (options.three_phase) {
    phases_ = {{pct * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * pct * total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  } else {
    phases_ = {{pct * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  }
  for (size_t i = 0; i < gs.size(); ++i) {
    Hyperparams& o = gs[i].options;
    o.set("initial_lr", max_lrs[i] / options.div_factor);
    o.set("max_lr", max_lrs[i]);
    o.set("min_lr", o.number("initial_lr") / options.final_div_factor);
  }
  if (options.cycle_momentum) {
    const Hyperparams& d = optimizer.defaults();
    momentum_key_ = d.contains("momentum") ? "momentum" : d.contains("betas") ? "betas" : "";
    EMBER_CHECK_VALUE(!momentum_key_.empty(), "OneCycleLR: ", optimizer.name(),
                      " has neither momentum nor betas to cycle; set cycle_momentum = false");
    const std::vector<double> base = per_group_bound(options.base_momentums, options.base_momentum, gs.size(),
                                                     "OneCycleLR", "base_momentum");
    const std::vector<double> max = per_group_bound(options.max_momentums, options.max_momentum, gs.size(),
                                                    "OneCycleLR", "max_momentum");
    for (size_t i = 0; i < gs.size(); ++i) {
      set_momentum(gs[i], max[i]);
      gs[i].options.set("max_momentum", max[i]);
      gs[i].options.set("base_momentum", base[i]);
    }
  }
  start();
}

void OneCycleLR::set_momentum(ParamGroup& group, double momentum) const {
  if (momentum_key_ == "betas")
    group.options.set("betas", Betas{momentum, group.options.pair("betas").second});
  else
    group.options.set(momentum_key_, momentum);
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (options_.anneal_strategy == OneCycleOptions::Anneal::Linear)
    return (end - start) * pct + start;
  const double cos_out = std::cos(std::numbers::pi * pct) + 1;
  return end + (start - end) / 2.0 * cos_out;
}

std::vector<double> OneCycleLR::get_lr() {
  EMBER_CHECK_VALUE(last_epoch_ <= total_steps_, "OneCycleLR: tried to step ", last_epoch_,
                    " times; total_steps is ", total_steps_);
  const double step = static_cast<double>(last_epoch_);
  std::vector<double> lrs;
  for (auto& g : groups()) {
    double start_step = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& ph = phases_[i];
      if (step <= ph.end_step || i + 1 == phases_.size()) {
        const double pct = (step - start_step) / (ph.end_step - start_step);
        lrs.push_back(anneal(g.get(ph.start_lr), g.get(ph.end_lr), pct));
        if (!momentum_key_.empty())
          set_momentum(g, anneal(g.get(ph.start_momentum), g.get(ph.end_momentum), pct));
        break;
      }
      start_step = ph.end_step;
    }
  }
  return lrs;
}

}  // namespace ember::optim
