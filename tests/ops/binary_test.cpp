#include "ember/core/kernels/binary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/ops/compare.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values_near;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using BinaryFunction = std::function<Tensor(const Tensor&, const Tensor&)>;

// gradcheck of fn(a, b) with a, b float64 in [lo, hi] on: equal shapes, broadcasting both ways,
// a transposed (non-contiguous) operand, and a 0-d operand.
void check_grads(const BinaryFunction& fn, double lo, double hi) {
  Generator gen(3);
  auto draw = [&](IntArrayRef shape) {
    return (rand(shape, kFloat64, &gen) * (hi - lo) + lo).set_requires_grad();
  };
  auto both = [&](const TensorList& in) { return fn(in[0], in[1]); };
  gradcheck(both, {draw({2, 3}), draw({2, 3})});
  gradcheck(both, {draw({2, 3}), draw({3})});
  gradcheck(both, {draw({2, 1}), draw({1, 3})});
  gradcheck(both, {draw({}), draw({2, 3})});
  gradcheck([&](const TensorList& in) { return fn(in[0].t(), in[1]); }, {draw({3, 2}), draw({2, 3})});
}

}  // namespace

TEST(BinaryTest, ArithmeticBroadcastsRowsAndColumns) {
  Tensor a = tensor(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {2, 3});
  Tensor row = tensor({10.0f, 20.0f, 30.0f});
  Tensor col = tensor(std::vector<float>{1.0f, 2.0f}, {2, 1});
  expect_values_near(a + row, {11, 22, 33, 14, 25, 36});
  expect_values_near(a - col, {0, 1, 2, 2, 3, 4});
  expect_values_near(a * col, {1, 2, 3, 8, 10, 12});
  expect_values_near(row / a, {10, 10, 10, 2.5, 4, 5});
  expect_values_near(add(a, row, 2), {21, 42, 63, 24, 45, 66});
  expect_values_near(sub(a, row, 0.5), {-4, -8, -12, -1, -5, -9});
  EXPECT_EQ((a + row).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ((col + row).sizes(), IntArrayRef({2, 3}));
}

TEST(BinaryTest, ScalarsOnEitherSide) {
  Tensor x = tensor({1.0, 2.0, 4.0});
  expect_values_near(x + 1, {2, 3, 5});
  expect_values_near(1 - x, {0, -1, -3});
  expect_values_near(2.0 * x, {2, 4, 8});
  expect_values_near(2 / x, {2, 1, 0.5});
  expect_values_near(-x, {-1, -2, -4});
}

TEST(BinaryTest, DtypePromotionFollowsPyTorch) {
  Tensor i32 = tensor<int32_t>({1, 2}), i64 = tensor<int64_t>({3, 4});
  Tensor f32 = tensor({1.0f, 2.0f}), f64 = tensor({1.0, 2.0});
  Tensor b = tensor(std::vector<bool>{true, false});
  EXPECT_EQ((i32 + i64).dtype(), kInt64);
  EXPECT_EQ((i64 * f32).dtype(), kFloat32);
  EXPECT_EQ((f32 - f64).dtype(), kFloat64);
  EXPECT_EQ((b + b).dtype(), kBool);
  EXPECT_EQ((b + b).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ((b + i32).dtype(), kInt32);
  EXPECT_EQ((i64 + 2.5).dtype(), kFloat32);
  EXPECT_EQ((f32 + 2).dtype(), kFloat32);
  EXPECT_EQ((b + 1).dtype(), kInt64);
  EXPECT_EQ((i32 / i64).dtype(), kFloat32);
  expect_values_near(i32 / i64, {1.0 / 3, 0.5});
  EXPECT_EQ(pow(i32, i64).dtype(), kInt64);
  EXPECT_EQ(maximum(i32, f64).dtype(), kFloat64);
}

TEST(BinaryTest, ShapesThatDoNotBroadcastNameBothShapes) {
  Tensor a = ones({2, 3}), b = ones({4});
  expect_error([&] { a + b; }, {"add", "[2, 3]", "[4]"});
  expect_error([&] { mul(a, b); }, {"mul", "[2, 3]", "[4]"});
  expect_error([&] { pow(a, b); }, {"pow", "[2, 3]", "[4]"});
  expect_error([&] { maximum(a, b); }, {"maximum", "[2, 3]", "[4]"});
  expect_error([&] { minimum(a, b); }, {"minimum", "[2, 3]", "[4]"});
}

TEST(BinaryTest, LargeBroadcastMatchesElementwiseLoop) {
  // 512 x 300 crosses the parallel grain; the row operand broadcasts with stride 0.
  Tensor a = randn({512, 300}), row = randn({300});
  std::vector<float> av = a.to_vector<float>(), rv = row.to_vector<float>();
  std::vector<float> sum = (a + row).to_vector<float>(), mx = maximum(a.t(), row.unsqueeze(1)).to_vector<float>();
  for (size_t i = 0; i < 512; ++i)
    for (size_t j = 0; j < 300; ++j) {
      ASSERT_EQ(sum[i * 300 + j], av[i * 300 + j] + rv[j]);
      ASSERT_EQ(mx[j * 512 + i], std::max(av[i * 300 + j], rv[j]));
    }
}

TEST(BinaryTest, EmptyBroadcastGivesEmptyResult) {
  Tensor r = ones({0, 3}) * ones({3});
  EXPECT_EQ(r.sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(maximum(ones({0, 1}), ones({2})).sizes(), IntArrayRef({0, 2}));
}

TEST(BinaryTest, PowTensorValues) {
  Tensor base = tensor({2.0, -2.0, 0.0, 0.0, 4.0, -8.0});
  Tensor exponent = tensor({3.0, 3.0, 0.0, -1.0, 0.5, 1.0 / 3});
  expect_values_near(pow(base, exponent), {8, -8, 1, kInf, 2, kNaN});
  expect_values_near(base.pow(tensor({2.0})), {4, 4, 0, 0, 16, 64});
  // float32, long enough for the vectorised path.
  Tensor x = full({1000}, 1.5f), y = full({1000}, 2.25f);
  expect_values_near(pow(x, y), std::vector<double>(1000, std::pow(1.5, 2.25)));
}

TEST(BinaryTest, PowIntegerTensors) {
  Tensor b = tensor<int64_t>({2, 3, -1, -1, 1, 2});
  Tensor e = tensor<int64_t>({10, 2, 3, -3, -5, -1});
  // Negative integer powers: 1 and -1 keep their magnitude, everything else truncates to 0.
  EXPECT_EQ(pow(b, e).to_vector<int64_t>(), (std::vector<int64_t>{1024, 9, -1, -1, 1, 0}));
}

TEST(BinaryTest, PowScalarBase) {
  Tensor e = tensor({0.0, 1.0, 3.0});
  expect_values_near(pow(2, e), {1, 2, 8});
  EXPECT_EQ(pow(2, tensor<int64_t>({3})).dtype(), kInt64);
  EXPECT_EQ(pow(2.0, tensor<int64_t>({3})).dtype(), kFloat32);
}

TEST(BinaryTest, PowOfBoolTensorsIsAnError) {
  Tensor b = tensor(std::vector<bool>{true});
  expect_error([&] { pow(b, b); }, {"pow", "bool"});
}

TEST(BinaryTest, MaximumMinimumValuesAndNan) {
  Tensor a = tensor({1.0, 5.0, kNaN, -2.0});
  Tensor b = tensor({3.0, 2.0, 0.0, kNaN});
  expect_values_near(maximum(a, b), {3, 5, kNaN, kNaN});
  expect_values_near(minimum(a, b), {1, 2, kNaN, kNaN});
  expect_values_near(a.maximum(tensor({0.0})), {1, 5, kNaN, 0});
  expect_values_near(a.minimum(tensor({0.0})), {0, 0, kNaN, -2});
  // float32 on a long contiguous run (the vectorised path keeps NaN too).
  Tensor x = full({100}, 1.0f), y = full({100}, 2.0f);
  y = where(arange(100) == 37, full({}, static_cast<float>(kNaN)), y);
  std::vector<float> m = maximum(x, y).to_vector<float>();
  for (int k = 0; k < 100; ++k) {
    if (k == 37) EXPECT_TRUE(std::isnan(m[k]));
    else EXPECT_EQ(m[k], 2.0f);
  }
}

TEST(BinaryTest, MaximumMinimumOfIntegersAndBools) {
  Tensor a = tensor<int32_t>({1, -5, 7}), b = tensor<int32_t>({2, -6, 7});
  EXPECT_EQ(maximum(a, b).to_vector<int32_t>(), (std::vector<int32_t>{2, -5, 7}));
  EXPECT_EQ(minimum(a, b).to_vector<int32_t>(), (std::vector<int32_t>{1, -6, 7}));
  Tensor t = tensor(std::vector<bool>{true, false}), f = tensor(std::vector<bool>{false, false});
  EXPECT_EQ(maximum(t, f).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(minimum(t, f).to_vector<bool>(), (std::vector<bool>{false, false}));
}

TEST(BinaryTest, MaximumMinimumSplitTheGradientOnTies) {
  Tensor a = tensor({1.0, 2.0, 3.0}).set_requires_grad();
  Tensor b = tensor({1.0, 3.0, 2.0}).set_requires_grad();
  maximum(a, b).sum().backward();
  expect_values_near(a.grad(), {0.5, 0, 1});
  expect_values_near(b.grad(), {0.5, 1, 0});
  Tensor c = tensor({1.0, 2.0, 3.0}).set_requires_grad();
  Tensor d = tensor({1.0, 3.0, 2.0}).set_requires_grad();
  minimum(c, d).sum().backward();
  expect_values_near(c.grad(), {0.5, 1, 0});
  expect_values_near(d.grad(), {0.5, 0, 1});
}

TEST(BinaryTest, MaximumBroadcastGradientSumsOverTheBroadcastDims) {
  Tensor a = tensor(std::vector<double>{1.0, 5.0, 2.0, 0.0}, {2, 2}).set_requires_grad();
  Tensor b = tensor({2.0}).set_requires_grad();
  maximum(a, b).sum().backward();
  expect_values_near(a.grad(), {0, 1, 0.5, 0});
  expect_values_near(b.grad(), {2.5});
}

TEST(BinaryTest, GradcheckArithmetic) {
  check_grads([](const Tensor& a, const Tensor& b) { return a + b; }, -2, 2);
  check_grads([](const Tensor& a, const Tensor& b) { return sub(a, b, 2.5); }, -2, 2);
  check_grads([](const Tensor& a, const Tensor& b) { return a * b; }, -2, 2);
  check_grads([](const Tensor& a, const Tensor& b) { return a / b; }, 0.5, 2);
}

TEST(BinaryTest, GradcheckPowMaximumMinimum) {
  check_grads([](const Tensor& a, const Tensor& b) { return pow(a, b); }, 0.5, 2);
  // Distinct values almost surely: no ties where maximum is not differentiable.
  check_grads([](const Tensor& a, const Tensor& b) { return maximum(a, b); }, -2, 2);
  check_grads([](const Tensor& a, const Tensor& b) { return minimum(a, b); }, -2, 2);
}

TEST(BinaryTest, PowGradientAtZeroBaseIsFinite) {
  Tensor a = tensor({0.0, 0.0, 2.0}).set_requires_grad();
  Tensor b = tensor({2.0, 0.0, 0.0}).set_requires_grad();
  pow(a, b).sum().backward();
  // d/da: 2 * 0^1 = 0; 0 where the exponent is 0. d/db: 0 where the base is 0; log(2) * 2^0.
  expect_values_near(a.grad(), {0, 0, 0});
  expect_values_near(b.grad(), {0, 0, std::log(2.0)});
}

TEST(BinaryTest, GradcheckPowWithIntegerExponentTensor) {
  Tensor e = tensor<int64_t>({2, 3});
  gradcheck([&](const TensorList& in) { return pow(in[0], e); }, {randn({2, 2}, kFloat64).set_requires_grad()});
}

TEST(BinaryTest, GradgradcheckMulDivPow) {
  Tensor a = (rand({2, 3}, kFloat64) + 0.5).set_requires_grad();
  Tensor b = (rand({3}, kFloat64) + 0.5).set_requires_grad();
  gradgradcheck([](const TensorList& in) { return in[0] * in[1]; }, {a, b});
  gradgradcheck([](const TensorList& in) { return in[0] / in[1]; }, {a, b});
  gradgradcheck([](const TensorList& in) { return pow(in[0], in[1]); }, {a, b});
  gradgradcheck([](const TensorList& in) { return maximum(in[0], in[1]) * in[0]; }, {a, b});
}

// Regression: alpha * b was computed in b's dtype before promotion (float32 for a float64 sum).
TEST(BinaryTest, AlphaScalesInTheResultDtype) {
  Tensor a = zeros({}, kFloat64), b = full({}, 1.9968793, kFloat32);  // both 0-d: float64
  double b64 = static_cast<double>(b.item<float>());
  EXPECT_EQ(add(a, b, 1.5).item(), 1.5 * b64);
  EXPECT_EQ(sub(a, b, 1.5).item(), -1.5 * b64);
  expect_error<TypeError>([] { add(ones({2}, kInt64), ones({2}, kInt64), 0.5); },
                          {"add: for integer tensors alpha must be an integer, got 0.5"});
}

// add and sub with alpha round a + alpha * b once (one fused multiply-add, as PyTorch's vectorised
// kernel), on contiguous, broadcast and transposed operands, out of place and in place; a 16-bit
// float rounds alpha to its dtype, computes in float32 and rounds once. A build without FMA (the
// sanitizer build, EMBER_NATIVE=OFF) rounds the product and the sum, packets and tail alike.
TEST(BinaryTest, AlphaSumIsRoundedOnce) {
  const bool fused = cpu_add_scaled_rounds_once();
  const auto fma = [&](auto alpha, auto b, auto a) { return fused ? std::fma(alpha, b, a) : a + alpha * b; };
  Generator gen(11);
  const Tensor a = randn({37, 41}, kFloat32, &gen), row = randn({41}, kFloat32, &gen);
  const Tensor bt = randn({41, 37}, kFloat32, &gen).t();
  const std::vector<float> av = a.to_vector<float>(), rv = row.to_vector<float>();
  const std::vector<float> btv = bt.contiguous().to_vector<float>();
  for (double alpha : {-0.37, 3.0, 1e-3, -20.0}) {
    const auto f = static_cast<float>(alpha);
    std::vector<float> with_row(av.size()), with_t(av.size()), minus_t(av.size());
    size_t twice = 0;  // elements where two roundings would differ: the test has teeth
    for (size_t i = 0; i < av.size(); ++i) {
      with_row[i] = fma(f, rv[i % 41], av[i]);
      with_t[i] = fma(f, btv[i], av[i]);
      minus_t[i] = fma(-f, btv[i], av[i]);
      twice += with_t[i] != av[i] + f * btv[i];
    }
    if (fused) EXPECT_GT(twice, 0u) << alpha;
    EXPECT_EQ(add(a, row, alpha).to_vector<float>(), with_row) << alpha;
    EXPECT_EQ(add(a, bt, alpha).to_vector<float>(), with_t) << alpha;
    EXPECT_EQ(sub(a, bt, alpha).to_vector<float>(), minus_t) << alpha;
    EXPECT_EQ(a.clone().add_(bt, alpha).to_vector<float>(), with_t) << alpha;
    EXPECT_EQ(a.clone().sub_(bt, alpha).to_vector<float>(), minus_t) << alpha;
    EXPECT_EQ(a.clone().add_(row, alpha).to_vector<float>(), with_row) << alpha;
  }
  const Tensor a64 = a.to(kFloat64), b64 = bt.to(kFloat64);
  const std::vector<double> a64v = a64.to_vector<double>(), b64v = b64.contiguous().to_vector<double>();
  std::vector<double> want(a64v.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = fma(0.1, b64v[i], a64v[i]);
  EXPECT_EQ(add(a64, b64, 0.1).to_vector<double>(), want);
  // bfloat16: alpha 0.1 is 0.10009765625 there
  const Tensor h = a.to(kBFloat16), hb = bt.to(kBFloat16);
  const std::vector<float> hv = h.to(kFloat32).to_vector<float>(),
                           hbv = hb.to(kFloat32).contiguous().to_vector<float>();
  std::vector<float> hwant(hv.size());
  for (size_t i = 0; i < hv.size(); ++i) hwant[i] = static_cast<float>(BFloat16(fma(0.10009765625f, hbv[i], hv[i])));
  EXPECT_EQ(add(h, hb, 0.1).to(kFloat32).to_vector<float>(), hwant);
  EXPECT_EQ(h.clone().add_(hb, 0.1).to(kFloat32).to_vector<float>(), hwant);
  // integers keep exact (wrapping) arithmetic
  EXPECT_EQ(add(tensor<int64_t>({1, -2}), tensor<int64_t>({3, 4}), 5).to_vector<int64_t>(),
            (std::vector<int64_t>{16, 18}));
}

// Regression: a Python number was wrapped into an integer tensor's dtype before true division
// (uint8 [1, 3] / -1 divided by 255).
TEST(BinaryTest, TrueDivisionByANumberKeepsTheNumber) {
  Tensor u = tensor<uint8_t>({1, 3});
  expect_values_near(u / -1, {-1, -3});
  expect_values_near(Scalar(-1) / tensor<uint8_t>({2}), {-0.5});
  expect_values_near(tensor<uint8_t>({200}) / 300, {200.0f / 300.0f});
  EXPECT_NEAR((tensor<int32_t>({3}) / (int64_t{1} << 33)).item(), 3.0 / 8589934592.0, 1e-16);
  EXPECT_EQ((u / 2).dtype(), kFloat32);
}

TEST(BinaryTest, ScalarOtherTakesAlphaToo) {
  Tensor x = tensor({1.0, 2.0});
  expect_values_near(add(x, 3, 2), {7, 8}, 0, 0);
  expect_values_near(x.sub(1.5, 2), {-2, -1}, 0, 0);
  EXPECT_EQ(add(tensor(std::vector<int64_t>{1}), 2, 3).dtype(), kInt64);
}

// remainder (Python's %, the divisor's sign), fmod (C's, the dividend's) and atan2.
TEST(BinaryTest, RemainderAndFmodFollowPythonAndC) {
  Tensor a = tensor({5.0, -5.0, 5.0, -5.0, 5.5, 0.0}), b = tensor({3.0, 3.0, -3.0, -3.0, 2.0, 4.0});
  EXPECT_EQ(remainder(a, b).to_vector<double>(), (std::vector<double>{2, 1, -1, -2, 1.5, 0}));
  EXPECT_EQ(fmod(a, b).to_vector<double>(), (std::vector<double>{2, -2, 2, -2, 1.5, 0}));
  EXPECT_EQ((a % 2.0).to_vector<double>(), (std::vector<double>{1, 1, 1, 1, 1.5, 0}));
  Tensor i = tensor(std::vector<int64_t>{7, -7, std::numeric_limits<int64_t>::min()});
  EXPECT_EQ((i % 3).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 1}));
  EXPECT_EQ(fmod(i, int64_t{3}).to_vector<int64_t>(), (std::vector<int64_t>{1, -1, -2}));
  EXPECT_EQ((i % -1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));  // no overflow at lowest()
  EXPECT_EQ((int64_t{7} % tensor(std::vector<int64_t>{3, -3})).to_vector<int64_t>(), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(remainder(tensor(std::vector<int32_t>{5}), 2.5).dtype(), kFloat32);
  expect_error<ValueError>([&] { remainder(i, int64_t{0}); }, {"remainder: integer division by zero"});
  expect_error<ValueError>([&] { fmod(i, int64_t{0}); }, {"fmod: integer division by zero"});
  EXPECT_TRUE(std::isnan(remainder(tensor({1.0}), 0.0).item()));
  expect_error<TypeError>([&] { remainder(tensor(std::vector<bool>{true}), tensor(std::vector<bool>{true})); },
                          {"remainder: not supported for bool tensors"});
}

TEST(BinaryTest, FloorDivideIsPythonsFloorDivision) {
  Tensor a = tensor({5.0, -5.0, 5.0, -5.0, 5.5, 0.0, 1.0}), b = tensor({3.0, 3.0, -3.0, -3.0, 2.0, 4.0, 0.1});
  // 1 // 0.1 is 9 in Python (0.1 is slightly above a tenth), not floor(1 / 0.1) = 10
  EXPECT_EQ(floor_divide(a, b).to_vector<double>(), (std::vector<double>{1, -2, -2, 1, 2, 0, 9}));
  Tensor i = tensor(std::vector<int64_t>{7, -7, 6, std::numeric_limits<int64_t>::min()});
  EXPECT_EQ(floor_divide(i, int64_t{3}).to_vector<int64_t>(),
            (std::vector<int64_t>{2, -3, 2, std::numeric_limits<int64_t>::min() / 3 - 1}));
  EXPECT_EQ(floor_divide(i, int64_t{-1}).to_vector<int64_t>(),  // lowest() / -1 wraps, as PyTorch's
            (std::vector<int64_t>{-7, 7, -6, std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(floor_divide(int64_t{7}, tensor(std::vector<int64_t>{2, -2})).to_vector<int64_t>(),
            (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(floor_divide(tensor(std::vector<int32_t>{5}), 2.0).dtype(), kFloat32);
  EXPECT_EQ(floor_divide(tensor(std::vector<uint8_t>{250}), int64_t{7}).to_vector<uint8_t>(), (std::vector<uint8_t>{35}));
  Tensor z = floor_divide(tensor({-0.5, 0.5, 1.0}), tensor({2.0, -2.0, 0.0}));
  EXPECT_TRUE(std::signbit(z.to_vector<double>()[0]) && std::signbit(z.to_vector<double>()[1]));
  EXPECT_TRUE(std::isinf(z.to_vector<double>()[2]));
  expect_error<ValueError>([&] { floor_divide(i, int64_t{0}); }, {"floor_divide: integer division by zero"});
  expect_error<TypeError>([&] { floor_divide(tensor(std::vector<bool>{true}), tensor(std::vector<bool>{true})); },
                          {"floor_divide: not supported for bool tensors"});
  // A step function: recorded with a zero gradient (PyTorch's backward refuses; python/README.md).
  Tensor num = tensor({1.0, 2.0}).set_requires_grad(), den = tensor({2.0}).set_requires_grad();
  floor_divide(num, den).sum().backward();
  expect_values_near(num.grad(), {0, 0});
  expect_values_near(den.grad(), {0});
}

TEST(BinaryTest, RemainderFmodAtan2GradientsMatchFiniteDifferences) {
  // Values whose quotients stay away from integers, where remainder and fmod jump.
  Tensor a = tensor(std::vector<double>{2.3, -1.7, 0.6, 3.4, -2.2, 1.1}, {2, 3}).set_requires_grad();
  Tensor b = tensor(std::vector<double>{0.9, 1.3, -0.8}, {3}).set_requires_grad();
  gradcheck([](const TensorList& in) { return remainder(in[0], in[1]); }, {a, b});
  gradcheck([](const TensorList& in) { return fmod(in[0], in[1]); }, {a, b});
  gradcheck([](const TensorList& in) { return atan2(in[0], in[1]); }, {a, b});
  gradgradcheck([](const TensorList& in) { return atan2(in[0], in[1]); }, {a, b});
  EXPECT_NEAR(atan2(tensor({1.0}), tensor({-1.0})).item(), 3 * std::atan(1.0), 1e-15);
  EXPECT_EQ(atan2(tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{0})).dtype(), kFloat32);
}
