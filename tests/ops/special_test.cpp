// erfc, erfinv, lgamma, digamma and polygamma: known values (closed forms), identities the functions
// obey (recurrence, reflection, erf(erfinv(y)) = y), each derivative against finite differences of
// the function below it, PyTorch's values at the poles and outside the domain, and gradcheck.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

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
constexpr double kEuler = 0.57721566490153286061;
constexpr double kZeta3 = 1.2020569031595942854;
constexpr double kPi = std::numbers::pi;

void check_grads(const std::function<Tensor(const Tensor&)>& fn, double lo, double hi) {
  Generator gen(11);
  auto draw = [&](IntArrayRef shape) { return (rand(shape, kFloat64, &gen) * (hi - lo) + lo).set_requires_grad(); };
  gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw({3, 4})});
  gradcheck([&](const TensorList& in) { return fn(in[0].t()); }, {draw({4, 3})});
  gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw({})});
}

// Points away from the poles, on both sides of 0.
std::vector<double> points() {
  return {-7.3, -2.5, -0.5, -1e-3, 1e-3, 0.1, 0.5, 1, 1.5, 2.75, 9.99, 10, 10.01, 37.5, 1e3, 1e6};
}

}  // namespace

TEST(SpecialTest, ClosedFormsOfDigammaAndPolygamma) {
  expect_values_near(digamma(tensor({1.0, 0.5, 2.0, 1e-300 + 1.0})),
                     {-kEuler, -kEuler - 2 * std::numbers::ln2, 1 - kEuler, -kEuler}, 1e-15, 0);
  // psi_1(1) = pi^2 / 6, psi_1(1/2) = pi^2 / 2, psi_2(1) = -2 zeta(3), psi_3(1/2) = pi^4, psi_5(1) = 5! zeta(6).
  expect_values_near(polygamma(1, tensor({1.0, 0.5})), {kPi * kPi / 6, kPi * kPi / 2}, 1e-15, 0);
  expect_values_near(polygamma(2, tensor({1.0})), {-2 * kZeta3}, 1e-15, 0);
  expect_values_near(polygamma(3, tensor({0.5})), {std::pow(kPi, 4)}, 1e-14, 0);
  expect_values_near(polygamma(5, tensor({1.0})), {120 * std::pow(kPi, 6) / 945}, 1e-14, 0);
  expect_values(polygamma(0, tensor({0.5, 3.0})), digamma(tensor({0.5, 3.0})).to_vector<double>());
}

TEST(SpecialTest, DigammaObeysItsRecurrenceAndReflection) {
  for (double x : points()) {
    if (x == std::floor(x) && x <= 0) continue;
    const double psi = digamma(tensor({x})).item(), psi_next = digamma(tensor({x + 1})).item();
    EXPECT_NEAR(psi_next, psi + 1 / x, 1e-13 * (1 + std::fabs(psi_next) + std::fabs(1 / x))) << x;
    if (x < 1 && x > -8) {
      // psi(1 - x) - psi(x) = pi cot(pi x)
      const double lhs = digamma(tensor({1 - x})).item() - psi;
      EXPECT_NEAR(lhs, kPi / std::tan(kPi * x), 1e-12 * (1 + std::fabs(lhs))) << x;
    }
  }
}

TEST(SpecialTest, EachDerivativeMatchesFiniteDifferencesOfTheFunctionBelow) {
  // lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' = polygamma(n + 1): central
  // differences (h = 1e-5, error O(h^2 f''')) in double.
  const double h = 1e-5;
  for (double x : {-2.5, -0.5, 0.3, 1.0, 2.75, 9.99, 10.01, 40.0}) {
    const Tensor at = tensor({x - h, x + h});
    std::vector<double> lg = lgamma(at).to_vector<double>();
    EXPECT_NEAR((lg[1] - lg[0]) / (2 * h), digamma(tensor({x})).item(), 1e-7 * (1 + std::fabs(digamma(tensor({x})).item()))) << x;
    for (int64_t n = 0; n < 4; ++n) {
      std::vector<double> f = polygamma(n, at).to_vector<double>();
      const double want = polygamma(n + 1, tensor({x})).item();
      EXPECT_NEAR((f[1] - f[0]) / (2 * h), want, 1e-6 * (1 + std::fabs(want))) << "polygamma(" << n << ", " << x << ")";
    }
  }
}

TEST(SpecialTest, LgammaAndErfcMatchTheCLibrary) {
  std::vector<double> xs = points();
  std::vector<double> lg, ec;
  for (double x : xs) {
    lg.push_back(std::lgamma(x));
    ec.push_back(std::erfc(x));
  }
  expect_values(lgamma(tensor(xs)), lg);
  expect_values(erfc(tensor(xs)), ec);
  // erfc keeps its relative accuracy where 1 - erf(x) is 0.
  EXPECT_NEAR(erfc(tensor({10.0})).item() / 2.088487583762545e-45, 1, 1e-14);
}

TEST(SpecialTest, ErfinvInvertsErfAndErfcToTheLastBits) {
  std::vector<double> ys;
  for (double y = -0.999; y < 1; y += 0.0333) ys.push_back(y);
  for (double y : {1e-300, 1e-12, 1e-5, 0.5, 0.5000001, 0.9999, 1 - 1e-9, 1 - 1e-15}) {
    ys.push_back(y);
    ys.push_back(-y);
  }
  std::vector<double> x = erfinv(tensor(ys)).to_vector<double>();
  for (size_t i = 0; i < ys.size(); ++i) {
    const double y = ys[i];
    if (std::fabs(y) <= 0.5) {
      EXPECT_NEAR(std::erf(x[i]), y, 4e-16 * std::fabs(y) + 1e-300) << y;
    } else {
      // In the tails, 1 - |y| is the quantity that keeps its bits.
      const double r = 1 - std::fabs(y);
      EXPECT_NEAR(std::erfc(std::fabs(x[i])), r, 4e-15 * r) << y;
    }
  }
  // float32: within a few ulp of the double result.
  std::vector<double> xf = erfinv(tensor(ys).to(kFloat32)).to_vector<double>();
  std::vector<double> x32 = erfinv(tensor(ys).to(kFloat32).to(kFloat64)).to_vector<double>();
  for (size_t i = 0; i < ys.size(); ++i) {
    if (std::isinf(x32[i])) EXPECT_EQ(xf[i], x32[i]) << ys[i];  // 1 - 1e-9 is 1 in float32
    else EXPECT_NEAR(xf[i], x32[i], 2e-7 * std::fabs(x32[i]) + 1e-38) << ys[i];
  }
}

TEST(SpecialTest, PolesAndDomainEdgesAreTorchs) {
  expect_values(digamma(tensor({0.0, -0.0, -1.0, -2.0, kInf, kNaN})), {-kInf, kInf, kNaN, kNaN, kInf, kNaN});
  expect_values(lgamma(tensor({0.0, -1.0, -3.0, kInf, -kInf})), {kInf, kInf, kInf, kInf, kInf});
  expect_values(polygamma(1, tensor({0.0, -1.0, kInf})), {kInf, kInf, 0});
  expect_values(polygamma(2, tensor({0.0, -1.0})), {-kInf, -kInf});
  expect_values(erfinv(tensor({1.0, -1.0, 1.5, -2.0, 0.0, -0.0, kNaN})), {kInf, -kInf, kNaN, kNaN, 0, 0, kNaN});
  EXPECT_TRUE(std::signbit(erfinv(tensor({-0.0})).item()));
  expect_values(erfc(tensor({-kInf, kInf, 0.0})), {2, 0, 1});
}

TEST(SpecialTest, IntegerInputsComputeInFloat32AndDtypesAreKept) {
  const Tensor ints = tensor(std::vector<int64_t>{1, 2, 3});
  for (const Tensor& r : {lgamma(ints), digamma(ints), polygamma(1, ints), erfc(ints), erfinv(ints)})
    EXPECT_EQ(r.dtype(), kFloat32);
  expect_values_near(lgamma(ints), {0, 0, std::log(2.0)}, 1e-6, 1e-7);
  for (DType t : {kFloat32, kFloat64}) EXPECT_EQ(digamma(tensor({1.5}).to(t)).dtype(), t);
  // float32 results are the double results rounded.
  std::vector<double> xs = {0.3, 1.7, 4.25, -1.5};
  const Tensor x32 = tensor(xs).to(kFloat32);
  expect_values_near(digamma(x32), digamma(x32.to(kFloat64)).to_vector<double>(), 6e-8, 0);
  expect_values_near(polygamma(2, x32), polygamma(2, x32.to(kFloat64)).to_vector<double>(), 6e-8, 0);
}

TEST(SpecialTest, EmptyNonContiguousAndZeroDimInputs) {
  EXPECT_EQ(digamma(empty({0, 3})).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(erfinv(scalar_tensor(0.5, kFloat64)).dim(), 0);
  Generator gen(3);
  const Tensor x = rand({6, 5}, kFloat64, &gen) * 4 + 0.1;
  expect_values(polygamma(2, x.t()), polygamma(2, x.t().contiguous()).to_vector<double>());
  expect_values(lgamma(x.slice(1, 0, 5, 2)), lgamma(x.slice(1, 0, 5, 2).contiguous()).to_vector<double>());
}

TEST(SpecialTest, PolygammaRefusesABadOrder) {
  expect_error<ValueError>([] { polygamma(-1, tensor({1.0})); }, {"polygamma", "n must be >= 0", "-1"});
  expect_error<ValueError>([] { polygamma(171, tensor({1.0})); }, {"polygamma", "171"});
  expect_error<TypeError>([] { lgamma(tensor({1.0}).to(kComplex64)); }, {"lgamma", "complex64"});
}

TEST(SpecialTest, Gradcheck) {
  check_grads([](const Tensor& x) { return erfc(x); }, -2, 2);
  check_grads([](const Tensor& x) { return erfinv(x); }, -0.9, 0.9);
  check_grads([](const Tensor& x) { return lgamma(x); }, 0.3, 6);
  check_grads([](const Tensor& x) { return lgamma(x); }, -2.9, -2.1);
  check_grads([](const Tensor& x) { return digamma(x); }, 0.3, 6);
  check_grads([](const Tensor& x) { return polygamma(2, x); }, 0.5, 6);
  Generator gen(5);
  const Tensor x = (rand({4}, kFloat64, &gen) + 0.5).set_requires_grad();
  gradgradcheck([](const TensorList& in) { return lgamma(in[0]); }, {x});
  gradgradcheck([](const TensorList& in) { return erfinv(in[0] * 0.5); }, {x});
}
