#pragma once
// Warmup schedules common in transformer training, in closed form of the step t = last_epoch()
// (0 after construction, so the first optimizer step uses t = 0).
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

/// Linear warmup then cosine decay to min_lr:
///   t < warmup_steps:            lr = base_lr * (t + 1) / warmup_steps
///   warmup_steps <= t < total:   lr = min_lr + (base_lr - min_lr) (1 + cos(pi p)) / 2,
///                                p = (t - warmup_steps) / (total_steps - warmup_steps)
///   t >= total_steps:            lr = min_lr
/// WarmupCosineLR(opt, 2000, 100000, 1e-5); warmup_steps = 0 is a plain cosine decay.
class WarmupCosineLR : public LRScheduler {
 public:
  WarmupCosineLR(Optimizer& optimizer, int64_t warmup_steps, int64_t total_steps,
                 double min_lr = 0);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t warmup_steps_, total_steps_;
  double min_lr_;
};

/// The inverse-square-root schedule of "Attention Is All You Need", with s = t + 1:
///   lr = base_lr * d_model^-0.5 * min(s^-0.5, s * warmup_steps^-1.5)
/// (linear rise for warmup_steps steps, then decay as 1/sqrt(s)). Set the group lr to the overall
/// factor, e.g. 1 or 2: NoamDecay(opt, 512, 4000).
class NoamDecay : public LRScheduler {
 public:
  NoamDecay(Optimizer& optimizer, int64_t d_model, int64_t warmup_steps);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t d_model_, warmup_steps_;
};

}  // namespace ember::optim
