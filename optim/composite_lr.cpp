#include "ember/optim/composite_lr.h"

#include <algorithm>
#include <string>

namespace ember::optim {
namespace {

void check_parts(const std::vector<std::shared_ptr<LRScheduler>>& parts, const Optimizer* optimizer,
                 const char* who) {
  EMBER_CHECK_VALUE(!parts.empty(), who, ": expected at least one scheduler");
  for (size_t i = 0; i < parts.size(); ++i) {
    EMBER_CHECK_VALUE(parts[i] != nullptr, who, ": scheduler ", i, " is null");
    EMBER_CHECK_VALUE(&parts[i]->optimizer() == optimizer, who, ": scheduler ", i, " (", parts[i]->name(),
                      ") belongs to another optimizer");
  }
}

// Each part's state under "schedulers.<i>.<key>".
void add_parts(SchedulerStateDict& out, const std::vector<std::shared_ptr<LRScheduler>>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string prefix = "schedulers." + std::to_string(i) + ".";
    SchedulerStateDict s = parts[i]->state_dict();
    for (auto& [k, v] : s.scalars) out.scalars[prefix + k] = v;
    for (auto& [k, v] : s.lists) out.lists[prefix + k] = std::move(v);
  }
}

Optimizer& optimizer_of(const std::vector<std::shared_ptr<LRScheduler>>& parts) {
  EMBER_CHECK_VALUE(!parts.empty() && parts[0] != nullptr, "ChainedScheduler: expected at least one scheduler");
  return parts[0]->optimizer();
}

std::vector<SchedulerStateDict> split_parts(const SchedulerStateDict& state, size_t parts, const std::string& who) {
  std::vector<SchedulerStateDict> out(parts);
  auto place = [&](const std::string& key) -> std::pair<size_t, std::string> {
    const std::string head = "schedulers.";
    if (key.rfind(head, 0) != 0) return {parts, key};
    const size_t dot = key.find('.', head.size());
    EMBER_CHECK_KEY(dot != std::string::npos, who, ": malformed key '", key, "'");
    const std::string index = key.substr(head.size(), dot - head.size());
    EMBER_CHECK_KEY(!index.empty() && std::all_of(index.begin(), index.end(), ::isdigit) && index.size() < 6 &&
                        std::stoul(index) < parts,
                    who, ": the state has key '", key, "', but there are ", parts, " schedulers");
    return {std::stoul(index), key.substr(dot + 1)};
  };
  for (const auto& [k, v] : state.scalars)
    if (auto [i, rest] = place(k); i < parts) out[i].scalars[rest] = v;
  for (const auto& [k, v] : state.lists)
    if (auto [i, rest] = place(k); i < parts) out[i].lists[rest] = v;
  return out;
}

// The composite's own entries (those outside "schedulers.").
SchedulerStateDict own_part(const SchedulerStateDict& state) {
  SchedulerStateDict own;
  for (const auto& [k, v] : state.scalars)
    if (k.rfind("schedulers.", 0) != 0) own.scalars[k] = v;
  for (const auto& [k, v] : state.lists)
    if (k.rfind("schedulers.", 0) != 0) own.lists[k] = v;
  return own;
}


}  // namespace

CompositeLR::CompositeLR(Optimizer& optimizer, std::string name, std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(optimizer, std::move(name)), schedulers_(std::move(schedulers)) {
  check_parts(schedulers_, &optimizer, name_.c_str());
}

SchedulerStateDict CompositeLR::state_dict() const {
  SchedulerStateDict s = LRScheduler::state_dict();
  add_parts(s, schedulers_);
  return s;
}

void CompositeLR::load_state_dict(const SchedulerStateDict& state) {
  const std::string who = name_ + ".load_state_dict";
  const std::vector<SchedulerStateDict> parts = split_parts(state, schedulers_.size(), who);  // checks first
  LRScheduler::load_state_dict(own_part(state));
  for (size_t i = 0; i < parts.size(); ++i) schedulers_[i]->load_state_dict(parts[i]);
}

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : CompositeLR(optimizer, "SequentialLR", std::move(schedulers)), milestones_(std::move(milestones)) {
  EMBER_CHECK_VALUE(milestones_.size() + 1 == schedulers_.size(), "SequentialLR: expected ",
                    schedulers_.size() - 1, " milestones (one fewer than the schedulers), got ", milestones_.size());
  EMBER_CHECK_VALUE(std::is_sorted(milestones_.begin(), milestones_.end()),
                    "SequentialLR: milestones must be in increasing order");
  auto& gs = groups();
  for (auto& g : gs) g.options.set("lr", g.get("initial_lr"));
  for (auto& s : schedulers_) --s->last_epoch_;
  const auto first = std::upper_bound(milestones_.begin(), milestones_.end(), 0) - milestones_.begin();
  schedulers_[static_cast<size_t>(first)]->initial_step();
  for (auto& g : gs) base_lrs_.push_back(g.get("initial_lr"));
  last_epoch_ = 0;
  last_lr_ = schedulers_[static_cast<size_t>(first)]->get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  ++step_count_;
  const size_t i = static_cast<size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                                       milestones_.begin());
  if (i > 0 && milestones_[i - 1] == last_epoch_)
    schedulers_[i]->restart();
  else
    schedulers_[i]->step();
  last_lr_ = schedulers_[i]->get_last_lr();
}

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : CompositeLR(optimizer_of(schedulers), "ChainedScheduler", schedulers) {  // NB: a copy, not a move: argument order is unspecified
  for (auto& g : groups()) base_lrs_.push_back(g.get("initial_lr"));
  last_epoch_ = 0;
  last_lr_ = group_lrs();
}

void ChainedScheduler::step() {
  ++last_epoch_;
  ++step_count_;
  for (auto& s : schedulers_) s->step();
  last_lr_ = group_lrs();
}

}  // namespace ember::optim
