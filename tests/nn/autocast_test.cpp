// Autocast from C++ (core/autocast.h, ops/autocast.h): AutocastGuard's regions and their nesting,
// the three policies on a float32 model's ops, float32 gradients through the recorded casts,
// backward with autocast off, the weight-cast cache and its version check, and the CUDA lists.
// tests/python/test_autocast.py checks every op's dtype against PyTorch's.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::expect_error;
namespace F = ember::nn::functional;

namespace {
Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat32, &gen);
}
}  // namespace

TEST(AutocastTest, GuardEntersNestsAndRestores) {
  Tensor a = draw({3, 3}, 1);
  EXPECT_FALSE(autocast::is_enabled(DeviceType::CPU));
  EXPECT_EQ(autocast::dtype(DeviceType::CPU), kBFloat16);
  EXPECT_EQ(autocast::dtype(DeviceType::CUDA), kFloat16);
  {
    AutocastGuard amp(DeviceType::CPU);
    EXPECT_EQ(matmul(a, a).dtype(), kBFloat16);
    {
      AutocastGuard off(DeviceType::CPU, std::nullopt, false);
      EXPECT_EQ(matmul(a, a).dtype(), kFloat32);
      AutocastGuard half(DeviceType::CPU, kFloat16);
      EXPECT_EQ(matmul(a, a).dtype(), kFloat16);
    }
    EXPECT_EQ(matmul(a, a).dtype(), kBFloat16);
    EXPECT_FALSE(autocast::is_enabled(DeviceType::CUDA));  // per device type
  }
  EXPECT_FALSE(autocast::is_enabled(DeviceType::CPU));
  EXPECT_EQ(matmul(a, a).dtype(), kFloat32);
  expect_error<TypeError>([] { AutocastGuard g(DeviceType::CPU, kFloat32); }, {"AutocastGuard", "float32"});
  EXPECT_FALSE(autocast::is_enabled(DeviceType::CPU));
}

TEST(AutocastTest, PoliciesOnAFloat32Model) {
  nn::Linear lin(4, 3);
  Tensor x = draw({5, 4}, 2), target = tensor(std::vector<int64_t>{0, 1, 2, 0, 1}, {5});
  AutocastGuard amp(DeviceType::CPU);
  Tensor logits = lin.forward(x);
  EXPECT_EQ(logits.dtype(), kBFloat16);                                  // lower precision
  EXPECT_EQ(F::cross_entropy(logits, target).dtype(), kFloat32);       // float32 list
  EXPECT_EQ(softmax(logits, 1).dtype(), kBFloat16);                     // off the CPU lists
  EXPECT_EQ(cat({logits, draw({1, 3}, 3)}, 0).dtype(), kFloat32);        // promote
  EXPECT_EQ(exp(logits).dtype(), kBFloat16);                            // float32 on CUDA only
  EXPECT_EQ(conv2d(draw({1, 2, 5, 5}, 4), draw({3, 2, 3, 3}, 5)).dtype(), kBFloat16);
  EXPECT_EQ(matmul(x.to(kFloat64), x.to(kFloat64).t()).dtype(), kFloat64);  // float64 is not cast
}

TEST(AutocastTest, GradientsComeBackInTheParametersDtype) {
  nn::Linear lin(4, 3);
  Tensor x = draw({5, 4}, 6), target = tensor(std::vector<int64_t>{0, 1, 2, 0, 1}, {5});
  Tensor loss;
  {
    AutocastGuard amp(DeviceType::CPU);
    loss = F::cross_entropy(lin.forward(x), target);
    loss.backward();  // inside the region: the engine turns autocast off for backward
    EXPECT_TRUE(autocast::is_enabled(DeviceType::CPU));
  }
  Tensor inside = lin.weight().grad().clone();
  lin.weight().mutable_grad() = Tensor();
  lin.bias().mutable_grad() = Tensor();
  {
    AutocastGuard amp(DeviceType::CPU);
    loss = F::cross_entropy(lin.forward(x), target);
  }
  loss.backward();
  EXPECT_EQ(lin.weight().grad().dtype(), kFloat32);
  EXPECT_EQ(lin.bias().grad().dtype(), kFloat32);
  expect_close(inside, lin.weight().grad(), 0, 0, "backward inside and outside the region");
}

TEST(AutocastTest, AWeightIsCastOncePerRegionAndAgainAfterAWrite) {
  Tensor w = draw({3, 3}, 7).set_requires_grad();
  Tensor x = draw({2, 3}, 8);
  AutocastGuard amp(DeviceType::CPU);
  Tensor y1 = matmul(x, w), y2 = matmul(x, w);
  // the one cast of w is the input of both products' backward
  EXPECT_EQ(y1.grad_fn()->next_edges()[1].fn, y2.grad_fn()->next_edges()[1].fn);
  {
    NoGradGuard no_grad;
    w.mul_(2);
  }
  Tensor y3 = matmul(x, w);
  EXPECT_NE(y3.grad_fn()->next_edges()[1].fn, y1.grad_fn()->next_edges()[1].fn);
  expect_close(y3.to(kFloat32), y1.to(kFloat32) * 2, 1e-2, 1e-2, "the cast after the write");
}

TEST(AutocastTest, TheListsPerDeviceType) {
  using autocast::Policy;
  EXPECT_EQ(autocast::policy("linear", DeviceType::CPU), Policy::lower);
  EXPECT_EQ(autocast::policy("linear", DeviceType::CUDA), Policy::lower);
  EXPECT_EQ(autocast::policy("softmax", DeviceType::CPU), Policy::none);
  EXPECT_EQ(autocast::policy("softmax", DeviceType::CUDA), Policy::fp32);
  EXPECT_EQ(autocast::policy("mse_loss", DeviceType::CPU), Policy::fp32);
  EXPECT_EQ(autocast::policy("cat", DeviceType::CPU), Policy::promote);
  EXPECT_EQ(autocast::policy("cat", DeviceType::CUDA), Policy::none);
  EXPECT_EQ(autocast::policy("addcmul", DeviceType::CUDA), Policy::promote);
  EXPECT_EQ(autocast::policy("gru_cell", DeviceType::CPU), Policy::state);
  EXPECT_EQ(autocast::policy("gru_cell", DeviceType::CUDA), Policy::lower);
  EXPECT_EQ(autocast::policy("gru", DeviceType::CPU), Policy::state);
  EXPECT_EQ(autocast::policy("gru", DeviceType::CUDA), Policy::lower);
  EXPECT_EQ(autocast::policy("no_such_op", DeviceType::CPU), Policy::none);
  EXPECT_GT(autocast::policy_names().size(), 150u);
}
