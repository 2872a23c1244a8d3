// The composite ops that moved from Python into C++ (ops/pointwise_composite.cpp,
// reduce_composite.cpp, products_composite.cpp, rearrange_composite.cpp, search.cpp), through the
// C++ API: values against hand-computed references and PyTorch's at the edges (infinite ends, zeros,
// NaN), every gradient and second gradient against finite differences, and the errors that name
// the argument. tests/python and the torch fixtures compare the same ops with PyTorch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::expect_values;
using ember::testing::expect_values_near;
using ember::testing::seeded_randn;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

Tensor f64(std::initializer_list<double> v) { return tensor(std::vector<double>(v)); }
Tensor f32(std::initializer_list<float> v) { return tensor(std::vector<float>(v)); }
Tensor i64(std::initializer_list<int64_t> v) { return tensor(std::vector<int64_t>(v)); }

Tensor leaf(std::vector<int64_t> shape, uint64_t seed) { return seeded_randn(shape, seed).requires_grad_(); }

// gradcheck and gradgradcheck of fn at the inputs.
void check_both(const autograd::TensorFunction& fn, const TensorList& inputs) {
  gradcheck(fn, inputs);
  gradgradcheck(fn, inputs);
}

}  // namespace

TEST(CompositeOpsTest, LerpIsExactAtEachEndAndKeepsInfiniteEnds) {
  const Tensor a = f64({1, 2, kInf}), b = f64({3, 6, 1});
  expect_values(lerp(a, b, 1.0).narrow(0, 0, 2), {3, 6});
  expect_values(lerp(a, b, 0.75), {2.5, 5, kInf});  // end - (end - a) (1 - w): inf, not inf - inf
  expect_values(lerp(a, b, f64({0.25, 1, 0.75})), {1.5, 6, kInf});
  expect_values(lerp(f64({0, 10}), f64({10, 0}), tensor(std::vector<bool>{true, false})), {10, 10});
  expect_error<Error>([] { lerp(f32({1}), i64({3}), 1.0); }, {"lerp", "for `end`", "Long"});
  // an infinite gradient with a weight of 0: PyTorch's grad (1 - w) and grad w (inf and NaN), where
  // autograd through self + w (end - self) gives self inf - inf = NaN
  const Tensor x = f64({1}).requires_grad_(), y = f64({2}).requires_grad_();
  lerp(x, y, 0.0).backward(f64({kInf}));
  expect_values(x.grad(), {kInf});
  expect_values(y.grad(), {kNan});
}

TEST(CompositeOpsTest, LerpGradients) {
  check_both([](const TensorList& t) { return lerp(t[0], t[1], 0.3); }, {leaf({2, 3}, 1), leaf({3}, 2)});
  check_both([](const TensorList& t) { return lerp(t[0], t[1], 0.8); }, {leaf({2, 3}, 1), leaf({2, 3}, 2)});
  check_both([](const TensorList& t) { return lerp(t[0], t[1], t[2]); },
             {leaf({2, 3}, 3), leaf({3}, 4), leaf({2, 1}, 5)});
}

TEST(CompositeOpsTest, AddcmulAndAddcdiv) {
  const Tensor a = f64({1, 2}), t1 = f64({3, 4}), t2 = f64({2, 8});
  expect_values(addcmul(a, t1, t2, 0.5), {4, 18});
  expect_values(addcdiv(a, t1, t2, 2), {4, 3});
  // an integer dtype truncates the value, as PyTorch's
  expect_values(addcmul(i64({1}), i64({2}), i64({3}), 0.5), {1});
  // float32 rounds once, as a fused multiply-add: 4.66042e-4, not 4.66108e-4
  const Tensor r = addcmul(f32({-2.5f}), f32({1.1181382f}), f32({1.1181382f}), 2);
  EXPECT_FLOAT_EQ(r.item<float>(), static_cast<float>(-2.5 + 2.0 * double(1.1181382f) * double(1.1181382f)));
  expect_error<Error>([] { addcdiv(f64({1}), i64({1}), i64({2})); }, {"Integer division with addcdiv"});
  check_both([](const TensorList& t) { return addcmul(t[0], t[1], t[2], 0.7); },
             {leaf({2, 3}, 1), leaf({3}, 2), leaf({2, 1}, 3)});
  check_both([](const TensorList& t) { return addcdiv(t[0], t[1], t[2] * t[2] + 1, -1.5); },
             {leaf({3}, 4), leaf({2, 3}, 5), leaf({2, 3}, 6)});
}

TEST(CompositeOpsTest, IscloseAndNanToNum) {
  expect_values(isclose(f64({1, kInf, kNan, 1}), f64({1 + 1e-9, kInf, kNan, 2})), {1, 1, 0, 0});
  expect_values(isclose(f64({kNan}), f64({kNan}), 1e-5, 1e-8, true), {1});
  expect_values(isclose(i64({10, 10}), i64({11, 13}), 0.0, 1.0), {1, 0});
  expect_values(nan_to_num(f64({kNan, kInf, -kInf, 2})), {0, DBL_MAX, -DBL_MAX, 2});
  expect_values(nan_to_num(f64({kInf}).to(kFloat16)), {65504});
  expect_values(nan_to_num(f64({kNan, kInf}), 1.0, 9.0), {1, 9});
  // the gradient: grad where finite, 0 where replaced (NaN where grad is)
  const Tensor x = f64({kNan, 3}).requires_grad_();
  nan_to_num(x).backward(f64({kNan, 2}));
  expect_values(x.grad(), {kNan, 2});
}

TEST(CompositeOpsTest, HypotNeitherOverflowsNorUnderflows) {
  expect_values_near(hypot(f32({3e30f, 3e-30f}), f32({4e30f, 4e-30f})), {5e30, 5e-30}, 1e-6, 0);
  expect_values(hypot(f64({kInf, kNan, 0}), f64({kNan, -kInf, 0})), {kInf, kInf, 0});
  expect_error<NotImplementedError>([] { hypot(i64({3}), i64({4})); }, {"hypot", "Long"});
  check_both([](const TensorList& t) { return hypot(t[0], t[1]); }, {leaf({2, 3}, 7), leaf({3}, 8)});
}

TEST(CompositeOpsTest, SincAndItsGradientNearZero) {
  expect_values_near(sinc(f64({0, 0.5, 1, -2.5})), {1, 2 / M_PI, 0, 0.4 / M_PI}, 1e-12, 1e-15);
  // float16 computes in float32, as PyTorch's: pi * 65504 fits there (torch 2.15: 0); float32's own
  // pi * 3.4e38 overflows to inf, and sinc is NaN there in PyTorch too
  EXPECT_EQ(sinc(full({1}, 65504.0, kFloat16)).to(kFloat32).item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(sinc(full({1}, 3.4028235e38, kFloat32)).item<float>()));
  // PyTorch's (pi x cos(pi x) - sin(pi x)) / (pi x^2): at 1e-10 both terms round to pi x, so 0 (the
  // quotient rule's two terms of about 1 / x cancel into noise there: -1.5e-6)
  const Tensor x = f64({1e-10, 0}).requires_grad_();
  sinc(x).sum().backward();
  expect_values(x.grad(), {0, 0});
  const Tensor y = f32({-1.4e-4f}).requires_grad_();
  sinc(y).sum().backward();
  EXPECT_NEAR(y.grad().item<float>(), -M_PI * M_PI * -1.4e-4 / 3, 1e-9);
  check_both([](const TensorList& t) { return sinc(t[0]); }, {leaf({5}, 9)});
}

TEST(CompositeOpsTest, LogitEdgesAndGradients) {
  expect_values(logit(f64({0, 0.5, 1, 2})), {-kInf, 0, kInf, kNan});
  expect_values_near(logit(f64({0, 1}), 0.25), {std::log(1.0 / 3), std::log(3.0)}, 1e-12, 0);
  EXPECT_EQ(logit(tensor(std::vector<bool>{true, false})).dtype(), kFloat32);  // bool and integers as floats
  const Tensor x = f64({0, 1, 2, 0.5}).requires_grad_();
  logit(x).backward(f64({1, 1, 1, 1}));
  expect_values(x.grad(), {kInf, kInf, kNan, 4});
  const Tensor z = f64({0.1, 0.5}).requires_grad_();
  logit(z, 0.2).sum().backward();
  expect_values(z.grad(), {0, 4});
  check_both([](const TensorList& t) { return logit(sigmoid(t[0])); }, {leaf({4}, 10)});
}

TEST(CompositeOpsTest, XlogyZeroTimesLogZeroIsZero) {
  expect_values(xlogy(f64({0, 0, 2, 0}), f64({0, kNan, 1, -1})), {0, kNan, 0, 0});
  expect_values_near(xlogy(3.0, f64({M_E})), {3}, 1e-15, 0);
  expect_values_near(xlogy(f64({2}), M_E), {2}, 1e-15, 0);
  EXPECT_EQ(xlogy(i64({1}), i64({2})).dtype(), kFloat32);
  // d/dx at x = 0 with y <= 0 is 0 (the derivative along x = 0, pytorch#80770)
  const Tensor x = f64({0, 1}).requires_grad_();
  xlogy(x, f64({0, M_E})).sum().backward();
  expect_values(x.grad(), {0, 1});
  check_both([](const TensorList& t) { return xlogy(t[0], t[1] * t[1] + 0.5); }, {leaf({2, 3}, 11), leaf({3}, 12)});
}

TEST(CompositeOpsTest, SignbitAndHeaviside) {
  expect_values(signbit(f64({-0.0, 0.0, -2, 3, -kInf})), {1, 0, 1, 0, 1});
  expect_values(signbit(i64({-1, 0})), {1, 0});
  expect_values(heaviside(f64({-1, 0, 2, kNan}), f64({0.5})), {0, 0.5, 1, 0});
  EXPECT_EQ(heaviside(i64({0}), i64({7})).dtype(), kInt64);
  // self gets a zero gradient, values grad where self is 0
  const Tensor x = f64({0, 1}).requires_grad_(), v = f64({0.5, 0.5}).requires_grad_();
  heaviside(x, v).sum().backward();
  expect_values(x.grad(), {0, 0});
  expect_values(v.grad(), {1, 0});
}

TEST(CompositeOpsTest, NanReductionsAndCounting) {
  const Tensor x = f64({1, kNan, 3, kNan}).reshape({2, 2});
  expect_values(nansum(x), {4});
  expect_values(nansum(x, {1}, true), {1, 3});
  expect_values(nanmean(x, {0}), {2, kNan});
  expect_values(count_nonzero(f64({0, 1, 2, 0}).reshape({2, 2}), {0}), {1, 1});
  EXPECT_EQ(count_nonzero(f64({0, 1})).dtype(), kInt64);
  expect_error<Error>([] { nanmean(i64({1})); }, {"nanmean", "Long"});
  const Tensor y = f64({1, kNan}).requires_grad_();
  nansum(y).backward();
  expect_values(y.grad(), {1, 0});
  check_both([](const TensorList& t) { return nanmean(t[0], {1}); }, {leaf({2, 3}, 13)});
}

TEST(CompositeOpsTest, TraceDotMv) {
  const Tensor m = f64({1, 2, 3, 4}).reshape({2, 2});
  expect_values(trace(m), {5});
  expect_values(dot(f64({1, 2}), f64({3, 4})), {11});
  expect_values(mv(m, f64({1, 1})), {3, 7});
  expect_error<Error>([&] { dot(f64({1, 2}), f64({1})); }, {"inconsistent tensor size", "[2]", "[1]"});
  expect_error<Error>([&] { trace(f64({1})); }, {"trace", "dim 1"});
  check_both([](const TensorList& t) { return trace(t[0]); }, {leaf({3, 3}, 14)});
  check_both([](const TensorList& t) { return mv(t[0], t[1]); }, {leaf({2, 3}, 15), leaf({3}, 16)});
}

TEST(CompositeOpsTest, MedianLowerAndNan) {
  expect_values(median(f64({3, 1, 4, 2})), {2});
  expect_values(median(f64({3, kNan, 1})), {kNan});
  EXPECT_TRUE(std::isnan(median(zeros({0}, kFloat64)).item<double>()));
  EXPECT_EQ(median(zeros({0}, kInt32)).item<int64_t>(), std::numeric_limits<int32_t>::min());
  auto [values, indices] = median(f64({3, kNan, 1, 5, 2, 9}).reshape({2, 3}), 1);
  expect_values(values, {kNan, 5});
  expect_values(indices, {1, 0});
  // the gradient of the median of every entry is split among the entries equal to it
  const Tensor x = f64({2, 1, 2, 5}).requires_grad_();
  median(x).backward();
  expect_values(x.grad(), {0.5, 0, 0.5, 0});
  expect_error<IndexError>([] { median(zeros({2, 0}), 1); }, {"median()", "non-zero size"});
}

TEST(CompositeOpsTest, QuantileInterpolations) {
  const Tensor x = f64({4, 1, 3, 2});
  expect_values(quantile(x, 0.5), {2.5});
  expect_values(quantile(x, 0.5, std::nullopt, false, "lower"), {2});
  expect_values(quantile(x, 0.5, std::nullopt, false, "higher"), {3});
  expect_values(quantile(x, 0.5, std::nullopt, false, "nearest"), {3});  // rank 1.5 to even: 2
  expect_values(quantile(x, 0.5, std::nullopt, false, "midpoint"), {2.5});
  expect_values(quantile(x, f64({0, 1})), {1, 4});
  const Tensor rows = f64({1, 2, 3, kNan, 5, 6}).reshape({2, 3});
  expect_values(quantile(rows, 0.5, 1), {2, kNan});
  EXPECT_EQ(quantile(rows, f64({0.5, 1}), 1, true).sizes(), IntArrayRef({2, 2, 1}));
  EXPECT_EQ(quantile(rows, 0.5, std::nullopt, true).sizes(), IntArrayRef({1, 1}));
  expect_error<Error>([&] { quantile(x, 1.5); }, {"q values must be in the range [0, 1]"});
  expect_error<ValueError>([&] { quantile(x, 0.5, std::nullopt, false, "cubic"); }, {"interpolation", "cubic"});
  // linear interpolation is lerp, so q gets a gradient too
  check_both([](const TensorList& t) { return quantile(t[0], t[1], 1); },
             {leaf({3, 5}, 17), f64({0.3, 0.55}).requires_grad_()});
}

TEST(CompositeOpsTest, TensordotKronCross) {
  const Tensor a = seeded_randn({2, 3, 4}, 18), b = seeded_randn({4, 3, 5}, 19);
  expect_close(tensordot(a, b, {1, 2}, {1, 0}), einsum("ijk,kjl->il", {a, b}), 1e-12, 1e-12);
  expect_error<Error>([&] { tensordot(a, b, {0}, {0}); }, {"contracted dimensions need to match", "2", "4"});
  expect_error<Error>([&] { tensordot(a, b.to(kFloat32), {2}, {0}); }, {"same dtype", "Double", "Float"});
  expect_values(kron(f64({1, 2}), f64({1, 10, 100})), {1, 10, 100, 2, 20, 200});
  EXPECT_EQ(kron(zeros({2, 3}), zeros({4})).sizes(), IntArrayRef({2, 12}));
  expect_values(cross(f64({1, 0, 0}), f64({0, 1, 0})), {0, 0, 1});
  expect_error<Error>([] { cross(f64({1, 0}), f64({0, 1})); }, {"no dimension of size 3"});
  check_both([](const TensorList& t) { return tensordot(t[0], t[1], {1}, {0}); }, {leaf({2, 3}, 20), leaf({3, 2}, 21)});
  check_both([](const TensorList& t) { return kron(t[0], t[1]); }, {leaf({2, 2}, 22), leaf({3}, 23)});
  check_both([](const TensorList& t) { return cross(t[0], t[1], -1); }, {leaf({2, 3}, 24), leaf({2, 3}, 25)});
}

TEST(CompositeOpsTest, DistAndCdist) {
  expect_values(dist(f64({0, 0}), f64({3, 4})), {5});
  expect_values(dist(f64({0, 0}), f64({3, -4}), kInf), {4});
  expect_values(dist(f64({0, 1}), f64({3, 1}), 0), {1});
  const Tensor x1 = f64({0, 0, 1, 1}).reshape({2, 2}), x2 = f64({3, 4}).reshape({1, 2});
  expect_values(cdist(x1, x2), {5, std::sqrt(13.0)});
  expect_values(cdist(x1, x2, 1), {7, 5});
  expect_values(cdist(x1, x2, kInf), {4, 3});
  expect_values(cdist(f64({kNan, 0}).reshape({1, 2}), x2, 0), {kNan});
  // p = 2 at a zero distance: 0 whatever the gradient is (norm's backward gives grad * 0 = NaN for inf)
  const Tensor y = f64({1, 2}).reshape({1, 2}).requires_grad_();
  cdist(y, f64({1, 2}).reshape({1, 2})).backward(f64({kInf}).reshape({1, 1}));
  expect_values(y.grad(), {0, 0});
  for (double p : {1.0, 2.0, 3.0})
    check_both([p](const TensorList& t) { return cdist(t[0], t[1], p); }, {leaf({2, 3, 4}, 26), leaf({2, 5, 4}, 27)});
  check_both([](const TensorList& t) { return dist(t[0], t[1], 3); }, {leaf({2, 3}, 28), leaf({3}, 29)});
}

TEST(CompositeOpsTest, TileMovedimUnflatten) {
  expect_values(tile(f64({1, 2}), {2}), {1, 2, 1, 2});
  EXPECT_EQ(tile(zeros({2, 3}), {2}).sizes(), IntArrayRef({2, 6}));  // fewer dims count from the right
  EXPECT_EQ(tile(zeros({3}), {2, 1}).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(movedim(zeros({2, 3, 4}), {0}, {2}).sizes(), IntArrayRef({3, 4, 2}));
  EXPECT_EQ(movedim(zeros({2, 3, 4, 5}), {0, 1}, {-1, 0}).sizes(), IntArrayRef({3, 4, 5, 2}));
  expect_error<Error>([] { movedim(zeros({2, 3}), {0, 0}, {0, 1}); }, {"movedim", "repeated dim"});
  EXPECT_EQ(unflatten(zeros({2, 12}), 1, {3, -1}).sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(unflatten(zeros({0, 2}), 0, {0, 5}).sizes(), IntArrayRef({0, 5, 2}));
  expect_error<Error>([] { unflatten(zeros({0}), 0, {0, -1}); }, {"-1", "ambiguous"});
  expect_error<Error>([] { unflatten(zeros({6}), 0, {4, 2}); }, {"don't multiply up", "(6)"});
  check_both([](const TensorList& t) { return movedim(tile(t[0], {2, 1}), {0}, {1}); }, {leaf({2, 3}, 30)});
}

TEST(CompositeOpsTest, TakeAndTakeAlongDim) {
  const Tensor x = f64({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  expect_values(take(x, i64({0, -1, 4}).reshape({3, 1})), {1, 6, 5});
  expect_error<IndexError>([&] { take(x, i64({6})); }, {"out of range", "index 6", "6 elements"});
  expect_values(take_along_dim(x, i64({2, 0}).reshape({2, 1}), 1), {3, 4});
  expect_values(take_along_dim(x, i64({5, 0})), {6, 1});
  expect_values(msort(f64({3, 1, 2, 0}).reshape({2, 2})), {2, 0, 3, 1});
  check_both(
      [](const TensorList& t) {
        return take_along_dim(t[0], i64({1, 0, 1}).reshape({1, 3}), 0);
      },
      {leaf({2, 3}, 31)});
}

TEST(CompositeOpsTest, CartesianProductAndCombinations) {
  expect_values(cartesian_prod({i64({1, 2}), i64({3, 4, 5})}), {1, 3, 1, 4, 1, 5, 2, 3, 2, 4, 2, 5});
  const Tensor abc = i64({1, 2, 3});
  expect_values(combinations(abc), {1, 2, 1, 3, 2, 3});
  expect_values(combinations(abc, 2, true), {1, 1, 1, 2, 1, 3, 2, 2, 2, 3, 3, 3});
  expect_values(combinations(abc, 3), {1, 2, 3});
  EXPECT_EQ(combinations(abc, 4).sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(combinations(abc, 0).sizes(), IntArrayRef({0}));
  EXPECT_EQ(combinations(i64({}), 2, true).sizes(), IntArrayRef({0, 2}));
}

TEST(CompositeOpsTest, SearchsortedBucketizeUnique) {
  const Tensor seq = f64({1, 3, 5, 7});
  expect_values(searchsorted(seq, f64({0, 3, 6, 9, kNan})), {0, 1, 3, 4, 4});
  expect_values(searchsorted(seq, f64({3, 7}), false, true), {2, 4});
  expect_values(searchsorted(seq, Scalar(5.0), false, false, "right"), {3});
  EXPECT_EQ(searchsorted(seq, f64({3}), true).dtype(), kInt32);
  expect_values(searchsorted(f64({5, 1, 3}), f64({2, 4}), false, false, std::nullopt, i64({1, 2, 0})), {1, 2});
  expect_values(searchsorted(f64({1, 2, 10, 20}).reshape({2, 2}), f64({1.5, 15}).reshape({2, 1})), {1, 1});
  expect_error<Error>([&] { searchsorted(seq, f64({1}), false, true, "left"); }, {"side", "right"});
  expect_values(bucketize(f64({0, 3, 6}), seq), {0, 1, 3});
  expect_values(bucketize(f64({3}), seq, false, true), {2});
  expect_error<NotImplementedError>(
      [] { bucketize(tensor(std::vector<bool>{true}), tensor(std::vector<bool>{false})); }, {"searchsorted", "Bool"});
  auto [values, inverse, counts] = unique_all(i64({3, 1, 3, 2, 1}), true, true);
  expect_values(values, {1, 2, 3});
  expect_values(inverse, {2, 0, 2, 1, 0});
  expect_values(counts, {2, 1, 2});
  auto [rows, row_of, row_counts] = unique_all(i64({1, 2, 0, 5, 1, 2}).reshape({3, 2}), true, true, 0);
  expect_values(rows, {0, 5, 1, 2});
  expect_values(row_of, {1, 0, 1});
  expect_values(row_counts, {1, 2});
  EXPECT_EQ(std::get<0>(unique_all(zeros({0}))).numel(), 0);
  // the values come from self, so they require grad when it does, as PyTorch's
  EXPECT_TRUE(std::get<0>(unique_all(f64({2, 1, 2}).requires_grad_())).requires_grad());
}

TEST(CompositeOpsTest, ModeIsTheSmallestMostFrequentValueAtItsLastIndex) {
  const Tensor x = f64({3, 1, 3, 1, 2, 5, 5, 4, 4, 4}).reshape({2, 5});
  const auto [values, indices] = mode(x);
  expect_values(values, {1, 4});  // 1 and 3 twice each: the smaller; then 4 three times
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{3, 4}));
  const auto [v0, i0] = mode(x, 0, true);
  EXPECT_EQ(v0.sizes(), IntArrayRef({1, 5}));
  expect_values(v0, {3, 1, 3, 1, 2});  // no value repeats down a column: the smaller of the two
  EXPECT_EQ(i0.to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 0, 0}));
  const auto [s, si] = mode(scalar_tensor(7.0));
  EXPECT_EQ(s.item<double>(), 7.0);
  EXPECT_EQ(si.item<int64_t>(), 0);
  expect_error<IndexError>([] { mode(zeros({2, 0}), 1); }, {"mode()", "dim 1", "non-zero size"});
  // the gradient reaches the returned entry alone
  const Tensor w = f64({2, 7, 2, 9}).requires_grad_();
  std::get<0>(mode(w)).backward();
  expect_values(w.grad(), {0, 0, 1, 0});
}

TEST(CompositeOpsTest, NdtriIsAccurateInBothTails) {
  // scipy.special.ndtri's values: erfinv(2p - 1) gives -inf for the first two in float64 already
  const Tensor p = f64({1e-300, 1e-30, 1e-10, 0.3, 0.5, 0.975, 1 - 1e-10});
  const std::vector<double> want{-37.0470962993612, -11.464024688443613, -6.361340902404056, -0.5244005127080409, 0.0,
                                 1.959963984540054, 6.361340889697422};
  const std::vector<double> got = special_ndtri(p).to_vector<double>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-13 * (1 + std::abs(want[i]))) << i;
  // float32: 1e-10 is representable, and so is its ndtri (erfinv(2p - 1) rounds 2p - 1 to -1)
  EXPECT_NEAR(special_ndtri(f32({1e-10f})).to_vector<float>()[0], -6.361341f, 1e-5f);
  const std::vector<double> edges = special_ndtri(f64({0, 1, -0.1, 1.5, kNan})).to_vector<double>();
  EXPECT_EQ(edges[0], -kInf);
  EXPECT_EQ(edges[1], kInf);
  for (size_t i = 2; i < 5; ++i) EXPECT_TRUE(std::isnan(edges[i])) << i;
  // ndtr undoes it, and the gradient is 1 / pdf(ndtri(p)), to second order
  expect_values_near(special_ndtr(special_ndtri(f64({1e-10, 0.3, 0.975}))), {1e-10, 0.3, 0.975}, 1e-12, 0);
  check_both([](const TensorList& in) { return special_ndtri(in[0]); }, {f64({0.05, 0.3, 0.5, 0.9}).requires_grad_()});
  EXPECT_EQ(special_ndtri(i64({0, 1})).dtype(), kFloat32);
}

TEST(CompositeOpsTest, MultivariateLogGamma) {
  expect_values_near(mvlgamma(f64({2.5}), 3), {1.8809954616117743}, 1e-14, 0);  // scipy.special.multigammaln
  expect_values_near(mvlgamma(f64({3.0}), 1), {std::log(2.0)}, 1e-15, 0);
  expect_error<ValueError>([] { mvlgamma(f64({3.0}), 0); }, {"p has to be greater than or equal to 1", "0"});
  expect_error<TypeError>([] { mvlgamma(ones({1}, kBool), 3); }, {"mvlgamma", "boolean"});
  check_both([](const TensorList& in) { return mvlgamma(in[0], 2); }, {f64({1.5, 2.5}).requires_grad_()});
}

TEST(CompositeOpsTest, VarMeanPastASumsOverflow) {
  const Tensor x = f64({1, 2, 3, 6}).reshape({2, 2});
  auto [v, m] = var_mean(x, {1});
  expect_values(v, {0.5, 4.5});
  expect_values(m, {1.5, 4.5});
  auto [s, m0] = std_mean(x, {}, 0, true);
  EXPECT_EQ(s.sizes(), IntArrayRef({1, 1}));
  expect_values_near(s, {std::sqrt(3.5)}, 1e-12, 0);
  expect_values(m0, {3});
  // 18 times -3.4e38 in float32: the sum overflows, PyTorch's Welford pass keeps the mean finite and
  // the variance of equal values 0; the second row's values differ
  const Tensor big = full({2, 18}, -3.4e38, TensorOptions(kFloat32));
  big.select(0, 1).select(0, 0).fill_(-3.3e38);
  auto [bv, bm] = var_mean(big, {1});
  expect_values_near(bm, {-3.4e38, -3.39444e38}, 1e-5, 0);
  expect_values(bv.narrow(0, 0, 1), {0});
  EXPECT_TRUE(std::isinf(bv.select(0, 1).item<double>()));  // 5.6e74 / 17: past float32, as PyTorch's
  check_both(
      [](const TensorList& t) { return std::get<0>(std_mean(t[0], {0})) + std::get<1>(var_mean(t[0], {1})).sum(); },
      {leaf({3, 4}, 32)});
}
