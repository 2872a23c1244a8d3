#pragma once
// Learning-rate schedulers, as torch.optim.lr_scheduler: a scheduler writes each group's "lr" in
// its optimizer. It records the lr a group starts from as the group's "initial_lr" (kept if
// already there, e.g. by an earlier scheduler) and runs step 0 when built, so the optimizer's first
// step already uses the schedule's first value. Call step() after optimizer.step(). A scheduler
// refers to its optimizer, which must outlive it.
//
// Resuming: build the optimizer and the scheduler as before, then load the optimizer's state (it
// holds the lrs and "initial_lr") and the scheduler's (its progress). Configuration (step sizes,
// functions) comes from the constructor, never from the state.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// A scheduler's progress: scalars ("last_epoch", "step_count", ...) and per-group lists
/// ("base_lrs", "last_lr", ...). The io layer converts it to its tree.
struct SchedulerStateDict {
  std::map<std::string, double> scalars;
  std::map<std::string, std::vector<double>> lists;
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances the schedule by one and writes the new lr into every group.
  virtual void step();
  /// Jumps to epoch 0 of the schedule and writes its lrs (torch's _update_lr(0): what SequentialLR
  /// does to the scheduler whose milestone has come).
  virtual void restart();
  /// The lr of each group after the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  /// Steps taken since construction (0 right after it).
  int64_t last_epoch() const { return last_epoch_; }
  /// Each group's "initial_lr": what closed-form schedules scale.
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  const std::string& name() const { return name_; }
  /// The optimizer whose groups it writes.
  Optimizer& optimizer() const { return *optimizer_; }

  /// {"last_epoch", "step_count"} and {"base_lrs", "last_lr"}.
  virtual SchedulerStateDict state_dict() const;
  /// Restores what state_dict() saved; the number of groups must match.
  virtual void load_state_dict(const SchedulerStateDict& state);

 protected:
  LRScheduler(Optimizer& optimizer, std::string name);
  /// Records "initial_lr" and base_lrs and takes step 0; derived constructors call it last.
  void start();
  /// Step 0: step() with step_count 0 and is_initial_ set (recursive forms keep the current lr).
  void initial_step();
  /// The lr of each group at epoch 0 from base_lrs (default: the first step's value with every
  /// group's lr at its base).
  virtual std::vector<double> lr_at_zero();
  /// The lr of each group at last_epoch(); recursive forms read the groups' current lr.
  virtual std::vector<double> get_lr() = 0;
  /// The "lr" each group has now.
  std::vector<double> group_lrs() const;
  std::vector<ParamGroup>& groups() const { return optimizer_->param_groups(); }

  Optimizer* optimizer_;
  std::string name_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  bool is_initial_ = false;  // inside the constructor's step 0
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;

  friend class SequentialLR;  // undoes its schedulers' step 0 as torch's does
};

/// One value per parameter group: `values` when it is not empty (it must then have one per group),
/// else `fallback` for every group; errors name `scheduler` and `what`.
std::vector<double> per_group_bound(const std::vector<double>& values, double fallback, size_t groups,
                                    const char* scheduler, const char* what);

/// lr = base_lr * fn(last_epoch), one function for all groups or one per group.
/// NB: the function is code, not state: state_dict() saves last_epoch and base_lrs only, and a
/// resumed run must build the scheduler with the same function(s).
class LambdaLR : public LRScheduler {
 public:
  using Fn = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Fn fn);
  LambdaLR(Optimizer& optimizer, std::vector<Fn> fns);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<Fn> fns_;
};

/// lr *= fn(last_epoch) at every step after the first, one function for all groups or one per
/// group (torch's MultiplicativeLR); like LambdaLR, the functions are code, not state.
class MultiplicativeLR : public LRScheduler {
 public:
  using Fn = LambdaLR::Fn;
  MultiplicativeLR(Optimizer& optimizer, Fn fn);
  MultiplicativeLR(Optimizer& optimizer, std::vector<Fn> fns);
  /// As torch's step(0) (it has no closed form): the current lr times fn(0).
  void restart() override;

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<Fn> fns_;
};

}  // namespace ember::optim
