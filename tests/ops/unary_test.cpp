#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ember/ember.h"
#include "ember/ops/activation.h"
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

// gradcheck of fn on float64 inputs drawn from [lo, hi]: a plain [3, 4] tensor, the transpose
// of one (non-contiguous) and a 0-d tensor.
void check_grads(const std::function<Tensor(const Tensor&)>& fn, double lo, double hi) {
  Generator gen(7);
  auto draw = [&](IntArrayRef shape) {
    return (rand(shape, kFloat64, &gen) * (hi - lo) + lo).set_requires_grad();
  };
  gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw({3, 4})});
  gradcheck([&](const TensorList& in) { return fn(in[0].t()); }, {draw({4, 3})});
  gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw({})});
}

}  // namespace

TEST(UnaryTest, FloatingFunctionsMatchTheStandardLibrary) {
  std::vector<double> xs = {0.25, 1.0, 2.0, 9.0};
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = tensor(xs).to(dtype);
    std::vector<double> e, l, s, r, f;
    for (double v : xs) {
      e.push_back(std::exp(v));
      l.push_back(std::log(v));
      s.push_back(std::sqrt(v));
      r.push_back(1 / std::sqrt(v));
      f.push_back(std::erf(v));
    }
    double tol = dtype == kFloat32 ? 1e-6 : 1e-12;
    expect_values_near(exp(x), e, tol, tol);
    expect_values_near(log(x), l, tol, tol);
    expect_values_near(sqrt(x), s, tol, tol);
    expect_values_near(rsqrt(x), r, tol, tol);
    expect_values_near(erf(x), f, tol, tol);
    EXPECT_EQ(exp(x).dtype(), dtype);
  }
}

TEST(UnaryTest, DomainEdgesGiveInfAndNan) {
  Tensor x = tensor({0.0f, -1.0f});
  expect_values_near(log(x), {-kInf, kNaN});
  expect_values_near(sqrt(x), {0.0, kNaN});
  expect_values_near(rsqrt(x), {kInf, kNaN});
  expect_values_near(exp(tensor({kInf, -kInf, kNaN})), {kInf, 0.0, kNaN});
}

TEST(UnaryTest, IntegerAndBoolInputsComputeInFloat32) {
  Tensor i = tensor<int64_t>({1, 4, 9});
  EXPECT_EQ(sqrt(i).dtype(), kFloat32);
  expect_values_near(sqrt(i), {1, 2, 3});
  EXPECT_EQ(exp(tensor<int32_t>({0})).dtype(), kFloat32);
  EXPECT_EQ(log(tensor<uint8_t>({1})).dtype(), kFloat32);
  Tensor b = tensor(std::vector<bool>{true, false});
  EXPECT_EQ(exp(b).dtype(), kFloat32);
  expect_values_near(exp(b), {std::exp(1.0), 1.0});
}

TEST(UnaryTest, NegAbsSignKeepIntegerDtypes) {
  Tensor i = tensor<int32_t>({-3, 0, 2});
  EXPECT_EQ(neg(i).dtype(), kInt32);
  EXPECT_EQ(neg(i).to_vector<int32_t>(), (std::vector<int32_t>{3, 0, -2}));
  EXPECT_EQ(abs(i).to_vector<int32_t>(), (std::vector<int32_t>{3, 0, 2}));
  EXPECT_EQ(sign(i).to_vector<int32_t>(), (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(abs(tensor<uint8_t>({0, 200})).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 200}));
  Tensor b = sign(tensor(std::vector<bool>{true, false}));
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(UnaryTest, SignOfNanAndZeroIsZero) {
  expect_values_near(sign(tensor({-2.5, -0.0, 0.0, 3.0, kNaN})), {-1, 0, 0, 1, 0});
  expect_values_near(abs(tensor({-2.5f, -0.0f, float(kInf)})), {2.5, 0.0, kInf});
}

TEST(UnaryTest, NonContiguousAndLargeInputsGiveTheSameValues) {
  // 400 x 300 crosses the parallel grain; the transpose walks the strided path.
  Tensor x = rand({400, 300}) * 4.0 - 2.0;
  Tensor xt = x.t();
  ASSERT_FALSE(xt.is_contiguous());
  Tensor contiguous_result = exp(xt.contiguous());
  Tensor strided_result = exp(xt);
  EXPECT_TRUE(strided_result.is_contiguous());
  // The strided path may use the scalar exp and the contiguous one the vectorised: a few ulp.
  std::vector<float> in = xt.to_vector<float>(), out = strided_result.to_vector<float>();
  std::vector<float> ref = contiguous_result.to_vector<float>();
  for (size_t k = 0; k < in.size(); ++k) {
    ASSERT_NEAR(out[k], std::exp(in[k]), 1e-6 * std::exp(in[k])) << k;
    ASSERT_NEAR(ref[k], std::exp(in[k]), 1e-6 * std::exp(in[k])) << k;
  }
}

TEST(UnaryTest, VectorisedPathsMatchTheStandardLibraryAndKeepNan) {
  // 1001 contiguous float32 values: whole SIMD packets plus a tail, with a NaN inside a packet.
  Tensor x = linspace(-4, 4, 1001);
  std::vector<float> in = x.to_vector<float>();
  in[500] = NAN;
  x = tensor(in);
  Tensor pos = abs(x) + 0.01;
  std::vector<float> pin = pos.to_vector<float>();
  struct Case {
    const char* name;
    Tensor got;
    std::function<double(double)> ref;
    bool positive;
  };
  std::vector<Case> cases = {
      {"exp", exp(x), [](double v) { return std::exp(v); }, false},
      {"log", log(pos), [](double v) { return std::log(v); }, true},
      {"sqrt", sqrt(pos), [](double v) { return std::sqrt(v); }, true},
      {"rsqrt", rsqrt(pos), [](double v) { return 1 / std::sqrt(v); }, true},
      {"erf", erf(x), [](double v) { return std::erf(v); }, false},
      {"abs", abs(x), [](double v) { return std::fabs(v); }, false},
      {"neg", neg(x), [](double v) { return -v; }, false},
      {"clamp", clamp(x, -1.0, 2.0), [](double v) { return std::isnan(v) ? v : std::min(std::max(v, -1.0), 2.0); }, false},
      {"clamp_min", clamp(x, -1.0), [](double v) { return std::isnan(v) ? v : std::max(v, -1.0); }, false},
      {"clamp_max", clamp(x, std::nullopt, 2.0), [](double v) { return std::isnan(v) ? v : std::min(v, 2.0); }, false},
      {"pow2", pow(x, 2), [](double v) { return v * v; }, false},
      {"pow3", pow(x, 3), [](double v) { return v * v * v; }, false},
      {"pow-1", pow(pos, -1), [](double v) { return 1 / v; }, true},
      {"pow-2", pow(pos, -2), [](double v) { return 1 / (v * v); }, true},
      {"pow0.5", pow(pos, 0.5), [](double v) { return std::sqrt(v); }, true},
      {"pow1.7", pow(pos, 1.7), [](double v) { return std::pow(v, 1.7); }, true},
      {"tanh", tanh(x), [](double v) { return std::tanh(v); }, false},
      {"sigmoid", sigmoid(x), [](double v) { return 1 / (1 + std::exp(-v)); }, false},
      {"relu", relu(x), [](double v) { return std::isnan(v) ? v : std::max(v, 0.0); }, false},
      {"leaky_relu", leaky_relu(x, 0.1), [](double v) { return v > 0 ? v : 0.1 * v; }, false},
      {"gelu", gelu(x), [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<float> out = c.got.to_vector<float>();
    const std::vector<float>& src = c.positive ? pin : in;
    ASSERT_EQ(out.size(), src.size());
    for (size_t k = 0; k < out.size(); ++k) {
      double expected = c.ref(src[k]);
      if (std::isnan(expected))
        ASSERT_TRUE(std::isnan(out[k])) << "element " << k << " = " << out[k];
      else
        ASSERT_NEAR(out[k], expected, 4e-6 * (1 + std::fabs(expected))) << "element " << k << ", input " << src[k];
    }
  }
  // sign(nan) = 0 on the vectorised path too.
  EXPECT_EQ(sign(x).to_vector<float>()[500], 0.0f);
}

TEST(UnaryTest, EmptyAndZeroDimInputsKeepTheirShape) {
  Tensor e = exp(zeros({0, 3}));
  EXPECT_EQ(e.sizes(), IntArrayRef({0, 3}));
  Tensor s = sqrt(scalar_tensor(4.0));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<double>(), 2.0);
}

TEST(UnaryTest, ClampAppliesEachBound) {
  Tensor x = tensor({-2.0f, -0.5f, 0.5f, 2.0f});
  expect_values_near(clamp(x, -1.0, 1.0), {-1, -0.5, 0.5, 1});
  expect_values_near(clamp(x, 0.0), {0, 0, 0.5, 2});
  expect_values_near(clamp(x, std::nullopt, 0.0), {-2, -0.5, 0, 0});
  expect_values_near(x.clamp(-1.0, 1.0), {-1, -0.5, 0.5, 1});
  // min > max: every element becomes max, as in PyTorch.
  expect_values_near(clamp(x, 1.0, -1.0), {-1, -1, -1, -1});
}

TEST(UnaryTest, ClampKeepsNan) {
  expect_values_near(clamp(tensor({kNaN, 5.0}), 0.0, 1.0), {kNaN, 1.0});
}

TEST(UnaryTest, ClampPromotesIntegersOnlyForFloatingBounds) {
  Tensor i = tensor<int64_t>({-5, 0, 5});
  Tensor c = clamp(i, -1, 1);
  EXPECT_EQ(c.dtype(), kInt64);
  EXPECT_EQ(c.to_vector<int64_t>(), (std::vector<int64_t>{-1, 0, 1}));
  Tensor f = clamp(i, 1.5);
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values_near(f, {1.5, 1.5, 5});
  // A bool tensor with an integer bound computes in int64, as bool + 1 does.
  Tensor b = clamp(tensor(std::vector<bool>{true, false}), 0, 0);
  EXPECT_EQ(b.dtype(), kInt64);
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
}

TEST(UnaryTest, ClampErrorsNameTheProblem) {
  expect_error([] { clamp(ones({2}), std::nullopt, std::nullopt); }, {"clamp", "at least one of 'min' and 'max'"});
  expect_error([] { clamp(tensor(std::vector<bool>{true}), false); }, {"clamp", "bool"});
  expect_error([] { clamp(tensor<uint8_t>({3}), -5); }, {"clamp", "min = -5", "uint8", "overflow"});
  expect_error([] { clamp(tensor<int32_t>({3}), 0, int64_t{1} << 40); }, {"clamp", "max", "int32", "overflow"});
  Tensor b = tensor(std::vector<bool>{true});
  expect_error([&] { b.clamp_(0, 1); }, {"clamp", "bool"});
}

TEST(UnaryTest, ClampInPlaceWritesIntoTheTensor) {
  Tensor x = tensor({-2.0f, 0.5f, 3.0f});
  uint64_t v = x.version();
  const Tensor& r = x.clamp_(-1.0, 1.0);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_GT(x.version(), v);
  expect_values_near(x, {-1, 0.5, 1});
  x.clamp_(std::nullopt, 0.0);
  expect_values_near(x, {-1, 0, 0});
}

TEST(UnaryTest, ClampInPlaceOnAGraphTensorBackpropagatesTheMask) {
  Tensor a = tensor({-2.0, 0.5, 3.0}).set_requires_grad();
  Tensor y = a * 2.0;
  y.clamp_(-1.0, 2.0);
  expect_values_near(y, {-1, 1, 2});
  y.sum().backward();
  expect_values_near(a.grad(), {0, 2, 0});
}

TEST(UnaryTest, PowScalarValues) {
  Tensor x = tensor({0.5, 2.0, 4.0});
  expect_values_near(pow(x, 2), {0.25, 4, 16});
  expect_values_near(pow(x, 3), {0.125, 8, 64});
  expect_values_near(pow(x, 0.5), {std::sqrt(0.5), std::sqrt(2.0), 2});
  expect_values_near(pow(x, -1), {2, 0.5, 0.25});
  expect_values_near(pow(x, -2), {4, 0.25, 0.0625});
  expect_values_near(pow(x, 2.5), {std::pow(0.5, 2.5), std::pow(2.0, 2.5), 32});
  expect_values_near(pow(x, 0), {1, 1, 1});
  expect_values_near(x.pow(1), {0.5, 2, 4});
  expect_values_near(pow(tensor({-2.0f}), 3), {-8});
  expect_values_near(pow(tensor({-2.0f}), 0.5), {kNaN});
  // The vectorised general path (an exponent without a fast path) on a long run.
  Tensor big = full({1000}, 1.5f);
  expect_values_near(pow(big, 1.7), std::vector<double>(1000, std::pow(1.5, 1.7)), 1e-6, 1e-6);
}

TEST(UnaryTest, PowScalarDtypeRules) {
  Tensor i = tensor<int64_t>({2, 3});
  EXPECT_EQ(pow(i, 2).dtype(), kInt64);
  EXPECT_EQ(pow(i, 3).to_vector<int64_t>(), (std::vector<int64_t>{8, 27}));
  EXPECT_EQ(pow(i, 0.5).dtype(), kFloat32);
  Tensor b = pow(tensor(std::vector<bool>{true, false}), 2);
  EXPECT_EQ(b.dtype(), kInt64);
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(pow(tensor({2.0}), 2).dtype(), kFloat64);
  expect_error([&] { pow(i, -1); }, {"pow", "negative integer powers", "int64"});
}

TEST(UnaryTest, ErrorsNameTheOpAndDtype) {
  Tensor b = tensor(std::vector<bool>{true});
  expect_error([&] { neg(b); }, {"neg", "bool"});
  expect_error([&] { abs(b); }, {"abs", "bool"});
  expect_error([] { tanh(zeros({2}, kComplex64)); }, {"tanh", "complex64"});
  expect_error([] { erf(zeros({2}, kComplex128)); }, {"erf", "complex128"});
}

TEST(UnaryTest, GradcheckExpLogSqrtRsqrt) {
  check_grads([](const Tensor& x) { return exp(x); }, -2, 2);
  check_grads([](const Tensor& x) { return log(x); }, 0.5, 3);
  check_grads([](const Tensor& x) { return sqrt(x); }, 0.5, 3);
  check_grads([](const Tensor& x) { return rsqrt(x); }, 0.5, 3);
}

TEST(UnaryTest, GradcheckNegAbsSignErf) {
  check_grads([](const Tensor& x) { return neg(x); }, -2, 2);
  check_grads([](const Tensor& x) { return abs(x); }, 0.2, 2);
  check_grads([](const Tensor& x) { return abs(x); }, -2, -0.2);
  check_grads([](const Tensor& x) { return sign(x); }, 0.2, 2);
  check_grads([](const Tensor& x) { return erf(x); }, -2, 2);
}

TEST(UnaryTest, GradcheckClampInsideAndOutsideTheBounds) {
  // Inputs stay 0.1 away from the bounds, where the clamp is not differentiable.
  auto fn = [](const Tensor& x) {
    Tensor away = x + sign(x) * 0.1;  // |away| in [0.1, 2.1]
    return clamp(away, -1.0, 1.0) + clamp(away, 0.0) * 2.0 + clamp(away, std::nullopt, 0.5) * 3.0;
  };
  check_grads(fn, -2, 2);
}

TEST(UnaryTest, SignAndClampGradientsAreZeroWhereFlat) {
  Tensor x = tensor({-3.0, 0.5, 3.0}).set_requires_grad();
  (sign(x) + clamp(x, -1.0, 1.0)).sum().backward();
  expect_values_near(x.grad(), {0, 1, 0});
}

TEST(UnaryTest, GradcheckPowScalar) {
  for (double p : {2.0, 3.0, 0.5, -1.0, -2.0, 2.5, 1.0}) {
    SCOPED_TRACE(p);
    check_grads([p](const Tensor& x) { return pow(x, p); }, 0.5, 2);
  }
  check_grads([](const Tensor& x) { return pow(x, 3); }, -2, 2);  // integer exponent, negative base
  Tensor x = tensor({-1.0, 2.0}).set_requires_grad();
  pow(x, 0).sum().backward();
  expect_values_near(x.grad(), {0, 0});
}

TEST(UnaryTest, GradgradcheckExpLogPowRsqrt) {
  Tensor x = (rand({2, 3}, kFloat64) + 0.5).set_requires_grad();
  gradgradcheck([](const TensorList& in) { return exp(in[0]); }, {x});
  gradgradcheck([](const TensorList& in) { return log(in[0]); }, {x});
  gradgradcheck([](const TensorList& in) { return pow(in[0], 2.5); }, {x});
  gradgradcheck([](const TensorList& in) { return rsqrt(in[0]) * sqrt(in[0] + 1.0); }, {x});
  gradgradcheck([](const TensorList& in) { return erf(in[0]) * abs(in[0]); }, {x});
}

// Regression: Eigen's fast-math sqrt (an rsqrt estimate and a Newton step) gave NaN for +inf on
// every vectorised lane and lost 1-2 bits elsewhere; every sqrt is now exact, as std::sqrt.
TEST(UnaryTest, SqrtIsExactOnEveryLaneIncludingInfinityAndZero) {
  for (DType dtype : {kFloat32, kFloat64}) {
    Generator gen(5);
    Tensor x = rand({67}, dtype, &gen) * 1e6;
    x.narrow(0, 40, 3).copy_(tensor({kInf, 0.0, 1e-310}).to(dtype));
    std::vector<double> in = x.to_vector<double>(), got = sqrt(x).to_vector<double>();
    std::vector<double> inv = rsqrt(x).to_vector<double>();
    for (size_t i = 0; i < in.size(); ++i) {
      double want = dtype == kFloat32 ? static_cast<double>(std::sqrt(static_cast<float>(in[i]))) : std::sqrt(in[i]);
      EXPECT_EQ(got[i], want) << dtype << " element " << i << " of " << in[i];
      double want_inv = dtype == kFloat32 ? static_cast<double>(1.0f / std::sqrt(static_cast<float>(in[i])))
                                          : 1.0 / std::sqrt(in[i]);
      EXPECT_EQ(inv[i], want_inv) << dtype << " rsqrt element " << i << " of " << in[i];
    }
    Tensor spread = full({2, 16}, 1.0, dtype);
    spread.select(0, 0).select(0, 0).fill_(0.0);
    // std over a dim without degrees of freedom: inf, as var (was NaN: sqrt(inf) on a vector lane)
    EXPECT_EQ(ember::std(spread, {0}, /*correction=*/2).to_vector<double>()[0], kInf);
  }
}

// tanh and erf run Eigen's float approximations on whole packets and single values alike: a value
// gives the same result wherever it sits, and stays within a few ulp of the standard library.
TEST(UnaryTest, TanhAndErfDoNotDependOnPositionAndMatchTheStandardLibrary) {
  Generator gen(6);
  Tensor x = (rand({37}, kFloat32, &gen) - 0.5) * 12;
  std::vector<float> v = x.to_vector<float>();
  for (bool is_erf : {false, true}) {
    std::vector<float> all = (is_erf ? erf(x) : tanh(x)).to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i) {
      Tensor one = tensor<float>({v[i]});
      float alone = (is_erf ? erf(one) : tanh(one)).item<float>();
      EXPECT_EQ(all[i], alone) << (is_erf ? "erf(" : "tanh(") << v[i] << ") at position " << i;
      double ref = is_erf ? std::erf(static_cast<double>(v[i])) : std::tanh(static_cast<double>(v[i]));
      EXPECT_NEAR(all[i], ref, 4e-7 + 4e-7 * std::fabs(ref)) << v[i];
    }
  }
  EXPECT_EQ(tanh(full({40}, kInf)).to_vector<float>()[39], 1.0f);
  EXPECT_EQ(erf(full({40}, -kInf)).to_vector<float>()[0], -1.0f);
}

// Every floating function gives a value the same result wherever it sits: in a SIMD packet, in the
// scalar tail, alone. Eigen's float64 log was an ulp off std::log's at 40 of 327 positions, and
// log(pi / 2) came out two ways in one buffer (x / x of them had a rounding residual or not, and
// asin's infinite slope made that +-inf or NaN); 2 ** x (Eigen's double pow) likewise.
TEST(UnaryTest, FloatingFunctionsDoNotDependOnPosition) {
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> fns = {
      {"exp", [](const Tensor& x) { return exp(x); }},     {"log", [](const Tensor& x) { return log(x.abs()); }},
      {"log2", [](const Tensor& x) { return log2(x.abs()); }}, {"log10", [](const Tensor& x) { return log10(x.abs()); }},
      {"log1p", [](const Tensor& x) { return log1p(x.abs()); }}, {"expm1", [](const Tensor& x) { return expm1(x); }},
      {"sqrt", [](const Tensor& x) { return sqrt(x.abs()); }}, {"rsqrt", [](const Tensor& x) { return rsqrt(x.abs()); }},
      {"tanh", [](const Tensor& x) { return tanh(x); }},   {"sigmoid", [](const Tensor& x) { return sigmoid(x); }},
      {"erf", [](const Tensor& x) { return erf(x); }},     {"erfc", [](const Tensor& x) { return erfc(x); }},
      {"sin", [](const Tensor& x) { return sin(x); }},     {"atan", [](const Tensor& x) { return atan(x); }},
      {"gelu", [](const Tensor& x) { return gelu(x); }},   {"lgamma", [](const Tensor& x) { return lgamma(x); }},
      {"reciprocal", [](const Tensor& x) { return reciprocal(x); }},
      {"pow(x, 1.7)", [](const Tensor& x) { return pow(x.abs(), Scalar(1.7)); }},
      {"pow(2, x)", [](const Tensor& x) { return pow(Scalar(2.0), x); }},
      {"pow(x, x)", [](const Tensor& x) { return pow(x.abs(), x); }},
  };
  Generator gen(11);
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = cat({(rand({200}, dtype, &gen) - 0.5) * 40, rand({127}, dtype, &gen) * 3 + 0.5});
    for (const auto& [name, fn] : fns) {
      std::vector<double> all = fn(x).to_vector<double>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double alone = fn(x.narrow(0, i, 1)).item<double>();
        if (std::isnan(alone) && std::isnan(all[i])) continue;
        ASSERT_EQ(all[i], alone) << name << " of " << dtype << " " << x.select(0, i).item<double>() << " at position " << i;
      }
    }
  }
}

// Eigen's packet exp clamps its input, so exp(-inf) was 5.6e-309 (float64) in a vectorised lane
// and 0 in a scalar tail, on every instruction set: the result depended on where a value sat.
// exp below the normal range: 0 past the subnormals and for -inf, the subnormal itself (as PyTorch and
// std::exp give) within it, the same at every position of a buffer (packet or scalar tail).
TEST(UnaryTest, ExpOfVeryNegativeIsZeroOrSubnormalAtEveryPosition) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {kFloat32, kFloat64}) {
    const bool f32 = dtype == kFloat32;
    const double sub = f32 ? -100.0 : -740.0;
    const double want = f32 ? static_cast<double>(std::exp(-100.0f)) : std::exp(-740.0);
    ASSERT_GT(want, 0.0);
    for (int64_t n = 1; n <= 40; ++n) {
      Tensor x = full({n}, -inf, dtype);
      for (double v : exp(x).to_vector<double>()) ASSERT_EQ(v, 0.0) << dtype << ", n " << n;
      Tensor y = full({n}, f32 ? -110.0 : -800.0, dtype);
      for (double v : exp(y).to_vector<double>()) ASSERT_EQ(v, 0.0) << dtype << ", n " << n;
      for (double v : exp(full({n}, sub, dtype)).to_vector<double>())
        ASSERT_NEAR(v, want, f32 ? 1.5e-45 : 1e-323) << dtype << ", n " << n;  // an ulp of the subnormal
      for (double v : exp(zeros({n}, dtype)).to_vector<double>()) ASSERT_EQ(v, 1.0);
    }
  }
}

// float exp takes a faster form for packets whose results are all normal numbers and Eigen's exp
// for the others (core/cpu/exp_normal_range.h): a value's bits must not depend on which. Each value
// fills a block of 32 beside one -100 (a subnormal result), so some copies share a packet with it
// and others do not, at every vector width up to 16 lanes.
TEST(UnaryTest, FloatExpGivesTheSameBitsBesideASubnormalResult) {
  constexpr int64_t kBlock = 32;
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 9973) {
    const auto b = static_cast<uint32_t>(bits);
    float v;
    std::memcpy(&v, &b, sizeof v);
    if (!(v >= -87.3f && v <= 88.0f)) continue;
    for (int64_t i = 0; i + 1 < kBlock; ++i) xs.push_back(v);
    xs.push_back(-100.0f);
  }
  const std::vector<float> got = exp(tensor(xs, {static_cast<int64_t>(xs.size())})).to_vector<float>();
  for (size_t blk = 0; blk < xs.size(); blk += kBlock) {
    const float alone = exp(tensor({xs[blk]})).item<float>();
    for (size_t i = blk; i + 1 < blk + kBlock; ++i)
      ASSERT_EQ(std::memcmp(&got[i], &alone, sizeof alone), 0) << "exp(" << xs[blk] << ") at " << i - blk;
    ASSERT_GT(got[blk + kBlock - 1], 0.0f);
  }
}

// The trigonometric, hyperbolic, logarithmic and rounding ops PyTorch scripts use: values against
// the C library, integer inputs, gradients by finite differences inside each domain.
TEST(UnaryTest, TrigonometricAndHyperbolicFunctionsMatchTheStandardLibrary) {
  const std::vector<double> xs{-0.9, -0.3, 0.0, 0.25, 0.8};
  Tensor x = tensor(xs);
  struct Case {
    Tensor (*op)(const Tensor&);
    double (*ref)(double);
  };
  for (auto [op, ref] : std::vector<Case>{{sin, std::sin}, {cos, std::cos}, {tan, std::tan}, {asin, std::asin},
                                          {acos, std::acos}, {atan, std::atan}, {sinh, std::sinh}, {cosh, std::cosh},
                                          {asinh, std::asinh}, {atanh, std::atanh}, {log1p, std::log1p},
                                          {expm1, std::expm1}}) {
    std::vector<double> want;
    for (double v : xs) want.push_back(ref(v));
    EXPECT_EQ(op(x).to_vector<double>(), want);
  }
  EXPECT_EQ(acosh(tensor({1.0, 2.5})).to_vector<double>(), (std::vector<double>{0.0, std::acosh(2.5)}));
  EXPECT_EQ(log2(tensor({8.0, 0.5})).to_vector<double>(), (std::vector<double>{3.0, -1.0}));
  EXPECT_EQ(log10(tensor({1000.0})).to_vector<double>(), (std::vector<double>{3.0}));
  EXPECT_EQ(reciprocal(tensor({4.0, -0.5})).to_vector<double>(), (std::vector<double>{0.25, -2.0}));
  // Outside the domain: NaN; at the poles: infinities.
  EXPECT_TRUE(std::isnan(asin(tensor({1.5})).item()));
  EXPECT_TRUE(std::isnan(acosh(tensor({0.5})).item()));
  EXPECT_EQ(atanh(tensor({1.0})).item(), kInf);
  EXPECT_EQ(log1p(tensor({-1.0})).item(), -kInf);
  // Integer inputs compute in float32.
  Tensor i = tensor(std::vector<int64_t>{0, 1, 2});
  EXPECT_EQ(sin(i).dtype(), kFloat32);
  EXPECT_EQ(reciprocal(i).to_vector<float>(), (std::vector<float>{std::numeric_limits<float>::infinity(), 1.0f, 0.5f}));
}

TEST(UnaryTest, TrigonometricAndHyperbolicGradientsMatchFiniteDifferences) {
  check_grads([](const Tensor& t) { return sin(t); }, -3, 3);
  check_grads([](const Tensor& t) { return cos(t); }, -3, 3);
  check_grads([](const Tensor& t) { return tan(t); }, -1.2, 1.2);
  check_grads([](const Tensor& t) { return asin(t); }, -0.9, 0.9);
  check_grads([](const Tensor& t) { return acos(t); }, -0.9, 0.9);
  check_grads([](const Tensor& t) { return atan(t); }, -3, 3);
  check_grads([](const Tensor& t) { return sinh(t); }, -2, 2);
  check_grads([](const Tensor& t) { return cosh(t); }, -2, 2);
  check_grads([](const Tensor& t) { return asinh(t); }, -3, 3);
  check_grads([](const Tensor& t) { return acosh(t); }, 1.2, 3);
  check_grads([](const Tensor& t) { return atanh(t); }, -0.9, 0.9);
  check_grads([](const Tensor& t) { return log1p(t); }, -0.5, 3);
  check_grads([](const Tensor& t) { return expm1(t); }, -2, 2);
  check_grads([](const Tensor& t) { return log2(t); }, 0.5, 3);
  check_grads([](const Tensor& t) { return log10(t); }, 0.5, 3);
  check_grads([](const Tensor& t) { return reciprocal(t); }, 0.5, 3);
  check_grads([](const Tensor& t) { return square(t); }, -2, 2);
  check_grads([](const Tensor& t) { return frac(t); }, 0.1, 0.9);
  gradgradcheck([](const TensorList& in) { return sin(in[0]) * tan(in[0]); },
                {(rand({5}, kFloat64) - 0.5).set_requires_grad()});
}

TEST(UnaryTest, RoundingOpsRoundHalvesToEvenAndKeepIntegers) {
  Tensor x = tensor({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7});
  EXPECT_EQ(round(x).to_vector<double>(), (std::vector<double>{-2, -2, -0.0, 0, 2, 2, 3, -3}));
  EXPECT_EQ(floor(x).to_vector<double>(), (std::vector<double>{-3, -2, -1, 0, 1, 2, 2, -3}));
  EXPECT_EQ(ceil(x).to_vector<double>(), (std::vector<double>{-2, -1, -0.0, 1, 2, 3, 3, -2}));
  EXPECT_EQ(trunc(x).to_vector<double>(), (std::vector<double>{-2, -1, -0.0, 0, 1, 2, 2, -2}));
  expect_values_near(frac(x), {-0.5, -0.5, -0.5, 0.5, 0.5, 0.5, 0.7, -0.7}, 1e-12);
  Tensor i = tensor(std::vector<int64_t>{-3, 4});
  for (Tensor r : {floor(i), ceil(i), round(i), trunc(i)}) {
    EXPECT_EQ(r.dtype(), kInt64);
    EXPECT_EQ(r.to_vector<int64_t>(), (std::vector<int64_t>{-3, 4}));
    EXPECT_FALSE(r.is_same(i));  // a copy, as in PyTorch
  }
  EXPECT_EQ(square(i).to_vector<int64_t>(), (std::vector<int64_t>{9, 16}));
  Tensor leaf = x.clone().set_requires_grad();
  floor(leaf).sum().backward();
  EXPECT_EQ(leaf.grad().to_vector<double>(), std::vector<double>(8, 0.0));
  expect_error<TypeError>([&] { frac(i); }, {"frac: expected a floating tensor, got int64"});
  expect_error<TypeError>([&] { floor(tensor(std::vector<bool>{true})); }, {"floor: not supported for bool tensors"});
}

TEST(UnaryTest, NanAndInfPredicates) {
  Tensor x = tensor({1.0, kNaN, kInf, -kInf, 0.0});
  EXPECT_EQ(isnan(x).to_vector<bool>(), (std::vector<bool>{false, true, false, false, false}));
  EXPECT_EQ(isinf(x).to_vector<bool>(), (std::vector<bool>{false, false, true, true, false}));
  EXPECT_EQ(isfinite(x).to_vector<bool>(), (std::vector<bool>{true, false, false, false, true}));
  Tensor i = tensor(std::vector<int64_t>{1, 2});
  EXPECT_EQ(isnan(i).to_vector<bool>(), (std::vector<bool>{false, false}));
  EXPECT_EQ(isfinite(i).to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(isnan(x.set_requires_grad()).requires_grad(), false);
}
