#include <gtest/gtest.h>

#include "ember/core/philox_run.h"
#include "ember/ember.h"

using namespace ember;

TEST(GeneratorTest, SameSeedSameStream) {
  Generator a(123), b(123), c(124);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.next_u64(), b.next_u64());
  Generator d(123);
  EXPECT_NE(d.next_u64(), c.next_u64());
}

TEST(GeneratorTest, StateRestoresTheExactContinuation) {
  Generator g(5);
  for (int i = 0; i < 7; ++i) g.next_u32();  // a position inside a Philox block
  Generator::State s = g.get_state();
  std::vector<double> first;
  for (int i = 0; i < 5; ++i) first.push_back(g.normal());
  Generator h(999);
  h.set_state(s);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(h.normal(), first[static_cast<size_t>(i)]);
  EXPECT_EQ(h.get_state(), g.get_state());
}

TEST(GeneratorTest, BulkDrawsAreTheGeneratorsOwn) {
  // every start within a block, lengths across the sixteen-block batch and its tail, and a counter
  // past 2^32 blocks (the block number's high word)
  for (uint64_t seed : {uint64_t{0}, uint64_t{0x853c49e6748fea9bULL}}) {
    for (uint64_t first : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{61}, (uint64_t{1} << 34) + 2}) {
      for (int64_t n : {0, 1, 3, 4, 5, 63, 64, 65, 130, 1000}) {
        std::vector<uint32_t> bulk(static_cast<size_t>(n) + 1, 7);
        philox_u32_run(seed, first, bulk.data(), n);
        Generator g;
        g.set_state({seed, first});
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(bulk[static_cast<size_t>(i)], g.next_u32())
              << "seed " << seed << ", first " << first << ", i " << i;
        EXPECT_EQ(bulk[static_cast<size_t>(n)], 7u) << "wrote past n = " << n;
      }
    }
  }
}

TEST(GeneratorTest, RandDrawsWhatTheGeneratorWouldOneAtATime) {
  for (DType dtype : {kFloat32, kFloat64}) {
    Generator g(9), h(9);
    g.next_u32();  // a start inside a block
    h.next_u32();
    Tensor t = rand({3, 700}, dtype, &g);
    const std::vector<double> got = t.to_vector<double>();
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], dtype == kFloat32 ? static_cast<double>(h.uniform_float()) : h.uniform_double())
          << dtype << " " << i;
    EXPECT_EQ(g.get_state(), h.get_state());
  }
}

TEST(GeneratorTest, DefaultGeneratorIsSeededByManualSeed) {
  manual_seed(11);
  Tensor a = randn({4});
  manual_seed(11);
  Tensor b = randn({4});
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
}

TEST(GeneratorTest, BelowIsUnbiasedEnoughAndInRange) {
  Generator g(3);
  std::vector<int> counts(3, 0);
  for (int i = 0; i < 30000; ++i) {
    uint64_t v = g.below(3);
    ASSERT_LT(v, 3u);
    counts[v]++;
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
}
