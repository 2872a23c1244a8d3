// The regularised incomplete gamma functions igamma = P(a, x) and igammac = Q(a, x)
// (core/math/special.h): closed forms as oracles (P(1, x) = 1 - e^-x, P(1/2, x) = erf(sqrt x),
// P(n, x) = 1 - e^-x sum_{k<n} x^k / k!) on both sides of the switch from the series to the
// continued fraction at x = a + 1, P + Q = 1, PyTorch's edge values, float32 as the double result
// rounded once, broadcasting, the x gradient against finite differences (twice), and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values;
using ember::testing::expect_values_near;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// P(n, x) for an integer n: 1 - e^-x sum_{k<n} x^k / k! (Q(n, x) is the sum part).
double q_of_integer(int n, double x) {
  double term = 1, sum = 1;
  for (int k = 1; k < n; ++k) {
    term *= x / k;
    sum += term;
  }
  return std::exp(-x) * sum;
}

}  // namespace

TEST(IncompleteGammaTest, ClosedFormsOnBothSidesOfTheSwitch) {
  const std::vector<double> xs = {1e-6, 0.1, 0.9, 1.5, 2.0, 2.1, 5.0, 10.0, 30.0, 60.0};
  for (int n : {1, 2, 5, 20}) {
    std::vector<double> p, q;
    for (double x : xs) {
      q.push_back(q_of_integer(n, x));
      p.push_back(1 - q_of_integer(n, x));
    }
    const Tensor a = full({static_cast<int64_t>(xs.size())}, n, TensorOptions(kFloat64));
    SCOPED_TRACE(::testing::Message() << "a = " << n);
    expect_values_near(igammac(a, tensor(xs)), q, 1e-12, 1e-300);
    // NB: P near 0 is not 1 - Q there (cancellation): against the oracle where it is far from 0
    std::vector<double> got = igamma(a, tensor(xs)).to_vector<double>();
    for (size_t i = 0; i < xs.size(); ++i)
      if (p[i] > 1e-3) EXPECT_NEAR(got[i], p[i], 1e-12 * p[i]) << "x = " << xs[i];
  }
  std::vector<double> erfs;
  for (double x : xs) erfs.push_back(std::erf(std::sqrt(x)));
  expect_values_near(igamma(full({10}, 0.5, TensorOptions(kFloat64)), tensor(xs)), erfs, 1e-12, 0);
  // P(a, x) for small x: x^a / Gamma(a + 1) to first order
  expect_values_near(igamma(tensor({2.5}), tensor({1e-8})), {std::pow(1e-8, 2.5) / std::tgamma(3.5)}, 1e-7, 0);
}

TEST(IncompleteGammaTest, LowerAndUpperSumToOne) {
  Generator gen(3);
  const Tensor a = rand({200}, TensorOptions(kFloat64), &gen) * 50 + 0.01;
  const Tensor x = rand({200}, TensorOptions(kFloat64), &gen) * 80;
  const Tensor sum = igamma(a, x) + igammac(a, x);
  EXPECT_LT((sum - 1).abs().max().item<double>(), 1e-13);
  EXPECT_TRUE((igamma(a, x) >= 0).all().item<bool>() && (igamma(a, x) <= 1).all().item<bool>());
}

TEST(IncompleteGammaTest, EdgeValuesArePyTorchs) {
  const Tensor a = tensor({0.0, 2.0, kInf, 2.0, 0.0, kInf, -1.0, 2.0, kNaN, 2.0});
  const Tensor x = tensor({3.0, 0.0, 5.0, kInf, 0.0, kInf, 1.0, -1.0, 1.0, kNaN});
  expect_values(igamma(a, x), {1, 0, 0, 1, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN});
  expect_values(igammac(a, x), {0, 1, 1, 0, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN});
  // PyTorch's edges are tried in order, which decides a NaN in the other argument
  const Tensor na = tensor({kNaN, kNaN, kInf, kNaN}), nx = tensor({0.0, kInf, kNaN, 1.0});
  expect_values(igamma(na, nx), {0, 1, 0, kNaN});
  expect_values(igammac(na, nx), {1, 0, 1, kNaN});
}

TEST(IncompleteGammaTest, Float32IsTheDoubleResultRoundedAndShapesBroadcast) {
  const Tensor a = tensor({0.5, 1.0, 3.0, 40.0}).reshape({4, 1}).to(kFloat32);
  const Tensor x = tensor({0.25, 1.0, 4.0, 45.0, 200.0}).to(kFloat32);
  const Tensor got = igamma(a, x);
  EXPECT_EQ(got.sizes(), IntArrayRef({4, 5}));
  EXPECT_EQ(got.dtype(), kFloat32);
  EXPECT_TRUE(ember::testing::same_bits(got, igamma(a.to(kFloat64), x.to(kFloat64)).to(kFloat32)));
  // a float64 operand promotes
  EXPECT_EQ(igammac(a, x.to(kFloat64)).dtype(), kFloat64);
}

TEST(IncompleteGammaTest, TheXGradientMatchesFiniteDifferencesTwice) {
  const Tensor a = tensor({0.7, 2.0, 5.5}).reshape({3, 1});
  Tensor x = tensor({0.3, 2.5, 7.0}).requires_grad_(true);
  for (bool upper : {false, true}) {
    auto fn = [&](const TensorList& in) { return upper ? igammac(a, in[0]) : igamma(a, in[0]); };
    gradcheck(fn, {x});
    gradgradcheck(fn, {x});
  }
  // d/dx P = x^(a-1) e^-x / Gamma(a): at a = 1, e^-x
  Tensor y = tensor({0.5, 2.0}).requires_grad_(true);
  igamma(ones({2}, TensorOptions(kFloat64)), y).sum().backward();
  expect_values_near(y.grad(), {std::exp(-0.5), std::exp(-2.0)}, 1e-15, 0);
}

TEST(IncompleteGammaTest, ErrorsArePyTorchs) {
  const Tensor a = tensor({1.5}).requires_grad_(true);
  expect_error<NotImplementedError>([&] { igamma(a, tensor({1.0})).sum().backward(); },
                                    {"the derivative for 'igamma: input' is not implemented."});
  expect_error<NotImplementedError>([&] { igammac(a, tensor({1.0})).sum().backward(); },
                                    {"the derivative for 'igammac: input' is not implemented."});
  expect_error<NotImplementedError>([&] { igamma(tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{2})); },
                                    {"\"igamma_cpu\" not implemented for 'Int64'"});
}
