// The Tensor methods that were composed in Python before and are C++ ops now, through the C++ API:
// the in-place comparisons (a zero gradient to both operands), the logical ones (outside the
// graph) and the bitwise ones; clamp_min/clamp_max; the random fills; fill_diagonal_, unfold, diff,
// sum_to_size, allclose, equal, index_put_ and polygamma_. Values are PyTorch's (torch 2.15, CPU).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "ember/ember.h"
#include "ember/ops/random_fill.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using autograd::gradcheck;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

Tensor f64(std::initializer_list<double> v) { return tensor(std::vector<double>(v)); }
Tensor i64(std::initializer_list<int64_t> v) { return tensor(std::vector<int64_t>(v)); }

}  // namespace

TEST(TensorMethodsTest, AnInPlaceComparisonGivesBothOperandsAZeroGradient) {
  const Tensor a = f64({1, 2, 3}).requires_grad_(true), y = f64({2, 2, 2}).requires_grad_(true);
  const Tensor x = a * 1;
  x.lt_(y);
  expect_values(x, {1, 0, 0});
  ASSERT_TRUE(x.requires_grad());
  x.sum().backward();
  expect_values(a.grad(), {0, 0, 0});
  expect_values(y.grad(), {0, 0, 0});
  // self without a graph comes to require grad when other does, as PyTorch's ge_
  const Tensor b = f64({1, 2, 3});
  b.ge_(y);
  expect_values(b, {0, 1, 1});
  EXPECT_TRUE(b.requires_grad());
}

TEST(TensorMethodsTest, AnInPlaceLogicalOpIsOutsideTheGraph) {
  // PyTorch: x = a * 2; x.logical_and_([1, 1, 0]) keeps x's history, so a's gradient is 2s
  const Tensor a = f64({1, 0, 2}).requires_grad_(true);
  const Tensor x = a * 2;
  x.logical_and_(f64({1, 1, 0}));
  expect_values(x, {1, 0, 0});
  x.sum().backward();
  expect_values(a.grad(), {2, 2, 2});
  // on a leaf that requires grad it is allowed and the leaf stays one
  const Tensor leaf = f64({1, 0, 2}).requires_grad_(true);
  leaf.logical_or_(f64({0, 0, 0}));
  expect_values(leaf, {1, 0, 1});
  EXPECT_TRUE(leaf.is_leaf());
}

TEST(TensorMethodsTest, InPlaceBitwiseOpsKeepTheDtypeAndRefuseAFloatResult) {
  const Tensor t = i64({5, 3});
  t.bitwise_and_(Scalar(6));
  expect_values(t, {4, 2});
  t.bitwise_left_shift_(Scalar(1));
  expect_values(t, {8, 4});
  t.bitwise_not_();
  expect_values(t, {-9, -5});
  expect_error<Error>([&] { i64({1}).bitwise_and_(f64({1})); }, {"bitwise_and"});
}

TEST(TensorMethodsTest, ClampMinAndClampMaxTakeANumberOrATensor) {
  expect_values(clamp_min(f64({-1, 0.5, 2}), Scalar(0)), {0, 0.5, 2});
  expect_values(clamp_max(f64({-1, 0.5, 2}), f64({0, 0, 3})), {-1, 0, 2});
  const Tensor t = f64({-1, 0.5, 2});
  t.clamp_max_(Scalar(1));
  expect_values(t, {-1, 0.5, 1});
  gradcheck([](const std::vector<Tensor>& x) { return clamp_min(x[0], x[1]); },
            {f64({-1, 0.5, 2}).requires_grad_(true), f64({0, 0, 1.5}).requires_grad_(true)});
}

TEST(TensorMethodsTest, RandomFillsDrawFromTheirDistributionAndReplayWithASeed) {
  Generator g(7);
  const Tensor n = zeros({20000}, kFloat64);
  normal_(n, 2.0, 0.5, &g);
  EXPECT_NEAR(n.mean().item<double>(), 2.0, 0.02);
  EXPECT_NEAR(n.std().item<double>(), 0.5, 0.02);
  Generator again(7);
  const Tensor m = zeros({20000}, kFloat64);
  normal_(m, 2.0, 0.5, &again);
  EXPECT_TRUE(equal(n, m));

  const Tensor u = zeros({10000}, kFloat32);
  uniform_(u, -1.0, 3.0, &g);
  EXPECT_GE(u.min().item<float>(), -1.0f);
  EXPECT_LT(u.max().item<float>(), 3.0f);
  EXPECT_NEAR(u.mean().item<float>(), 1.0, 0.05);

  const Tensor e = zeros({20000}, kFloat64);
  exponential_(e, 4.0, &g);
  EXPECT_GE(e.min().item<double>(), 0.0);
  EXPECT_NEAR(e.mean().item<double>(), 0.25, 0.01);

  const Tensor c = zeros({20001}, kFloat64);
  cauchy_(c, 1.5, 2.0, &g);
  EXPECT_NEAR(median(c).item<double>(), 1.5, 0.1);

  const Tensor l = zeros({20000}, kFloat64);
  log_normal_(l, 0.0, 0.25, &g);
  EXPECT_NEAR(log(l).mean().item<double>(), 0.0, 0.01);

  const Tensor geo = zeros({20000}, kInt64);
  geometric_(geo, 0.25, &g);
  EXPECT_GE(geo.min().item<int64_t>(), 1);
  EXPECT_NEAR(geo.to(kFloat64).mean().item<double>(), 4.0, 0.1);

  const Tensor b = zeros({4}, kFloat32);
  bernoulli_(b, 1.0, &g);
  expect_values(b, {1, 1, 1, 1});
  bernoulli_(b, 0.0, &g);
  expect_values(b, {0, 0, 0, 0});
}

TEST(TensorMethodsTest, BernoulliTakesATensorOfProbabilities) {
  Generator g(5);
  const Tensor t = zeros({2000, 3});
  bernoulli_(t, f64({0, 1, 0.25}), &g);
  expect_values(t.select(1, 0).max().reshape({1}), {0});
  expect_values(t.select(1, 1).min().reshape({1}), {1});
  EXPECT_NEAR(t.select(1, 2).mean().item<float>(), 0.25, 0.03);
  expect_error<Error>([] { bernoulli_(zeros({2}), f64({1.5, 0.2})); }, {"every probability in p to be in [0, 1]"});
  expect_error<Error>([] { bernoulli_(zeros({2}), f64({0.5, 0.2, 0.1})); }, {"expand"});
}

TEST(TensorMethodsTest, RandomDrawsIntegersInItsRangeAndDefaultsToTheDtypes) {
  Generator g(3);
  const Tensor r = zeros({1000}, kInt64);
  random_(r, 3, 5, &g);
  EXPECT_EQ(r.min().item<int64_t>(), 3);
  EXPECT_EQ(r.max().item<int64_t>(), 4);
  random_(r, 2, std::nullopt, &g);  // random_(2): [0, 2)
  EXPECT_EQ(r.min().item<int64_t>(), 0);
  EXPECT_EQ(r.max().item<int64_t>(), 1);
  const Tensor bytes = zeros({4000}, kUInt8);
  random_(bytes, 0, std::nullopt, &g);
  EXPECT_EQ(bytes.max().item<uint8_t>(), 255);
  const Tensor b = zeros({100}, kBool);
  random_(b, 0, std::nullopt, &g);
  EXPECT_TRUE(b.any().item<bool>());
}

TEST(TensorMethodsTest, RandomFillsRefuseWhatPyTorchRefuses) {
  expect_error<NotImplementedError>([] { normal_(zeros({3}, kInt64)); }, {"normal_ expects a floating point tensor"});
  expect_error<Error>([] { bernoulli_(zeros({3}), 1.5); }, {"bernoulli_ expects p to be in [0, 1], but got p=1.5"});
  expect_error<Error>([] { geometric_(zeros({3}), 0.0); }, {"geometric_ expects p to be in (0, 1)"});
  expect_error<Error>([] { uniform_(zeros({3}), 3.0, 2.0); }, {"from=3 > to=2"});
  expect_error<Error>([] { random_(zeros({3}), 5, 5); }, {"'from' to be less than 'to'"});
  // a leaf that requires grad is refused, as every in-place write to one is
  expect_error<Error>([] { normal_(zeros({3}).requires_grad_(true)); }, {"leaf"});
}

TEST(TensorMethodsTest, FillDiagonalWrapsATallMatrixAsPyTorchDoes) {
  expect_values(zeros({5, 2}).fill_diagonal_(Scalar(1), true), {1, 0, 0, 1, 0, 0, 1, 0, 0, 1});
  expect_values(zeros({5, 2}).fill_diagonal_(Scalar(1)), {1, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  expect_values(zeros({2, 2, 2}).fill_diagonal_(Scalar(3)), {3, 0, 0, 0, 0, 0, 0, 3});
  expect_error<Error>([] { zeros({2, 3, 2}).fill_diagonal_(Scalar(1)); }, {"all dimensions of input must be of equal"});
  expect_error<Error>([] { zeros({3}).fill_diagonal_(Scalar(1)); }, {"dimensions must larger than 1"});
}

TEST(TensorMethodsTest, UnfoldIsAViewOfTheWindows) {
  const Tensor t = arange(7, TensorOptions(kFloat64));
  const Tensor w = unfold(t, 0, 3, 2);
  EXPECT_EQ(w.sizes(), (DimVector{3, 3}));
  expect_values(w, {0, 1, 2, 2, 3, 4, 4, 5, 6});
  t.fill_(Scalar(1));
  expect_values(w, {1, 1, 1, 1, 1, 1, 1, 1, 1});  // a view
  expect_values(unfold(f64({5}).reshape({}), 0, 1, 1), {5});
  expect_error<Error>([] { unfold(zeros({4}), 0, 5, 1); },
                      {"maximum size for tensor at dimension 0 is 4 but size is 5"});
  gradcheck([](const std::vector<Tensor>& x) { return unfold(x[0], 1, 2, 1) * 1; },
            {randn({2, 4}, kFloat64).requires_grad_(true)});
}

TEST(TensorMethodsTest, DiffOfNumbersAndOfBools) {
  expect_values(diff(i64({1, 4, 9, 16}), 2, -1, i64({0})), {2, 2, 2});
  expect_values(diff(tensor(std::vector<bool>{true, true, false, false})), {0, 1, 0});
  expect_values(diff(f64({1, 2}), 0), {1, 2});
  gradcheck([](const std::vector<Tensor>& x) { return diff(x[0], 2, 0); },
            {randn({5, 2}, kFloat64).requires_grad_(true)});
}

TEST(TensorMethodsTest, SumToSizeNamesASizeItCannotBroadcastFrom) {
  expect_values(ones({2, 3}).sum_to_size({3}), {2, 2, 2});
  expect_values(ones({2, 3}).sum_to_size({2, 1}), {3, 3});
  expect_error<Error>([] { ones({2, 3}).sum_to_size({2}); }, {"size [2] is not expandable to size [2, 3]"});
}

TEST(TensorMethodsTest, AllcloseAndEqual) {
  EXPECT_TRUE(allclose(f64({1, 2}), f64({1, 2 + 1e-9})));
  EXPECT_FALSE(allclose(f64({1, NAN}), f64({1, NAN})));
  EXPECT_TRUE(allclose(f64({1, NAN}), f64({1, NAN}), 1e-5, 1e-8, true));
  EXPECT_TRUE(equal(i64({1, 2}), i64({1, 2})));
  EXPECT_FALSE(equal(i64({1, 2}), i64({1, 2}).reshape({2, 1})));
  EXPECT_FALSE(equal(f64({NAN}), f64({NAN})));
}

TEST(TensorMethodsTest, IndexPutInPlaceAddsRepeatedIndicesWithAccumulate) {
  const Tensor t = zeros({3}, kFloat64);
  t.index_put_({i64({0, 0, 2})}, f64({1, 2, 3}), true);
  expect_values(t, {3, 0, 3});
  t.index_put_({i64({0, 0})}, f64({5, 6}));
  expect_values(t, {6, 0, 3});
}

TEST(TensorMethodsTest, PolygammaInPlace) {
  const Tensor t = f64({1});
  t.polygamma_(1);
  EXPECT_NEAR(t.item<double>(), std::numbers::pi * std::numbers::pi / 6, 1e-12);
}
