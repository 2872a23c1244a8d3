// How the CUDA reductions see their input (cuda/shared/reduce_layout.h): for contiguous inputs
// and any set of reduced dims, either an in-place [A, O, R, I] layout whose naive reduction is the
// CPU's sum, or a refusal (then the kernel copies the input with its reduced dims last).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ember/cuda/shared/reduce_layout.h"
#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_values_near;

TEST(ReduceLayoutTest, InPlaceLayoutsReduceToTheCpuSums) {
  std::mt19937 rng(23);
  int in_place = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int nd = 1 + static_cast<int>(rng() % 5);
    DimVector sizes;
    for (int d = 0; d < nd; ++d) sizes.push_back(1 + static_cast<int64_t>(rng() % 4));
    bool reduced[8] = {};
    DimVector dims;
    for (int d = 0; d < nd; ++d)
      if (rng() % 2) {
        reduced[d] = true;
        dims.push_back(d);
      }
    if (dims.empty()) continue;
    cuda::ReduceLayout l;
    if (!cuda::contiguous_reduce_layout(nd, sizes.data(), reduced, l)) {
      ++refused;
      continue;
    }
    ++in_place;
    const Tensor x = arange(numel_of(sizes), kFloat64).reshape(sizes) * 0.5 - 3.0;
    const std::vector<double> xv = x.to_vector<double>();
    ASSERT_EQ(l.A * l.O * l.R * l.I, x.numel());
    std::vector<double> out(static_cast<size_t>(l.O * l.I), 0.0);
    for (int64_t a = 0; a < l.A; ++a)
      for (int64_t o = 0; o < l.O; ++o)
        for (int64_t r = 0; r < l.R; ++r)
          for (int64_t i = 0; i < l.I; ++i)
            out[static_cast<size_t>(o * l.I + i)] += xv[static_cast<size_t>(((a * l.O + o) * l.R + r) * l.I + i)];
    expect_values_near(x.sum(dims, /*keepdim=*/true), out, 1e-12, 1e-12);
  }
  EXPECT_GT(in_place, 100);
  EXPECT_GT(refused, 0);  // e.g. reduced, kept, reduced, kept, reduced: five groups
}

TEST(ReduceLayoutTest, NamedCases) {
  cuda::ReduceLayout l;
  const int64_t bn[2] = {8, 5};
  const bool first[2] = {true, false};
  ASSERT_TRUE(cuda::contiguous_reduce_layout(2, bn, first, l));  // a bias gradient: [1, 1, B, N]
  EXPECT_EQ(std::vector<int64_t>({l.A, l.O, l.R, l.I}), std::vector<int64_t>({1, 1, 8, 5}));
  const int64_t nchw[4] = {4, 3, 5, 6};
  const bool channel[4] = {true, false, true, true};
  ASSERT_TRUE(cuda::contiguous_reduce_layout(4, nchw, channel, l));  // per channel: [N, C, HW, 1]
  EXPECT_EQ(std::vector<int64_t>({l.A, l.O, l.R, l.I}), std::vector<int64_t>({4, 3, 30, 1}));
  const int64_t five[5] = {2, 3, 4, 5, 6};
  const bool alternate[5] = {true, false, true, false, true};
  EXPECT_FALSE(cuda::contiguous_reduce_layout(5, five, alternate, l));
  const int64_t with_ones[4] = {1, 7, 1, 3};
  const bool last[4] = {false, false, true, true};  // size-1 dims do not count
  ASSERT_TRUE(cuda::contiguous_reduce_layout(4, with_ones, last, l));
  EXPECT_EQ(std::vector<int64_t>({l.A, l.O, l.R, l.I}), std::vector<int64_t>({1, 7, 3, 1}));
}
