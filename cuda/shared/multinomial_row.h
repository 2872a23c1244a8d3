#pragma once
// Multinomial sampling of one row (core/kernels/sampling.h) by inverse transform: the CPU kernel's
// procedure (core/cpu/sampling_kernel.cpp) step by step, with draw s of the row taken as Philox
// uniform double number `draw0 + 2 s` (two 32-bit draws each), which is the generator's next
// uniform_double when rows are drawn in order. So a CUDA thread per row gives the CPU's samples,
// and tests/cuda check that against the CPU kernel.
#include <cstdint>

#include "ember/core/host_device.h"
#include "ember/core/philox.h"

namespace ember::cuda {

/// Draws k categories from weights w[0, n) into out[0, k); cdf (n doubles) and used (n bytes) are
/// the row's scratch.
EMBER_HOST_DEVICE inline void multinomial_row(const double* w, int64_t n, int64_t k, bool replacement, uint64_t seed,
                                              uint64_t draw0, double* cdf, uint8_t* used, int64_t* out) {
  for (int64_t j = 0; j < n; ++j) used[j] = 0;
  double total = 0;
  for (int64_t s = 0; s < k; ++s) {
    if (s == 0 || !replacement) {  // running sums of the weights still in the row
      total = 0;
      for (int64_t j = 0; j < n; ++j) cdf[j] = total += used[j] ? 0 : w[j];
    }
    const double u = philox_uniform_double(seed, draw0 + 2 * static_cast<uint64_t>(s));
    int64_t pick = 0;
    if (total > 0) {
      // The first category whose running sum exceeds u * total (upper_bound); u * total may round
      // up to total: then the last positive one.
      const double target = u * total;
      int64_t lo = 0, hi = n;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (target < cdf[mid]) hi = mid; else lo = mid + 1;
      }
      pick = lo;
      while (pick >= n || w[pick] == 0 || used[pick]) --pick;
    } else {
      // Without replacement, past the positive weights: the unused categories in index order.
      while (used[pick]) ++pick;
    }
    out[s] = pick;
    if (!replacement) used[pick] = 1;
  }
}

}  // namespace ember::cuda
