#pragma once
// GradScaler, as torch.amp.GradScaler: dynamic loss scaling, so that small float16 gradients do not
// flush to zero. The loss is multiplied by the scale before backward; the gradients are divided by
// it again before the optimizer steps, in one pass that also finds an inf or a NaN; a step whose
// gradients overflowed is skipped and the scale multiplied by backoff_factor, and after
// growth_interval steps in a row without one it is multiplied by growth_factor. In each iteration,
// per optimizer: unscale_ at most once (before clipping the gradients, say), then step; then
// update() once, after every optimizer has stepped.
//
//   optim::GradScaler scaler;
//   scaler.scale(loss).backward();
//   scaler.unscale_(adam);                                  // optional: before clip_grad_norm_
//   optim::clip_grad_norm_(model.named_parameters(), 1.0);
//   scaler.step(adam);                                      // skipped where a gradient was inf/NaN
//   scaler.update();
//
// Its state has PyTorch's state_dict keys (scale, growth_factor, backoff_factor, growth_interval,
// _growth_tracker) and goes into checkpoints with io::TrainingState::scaler, so a resumed run
// scales, skips and grows exactly as the uninterrupted one. A disabled scaler passes everything
// through, and its state is empty (PyTorch's too).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

struct GradScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;   // > 1
  double backoff_factor = 0.5;  // in (0, 1)
  int64_t growth_interval = 2000;
  bool enabled = true;
};

/// What state_dict() returns: PyTorch's keys, "_growth_tracker" as growth_tracker.
struct GradScalerState {
  double scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  int64_t growth_tracker = 0;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  bool is_enabled() const { return options_.enabled; }
  /// outputs * scale, in outputs' dtype (outputs itself when disabled).
  Tensor scale(const Tensor& outputs);
  /// Divides the optimizer's gradients by the scale, in place, and records whether one held an inf
  /// or a NaN. At most once per optimizer between updates, and not after its step.
  void unscale_(Optimizer& optimizer);
  /// optimizer.step() unless its gradients held an inf or a NaN (unscaling them first unless
  /// unscale_ did); once per optimizer between updates. Returns whether it stepped.
  bool step(Optimizer& optimizer);
  /// After every optimizer's step: the scale backs off if any found an inf or NaN, else the growth
  /// count goes on (and the scale grows at growth_interval). Forgets the optimizers' records.
  void update();
  /// Sets the scale to new_scale instead, and forgets the records.
  void update(double new_scale);

  /// The scale as a number (init_scale before the first scale()), 1.0 when disabled.
  double get_scale() const;
  double get_growth_factor() const { return options_.growth_factor; }
  void set_growth_factor(double v) { options_.growth_factor = v; }
  double get_backoff_factor() const { return options_.backoff_factor; }
  void set_backoff_factor(double v) { options_.backoff_factor = v; }
  int64_t get_growth_interval() const { return options_.growth_interval; }
  void set_growth_interval(int64_t v) { options_.growth_interval = v; }
  int64_t growth_tracker() const { return growth_tracker_; }

  /// The state, or nothing when disabled.
  std::optional<GradScalerState> state_dict() const;
  /// Restores it; nothing happens when disabled, and an enabled scaler refuses an empty state (one
  /// saved from a disabled scaler) with an error that says so.
  void load_state_dict(const std::optional<GradScalerState>& state);

  /// The same for optimizers that are not an optim::Optimizer (the Python front end's), named by any
  /// stable identity `key`: unscale_ of their gradients, and step's bookkeeping: unscales unless
  /// unscale_ did, marks the optimizer stepped, and says whether its step is to run.
  void unscale_(const void* key, const std::vector<Tensor>& grads);
  bool begin_step(const void* key, const std::function<std::vector<Tensor>()>& grads);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct Record {
    Stage stage = Stage::Ready;
    std::vector<Tensor> found_inf;  // one float32 flag per device its gradients are on
  };
  void check_options() const;

  GradScalerOptions options_;
  std::optional<float> scale_;  // float32, as PyTorch's scale tensor; none until first used
  int64_t growth_tracker_ = 0;
  std::map<const void*, Record> records_;
};

/// Every gradient of the optimizer's parameters, in group order (parameters without one skipped).
std::vector<Tensor> gradients_of(const Optimizer& optimizer);

}  // namespace ember::optim
