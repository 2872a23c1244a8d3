#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;

TEST(FactoryTest, FullOnesZerosFillEveryElement) {
  EXPECT_EQ(full({2, 2}, 3.5).to_vector<float>(), (std::vector<float>{3.5, 3.5, 3.5, 3.5}));
  EXPECT_EQ(ones({3}, kInt64).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(zeros({2}, kFloat64).to_vector<double>(), (std::vector<double>{0, 0}));
}

TEST(FactoryTest, EmptyShapesAndZeroDim) {
  Tensor scalar = scalar_tensor(2.5);
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.item<float>(), 2.5f);
  Tensor none = zeros({0, 3});
  EXPECT_EQ(none.numel(), 0);
  EXPECT_EQ(none.to_vector<float>().size(), 0u);
}

TEST(FactoryTest, ArangeMatchesPyTorch) {
  EXPECT_EQ(arange(5).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(1, 10, 3).to_vector<int64_t>(), (std::vector<int64_t>{1, 4, 7}));
  Tensor f = arange(0.0, 1.0, 0.25, kFloat32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{0, 0.25, 0.5, 0.75}));
  expect_error<ValueError>([] { arange(0, 5, 0); }, {"arange: step must be nonzero"});
}

TEST(FactoryTest, LinspaceEndsExactly) {
  std::vector<double> v = linspace(-1, 1, 5, kFloat64).to_vector<double>();
  EXPECT_EQ(v, (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(linspace(0, 1, 1).numel(), 1);
  EXPECT_EQ(linspace(-1, 5, 1, kFloat64).item(), -1.0);  // one step is the start (was the end)
}

TEST(FactoryTest, EyeIsIdentity) {
  EXPECT_EQ(eye(2).to_vector<float>(), (std::vector<float>{1, 0, 0, 1}));
  EXPECT_EQ(eye(2, 3).to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 1, 0}));
}

TEST(FactoryTest, RandomDrawsFollowTheGeneratorAndRanges) {
  Generator g1(42), g2(42);
  Tensor a = rand({1000}, kFloat32, &g1), b = rand({1000}, kFloat32, &g2);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  for (float v : a.to_vector<float>()) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  Tensor n = randn({20000}, kFloat64, &g1);
  std::vector<double> nv = n.to_vector<double>();
  double mean = 0, sq = 0;
  for (double v : nv) mean += v;
  mean /= static_cast<double>(nv.size());
  for (double v : nv) sq += (v - mean) * (v - mean);
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(sq / static_cast<double>(nv.size()), 1.0, 0.05);
  for (int64_t v : randint(-3, 4, {500}, kInt64, &g1).to_vector<int64_t>()) {
    EXPECT_GE(v, -3);
    EXPECT_LT(v, 4);
  }
}

TEST(FactoryTest, RandpermIsAPermutation) {
  Generator g(7);
  std::vector<int64_t> p = randperm(100, &g).to_vector<int64_t>();
  std::sort(p.begin(), p.end());
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(p[static_cast<size_t>(i)], i);
}

TEST(FactoryTest, TensorFromDataChecksTheCount) {
  Tensor t = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(t.dtype(), kFloat32);
  try {
    tensor<float>({1, 2, 3}, {2, 2});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "tensor: 3 values do not fill shape [2, 2]");
  }
  Tensor b = tensor(std::vector<bool>{true, false});
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(FactoryTest, FromBlobSharesMemoryAndKeepsOwnerAlive) {
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  Tensor t = from_blob(owner->data(), {2, 2}, kFloat32, owner);
  std::weak_ptr<std::vector<float>> weak = owner;
  (*owner)[0] = 9;
  EXPECT_EQ(t.to_vector<float>()[0], 9.0f);
  owner.reset();
  EXPECT_FALSE(weak.expired());  // the tensor keeps it alive
  t = Tensor();
  EXPECT_TRUE(weak.expired());
}

TEST(FactoryTest, RequiresGradOption) {
  Tensor t = zeros({2}, TensorOptions(kFloat64).requires_grad(true));
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(t.is_leaf());
  expect_error<TypeError>([] { zeros({2}, TensorOptions(kInt64).requires_grad(true)); },
                          {"only floating point and complex tensors can require gradients, got int64"});
}

namespace ember {
namespace {
TEST(FactoryShapeTest, ShapesWhoseLayoutOverflowsAreRefusedEvenWhenEmpty) {
  int64_t big = int64_t{1} << 40;
  for (auto shape : {std::vector<int64_t>{big, big, 8}, std::vector<int64_t>{0, big, big}}) {
    try {
      ember::empty(shape);  // qualified: ADL would find std::empty(vector)
      FAIL() << "expected an error for " << shape_str(shape);
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("more elements than int64 can count"), std::string::npos);
    }
  }
  EXPECT_EQ(empty({0, 1 << 20, 1 << 20}).numel(), 0);
  // Elements that int64 counts but whose bytes it cannot.
  expect_error<ValueError>([] { ember::empty({int64_t{1} << 62}, kFloat64); },
                           {"empty: shape [4611686018427387904] of float64 needs more bytes"});
}
}  // namespace
}  // namespace ember
