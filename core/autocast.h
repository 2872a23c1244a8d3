#pragma once
// Autocast's switch, per thread and per device type: whether the ops on autocast's lists cast their
// inputs (ops/autocast.h holds the lists and does the casts), and to which 16-bit dtype. The engine
// turns it off for backward, so gradients keep the dtypes the forward chose.
//
//   { ember::AutocastGuard amp(ember::DeviceType::CPU, ember::kBFloat16);
//     auto loss = loss_fn(model.forward(x), y); }   // linear, conv, matmul in bfloat16
//   loss.backward();                               // outside the region, as in PyTorch
#include <optional>

#include "ember/core/device.h"
#include "ember/core/dtype.h"

namespace ember::autocast {

bool is_enabled(DeviceType type);
void set_enabled(DeviceType type, bool enabled);
/// The lower-precision dtype of `type`'s autocast: bfloat16 on the CPU, float16 on CUDA by default.
DType dtype(DeviceType type);
/// float16, bfloat16 or float32 (stored as PyTorch stores it; a region computes in 16 bits only).
void set_dtype(DeviceType type, DType dtype);
/// Whether a region casts each float32 leaf parameter once and reuses the cast (ops/autocast.h).
bool is_cache_enabled();
void set_cache_enabled(bool enabled);
/// Regions entered and not yet left on this thread; leaving the outermost clears the cache.
int increment_nesting();
int decrement_nesting();
/// Drops the cached casts (the outermost region's exit calls it).
void clear_cache();
/// Where clear_cache's work lives: the cache is the ops layer's (it casts with autograd).
void set_clear_cache_hook(void (*hook)());

/// Everything a region sets, to enter and restore it.
struct State {
  bool enabled = false;
  DType dtype = DType::BFloat16;
  bool cache_enabled = true;
};
State state(DeviceType type);
void set_state(DeviceType type, const State& state);

/// Autocast off for the scope (one device type, or all), its state restored on exit: the ops on the
/// lists run their bodies under it, as PyTorch's run below its autocast dispatch key.
class Suspend {
 public:
  explicit Suspend(DeviceType type);
  Suspend();
  ~Suspend();
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  bool prev_[kNumDeviceTypes];
};

}  // namespace ember::autocast

namespace ember {

/// An autocast region for one device type for the guard's scope, PyTorch's
/// `torch.autocast(device_type, dtype, enabled, cache_enabled)`: enabled=false makes a region
/// without autocast inside one that has it. Leaving the outermost region clears the cast cache.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType type, std::optional<DType> dtype = std::nullopt, bool enabled = true,
                         std::optional<bool> cache_enabled = std::nullopt);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType type_;
  autocast::State prev_;
};

}  // namespace ember
