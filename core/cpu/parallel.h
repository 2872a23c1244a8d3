#pragma once
// Splitting CPU work across threads (OpenMP). Small ranges run inline: entering a parallel region
// costs microseconds, more than a tiny op itself.
#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ember::cpu {

/// Elements below which elementwise work stays on one thread.
inline constexpr int64_t kElementwiseGrain = 32768;

/// Calls f(begin, end) on disjoint chunks of [begin, end), in parallel when the range is at least
/// `grain` long and we are not already inside a parallel region.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end <= begin) return;
#ifdef _OPENMP
  int64_t n = end - begin;
  int threads = omp_get_max_threads();
  if (n >= grain && threads > 1 && !omp_in_parallel()) {
    int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
    chunks = std::max<int64_t>(chunks, 2);
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static, 1)
    for (int64_t c = 0; c < chunks; ++c) {
      int64_t lo = begin + n * c / chunks, hi = begin + n * (c + 1) / chunks;
      if (lo < hi) f(lo, hi);
    }
    return;
  }
#endif
  (void)grain;
  f(begin, end);
}

}  // namespace ember::cpu
