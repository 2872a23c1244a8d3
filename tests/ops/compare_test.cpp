#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/ops/compare.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<bool> bools(const Tensor& t) {
  EXPECT_EQ(t.dtype(), kBool);
  return t.to_vector<bool>();
}

using B = std::vector<bool>;

}  // namespace

TEST(CompareTest, EachComparisonAgainstATensor) {
  Tensor a = tensor({1.0f, 2.0f, 3.0f}), b = tensor({2.0f, 2.0f, 2.0f});
  EXPECT_EQ(bools(eq(a, b)), (B{false, true, false}));
  EXPECT_EQ(bools(ne(a, b)), (B{true, false, true}));
  EXPECT_EQ(bools(lt(a, b)), (B{true, false, false}));
  EXPECT_EQ(bools(le(a, b)), (B{true, true, false}));
  EXPECT_EQ(bools(gt(a, b)), (B{false, false, true}));
  EXPECT_EQ(bools(ge(a, b)), (B{false, true, true}));
  EXPECT_EQ(bools(a.eq(b)), bools(a == b));
  EXPECT_EQ(bools(a.ne(b)), bools(a != b));
  EXPECT_EQ(bools(a.lt(b)), bools(a < b));
  EXPECT_EQ(bools(a.le(b)), bools(a <= b));
  EXPECT_EQ(bools(a.gt(b)), bools(a > b));
  EXPECT_EQ(bools(a.ge(b)), bools(a >= b));
}

TEST(CompareTest, EachComparisonAgainstAScalar) {
  Tensor a = tensor<int64_t>({1, 2, 3});
  EXPECT_EQ(bools(a.eq(2)), (B{false, true, false}));
  EXPECT_EQ(bools(a.ne(2)), (B{true, false, true}));
  EXPECT_EQ(bools(a.lt(2)), (B{true, false, false}));
  EXPECT_EQ(bools(a.le(2)), (B{true, true, false}));
  EXPECT_EQ(bools(a.gt(2)), (B{false, false, true}));
  EXPECT_EQ(bools(a.ge(2)), (B{false, true, true}));
  EXPECT_EQ(bools(a > 1), (B{false, true, true}));
  EXPECT_EQ(bools(a == 3), (B{false, false, true}));
}

TEST(CompareTest, ScalarComparisonPromotesLikeArithmetic) {
  // An int tensor against 2.5 compares in floating point, not after truncating 2.5 to 2.
  Tensor a = tensor<int64_t>({2, 3});
  EXPECT_EQ(bools(a < 2.5), (B{true, false}));
  EXPECT_EQ(bools(a == 2.5), (B{false, false}));
  Tensor b = tensor(std::vector<bool>{true, false});
  EXPECT_EQ(bools(b == 1), (B{true, false}));
  EXPECT_EQ(bools(b > 0.5), (B{true, false}));
}

TEST(CompareTest, MixedDtypesPromoteBeforeComparing) {
  Tensor i = tensor<int32_t>({1, 2}), f = tensor({1.5, 2.0});
  EXPECT_EQ(bools(lt(i, f)), (B{true, false}));
  EXPECT_EQ(bools(eq(i, f)), (B{false, true}));
  Tensor u = tensor<uint8_t>({200}), l = tensor<int64_t>({-56});
  EXPECT_EQ(bools(gt(u, l)), (B{true}));
}

TEST(CompareTest, NanComparesUnequalToEverything) {
  Tensor a = tensor({kNaN, kNaN}), b = tensor({kNaN, 1.0});
  EXPECT_EQ(bools(eq(a, b)), (B{false, false}));
  EXPECT_EQ(bools(ne(a, b)), (B{true, true}));
  EXPECT_EQ(bools(lt(a, b)), (B{false, false}));
  EXPECT_EQ(bools(ge(a, b)), (B{false, false}));
}

TEST(CompareTest, BroadcastsAndKeepsShape) {
  Tensor col = tensor(std::vector<double>{1.0, 2.0, 3.0}, {3, 1}), row = tensor({2.0, 3.0});
  Tensor r = lt(col, row);
  EXPECT_EQ(r.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(bools(r), (B{true, true, false, true, false, false}));
  EXPECT_EQ(gt(scalar_tensor(1.0), zeros({0, 2})).sizes(), IntArrayRef({0, 2}));
  Tensor z = eq(scalar_tensor(2), scalar_tensor(2));
  EXPECT_EQ(z.dim(), 0);
  EXPECT_TRUE(z.item<bool>());
}

TEST(CompareTest, NonContiguousAndLargeInputs) {
  Tensor a = randn({300, 200}), b = randn({200, 300});
  Tensor r = gt(a, b.t());
  std::vector<float> av = a.to_vector<float>(), bv = b.t().contiguous().to_vector<float>();
  std::vector<bool> rv = bools(r);
  for (size_t k = 0; k < av.size(); ++k) ASSERT_EQ(rv[k], av[k] > bv[k]) << k;
}

TEST(CompareTest, BoolTensorsCompareAsFalseLessThanTrue) {
  Tensor t = tensor(std::vector<bool>{true, false}), f = tensor(std::vector<bool>{false, false});
  EXPECT_EQ(bools(gt(t, f)), (B{true, false}));
  EXPECT_EQ(bools(eq(t, f)), (B{false, true}));
}

TEST(CompareTest, ShapesThatDoNotBroadcastNameBothShapes) {
  expect_error([] { eq(ones({2, 3}), ones({2})); }, {"eq", "[2, 3]", "[2]"});
  expect_error([] { lt(ones({4}), ones({3})); }, {"lt", "[4]", "[3]"});
  expect_error([] { where(ones({2}) > 0, ones({3}), ones({3})); }, {"where", "[2]", "[3]"});
  expect_error([] { where(ones({2}) > 0, ones({2}), ones({5})); }, {"where", "[2]", "[5]"});
}

TEST(CompareTest, StorageDtypesAreRefused) {
  expect_error([] { eq(ones({2}, kInt8), ones({2}, kInt8)); }, {"eq", "int8"});
}

TEST(CompareTest, ComparisonsAreNotDifferentiable) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor r = x > 0;
  EXPECT_FALSE(r.requires_grad());
  EXPECT_EQ(r.grad_fn(), nullptr);
}

TEST(CompareTest, LogicalOps) {
  Tensor a = tensor({0.0, 1.5, kNaN, 0.0}), b = tensor<int64_t>({0, 0, 3, 7});
  EXPECT_EQ(bools(logical_not(a)), (B{true, false, false, true}));
  EXPECT_EQ(bools(logical_and(a, b)), (B{false, false, true, false}));
  EXPECT_EQ(bools(logical_or(a, b)), (B{false, true, true, true}));
  EXPECT_EQ(bools(logical_not(tensor(std::vector<bool>{true, false}))), (B{false, true}));
  Tensor m = logical_and(tensor(std::vector<bool>{true, false}), tensor(std::vector<bool>{true}));
  EXPECT_EQ(bools(m), (B{true, false}));
}

TEST(CompareTest, WherePicksAndBroadcasts) {
  Tensor cond = tensor(std::vector<bool>{true, false, true});
  Tensor a = tensor({1.0f, 2.0f, 3.0f}), b = tensor({-1.0f, -2.0f, -3.0f});
  EXPECT_EQ(where(cond, a, b).to_vector<float>(), (std::vector<float>{1, -2, 3}));
  EXPECT_EQ(where(cond, a, 0.0).to_vector<float>(), (std::vector<float>{1, 0, 3}));
  EXPECT_EQ(where(cond, 9, b).to_vector<float>(), (std::vector<float>{9, -2, 9}));
  // cond [2, 1] against values [3]: the result is [2, 3].
  Tensor c2 = tensor(std::vector<bool>{true, false}, {2, 1});
  Tensor r = where(c2, a, scalar_tensor(0.0f));
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 2, 3, 0, 0, 0}));
}

TEST(CompareTest, WherePromotesItsValues) {
  Tensor cond = tensor(std::vector<bool>{true, false});
  Tensor r = where(cond, tensor<int64_t>({1, 2}), tensor({0.5, 0.25}));
  EXPECT_EQ(r.dtype(), kFloat64);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{1, 0.25}));
  EXPECT_EQ(where(cond, tensor<int64_t>({1, 2}), 0.5).dtype(), kFloat32);
  EXPECT_EQ(where(cond, tensor<int32_t>({1, 2}), 0).dtype(), kInt32);
}

TEST(CompareTest, WhereMovesStorageDtypes) {
  Tensor cond = tensor(std::vector<bool>{false, true});
  Tensor h = where(cond, ones({2}, kFloat16), zeros({2}, kFloat16));
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(h.to(kFloat32).to_vector<float>(), (std::vector<float>{0, 1}));
}

TEST(CompareTest, WhereNeedsABoolCondition) {
  expect_error([] { where(ones({2}), ones({2}), ones({2})); }, {"where", "condition", "bool", "float32"});
}

TEST(CompareTest, WhereLargeStridedInputs) {
  Tensor a = randn({256, 300}), b = randn({300, 256}).t();
  Tensor cond = a > b;
  Tensor r = where(cond, a, b);
  std::vector<float> av = a.to_vector<float>(), bv = b.contiguous().to_vector<float>(), rv = r.to_vector<float>();
  for (size_t k = 0; k < av.size(); ++k) ASSERT_EQ(rv[k], std::max(av[k], bv[k])) << k;
}

TEST(CompareTest, WhereGradientGoesToTheChosenSide) {
  Tensor cond = tensor(std::vector<bool>{true, false, true});
  Tensor a = tensor({1.0, 2.0, 3.0}).set_requires_grad();
  Tensor b = tensor({4.0}).set_requires_grad();
  (where(cond, a, b) * tensor({1.0, 10.0, 100.0})).sum().backward();
  EXPECT_EQ(a.grad().to_vector<double>(), (std::vector<double>{1, 0, 100}));
  EXPECT_EQ(b.grad().to_vector<double>(), (std::vector<double>{10}));
}

TEST(CompareTest, GradcheckWhere) {
  Generator gen(5);
  Tensor cond = rand({2, 3}, kFloat32, &gen) > 0.5;
  auto draw = [&](IntArrayRef shape) { return randn(shape, kFloat64, &gen).set_requires_grad(); };
  auto fn = [&](const TensorList& in) { return where(cond, in[0], in[1]); };
  gradcheck(fn, {draw({2, 3}), draw({2, 3})});
  gradcheck(fn, {draw({3}), draw({2, 1})});
  gradcheck(fn, {draw({}), draw({2, 3})});
  gradcheck([&](const TensorList& in) { return where(cond, in[0].t(), in[1]); }, {draw({3, 2}), draw({3})});
  gradcheck([&](const TensorList& in) { return where(cond, in[0], 0.0); }, {draw({2, 3})});
  Tensor c0 = scalar_tensor(true, kBool);
  gradcheck([&](const TensorList& in) { return where(c0, in[0], in[1]); }, {draw({}), draw({})});
  autograd::gradgradcheck([&](const TensorList& in) { return where(cond, in[0] * in[0], in[1]); },
                          {draw({2, 3}), draw({2, 3})});
}
