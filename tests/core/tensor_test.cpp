#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(TensorTest, ZerosHasShapeDtypeAndContiguousStrides) {
  Tensor t = zeros({2, 3});
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(t.strides(), IntArrayRef({3, 1}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_TRUE(t.is_contiguous());
}

TEST(TensorTest, AddBroadcastsAndBackpropagates) {
  Tensor a = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}).set_requires_grad();
  Tensor b = tensor<float>({10, 20, 30}).set_requires_grad();
  Tensor c = (a + b) * a;
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{11, 44, 99, 56, 125, 216}));
  c.sum().backward();
  // dc/da = 2a + b ; dc/db = sum over rows of a
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{12, 24, 36, 18, 30, 42}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{5, 7, 9}));
}
