// prod (ops/reduce.h) and cumprod, logcumsumexp, cummax, cummin (ops/scan.h): known values, integer
// wrapping and dtypes, gradients by finite differences with zeros in the input (first and second
// derivatives), and errors. NumPy comparisons over random shapes, dtypes and layouts:
// tests/python/property/test_scan_property.py.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

namespace {

Tensor leaf(std::vector<double> values, IntArrayRef shape) {
  return tensor(values, shape, TensorOptions(kFloat64)).set_requires_grad();
}

}  // namespace

TEST(ScanTest, ProdValuesDtypesAndEmptyProducts) {
  Tensor x = tensor(std::vector<double>{2.0, -3.0, 0.5, 4.0}, {2, 2});
  EXPECT_EQ(prod(x).item(), -12.0);
  EXPECT_EQ(prod(x, 0).to_vector<double>(), (std::vector<double>{1.0, -12.0}));
  EXPECT_EQ(prod(x, -1, true).sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(prod(zeros({0})).item(), 1.0);
  EXPECT_EQ(prod(zeros({2, 0}), 1).to_vector<double>(), (std::vector<double>{1.0, 1.0}));
  Tensor ints = tensor(std::vector<int32_t>{3, 5});
  EXPECT_EQ(prod(ints).dtype(), kInt64);
  EXPECT_EQ(prod(tensor(std::vector<bool>{true, false}, {2}, TensorOptions(kBool))).dtype(), kInt64);
  EXPECT_EQ(prod(ints, kFloat64).dtype(), kFloat64);
  // int64 products wrap as PyTorch's do: 2^62 * 4 = 2^64 = 0.
  EXPECT_EQ(prod(tensor(std::vector<int64_t>{int64_t{1} << 62, 4})).item<int64_t>(), 0);
  EXPECT_EQ(prod(scalar_tensor(7.0), 0).item(), 7.0);
}

TEST(ScanTest, ProdGradientIsExactWithZeros) {
  for (auto values : {std::vector<double>{1.5, -2.0, 0.7, 3.0, -0.4, 1.1},   // no zero: grad * result / x
                      std::vector<double>{1.5, 0.0, 0.7, 3.0, -0.4, 1.1},    // one zero
                      std::vector<double>{0.0, 2.0, 0.7, 0.0, -0.4, 1.1},    // two zeros in a row of 3
                      std::vector<double>{0.0, 0.0, 0.0, 0.0, 0.0, 0.0}}) {  // all zero
    Tensor x = leaf(values, {2, 3});
    gradcheck([](const TensorList& in) { return prod(in[0]); }, {x});
    gradcheck([](const TensorList& in) { return prod(in[0], 1); }, {x});
    gradcheck([](const TensorList& in) { return prod(in[0].t(), 0, true); }, {x});
    gradgradcheck([](const TensorList& in) { return prod(in[0], 1); }, {x});
    gradgradcheck([](const TensorList& in) { return prod(in[0]); }, {x});
  }
  Tensor x = leaf({0.0, 2.0}, {2});
  prod(x).backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{2.0, 0.0}));
  gradcheck([](const TensorList& in) { return prod(in[0], 0); }, {leaf({3.0}, {})});
}

TEST(ScanTest, CumprodValuesAndDtypes) {
  EXPECT_EQ(cumprod(tensor({2.0, 3.0, 0.0, 5.0}), 0).to_vector<double>(), (std::vector<double>{2, 6, 0, 0}));
  Tensor m = tensor(std::vector<int32_t>{1, 2, 3, 4}, {2, 2});
  Tensor c = cumprod(m, 0);
  EXPECT_EQ(c.dtype(), kInt64);
  EXPECT_EQ(c.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 8}));
  EXPECT_EQ(cumprod(tensor(std::vector<bool>{true, false}, {2}, TensorOptions(kBool)), 0).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(cumprod(m, 1, kFloat64).to_vector<double>(), (std::vector<double>{1, 2, 3, 12}));
  EXPECT_EQ(cumprod(tensor(std::vector<int64_t>{int64_t{1} << 62, 4}), 0).to_vector<int64_t>(),
            (std::vector<int64_t>{int64_t{1} << 62, 0}));
  EXPECT_EQ(cumprod(scalar_tensor(3.0), -1).item(), 3.0);
}

TEST(ScanTest, CumprodGradientIsExactWithZeros) {
  for (auto values : {std::vector<double>{1.5, -2.0, 0.7, 3.0, -0.4, 1.1, 0.9, 2.0},
                      std::vector<double>{1.5, 0.0, 0.7, 3.0, -0.4, 1.1, 0.9, 2.0},
                      std::vector<double>{0.0, 2.0, 0.7, 0.0, -0.4, 0.0, 0.9, 2.0},
                      std::vector<double>{1.5, 2.0, 0.7, 0.0, 0.0, 1.1, 0.9, 0.0}}) {
    Tensor x = leaf(values, {2, 4});
    gradcheck([](const TensorList& in) { return cumprod(in[0], 1); }, {x});
    gradcheck([](const TensorList& in) { return cumprod(in[0].t(), 0); }, {x});
    gradcheck([](const TensorList& in) { return cumprod(in[0], 0); }, {x});
    gradgradcheck([](const TensorList& in) { return cumprod(in[0], 1); }, {x});
  }
  gradcheck([](const TensorList& in) { return cumprod(in[0], 0); }, {leaf({0.0}, {})});
}

TEST(ScanTest, LogcumsumexpIsStableAndDifferentiable) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor big = tensor({1000.0, 1000.0, -inf});
  auto v = logcumsumexp(big, 0).to_vector<double>();
  EXPECT_DOUBLE_EQ(v[0], 1000.0);
  EXPECT_DOUBLE_EQ(v[1], 1000.0 + std::log(2.0));
  EXPECT_DOUBLE_EQ(v[2], 1000.0 + std::log(2.0));
  EXPECT_EQ(logcumsumexp(tensor({-inf, -inf, 0.0}), 0).to_vector<double>(), (std::vector<double>{-inf, -inf, 0.0}));
  EXPECT_TRUE(std::isnan(logcumsumexp(tensor({1.0, std::nan(""), 1.0}), 0).to_vector<double>()[2]));
  Tensor x = leaf({0.3, -1.2, 2.5, 0.1, -0.7, 1.9}, {2, 3});
  gradcheck([](const TensorList& in) { return logcumsumexp(in[0], 1); }, {x});
  gradcheck([](const TensorList& in) { return logcumsumexp(in[0].t(), 0) * 2.0; }, {x});
  gradgradcheck([](const TensorList& in) { return logcumsumexp(in[0], 0); }, {x});
}

TEST(ScanTest, CummaxCumminTiesMoveOnAndNanSticks) {
  const double nan = std::nan("");
  auto [values, indices] = cummax(tensor({1.0, 1.0, 0.0, 1.0}), 0);
  EXPECT_EQ(values.to_vector<double>(), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 3}));
  auto [nv, ni] = cummax(tensor({1.0, nan, 2.0, nan, 5.0}), 0);
  EXPECT_TRUE(std::isnan(nv.to_vector<double>()[4]));
  EXPECT_EQ(ni.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 3, 3}));
  auto [lo, lo_at] = cummin(tensor(std::vector<int64_t>{3, 1, 2, 1}, {2, 2}), 1);
  EXPECT_EQ(lo.to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 2, 1}));
  EXPECT_EQ(lo_at.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 1}));
  Tensor x = leaf({0.3, -1.2, 2.5, 0.1, -0.7, 1.9}, {2, 3});
  gradcheck([](const TensorList& in) { return std::get<0>(cummax(in[0], 1)); }, {x});
  gradcheck([](const TensorList& in) { return std::get<0>(cummin(in[0].t(), 1)); }, {x});
}

TEST(ScanTest, ErrorsNameTheOpAndTheDtype) {
  expect_error<TypeError>([] { logcumsumexp(tensor(std::vector<int64_t>{1, 2}), 0); },
                          {"logcumsumexp: expected a floating tensor, got int64"});
  expect_error<IndexError>([] { cumprod(zeros({2}), 1); }, {"cumprod"});
  expect_error<IndexError>([] { prod(zeros({2}), 2); }, {"prod"});
  expect_error<TypeError>([] { cumprod(zeros({2}), 0, kBool); }, {"cumprod: cannot multiply into bool"});
  expect_error<TypeError>([] { prod(zeros({2}, kComplex128)); }, {"prod", "complex128"});
}
