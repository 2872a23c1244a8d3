#pragma once
// How CPU kernels split work: parallel_for over Ember's pool (ember/core/parallel.h) with grain
// sizes below which a kernel stays on one thread, since waking a thread costs microseconds, more
// than a small op itself.
#include <cstdint>

#include "ember/core/parallel.h"

namespace ember::cpu {

using ember::parallel_for;

/// Elements below which elementwise work stays on one thread.
inline constexpr int64_t kElementwiseGrain = 32768;

/// Threads a kernel may split its work into: 1 inside a parallel_for task (nested calls run
/// inline), else get_num_threads().
inline int available_threads() { return in_parallel_region() ? 1 : get_num_threads(); }

}  // namespace ember::cpu
