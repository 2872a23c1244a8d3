#pragma once
// Welford's running mean and sum of squared deviations, with Chan et al.'s merge of two partial
// results: each CUDA thread folds its share of a row into one, then the block merges them in a
// tree. One pass, and no cancellation of E[x^2] - E[x]^2 (batch_norm and layer_norm statistics,
// accumulated in double as the CPU's are). tests/cuda check it against the CPU kernels.
#include <cstdint>

#include "ember/core/host_device.h"

namespace ember::cuda {

struct Welford {
  double mean = 0, m2 = 0;  // m2: sum of (x - mean)^2
  int64_t n = 0;

  EMBER_HOST_DEVICE void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
  }
  EMBER_HOST_DEVICE void merge(const Welford& o) {
    if (o.n == 0) return;
    if (n == 0) {
      *this = o;
      return;
    }
    const double na = static_cast<double>(n), nb = static_cast<double>(o.n), nn = na + nb;
    const double d = o.mean - mean;
    mean += d * (nb / nn);
    m2 += o.m2 + d * d * (na * nb / nn);
    n += o.n;
  }
  /// The biased variance (divided by n), 0 for no values.
  EMBER_HOST_DEVICE double var_biased() const { return n > 0 ? m2 / static_cast<double>(n) : 0.0; }
};

}  // namespace ember::cuda
