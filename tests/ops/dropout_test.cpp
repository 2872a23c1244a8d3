#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/ops/dropout.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

TEST(DropoutTest, IdentityWhenNotTrainingOrPIsZero) {
  Tensor x = randn({4, 5});
  EXPECT_TRUE(dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(dropout(x, 0.0, true).is_same(x));
  Tensor e = zeros({0, 3});
  EXPECT_TRUE(dropout(e, 0.5, true).is_same(e));
  // Not training accepts any dtype, as in PyTorch.
  Tensor i = tensor<int64_t>({1, 2});
  EXPECT_TRUE(dropout(i, 0.5, false).is_same(i));
}

TEST(DropoutTest, PEqualToOneZeroesEverything) {
  Tensor x = (randn({3, 4}, kFloat64) + 1.0).set_requires_grad();
  Tensor y = dropout(x, 1.0);
  EXPECT_EQ(y.to_vector<double>(), std::vector<double>(12, 0.0));
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), std::vector<double>(12, 0.0));
}

TEST(DropoutTest, KeepsAboutOneMinusPAndScalesTheSurvivors) {
  Generator gen(1);
  for (DType dtype : {kFloat32, kFloat64}) {
    const double p = 0.3;
    const int64_t n = 200000;
    Tensor y = dropout(ones({n}, dtype), p, true, &gen);
    EXPECT_EQ(y.dtype(), dtype);
    std::vector<double> v = y.to_vector<double>();
    int64_t zeros_seen = 0;
    for (double e : v) {
      if (e == 0)
        ++zeros_seen;
      else
        ASSERT_NEAR(e, 1 / (1 - p), 1e-6);
    }
    // Binomial(n, p): standard deviation sqrt(n p (1 - p)) ~ 205; allow 5 of them.
    EXPECT_NEAR(static_cast<double>(zeros_seen), p * n, 1025);
    EXPECT_NEAR(y.mean().item<double>(), 1.0, 0.01);  // inverted dropout keeps the expectation
  }
}

TEST(DropoutTest, SameSeedGivesTheSameMask) {
  Tensor x = randn({64, 33});
  Generator a(42), b(42), c(43);
  Tensor ya = dropout(x, 0.5, true, &a);
  Tensor yb = dropout(x, 0.5, true, &b);
  Tensor yc = dropout(x, 0.5, true, &c);
  EXPECT_EQ(ya.to_vector<float>(), yb.to_vector<float>());
  EXPECT_NE(ya.to_vector<float>(), yc.to_vector<float>());
  // The generator moves on: the next mask differs, and it advanced by one draw per element.
  EXPECT_EQ(a.get_state().counter, uint64_t{64 * 33});
  EXPECT_NE(dropout(x, 0.5, true, &a).to_vector<float>(), ya.to_vector<float>());
  // The default generator, seeded.
  manual_seed(7);
  Tensor d1 = dropout(x, 0.2);
  manual_seed(7);
  Tensor d2 = dropout(x, 0.2);
  EXPECT_EQ(d1.to_vector<float>(), d2.to_vector<float>());
}

TEST(DropoutTest, MaskIsTheGeneratorStreamInOrderWhateverTheThreads) {
  // Large enough to be split over threads: element i must still use draw i.
  const int64_t n = 300001;
  const double p = 0.25;
  Generator gen(99), replay(99);
  Tensor x = ones({n}, kFloat64);
  std::vector<double> y = dropout(x, p, true, &gen).to_vector<double>();
  for (int64_t i = 0; i < n; ++i) {
    bool keep = replay.uniform_float() < static_cast<float>(1 - p);
    ASSERT_EQ(y[static_cast<size_t>(i)], keep ? 1 / (1 - p) : 0.0) << "element " << i;
  }
  // Non-contiguous input: row-major order of the view.
  Generator g1(5), g2(5);
  Tensor a = randn({30, 40}, kFloat64);
  Tensor viaView = dropout(a.t(), 0.5, true, &g1);
  Tensor viaCopy = dropout(a.t().contiguous(), 0.5, true, &g2);
  EXPECT_EQ(viaView.to_vector<double>(), viaCopy.to_vector<double>());
}

TEST(DropoutTest, GradientIsTheScaledMask) {
  Generator gen(3);
  Tensor x = randn({50, 20}, kFloat64).set_requires_grad();
  Tensor y = dropout(x, 0.4, true, &gen);
  Tensor g = randn({50, 20}, kFloat64);
  y.backward(g);
  std::vector<double> xv = x.detach().to_vector<double>(), yv = y.detach().to_vector<double>();
  std::vector<double> gv = g.to_vector<double>(), gx = x.grad().to_vector<double>();
  for (size_t i = 0; i < xv.size(); ++i) {
    double mask = yv[i] == 0 ? 0 : 1 / 0.6;
    ASSERT_NEAR(gx[i], gv[i] * mask, 1e-12);
    if (yv[i] != 0) ASSERT_NEAR(yv[i], xv[i] / 0.6, 1e-12);
  }
}

TEST(DropoutTest, Gradcheck) {
  // Reseeding inside the function gives gradcheck the same mask on every evaluation.
  Generator gen;
  auto with_mask = [&](const Tensor& x) {
    gen.manual_seed(11);
    return dropout(x, 0.4, true, &gen);
  };
  gradcheck([&](const TensorList& in) { return with_mask(in[0]); }, {randn({3, 4}, kFloat64).set_requires_grad()});
  gradcheck([&](const TensorList& in) { return with_mask(in[0].t()); }, {randn({4, 3}, kFloat64).set_requires_grad()});
  gradcheck([&](const TensorList& in) { return with_mask(in[0]); }, {randn({}, kFloat64).set_requires_grad()});
  gradgradcheck([&](const TensorList& in) { return with_mask(in[0]) * in[0]; },
                {randn({3, 4}, kFloat64).set_requires_grad()});
}

TEST(DropoutTest, ErrorsNameTheOpAndArgument) {
  expect_error([] { dropout(ones({2}), 1.5); }, {"dropout", "between 0 and 1", "1.5"});
  expect_error([] { dropout(ones({2}), -0.1); }, {"dropout", "-0.1"});
  expect_error([] { dropout(tensor<int64_t>({1, 2}), 0.5); }, {"dropout", "int64"});
}
