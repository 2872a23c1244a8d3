// Welford's mean and variance with Chan's merge (cuda/shared/welford.h), as the CUDA reductions
// fold values per thread and merge them in a tree: against the CPU's batch-norm statistics and the
// two-pass definition, whatever the split.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/core/kernels/normalization.h"
#include "ember/cuda/shared/welford.h"
#include "ember/ember.h"

using namespace ember;
using cuda::Welford;

namespace {

// Folds xs into `parts` partial results (round-robin, as threads stride over a row) and merges
// them pairwise in a tree, as a block does.
Welford tree(const std::vector<double>& xs, size_t parts) {
  std::vector<Welford> w(parts);
  for (size_t i = 0; i < xs.size(); ++i) w[i % parts].add(xs[i]);
  for (size_t s = 1; s < parts; s *= 2)
    for (size_t i = 0; i + s < parts; i += 2 * s) w[i].merge(w[i + s]);
  return w[0];
}

}  // namespace

TEST(WelfordTest, AnySplitGivesTheTwoPassMeanAndVariance) {
  Generator gen(3);
  for (int64_t n : {1, 2, 7, 256, 1000, 4099}) {
    // A large offset: the naive E[x^2] - E[x]^2 loses every digit here; Welford does not.
    const std::vector<double> xs = (randn({n}, kFloat64, &gen) + 1e6).to_vector<double>();
    double mean = 0, sq = 0;
    for (double x : xs) mean += x;
    mean /= static_cast<double>(n);
    for (double x : xs) sq += (x - mean) * (x - mean);
    for (size_t parts : {size_t{1}, size_t{3}, size_t{32}, size_t{256}}) {
      const Welford w = tree(xs, parts);
      EXPECT_EQ(w.n, n);
      EXPECT_NEAR(w.mean, mean, 1e-9 * std::fabs(mean)) << n << " values in " << parts;
      EXPECT_NEAR(w.var_biased(), sq / static_cast<double>(n), 1e-8 * (sq / static_cast<double>(n)) + 1e-12)
          << n << " values in " << parts;
    }
  }
  EXPECT_EQ(Welford().var_biased(), 0.0);
  Welford empty_merge;
  empty_merge.merge(Welford());
  EXPECT_EQ(empty_merge.n, 0);
}

TEST(WelfordTest, MatchesTheCpuBatchNormStatistics) {
  Generator gen(5);
  for (DType t : {kFloat32, kFloat64})
    for (auto [N, C, S] : std::vector<std::array<int64_t, 3>>{{4, 3, 25}, {64, 5, 1}, {1, 2, 300}, {3, 1, 7}}) {
      const Tensor x = randn({N, C, S}, t, &gen) * 3.0 + 2.0;
      const Tensor mean = empty({C}, t), var = empty({C}, t);
      batch_norm_stats_stub(DeviceType::CPU, mean, var, x, N, C, S);
      const std::vector<double> xv = x.to_vector<double>(), mv = mean.to_vector<double>(), vv = var.to_vector<double>();
      for (int64_t c = 0; c < C; ++c) {
        // The CUDA reducer: one Welford per value, merged (here in n, s order, split in 4 parts).
        std::vector<double> channel;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t s = 0; s < S; ++s) channel.push_back(xv[static_cast<size_t>((n * C + c) * S + s)]);
        const Welford w = tree(channel, 4);
        const double rtol = t == kFloat32 ? 1e-6 : 1e-12;
        EXPECT_NEAR(w.mean, mv[static_cast<size_t>(c)], rtol * (1 + std::fabs(mv[static_cast<size_t>(c)])));
        EXPECT_NEAR(w.var_biased(), vv[static_cast<size_t>(c)], rtol * (1 + vv[static_cast<size_t>(c)]));
      }
    }
}
