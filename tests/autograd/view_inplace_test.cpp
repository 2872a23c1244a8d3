// In-place writes through views, as PyTorch records them: the base gets a CopySlices history, and
// a view whose storage changed since its history was recorded has it rebuilt from its base's.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/ops/advanced_index.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen).set_requires_grad();
}

Tensor weights(IntArrayRef shape) { return arange(numel_of(shape), kFloat64).reshape(shape) + 1.0; }

}  // namespace

// Regression: y = zeros(4, 5); y[1:3] = v left y not requiring grad, so v.grad stayed None.
TEST(ViewInplaceTest, CopyIntoASliceOfAPlainTensorMakesItDependOnTheValue) {
  Tensor y = zeros({4, 5}, kFloat64);
  Tensor v = draw({2, 5}, 1);
  y.slice(0, 1, 3).copy_(v);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_STREQ(y.grad_fn()->name(), "CopySlices");
  Tensor w = weights({4, 5});
  (y * w).sum().backward();
  ASSERT_TRUE(v.grad().defined());
  expect_values(v.grad(), w.slice(0, 1, 3).to_vector<double>());
}

TEST(ViewInplaceTest, WritesIntoAViewOfANonLeafRouteGradientsAroundTheRegion) {
  Tensor a = draw({3, 4}, 2);
  Tensor x = a * 2.0;
  x.select(1, 0).fill_(5.0);          // y[:, 0] = 5 on a tensor that requires grad
  x.slice(1, 2, 4).mul_(a.slice(1, 2, 4));  // 2a * a written back in place
  Tensor w = weights({3, 4});
  (x * w).sum().backward();
  std::vector<double> av = a.to_vector<double>(), wv = w.to_vector<double>(), got = a.grad().to_vector<double>();
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      size_t k = static_cast<size_t>(i * 4 + j);
      double want = j == 0 ? 0.0 : j == 1 ? 2.0 * wv[k] : 4.0 * av[k] * wv[k];  // d 2a^2 / da = 4a
      EXPECT_NEAR(got[k], want, 1e-12) << "a[" << i << ", " << j << "]";
    }
  }
}

TEST(ViewInplaceTest, ViewsTakenBeforeAWriteSeeTheNewHistory) {
  Tensor y = zeros({4}, kFloat64);
  Tensor early = y.slice(0, 0, 2);  // taken while y needed no gradient
  EXPECT_FALSE(early.requires_grad());
  Tensor v = draw({2}, 3);
  y.slice(0, 1, 3).copy_(v);
  EXPECT_TRUE(early.requires_grad());  // its storage now holds v[0]
  (early * tensor({10.0, 100.0})).sum().backward();
  expect_values(v.grad(), {100.0, 0.0});
}

TEST(ViewInplaceTest, InPlaceOnTheBaseReachesItsOldViews) {
  Tensor a = draw({2, 3}, 4);
  Tensor base = a * 1.0;
  Tensor row = base.select(0, 1);
  Tensor b = draw({2, 3}, 5);
  base.add_(b);
  (row * 3.0).sum().backward();
  expect_values(a.grad(), {0, 0, 0, 3, 3, 3});
  expect_values(b.grad(), {0, 0, 0, 3, 3, 3});
}

TEST(ViewInplaceTest, FillOfANonLeafKeepsItDifferentiableWithAZeroGradient) {
  Tensor a = draw({3}, 6);
  Tensor x = a * 2.0;
  x.fill_(1.0);
  EXPECT_TRUE(x.requires_grad());
  x.sum().backward();
  expect_values(a.grad(), {0, 0, 0});
}

TEST(ViewInplaceTest, ViewOfALeafRequiringGradIsRefused) {
  Tensor w = draw({2, 2}, 7);
  expect_error([&] { w.select(0, 0).fill_(0.0); }, {"fill_", "view of a leaf tensor that requires grad"});
  NoGradGuard no_grad;
  w.select(0, 0).fill_(0.0);  // an update outside recording is fine
  expect_values(w.select(0, 0), {0, 0});
}

TEST(ViewInplaceTest, ExpandedViewsAreNotWrittenInPlace) {
  Tensor t = zeros({1, 3}).expand({4, 3});
  expect_error([&] { t.add_(1.0); }, {"add_", "single memory location", "[4, 3]"});
}

TEST(ViewInplaceTest, WritesThroughTransposedAndSteppedViewsMatchGradcheck) {
  gradcheck([](const TensorList& in) {
    Tensor base = in[0] * 1.0;                        // [4, 6]
    base.transpose(0, 1).slice(0, 1, 6, 2).mul_(in[1]);  // rows 1, 3, 5 of the transpose
    base.slice(1, 0, 6, 3).copy_(in[2]);              // columns 0 and 3
    return base * base;
  }, {draw({4, 6}, 8), draw({3, 4}, 9), draw({4, 2}, 10)});
}

TEST(ViewInplaceTest, SecondDerivativesFlowThroughCopySlices) {
  gradgradcheck([](const TensorList& in) {
    Tensor base = zeros({3, 3}, kFloat64);
    base.select(0, 1).copy_(in[0] * in[0]);
    return base.sum(std::vector<int64_t>{1}) * in[1];
  }, {draw({3}, 11), draw({3}, 12)});
}

// ---- advanced indexing (ops/advanced_index.h)

TEST(AdvancedIndexTest, IndexPutIsDifferentiableInBothTensors) {
  Tensor idx = tensor<int64_t>({2, 0, 2});
  gradcheck([&](const TensorList& in) { return index_put(in[0], {idx}, in[1], /*accumulate=*/true); },
            {draw({4, 3}, 13), draw({3, 3}, 14)});
  gradcheck([&](const TensorList& in) { return index_put(in[0], {Tensor(), idx}, in[1]); },
            {draw({2, 4}, 15), draw({2, 3}, 16)});
}

TEST(AdvancedIndexTest, LastWriteWinsWithoutAccumulate) {
  Tensor t = zeros({4}, kFloat64);
  Tensor v = tensor({1.0, 2.0, 3.0}).set_requires_grad();
  Tensor out = index_put(t, {tensor<int64_t>({1, 1, -1})}, v);
  expect_values(out, {0, 2, 0, 3});
  (out * tensor({10.0, 20.0, 30.0, 40.0})).sum().backward();
  expect_values(v.grad(), {0, 20, 40});  // the overwritten first value gets nothing
  expect_values(index_put(t, {tensor<int64_t>({1, 1})}, tensor({1.0, 2.0}), true), {0, 3, 0, 0});
}

TEST(AdvancedIndexTest, MasksAndPlacementFollowPyTorch) {
  Tensor t = arange(24, kFloat64).reshape({2, 3, 4});
  Tensor mask = tensor(std::vector<bool>{true, false, true}, {3}, TensorOptions(kBool));
  Tensor picked = index(t, {Tensor(), mask});  // t[:, mask]: [2, 2, 4]
  EXPECT_EQ(picked.sizes(), IntArrayRef({2, 2, 4}));
  expect_values(picked.select(0, 1).select(0, 1), {20, 21, 22, 23});
  Tensor apart = index(t, {tensor<int64_t>({0, 1}), Tensor(), tensor<int64_t>({3, 0})});  // not adjacent
  EXPECT_EQ(apart.sizes(), IntArrayRef({2, 3}));
  expect_values(apart, {3, 7, 11, 12, 16, 20});
  expect_error([&] { index(t, {tensor<int64_t>({2})}); }, {"index 2 is out of bounds for dimension 0 with size 2"});
  expect_error([&] { index_put(t, {tensor<int64_t>({0, 1})}, ones({3}, kFloat64)); },
               {"shape mismatch", "[3]", "[2, 3, 4]"});
  // as PyTorch's, index_put takes values of the tensor's dtype (setitem converts them first)
  expect_error<TypeError>([&] { index_put(t, {tensor<int64_t>({0})}, ones({4})); },
                          {"index_put", "float64 for the destination and float32 for the source"});
}

TEST(AdvancedIndexTest, IndexPutInPlaceOnAPlainTensorRecordsTheValues) {
  Tensor y = zeros({3, 2}, kFloat64);
  Tensor v = draw({2}, 17);
  y.index_put_({tensor<int64_t>({2})}, v);  // y[[2]] = v
  EXPECT_TRUE(y.requires_grad());
  (y * weights({3, 2})).sum().backward();
  expect_values(v.grad(), {5, 6});
}

TEST(AdvancedIndexTest, NonzeroListsCoordinatesInRowMajorOrder) {
  Tensor m = tensor({0.0, 1.0, 0.0, 2.0, 3.0, 0.0}).reshape({2, 3});
  Tensor nz = nonzero(m);
  EXPECT_EQ(nz.sizes(), IntArrayRef({3, 2}));
  expect_values(nz, {0, 1, 1, 0, 1, 1});
  EXPECT_EQ(nonzero(zeros({0, 4})).sizes(), IntArrayRef({0, 2}));
}
