// _standard_gamma_grad against mpmath's -(dP/da) / p at 40 digits (tests/fixtures/
// distributions_rsample.json: alpha from 1e-3 to 1e4, z at alpha's quantiles 1e-6 .. 1 - 1e-6), its
// edge values, and the refusal of its own derivative.
#include "ember/ops/gamma_grad.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::expect_error;

TEST(GammaGradTest, MatchesTheMpmathOracleToOneInABillion) {
  const auto cases = ember::testing::load_fixture("distributions_rsample.json");
  const auto& c = cases.at("standard_gamma_grad");
  Tensor alpha = c.tensor("alpha"), x = c.tensor("x"), oracle = c.tensor("oracle");
  ASSERT_GT(alpha.numel(), 200);
  expect_close(standard_gamma_grad(alpha, x), oracle, 1e-9, 0);
  // float32 draws: computed in double, rounded once.
  Tensor got32 = standard_gamma_grad(alpha.to(kFloat32), x.to(kFloat32));
  EXPECT_EQ(got32.dtype(), kFloat32);
  expect_close(got32, standard_gamma_grad(alpha.to(kFloat32).to(kFloat64), x.to(kFloat32).to(kFloat64)).to(kFloat32), 0,
               0);
}

TEST(GammaGradTest, EdgeValuesAndBroadcasting) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Tensor a = tensor(std::vector<double>{2.0, 2.0, -1.0, 0.0, inf, 2.0, nan});
  Tensor z = tensor(std::vector<double>{0.0, -1.0, 1.0, 1.0, 1.0, inf, 1.0});
  Tensor got = standard_gamma_grad(a, z);
  EXPECT_EQ(got.select(0, 0).item<double>(), 0.0);
  for (int64_t i = 1; i < 7; ++i) EXPECT_TRUE(std::isnan(got.select(0, i).item<double>())) << i;
  Tensor grid =
      standard_gamma_grad(tensor(std::vector<double>{0.5, 3.0}, {2, 1}), tensor(std::vector<double>{0.1, 1.0, 4.0}));
  EXPECT_EQ(grid.sizes(), IntArrayRef({2, 3}));
  // dz/da > 0: a larger shape moves every quantile up.
  EXPECT_TRUE(all(gt(grid, 0)).item<bool>());
}

TEST(GammaGradTest, ItsOwnDerivativeIsRefused) {
  Tensor a = full({3}, 2.0, kFloat64).set_requires_grad();
  Tensor g = standard_gamma_grad(a, full({3}, 1.5, kFloat64));
  expect_error<NotImplementedError>([&] { sum(g).backward(); }, {"_standard_gamma_grad"});
}
