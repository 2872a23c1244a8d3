#include "ember/optim/swa_utils.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/nn/normalization.h"
#include "ember/ops/binary.h"

namespace ember::optim {
namespace {

void check_decay(double decay) {
  EMBER_CHECK_VALUE(decay >= 0.0 && decay <= 1.0, "Invalid decay value ", decay,
                    " provided. Please provide a value in [0,1] range.");
}

// The tensors update_parameters averages: the parameters, then (use_buffers) the buffers.
std::vector<std::pair<std::string, Tensor>> averaged_entries(const nn::Module& m, bool use_buffers) {
  auto out = m.named_parameters();
  if (use_buffers)
    for (auto& b : m.named_buffers()) out.push_back(std::move(b));
  return out;
}

void check_same_entries(const std::vector<std::pair<std::string, Tensor>>& mine,
                        const std::vector<std::pair<std::string, Tensor>>& theirs, const char* what) {
  EMBER_CHECK_VALUE(mine.size() == theirs.size(), "AveragedModel.update_parameters: the model has ", theirs.size(), " ",
                    what, ", the averaged model ", mine.size());
  for (size_t i = 0; i < mine.size(); ++i)
    EMBER_CHECK_VALUE(mine[i].second.sizes() == theirs[i].second.sizes(), "AveragedModel.update_parameters: ", what,
                      " ", i, " is '", theirs[i].first, "' of shape ", theirs[i].second.sizes(), " in the model, '",
                      mine[i].first, "' of shape ", mine[i].second.sizes(), " in the averaged model");
}

}  // namespace

MultiAvgFn get_ema_multi_avg_fn(double decay) {
  check_decay(decay);
  return [decay](const std::vector<Tensor>& ema, const std::vector<Tensor>& current, const Tensor&) {
    NoGradGuard no_grad;
    for (size_t i = 0; i < ema.size(); ++i) {
      if (ema[i].is_floating_point())
        ema[i].lerp_(current[i], 1 - decay);
      else
        ema[i].copy_(ema[i] * decay + current[i] * (1 - decay));
    }
  };
}

AvgFn get_ema_avg_fn(double decay) {
  check_decay(decay);
  return [decay](const Tensor& ema, const Tensor& current, const Tensor&) {
    NoGradGuard no_grad;
    return decay * ema + (1 - decay) * current;
  };
}

MultiAvgFn get_swa_multi_avg_fn() {
  return [](const std::vector<Tensor>& averaged, const std::vector<Tensor>& current, const Tensor& num_averaged) {
    NoGradGuard no_grad;
    if (averaged.empty()) return;
    if (averaged[0].is_floating_point()) {
      // NB: torch's weight 1 / (num_averaged + 1) is a default-dtype (float32) tensor taken as a scalar.
      const double weight = 1.0f / static_cast<float>(num_averaged.item<int64_t>() + 1);
      for (size_t i = 0; i < averaged.size(); ++i) averaged[i].lerp_(current[i], weight);
      return;
    }
    for (size_t i = 0; i < averaged.size(); ++i)
      averaged[i].copy_(averaged[i] + (current[i] - averaged[i]) / (num_averaged + 1));
  };
}

AvgFn get_swa_avg_fn() {
  return [](const Tensor& averaged, const Tensor& current, const Tensor& num_averaged) {
    NoGradGuard no_grad;
    return averaged + (current - averaged) / (num_averaged + 1);
  };
}

AveragedModel::AveragedModel(std::shared_ptr<nn::Module> module, AveragedModelOptions options)
    : Module("AveragedModel"), options_(std::move(options)) {
  EMBER_CHECK_VALUE(module != nullptr, "AveragedModel: got no module");
  EMBER_CHECK_VALUE(!(options_.avg_fn && options_.multi_avg_fn),
                    "AveragedModel: Only one of avg_fn and multi_avg_fn should be provided");
  if (options_.device) module->to(*options_.device);
  register_module("module", std::move(module));
  register_buffer("n_averaged", zeros({}, TensorOptions(kInt64).device(options_.device.value_or(Device()))));
}

Tensor AveragedModel::forward(const Tensor& input) { return module()(input); }

void AveragedModel::update_parameters(const nn::Module& model) {
  NoGradGuard no_grad;
  const bool use_buffers = options_.use_buffers;
  auto mine = averaged_entries(module(), use_buffers), theirs = averaged_entries(model, use_buffers);
  check_same_entries(mine, theirs, use_buffers ? "parameters and buffers" : "parameters");
  // NB: every check before anything is written, so a refused model leaves the average as it was.
  std::vector<std::pair<std::string, Tensor>> mine_b, theirs_b;
  if (!use_buffers) {
    mine_b = module().named_buffers();
    theirs_b = model.named_buffers();
    check_same_entries(mine_b, theirs_b, "buffers");
  }
  std::vector<Tensor> averaged, current;
  for (size_t i = 0; i < mine.size(); ++i) {
    averaged.push_back(mine[i].second.detach());
    current.push_back(theirs[i].second.detach().to(averaged.back().device()));
  }
  Tensor n = buffer("n_averaged");
  const int64_t count = n.item<int64_t>();
  if (count == 0) {
    for (size_t i = 0; i < averaged.size(); ++i) averaged[i].copy_(current[i]);
  } else if (options_.avg_fn) {
    for (size_t i = 0; i < averaged.size(); ++i)
      averaged[i].copy_(options_.avg_fn(averaged[i], current[i], n.to(averaged[i].device())));
  } else {
    // As torch: the tensors grouped by device and dtype (in order of first appearance); the running
    // mean a tensor at a time on the CPU, where torch has no foreach kernels.
    std::vector<std::pair<std::pair<Device, DType>, std::vector<size_t>>> groups;
    for (size_t i = 0; i < averaged.size(); ++i) {
      auto key = std::make_pair(averaged[i].device(), averaged[i].dtype());
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
      it->second.push_back(i);
    }
    for (const auto& [key, members] : groups) {
      std::vector<Tensor> avg, cur;
      for (size_t i : members) avg.push_back(averaged[i]), cur.push_back(current[i]);
      Tensor n_here = n.to(key.first);
      if (options_.multi_avg_fn) {
        options_.multi_avg_fn(avg, cur, n_here);
      } else if (key.first.is_cuda()) {
        get_swa_multi_avg_fn()(avg, cur, n_here);
      } else {
        AvgFn mean = get_swa_avg_fn();
        for (size_t i = 0; i < avg.size(); ++i) avg[i].copy_(mean(avg[i], cur[i], n_here));
      }
    }
  }
  if (!use_buffers) {
    // The averaged model's buffers (batch-norm statistics) follow the model's.
    for (size_t i = 0; i < mine_b.size(); ++i)
      mine_b[i].second.detach().copy_(theirs_b[i].second.detach().to(mine_b[i].second.device()));
  }
  n.add_(1);
}

void update_bn(nn::Module& model, const std::function<void()>& pass) {
  std::vector<std::pair<nn::BatchNorm*, std::optional<double>>> momenta;
  for (nn::Module* m : model.modules()) {
    if (auto* bn = dynamic_cast<nn::BatchNorm*>(m)) {
      bn->reset_running_stats();
      momenta.emplace_back(bn, bn->options().momentum);
    }
  }
  if (momenta.empty()) return;
  const bool was_training = model.is_training();
  struct Restore {
    nn::Module& model;
    bool was_training;
    std::vector<std::pair<nn::BatchNorm*, std::optional<double>>>& momenta;
    ~Restore() {
      for (auto& [bn, momentum] : momenta) bn->set_momentum(momentum);
      model.train(was_training);
    }
  } restore{model, was_training, momenta};
  model.train();
  for (auto& entry : momenta) entry.first->set_momentum(std::nullopt);
  NoGradGuard no_grad;
  pass();
}

void update_bn(const std::vector<Tensor>& inputs, nn::Module& model) {
  update_bn(model, [&] {
    for (const Tensor& input : inputs) model(input);
  });
}

SWALR::SWALR(Optimizer& optimizer, std::vector<double> swa_lrs, int64_t anneal_epochs, AnnealStrategy anneal_strategy)
    : LRScheduler(optimizer, "SWALR"), anneal_epochs_(anneal_epochs), strategy_(anneal_strategy) {
  auto& gs = groups();
  if (swa_lrs.size() == 1) swa_lrs.resize(gs.size(), swa_lrs[0]);
  EMBER_CHECK_VALUE(swa_lrs.size() == gs.size(),
                    "swa_lr must have the same length as optimizer.param_groups: swa_lr has ", swa_lrs.size(),
                    " values, param_groups has ", gs.size());
  EMBER_CHECK_VALUE(anneal_epochs >= 0, "anneal_epochs must be equal or greater than 0, got ", anneal_epochs);
  for (size_t i = 0; i < gs.size(); ++i) gs[i].options.set("swa_lr", swa_lrs[i]);
  start();
}

SWALR::SWALR(Optimizer& optimizer, double swa_lr, int64_t anneal_epochs, AnnealStrategy anneal_strategy)
    : SWALR(optimizer, std::vector<double>{swa_lr}, anneal_epochs, anneal_strategy) {}

double SWALR::anneal(double t) const {
  return strategy_ == AnnealStrategy::Cos ? (1 - std::cos(std::numbers::pi * t)) / 2 : t;
}

std::vector<double> SWALR::get_lr() {
  // torch's formula: the lr the schedule had one step ago is recovered from the group's lr, so
  // an lr changed by hand between steps is annealed from.
  int64_t step = step_count_ - 1;
  if (anneal_epochs_ == 0) step = std::max<int64_t>(1, step);
  const double span = static_cast<double>(std::max<int64_t>(1, anneal_epochs_));
  const double prev_alpha = anneal(std::clamp(static_cast<double>(step - 1) / span, 0.0, 1.0));
  const double alpha = anneal(std::clamp(static_cast<double>(step) / span, 0.0, 1.0));
  std::vector<double> lrs;
  for (const auto& g : groups()) {
    const double swa_lr = g.get("swa_lr"), lr = g.get("lr");
    const double prev_lr = prev_alpha == 1 ? swa_lr : (lr - prev_alpha * swa_lr) / (1 - prev_alpha);
    lrs.push_back(swa_lr * alpha + prev_lr * (1 - alpha));
  }
  return lrs;
}

}  // namespace ember::optim
