#pragma once
// The state the crash test's writer saves at each step: a deterministic function of the step, so
// the test can tell that what it restores is exactly one of the states that were written.
#include <cstdint>

#include "ember/ember.h"

namespace ember::testing {

/// {"step": step, "weights": arange(numel) + step (float32, exact below 2^24),
///  "note": ("step", step)}.
inline io::Value crash_test_state(int64_t step, int64_t numel) {
  Tensor weights = arange(numel, TensorOptions(kFloat32)).add_(static_cast<double>(step));
  return io::Value::dict({{"step", step},
                          {"weights", weights},
                          {"note", io::Value::tuple({"step", step})}});
}

}  // namespace ember::testing
