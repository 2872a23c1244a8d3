#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;
using autograd::gradcheck;

TEST(EngineTest, GradcheckPassesForMulAddBroadcast) {
  Tensor a = randn({2, 3}, kFloat64).set_requires_grad();
  Tensor b = randn({3}, kFloat64).set_requires_grad();
  gradcheck([](const autograd::TensorList& x) { return x[0] * x[1] + x[1] / (x[0] * x[0] + 1.0); },
            {a, b});
}

TEST(EngineTest, LongChainBackpropagatesWithoutRecursion) {
  Tensor x = ones({1}).set_requires_grad();
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y * 1.0;
  y.sum().backward();
  EXPECT_EQ(x.grad().item<float>(), 1.0f);
}

TEST(EngineTest, BackwardTwiceWithoutRetainGraphIsAnError) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor y = (x * x).sum();
  y.backward();
  try {
    y.backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("second time"), std::string::npos) << e.what();
  }
}

TEST(EngineTest, InPlaceChangeOfSavedTensorIsAnError) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor y = x * 2.0;
  Tensor z = y * y;
  y.add_(1.0);
  try {
    z.sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an in-place operation"), std::string::npos)
        << e.what();
  }
}
