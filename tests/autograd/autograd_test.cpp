#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::message_of;

TEST(AutogradTest, LeavesAndNonLeaves) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor y = x * 2.0;
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(y.requires_grad());
  EXPECT_STREQ(y.grad_fn()->name(), "MulBackward");
  EXPECT_EQ(x.grad_fn(), nullptr);
}

TEST(AutogradTest, GradientsAccumulateAcrossBackwardCalls) {
  Tensor x = tensor<float>({1, 2}).set_requires_grad();
  (x * x).sum().backward();
  (x * x).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{4, 8}));
}

TEST(AutogradTest, NoGradGuardRecordsNothing) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor y;
  {
    NoGradGuard guard;
    y = x * 3.0;
  }
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(autograd::GradMode::is_enabled());
}

TEST(AutogradTest, NonScalarBackwardNeedsAGradient) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor y = x * 2.0;
  EXPECT_EQ(message_of([&] { y.backward(); }),
            "backward: grad can be implicitly created only for outputs with one element; output 0 "
            "has shape [2]");
  y.backward(tensor<float>({1, 10}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{2, 20}));
}

TEST(AutogradTest, BackwardOnATensorWithoutGradIsAnError) {
  EXPECT_EQ(message_of([] { ones({1}).backward(); }),
            "backward: output 0 does not require grad and has no grad_fn");
}

TEST(AutogradTest, FunctionalGradLeavesDotGradAlone) {
  Tensor x = tensor<double>({1, 2, 3}).set_requires_grad();
  Tensor w = tensor<double>({4, 5, 6}).set_requires_grad();
  Tensor y = (x * w).sum();
  TensorList g = autograd::grad({y}, {x});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{4, 5, 6}));
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
}

TEST(AutogradTest, FunctionalGradOfAnIntermediate) {
  Tensor x = tensor<double>({1, 2}).set_requires_grad();
  Tensor h = x * 3.0;
  Tensor y = (h * h).sum();
  TensorList g = autograd::grad({y}, {h});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{6, 12}));
}

TEST(AutogradTest, UnusedInputNeedsAllowUnused) {
  Tensor x = ones({1}, kFloat64).set_requires_grad();
  Tensor z = ones({1}, kFloat64).set_requires_grad();
  Tensor y = (x * 2.0).sum();
  expect_error([&] { autograd::grad({y}, {z}, {}, true); },
               {"grad: input 0 is not used by the outputs", "allow_unused=true"});
  TensorList g = autograd::grad({y}, {z}, {}, true, false, /*allow_unused=*/true);
  EXPECT_FALSE(g[0].defined());
}

TEST(AutogradTest, CreateGraphGivesSecondDerivatives) {
  Tensor x = tensor<double>({3}).set_requires_grad();
  Tensor y = x * x * x;  // y' = 3x^2, y'' = 6x
  TensorList g = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_DOUBLE_EQ(g[0].item<double>(), 27.0);
  EXPECT_TRUE(g[0].requires_grad());
  TensorList gg = autograd::grad({g[0].sum()}, {x});
  EXPECT_DOUBLE_EQ(gg[0].item<double>(), 18.0);
}

TEST(AutogradTest, RetainGraphAllowsASecondBackward) {
  Tensor x = tensor<float>({2}).set_requires_grad();
  Tensor y = (x * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_EQ(x.grad().item<float>(), 8.0f);
}

TEST(AutogradTest, HooksSeeAndReplaceGradients) {
  Tensor x = tensor<float>({1, 2}).set_requires_grad();
  Tensor h = x * 2.0;
  std::vector<float> seen;
  h.register_hook([&](const Tensor& g) {
    seen = g.to_vector<float>();
    return g * 10.0;
  });
  int id = x.register_hook([](const Tensor& g) { return g + 1.0; });
  (h * 1.0).sum().backward();
  EXPECT_EQ(seen, (std::vector<float>{1, 1}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{21, 21}));
  x.remove_hook(id);
  x.set_grad(Tensor());
  (x * 1.0).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(AutogradTest, RetainGradKeepsNonLeafGradients) {
  Tensor x = tensor<float>({1, 2}).set_requires_grad();
  Tensor h = x * 3.0;
  h.retain_grad();
  (h * h).sum().backward();
  EXPECT_EQ(h.grad().to_vector<float>(), (std::vector<float>{6, 12}));
}

TEST(AutogradTest, DetachCutsTheGraphButSharesData) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor d = (x * 2.0).detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  Tensor e = x.detach();
  e.fill_(5.0);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{5, 5}));
}

TEST(AutogradTest, InPlaceOnLeafRequiringGradIsAnError) {
  Tensor x = ones({2}).set_requires_grad();
  expect_error([&] { x.add_(1.0); },
               {"add_: a leaf tensor that requires grad is being used in an in-place operation"});
  {
    NoGradGuard guard;
    x.add_(1.0);  // allowed: this is how optimizers update parameters
  }
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{2, 2}));
}

TEST(AutogradTest, InPlaceOnNonLeafIsRecorded) {
  Tensor x = tensor<double>({1, 2}).set_requires_grad();
  Tensor y = x * 2.0;
  Tensor z = x * 1.0;
  y.mul_(z);  // y = 2x * x, dy/dx = 4x
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{4, 8}));
  // As in PyTorch, y.mul_(y) would need the old y, which the write destroys: that is an error.
  Tensor w = x * 2.0;
  w.mul_(w);
  expect_error([&] { w.sum().backward(); },
               {"backward: a tensor needed for gradient computation was modified by an in-place "
                "operation: float64 [2] is at version 1; expected version 0 (saved by MulBackward)"});
}

TEST(AutogradTest, InPlaceOnASavedInputLeavesNoCycle) {
  // mul_ saves its input w, then w takes the new node as its grad_fn: the saved copy must not
  // hold w's history, or node -> w -> node is a cycle that is never freed.
  std::weak_ptr<autograd::Node> node;
  {
    Tensor x = tensor<double>({1, 2}).set_requires_grad();
    Tensor w = x * 2.0;
    w.mul_(w);
    node = w.grad_fn();
    ASSERT_FALSE(node.expired());
  }
  EXPECT_TRUE(node.expired());
}

TEST(AutogradTest, OnlyLeavesChangeRequiresGradAndOnlyFloats) {
  Tensor x = ones({1}).set_requires_grad();
  Tensor y = x * 2.0;
  expect_error([&] { y.set_requires_grad(false); },
               {"set_requires_grad: only leaf tensors can change requires_grad"});
  expect_error<TypeError>([] { ones({1}, kInt64).set_requires_grad(); },
                          {"set_requires_grad: only floating point and complex tensors can require "
                           "gradients, got int64"});
}

TEST(AutogradTest, MixedDtypesGetGradientsInTheirOwnDtype) {
  Tensor a = ones({2}, kFloat32).set_requires_grad();
  Tensor b = ones({2}, kFloat64).set_requires_grad();
  Tensor c = a * b;
  EXPECT_EQ(c.dtype(), kFloat64);
  c.sum().backward();
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  EXPECT_EQ(b.grad().dtype(), kFloat64);
}

TEST(AutogradTest, GraphIsFreedAfterBackward) {
  Tensor x = ones({4}).set_requires_grad();
  std::weak_ptr<autograd::Node> node;
  {
    Tensor y = (x * 2.0).sum();
    node = y.grad_fn();
    y.backward();
  }
  EXPECT_TRUE(node.expired());
}
