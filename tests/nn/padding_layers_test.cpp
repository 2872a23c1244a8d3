// The padding layers: each pads its trailing dims as pad() does, from one amount or one per side,
// prints as PyTorch's, and refuses a padding of the wrong length by name.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::expect_error;

TEST(PaddingLayersTest, EachLayerPadsItsTrailingDimsInItsMode) {
  manual_seed(1);
  Tensor x = randn({2, 3, 4, 5, 6});
  expect_close(nn::ZeroPad1d(2).forward(x), pad(x, {2, 2}), 0, 0);
  expect_close(nn::ZeroPad2d({1, 0, 2, 1}).forward(x), pad(x, {1, 0, 2, 1}), 0, 0);
  expect_close(nn::ZeroPad3d(1).forward(x), pad(x, {1, 1, 1, 1, 1, 1}), 0, 0);
  expect_close(nn::ConstantPad1d({3, 1}, 2.5).forward(x), pad(x, {3, 1}, "constant", Scalar(2.5)), 0, 0);
  expect_close(nn::ConstantPad2d(1, -1.0).forward(x), pad(x, {1, 1, 1, 1}, "constant", Scalar(-1.0)), 0, 0);
  expect_close(nn::ConstantPad3d({1, 0, 0, 1, 1, 0}, 4.0).forward(x),
               pad(x, {1, 0, 0, 1, 1, 0}, "constant", Scalar(4.0)), 0, 0);
  Tensor y = randn({2, 3, 5, 6}), z = randn({2, 3, 6});
  expect_close(nn::ReflectionPad1d({2, 1}).forward(z), pad(z, {2, 1}, "reflect"), 0, 0);
  expect_close(nn::ReflectionPad2d(2).forward(y), pad(y, {2, 2, 2, 2}, "reflect"), 0, 0);
  expect_close(nn::ReflectionPad3d(1).forward(x), pad(x, {1, 1, 1, 1, 1, 1}, "reflect"), 0, 0);
  expect_close(nn::ReplicationPad1d(3).forward(z), pad(z, {3, 3}, "replicate"), 0, 0);
  expect_close(nn::ReplicationPad2d({0, 1, 2, 3}).forward(y), pad(y, {0, 1, 2, 3}, "replicate"), 0, 0);
  expect_close(nn::ReplicationPad3d(2).forward(x), pad(x, {2, 2, 2, 2, 2, 2}, "replicate"), 0, 0);
  expect_close(nn::CircularPad1d(2).forward(z), pad(z, {2, 2}, "circular"), 0, 0);
  expect_close(nn::CircularPad2d({1, 2, 0, 1}).forward(y), pad(y, {1, 2, 0, 1}, "circular"), 0, 0);
  expect_close(nn::CircularPad3d(1).forward(x), pad(x, {1, 1, 1, 1, 1, 1}, "circular"), 0, 0);
}

TEST(PaddingLayersTest, GradientsReachTheInput) {
  Tensor x = randn({1, 2, 4, 4}, kFloat64).set_requires_grad();
  nn::ReflectionPad2d layer({1, 2, 2, 1});
  EXPECT_NO_THROW(autograd::gradcheck([&](const autograd::TensorList& t) { return layer.forward(t[0]); }, {x}));
}

TEST(PaddingLayersTest, PrintAndRefuseAsPyTorch) {
  EXPECT_EQ(nn::ZeroPad2d(1).extra_repr(), "padding=(1, 1, 1, 1), value=0.0");
  EXPECT_EQ(nn::ConstantPad1d({2, 3}, 0.5).extra_repr(), "padding=(2, 3), value=0.5");
  EXPECT_EQ(nn::ReflectionPad1d(2).extra_repr(), "(2, 2)");
  expect_error<ValueError>([] { nn::ReplicationPad2d({1, 2, 3}); }, {"ReplicationPad2d", "4 ints", "[1, 2, 3]"});
}
