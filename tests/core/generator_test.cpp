#include <gtest/gtest.h>

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
