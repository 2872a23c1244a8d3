#pragma once
// Stochastic weight averaging and exponential moving averages of a model (torch.optim.swa_utils):
//
//   auto swa = std::make_shared<optim::AveragedModel>(make_model());  // the model's architecture
//   optim::SWALR swa_scheduler(optimizer, 0.05);
//   for (...) { train(*model, optimizer); swa->update_parameters(*model); swa_scheduler.step(); }
//   optim::update_bn(inputs, *swa);  // the running statistics of the averaged weights
//
// AveragedModel averages into a model of its own: its first update_parameters copies the trained
// model's values into it, so a fresh instance of the architecture serves (Python's AveragedModel
// passes it a deep copy of the model, as PyTorch's). The average is the running mean by default,
// or what avg_fn (one tensor at a time) or multi_avg_fn (the tensors of one device and dtype at a
// time, in place) make; n_averaged is a buffer, so a checkpoint of the averaged model resumes it.
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ember/nn/module.h"
#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

/// avg_fn(averaged, current, num_averaged): the new average of one tensor (num_averaged: the
/// int64 0-d count of averages so far, on the tensor's device).
using AvgFn = std::function<Tensor(const Tensor& averaged, const Tensor& current, const Tensor& num_averaged)>;
/// multi_avg_fn(averaged, current, num_averaged): updates `averaged` in place from `current`.
using MultiAvgFn = std::function<void(const std::vector<Tensor>& averaged, const std::vector<Tensor>& current,
                                      const Tensor& num_averaged)>;

/// Exponential moving average, ema = decay * ema + (1 - decay) * param; decay in [0, 1].
MultiAvgFn get_ema_multi_avg_fn(double decay = 0.999);
AvgFn get_ema_avg_fn(double decay = 0.999);
/// The running mean, avg += (param - avg) / (num_averaged + 1).
MultiAvgFn get_swa_multi_avg_fn();
AvgFn get_swa_avg_fn();

struct AveragedModelOptions {
  std::optional<Device> device;  // where the averaged model and n_averaged live (default: as built)
  AvgFn avg_fn;                  // at most one of the two; neither: the running mean
  MultiAvgFn multi_avg_fn;
  bool use_buffers = false;  // average the buffers too; without it they follow the model's
};

/// A module holding `module` (child "module") and the buffer n_averaged; forward runs the module.
class AveragedModel : public nn::Module {
 public:
  explicit AveragedModel(std::shared_ptr<nn::Module> module, AveragedModelOptions options = {});
  Tensor forward(const Tensor& input) override;
  /// Folds `model`'s parameters (and buffers, with use_buffers) into the average; the first call
  /// copies them. The model must have as many of each, of the same shapes (a ValueError names the
  /// first that differs).
  void update_parameters(const nn::Module& model);
  nn::Module& module() const { return child_as<nn::Module>("module"); }
  int64_t n_averaged() const { return buffer("n_averaged").item<int64_t>(); }
  const AveragedModelOptions& options() const { return options_; }

 private:
  AveragedModelOptions options_;
};

/// Recomputes the running statistics of every BatchNorm in `model` from one pass over the data,
/// as torch's update_bn: each becomes the average, over the batches, of the batch's mean and
/// unbiased variance (momentum None for the pass). `pass` runs the model on every batch, in
/// training mode; the mode and momenta are restored after, also when it throws.
void update_bn(nn::Module& model, const std::function<void()>& pass);
/// The same, running model(input) on each input.
void update_bn(const std::vector<Tensor>& inputs, nn::Module& model);

enum class AnnealStrategy { Cos, Linear };

/// Anneals each group's lr to its swa_lr over anneal_epochs steps, then holds it (torch's SWALR).
/// Each group's swa_lr is stored in the group as "swa_lr", as PyTorch does.
class SWALR : public LRScheduler {
 public:
  /// swa_lrs: one value for every group, or one per group.
  SWALR(Optimizer& optimizer, std::vector<double> swa_lrs, int64_t anneal_epochs = 10,
        AnnealStrategy anneal_strategy = AnnealStrategy::Cos);
  SWALR(Optimizer& optimizer, double swa_lr, int64_t anneal_epochs = 10,
        AnnealStrategy anneal_strategy = AnnealStrategy::Cos);
  int64_t anneal_epochs() const { return anneal_epochs_; }
  AnnealStrategy anneal_strategy() const { return strategy_; }

 protected:
  std::vector<double> get_lr() override;

 private:
  double anneal(double t) const;
  int64_t anneal_epochs_;
  AnnealStrategy strategy_;
};

}  // namespace ember::optim
