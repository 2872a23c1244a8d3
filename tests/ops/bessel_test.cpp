// The modified Bessel functions of the first kind i0, i0e, i1, i1e (core/math/special.h): values
// against the C++ library's std::cyl_bessel_i (an implementation of its own, series and asymptotic
// expansion), the scaled forms against exp(-|x|) times it, parity, PyTorch's values at +-0, +-inf
// and NaN and where i0 overflows, float32 as the double result rounded once, and gradients against
// finite differences, twice.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_values;
using ember::testing::expect_values_near;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Both sides of the series' switch at 8, from tiny to where i0 nearly overflows.
std::vector<double> points() { return {1e-30, 1e-8, 1e-3, 0.1, 0.5, 1, 2.5, 7.99, 8, 8.01, 12.5, 30, 100, 700}; }

}  // namespace

TEST(BesselTest, ValuesMatchTheCLibrary) {
  const std::vector<double> xs = points();
  std::vector<double> i0s, i1s, i0es, i1es;
  for (double x : xs) {
    i0s.push_back(std::cyl_bessel_i(0.0, x));
    i1s.push_back(std::cyl_bessel_i(1.0, x));
    i0es.push_back(std::exp(-x) * std::cyl_bessel_i(0.0, x));
    i1es.push_back(std::exp(-x) * std::cyl_bessel_i(1.0, x));
  }
  const Tensor x = tensor(xs);
  expect_values_near(i0(x), i0s, 1e-14, 0);
  expect_values_near(special_i1(x), i1s, 1e-14, 0);
  expect_values_near(special_i0e(x), i0es, 1e-14, 0);
  expect_values_near(special_i1e(x), i1es, 1e-14, 0);
  // i0 and i0e are even, i1 and i1e odd, to the bit
  expect_values(i0(-x), i0(x).to_vector<double>());
  expect_values(special_i0e(-x), special_i0e(x).to_vector<double>());
  expect_values(special_i1(-x), (-special_i1(x)).to_vector<double>());
  expect_values(special_i1e(-x), (-special_i1e(x)).to_vector<double>());
}

TEST(BesselTest, EdgesAreTorchs) {
  const Tensor x = tensor({kInf, -kInf, kNaN, 0.0, -0.0, 709.0, 710.0, -710.0});
  const std::vector<double> i0s = i0(x).to_vector<double>(), i1s = special_i1(x).to_vector<double>();
  expect_values(i0(x), {kNaN, kNaN, kNaN, 1, 1, i0s[5], kInf, kInf});
  EXPECT_TRUE(std::isfinite(i0s[5]) && i0s[5] > 1e306);
  expect_values(special_i1(x), {kNaN, kNaN, kNaN, 0, 0, i1s[5], kInf, -kInf});
  expect_values(special_i0e(tensor({kInf, -kInf, kNaN})), {0, 0, kNaN});
  expect_values(special_i1e(tensor({kInf, -kInf, kNaN})), {0, 0, kNaN});
  // i1 and i1e of -0 and i1e of -inf as PyTorch's: +0, +0 and -0
  EXPECT_FALSE(std::signbit(special_i1(tensor({-0.0})).item()));
  EXPECT_FALSE(std::signbit(special_i1e(tensor({-0.0})).item()));
  EXPECT_TRUE(std::signbit(special_i1e(tensor({-kInf})).item()));
  // tiny arguments: i1(x) = x / 2 to the last bits (PyTorch's 5.000000000000001e-301 at 1e-300)
  EXPECT_NEAR(special_i1(tensor({1e-300})).item() / 5e-301, 1, 4e-16);
  EXPECT_NEAR(special_i1e(tensor({1e-300})).item() / 5e-301, 1, 4e-16);
  // the scaled forms stay finite far beyond i0's overflow: i0e(x) ~ 1 / sqrt(2 pi x)
  expect_values_near(special_i0e(tensor({1e6})), {1 / std::sqrt(2 * std::numbers::pi * 1e6) * (1 + 1 / 8e6)}, 1e-12, 0);
}

TEST(BesselTest, Float32IsTheDoubleResultRoundedOnceAndIntegersComputeInFloat32) {
  // 89 included: i0(89) = 4.4e36 fits float32, where exp(89) alone does not
  const Tensor x32 = tensor({0.0, 0.01868093, 0.5, -2.0, 3.0, 7.9, 8.1, 40.0, 89.0}).to(kFloat32);
  const Tensor x64 = x32.to(kFloat64);
  for (auto f : {&i0, &special_i0e, &special_i1, &special_i1e}) {
    const Tensor got = f(x32);
    EXPECT_EQ(got.dtype(), kFloat32);
    expect_values(got, f(x64).to(kFloat32).to_vector<double>());
  }
  EXPECT_TRUE(std::isfinite(i0(tensor({89.0f})).item()));
  const Tensor ints = tensor(std::vector<int64_t>{0, 1, -2});
  for (auto f : {&i0, &special_i0e, &special_i1, &special_i1e}) EXPECT_EQ(f(ints).dtype(), kFloat32);
  EXPECT_EQ(i0(empty({0, 3})).sizes(), IntArrayRef({0, 3}));
}

TEST(BesselTest, GradientsMatchFiniteDifferencesTwiceAndAreTorchsAtZero) {
  Generator gen(7);
  for (auto f : {&i0, &special_i0e, &special_i1, &special_i1e}) {
    auto fn = [f](const TensorList& in) { return f(in[0]); };
    // across 0 and across the series' switch at 8, strided and 0-d
    for (auto [lo, hi] : {std::pair{-5.0, 5.0}, std::pair{6.0, 11.0}, std::pair{-11.0, -6.0}}) {
      const Tensor x = (rand({4, 3}, kFloat64, &gen) * (hi - lo) + lo).set_requires_grad();
      gradcheck(fn, {x});
      gradcheck([f](const TensorList& in) { return f(in[0].t()); }, {x});
      gradgradcheck(fn, {x});
    }
    gradcheck(fn, {(rand({}, kFloat64, &gen) + 0.5).set_requires_grad()});
  }
  // at 0, i1(x) / x and i1e(x) / x take their limit 1/2 (PyTorch's), and the second derivative is finite;
  // so do they below epsilon, where i1(x) / x rounds to 0 or 1 (the subnormals)
  const double sub = std::numeric_limits<double>::denorm_min();
  for (auto f : {&special_i1, &special_i1e}) {
    const Tensor tiny = tensor({sub, -sub, 1e-300, -1e-17}).set_requires_grad();
    expect_values(autograd::grad({f(tiny).sum()}, {tiny})[0], {0.5, 0.5, 0.5, 0.5});
    const Tensor tiny32 = tensor({std::numeric_limits<float>::denorm_min(), 1e-8f}).set_requires_grad();
    expect_values(autograd::grad({f(tiny32).sum()}, {tiny32})[0], {0.5, 0.5});
  }
  const Tensor zero = tensor({0.0, -0.0}).set_requires_grad();
  const std::vector<double> want = {0, 0, 0.5, 0.5};
  int k = 0;
  for (auto f : {&i0, &special_i0e, &special_i1, &special_i1e}) {
    const Tensor g = autograd::grad({f(zero).sum()}, {zero}, {}, false, true)[0];
    expect_values(g, {want[static_cast<size_t>(k)], want[static_cast<size_t>(k)]});
    const Tensor gg = autograd::grad({g.sum()}, {zero})[0];
    for (double v : gg.to_vector<double>()) EXPECT_TRUE(std::isfinite(v)) << k;
    ++k;
  }
}
