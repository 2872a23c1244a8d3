#include "ember/optim/grad_scaler.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/kernels/optim.h"
#include "ember/ops/binary.h"
#include "ember/ops/convert.h"

namespace ember::optim {

GradScaler::GradScaler(GradScalerOptions options) : options_(options) { check_options(); }

void GradScaler::check_options() const {
  EMBER_CHECK_VALUE(options_.growth_factor > 1.0, "GradScaler: growth_factor should be > 1, got ",
                    options_.growth_factor);
  EMBER_CHECK_VALUE(options_.backoff_factor > 0.0 && options_.backoff_factor < 1.0,
                    "GradScaler: backoff_factor should be in (0, 1), got ", options_.backoff_factor);
  EMBER_CHECK_VALUE(options_.growth_interval > 0, "GradScaler: growth_interval should be > 0, got ",
                    options_.growth_interval);
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!options_.enabled) return outputs;
  if (!scale_) scale_ = static_cast<float>(options_.init_scale);
  // NB: a 0-d float32 factor, as PyTorch's scale tensor: a float16 loss stays float16
  return mul(outputs, full({}, static_cast<double>(*scale_), TensorOptions(kFloat32).device(outputs.device())));
}

void GradScaler::unscale_(Optimizer& optimizer) {
  if (!options_.enabled) return;
  unscale_(&optimizer, gradients_of(optimizer));
}

void GradScaler::unscale_(const void* key, const std::vector<Tensor>& grads) {
  if (!options_.enabled) return;
  Record& record = records_[key];
  EMBER_CHECK(record.stage != Stage::Unscaled,
              "unscale_() has already been called on this optimizer since the last update().");
  EMBER_CHECK(record.stage != Stage::Stepped, "unscale_() is being called after step().");
  if (!scale_) scale_ = static_cast<float>(options_.init_scale);
  // NB: PyTorch's inv_scale, scale.double().reciprocal().float()
  const float inv_scale = static_cast<float>(1.0 / static_cast<double>(*scale_));
  autograd::NoGradGuard no_grad;
  for (const Tensor& g : grads) {
    if (!g.defined()) continue;
    EMBER_CHECK_VALUE(g.dtype() != kFloat16, "Attempting to unscale FP16 gradients.");
    Tensor* flag = nullptr;
    for (Tensor& f : record.found_inf)
      if (f.device() == g.device()) flag = &f;
    if (flag == nullptr) flag = &record.found_inf.emplace_back(zeros({1}, TensorOptions(kFloat32).device(g.device())));
    Tensor dense = g.is_contiguous() ? g : g.contiguous();
    unscale_stub(g.device().type, dense, *flag, inv_scale);
    detail::write_back(g, dense);
  }
  record.stage = Stage::Unscaled;
}

bool GradScaler::begin_step(const void* key, const std::function<std::vector<Tensor>()>& grads) {
  if (!options_.enabled) return true;
  auto it = records_.find(key);
  EMBER_CHECK(it == records_.end() || it->second.stage != Stage::Stepped,
              "step() has already been called since the last update().");
  if (it == records_.end() || it->second.stage == Stage::Ready) unscale_(key, grads());
  Record& record = records_[key];
  EMBER_CHECK(!record.found_inf.empty(), "No inf checks were recorded for this optimizer.");
  record.stage = Stage::Stepped;
  for (const Tensor& f : record.found_inf)
    if (f.item<float>() != 0.0f) return false;
  return true;
}

bool GradScaler::step(Optimizer& optimizer) {
  if (!options_.enabled) {
    optimizer.step();
    return true;
  }
  if (!begin_step(&optimizer, [&] { return gradients_of(optimizer); })) return false;
  optimizer.step();
  return true;
}

void GradScaler::update() {
  if (!options_.enabled) return;
  bool found = false, recorded = false;
  for (const auto& [key, record] : records_) {
    for (const Tensor& f : record.found_inf) {
      recorded = true;
      found = found || f.item<float>() != 0.0f;
    }
  }
  EMBER_CHECK(recorded, "No inf checks were recorded prior to update.");
  // NB: PyTorch's _amp_update_scale_: products in double, stored in the float32 scale
  if (found) {
    scale_ = static_cast<float>(static_cast<double>(*scale_) * options_.backoff_factor);
    growth_tracker_ = 0;
  } else if (growth_tracker_ + 1 == options_.growth_interval) {
    const float grown = static_cast<float>(static_cast<double>(*scale_) * options_.growth_factor);
    if (std::isfinite(grown)) scale_ = grown;
    growth_tracker_ = 0;
  } else {
    ++growth_tracker_;
  }
  records_.clear();
}

void GradScaler::update(double new_scale) {
  if (!options_.enabled) return;
  scale_ = static_cast<float>(new_scale);
  records_.clear();
}

double GradScaler::get_scale() const {
  if (!options_.enabled) return 1.0;
  return scale_ ? static_cast<double>(*scale_) : options_.init_scale;
}

std::optional<GradScalerState> GradScaler::state_dict() const {
  if (!options_.enabled) return std::nullopt;
  return GradScalerState{get_scale(), options_.growth_factor, options_.backoff_factor, options_.growth_interval,
                         growth_tracker_};
}

void GradScaler::load_state_dict(const std::optional<GradScalerState>& state) {
  if (!options_.enabled) return;
  EMBER_CHECK(state.has_value(),
              "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.");
  GradScalerOptions next = options_;
  next.init_scale = state->scale;
  next.growth_factor = state->growth_factor;
  next.backoff_factor = state->backoff_factor;
  next.growth_interval = state->growth_interval;
  std::swap(options_, next);
  try {
    check_options();
  } catch (...) {
    std::swap(options_, next);
    throw;
  }
  if (scale_) scale_ = static_cast<float>(state->scale);
  growth_tracker_ = state->growth_tracker;
}

std::vector<Tensor> gradients_of(const Optimizer& optimizer) {
  std::vector<Tensor> grads;
  for (const ParamGroup& group : optimizer.param_groups())
    for (const auto& [name, p] : group.params)
      if (p.grad().defined()) grads.push_back(p.grad());
  return grads;
}

}  // namespace ember::optim
