// multinomial (ops/multinomial.h), bincount and histc (ops/count.h): reproducible draws from a
// seeded generator, frequencies within a chi-squared bound, sampling without replacement, counts
// and bin edges, and PyTorch's errors. The Python suite checks torch's messages from a fixture
// (tests/python/test_sampling_count.py) and bins against NumPy.
#include <gtest/gtest.h>

#include <set>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;

TEST(SamplingTest, MultinomialRepeatsUnderTheSameSeed) {
  Tensor p = tensor({0.1, 0.2, 0.3, 0.4});
  Generator a(7), b(7);
  Tensor first = multinomial(p, 50, true, &a), second = multinomial(p, 50, true, &b);
  EXPECT_EQ(first.to_vector<int64_t>(), second.to_vector<int64_t>());
  EXPECT_NE(multinomial(p, 50, true, &a).to_vector<int64_t>(), first.to_vector<int64_t>());
  manual_seed(3);
  Tensor d1 = multinomial(p, 4);
  manual_seed(3);
  EXPECT_EQ(multinomial(p, 4).to_vector<int64_t>(), d1.to_vector<int64_t>());
}

TEST(SamplingTest, MultinomialFrequenciesPassAChiSquaredTest) {
  // 20000 draws of 4 categories: chi-squared with 3 degrees of freedom stays below 16.27 with
  // probability 0.999.
  const std::vector<double> w = {1.0, 2.0, 3.0, 4.0};
  Generator g(11);
  std::vector<int64_t> draws = multinomial(tensor(w), 20000, true, &g).to_vector<int64_t>();
  std::vector<double> count(4, 0.0);
  for (int64_t d : draws) count[static_cast<size_t>(d)] += 1;
  double chi2 = 0;
  for (size_t j = 0; j < 4; ++j) {
    const double expected = 20000 * w[j] / 10.0;
    chi2 += (count[j] - expected) * (count[j] - expected) / expected;
  }
  EXPECT_LT(chi2, 16.27);
}

TEST(SamplingTest, MultinomialWithoutReplacementNeverRepeatsAndSkipsZeros) {
  Generator g(5);
  Tensor rows = tensor(std::vector<double>{0.0, 1.0, 2.0, 0.0, 3.0, 5.0, 1.0, 1.0}, {2, 4});
  for (int trial = 0; trial < 50; ++trial) {
    Tensor out = multinomial(rows, 2, false, &g);
    ASSERT_EQ(out.sizes(), IntArrayRef({2, 2}));
    auto v = out.to_vector<int64_t>();
    EXPECT_NE(v[0], v[1]);
    EXPECT_NE(v[2], v[3]);
    for (int64_t c : {v[0], v[1]}) EXPECT_TRUE(c == 1 || c == 2);  // row 0's zero-weight categories never come
  }
  // Past the positive weights, the rest come in index order (PyTorch's CPU result).
  EXPECT_EQ(multinomial(tensor({1.0, 0.0, 0.0}), 3, false, &g).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(multinomial(zeros({0, 3}), 2).sizes(), IntArrayRef({0, 2}));
  EXPECT_EQ(multinomial(tensor({0.0, 1.0, 0.0}), 5, true, &g).to_vector<int64_t>(), std::vector<int64_t>(5, 1));
}

TEST(SamplingTest, MultinomialErrorsAreTorchs) {
  Tensor p = tensor({0.2, 0.3, 0.5});
  expect_error<ValueError>([] { multinomial(scalar_tensor(1.0), 1); }, {"prob_dist must be 1 or 2 dim"});
  expect_error<TypeError>([] { multinomial(tensor(std::vector<int64_t>{1, 2}), 1); },
                          {"multinomial only supports floating-point dtypes for input, got: int64"});
  expect_error<ValueError>([&] { multinomial(p, 0); }, {"cannot sample n_sample <= 0 samples"});
  expect_error<ValueError>([&] { multinomial(p, 4); },
                           {"cannot sample n_sample > prob_dist.size(-1) samples without replacement"});
  expect_error<ValueError>([] { multinomial(tensor({0.5, -0.1}), 1); },
                           {"probability tensor contains either `inf`, `nan` or element < 0"});
  expect_error<ValueError>([] { multinomial(tensor(std::vector<double>{0.0, 0.0}, {1, 2}), 1); },
                           {"invalid multinomial distribution (sum of probabilities <= 0)"});
}

TEST(CountTest, BincountCountsAndSumsWeights) {
  Tensor x = tensor(std::vector<int64_t>{1, 3, 1, 0});
  EXPECT_EQ(bincount(x).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0, 1}));
  EXPECT_EQ(bincount(x, Tensor(), 6).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0, 1, 0, 0}));
  Tensor w = tensor({0.5f, 1.0f, 2.0f, 4.0f});
  EXPECT_EQ(bincount(x, w).dtype(), kFloat32);
  EXPECT_EQ(bincount(x, w).to_vector<float>(), (std::vector<float>{4, 2.5, 0, 1}));
  EXPECT_EQ(bincount(x, tensor(std::vector<int64_t>{1, 1, 1, 1})).dtype(), kFloat64);
  EXPECT_EQ(bincount(tensor(std::vector<int64_t>{}), Tensor(), 2).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(bincount(tensor(std::vector<uint8_t>{2})).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 1}));
  Tensor leaf = tensor({1.0, 2.0, 3.0, 4.0}).set_requires_grad();
  EXPECT_FALSE(bincount(x, leaf).requires_grad());
  expect_error<ValueError>([] { bincount(tensor(std::vector<int64_t>{0, -1})); },
                           {"bincount: only supports 1-d non-negative integral inputs, got -1"});
  expect_error<TypeError>([] { bincount(zeros({2})); }, {"bincount: expected a tensor of non-negative integers, got float32"});
  expect_error<ValueError>([&] { bincount(x, ones({2})); }, {"bincount: weights should be 1-d and have the same length"});
  expect_error<ValueError>([&] { bincount(x, Tensor(), -1); }, {"bincount: minlength should be >= 0, got -1"});
}

TEST(CountTest, HistcBinsLikePyTorch) {
  EXPECT_EQ(histc(tensor({0.0f, 1.0f, 2.0f, 3.0f, 3.0f}), 3, 0, 3).to_vector<float>(), (std::vector<float>{1, 1, 3}));
  // min == max: the data's range; a constant tensor gets [v - 1, v + 1].
  EXPECT_EQ(histc(tensor({1.0, 2.0, 2.5, 4.0}), 3).to_vector<double>(), (std::vector<double>{1, 2, 1}));
  EXPECT_EQ(histc(tensor({5.0, 5.0}), 2).to_vector<double>(), (std::vector<double>{0, 2}));
  // Outside the range and NaN are ignored.
  EXPECT_EQ(histc(tensor({-1.0, 0.5, 9.0, std::nan("")}), 2, 0, 1).to_vector<double>(), (std::vector<double>{0, 1}));
  EXPECT_EQ(histc(zeros({2, 3}), 4, -1, 1).sizes(), IntArrayRef({4}));
  expect_error<ValueError>([] { histc(tensor({1.0, 2.0}), 4, 3, 1); }, {"histc: max must be larger than min"});
  expect_error<ValueError>([] { histc(tensor({1.0, std::nan("")}), 4); }, {"histc: range of [nan, nan] is not finite"});
  expect_error<ValueError>([] { histc(tensor({1.0}), 0); }, {"histc: bins must be > 0, got 0"});
  expect_error<TypeError>([] { histc(tensor(std::vector<int64_t>{1})); }, {"histc: expected a floating tensor, got int64"});
}
