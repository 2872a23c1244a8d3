#include "ember/core/autocast.h"

#include "ember/core/error.h"

namespace ember::autocast {
namespace {

// NB: float16 on CUDA, bfloat16 on the CPU: PyTorch's defaults per device type.
thread_local State states[kNumDeviceTypes] = {{false, DType::BFloat16, true}, {false, DType::Float16, true}};
thread_local int nesting = 0;
void (*clear_hook)() = nullptr;

State& at(DeviceType type) { return states[static_cast<int>(type)]; }

}  // namespace

bool is_enabled(DeviceType type) { return at(type).enabled; }
void set_enabled(DeviceType type, bool enabled) { at(type).enabled = enabled; }
DType dtype(DeviceType type) { return at(type).dtype; }

void set_dtype(DeviceType type, DType dtype) {
  EMBER_CHECK_TYPE(is_16bit_float(dtype) || dtype == DType::Float32, "autocast: the dtype of ",
                   type == DeviceType::CPU ? "cpu" : "cuda",
                   " autocast must be float16, bfloat16 or float32, got ", dtype);
  at(type).dtype = dtype;
}

// NB: one flag for every device type, as PyTorch's.
bool is_cache_enabled() { return at(DeviceType::CPU).cache_enabled; }
void set_cache_enabled(bool enabled) {
  for (State& s : states) s.cache_enabled = enabled;
}

int increment_nesting() { return ++nesting; }
int decrement_nesting() { return --nesting; }
void clear_cache() {
  if (clear_hook) clear_hook();
}
void set_clear_cache_hook(void (*hook)()) { clear_hook = hook; }

State state(DeviceType type) { return at(type); }
void set_state(DeviceType type, const State& s) {
  set_dtype(type, s.dtype);
  at(type).enabled = s.enabled;
  set_cache_enabled(s.cache_enabled);
}

Suspend::Suspend(DeviceType type) {
  for (int i = 0; i < kNumDeviceTypes; ++i) prev_[i] = states[i].enabled;
  at(type).enabled = false;
}
Suspend::Suspend() {
  for (int i = 0; i < kNumDeviceTypes; ++i) {
    prev_[i] = states[i].enabled;
    states[i].enabled = false;
  }
}
Suspend::~Suspend() {
  for (int i = 0; i < kNumDeviceTypes; ++i) states[i].enabled = prev_[i];
}

}  // namespace ember::autocast

namespace ember {

AutocastGuard::AutocastGuard(DeviceType type, std::optional<DType> dtype, bool enabled,
                             std::optional<bool> cache_enabled)
    : type_(type), prev_(autocast::state(type)) {
  autocast::State next = prev_;
  next.enabled = enabled;
  if (dtype) next.dtype = *dtype;
  EMBER_CHECK_TYPE(!enabled || is_16bit_float(next.dtype), "AutocastGuard: autocast computes in float16 or ",
                   "bfloat16, got ", next.dtype, " (pass enabled=false for a region without autocast)");
  if (cache_enabled) next.cache_enabled = *cache_enabled;
  autocast::set_state(type, next);  // checks the dtype before anything changed
  autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (autocast::decrement_nesting() == 0) autocast::clear_cache();
  autocast::set_state(type_, prev_);
}

}  // namespace ember
