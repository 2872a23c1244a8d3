#pragma once
// Schedulers made of schedulers, as torch's: SequentialLR hands over from one to the next at
// milestones; ChainedScheduler steps several at once, each multiplying into the lr in turn.
// The parts are built on the same optimizer first; the composite keeps them alive.
#include <memory>
#include <string>
#include <vector>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

/// The parts of a composite and their state: state_dict() holds the composite's own progress and
/// each part's under "schedulers.<i>."; load_state_dict() checks every key before changing any.
class CompositeLR : public LRScheduler {
 public:
  SchedulerStateDict state_dict() const override;
  void load_state_dict(const SchedulerStateDict& state) override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  CompositeLR(Optimizer& optimizer, std::string name, std::vector<std::shared_ptr<LRScheduler>> schedulers);
  std::vector<double> get_lr() override { return group_lrs(); }

  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

/// schedulers[0] until milestones[0], then schedulers[1] restarted at its epoch 0, ...:
/// SequentialLR(opt, {warmup, decay}, {5}). Building it undoes the parts' step 0 and takes the
/// first part's again, as torch does.
class SequentialLR : public CompositeLR {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones);

  void step() override;

 private:
  std::vector<int64_t> milestones_;
};

/// Steps every scheduler in order on each step(): ChainedScheduler({warmup, decay}).
class ChainedScheduler : public CompositeLR {
 public:
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);

  void step() override;
};

}  // namespace ember::optim
