// t_, transpose_, unsqueeze_, squeeze_, detach_ and resize_: the handle keeps its identity and storage
// while its layout or history changes; recorded view ops backpropagate as their out-of-place forms;
// PyTorch's refusals (a leaf requiring grad, detaching a view, resizing a tensor requiring grad).
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;
using ember::testing::expect_values;

TEST(InplaceViewTest, LayoutChangesOverTheSameStorage) {
  const Tensor x = arange(0, 6, 1, kFloat32).reshape({2, 3});
  const Tensor alias = x;  // another handle to the same tensor
  const void* data = x.data_ptr();
  x.t_();
  EXPECT_EQ(alias.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(alias.data_ptr(), data);
  expect_values(alias, {0, 3, 1, 4, 2, 5});
  x.unsqueeze_(0);
  EXPECT_EQ(x.sizes(), IntArrayRef({1, 3, 2}));
  x.transpose_(0, 2);
  EXPECT_EQ(x.sizes(), IntArrayRef({2, 3, 1}));
  x.squeeze_(1);  // not of size 1: unchanged, as PyTorch
  EXPECT_EQ(x.sizes(), IntArrayRef({2, 3, 1}));
  x.squeeze_();
  EXPECT_EQ(x.sizes(), IntArrayRef({2, 3}));
  expect_values(x, {0, 1, 2, 3, 4, 5});
}

TEST(InplaceViewTest, RecordedViewOpsBackpropagateAsTheirOutOfPlaceForms) {
  const Tensor a = (arange(0, 6, 1, kFloat64).reshape({2, 3}) + 1).set_requires_grad();
  const Tensor y = a * a;
  y.t_();
  EXPECT_EQ(y.sizes(), IntArrayRef({3, 2}));
  (y * tensor({1.0, 10.0})).sum().backward();  // weights along the new last dim
  // d/da of sum_j w_j * a[j, i]^2 = 2 a w_row
  expect_values(a.grad(), {2, 4, 6, 80, 100, 120});
  // A view of a non-leaf: its history goes through the base's.
  const Tensor b = (arange(0, 4, 1, kFloat64) + 1).set_requires_grad();
  const Tensor v = (b * 2).slice(0, 1, 3);
  v.unsqueeze_(0);
  EXPECT_EQ(v.sizes(), IntArrayRef({1, 2}));
  (v * tensor({3.0, 5.0})).sum().backward();
  expect_values(b.grad(), {0, 6, 10, 0});
}

TEST(InplaceViewTest, ALeafThatRequiresGradIsRefusedOutsideNoGrad) {
  const Tensor w = ones({2, 3}).set_requires_grad();
  expect_error([&] { w.t_(); }, {"t_", "leaf tensor that requires grad"});
  expect_error([&] { w.unsqueeze_(0); }, {"unsqueeze_", "leaf"});
  {
    autograd::NoGradGuard no_grad;
    w.t_();
  }
  EXPECT_EQ(w.sizes(), IntArrayRef({3, 2}));
  EXPECT_TRUE(w.requires_grad() && w.is_leaf());
}

TEST(InplaceViewTest, DetachInPlaceMakesALeafAndRefusesAViewOfAGraph) {
  const Tensor a = ones({3}).set_requires_grad();
  const Tensor y = a * 2;
  y.detach_();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  expect_values(y, {2, 2, 2});
  expect_error([&] { (a * 3).slice(0, 0, 2).detach_(); }, {"detach_", "view", "detach()"});
  const Tensor plain = ones({2});
  plain.detach_();  // nothing to cut
  EXPECT_FALSE(plain.requires_grad());
}

TEST(InplaceViewTest, ResizeKeepsElementsInOrderAndGrowsTheStorage) {
  const Tensor r = arange(0, 6, 1, kFloat32);
  r.resize_({2, 2});
  expect_values(r, {0, 1, 2, 3});
  EXPECT_TRUE(r.is_contiguous());
  r.resize_({3, 3});  // 9 > 6: a larger storage, the 6 elements first
  EXPECT_EQ(r.sizes(), IntArrayRef({3, 3}));
  std::vector<double> first = r.flatten().slice(0, 0, 6).to_vector<double>();
  EXPECT_EQ(first, (std::vector<double>{0, 1, 2, 3, 4, 5}));
  const Tensor view = arange(0, 10, 1, kInt64).slice(0, 4, 10);  // offset 4
  view.resize_({2, 3});
  expect_values(view, {4, 5, 6, 7, 8, 9});
  r.resize_({0});
  EXPECT_EQ(r.numel(), 0);
  expect_error([] { ones({2}).set_requires_grad().resize_({4}); }, {"resize_", "requires grad"});
  expect_error<ValueError>([&] { r.resize_({-1}); }, {"negative"});
}
