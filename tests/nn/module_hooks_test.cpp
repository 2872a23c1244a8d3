#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/nn.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;
using ember::testing::expect_values;
using nn::Module;

namespace {

// y = k * x: a child whose output shows which input it saw.
struct Scale : Module {
  double k;
  explicit Scale(double k) : Module("Scale"), k(k) {}
  Tensor forward(const Tensor& x) override { return x * k; }
};

struct Throwing : Module {
  Throwing() : Module("Throwing") {}
  Tensor forward(const Tensor&) override { throw std::runtime_error("forward failed"); }
};

}  // namespace

TEST(ModuleHooksTest, PreAndForwardHooksReplaceInputAndOutputInOrder) {
  Scale m(2.0);
  std::vector<std::string> order;
  m.register_forward_pre_hook([&](Module&, const Tensor& x) -> std::optional<Tensor> {
    order.push_back("pre");
    return x + 1.0;
  });
  m.register_forward_hook([&](Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    order.push_back("second");
    return std::nullopt;
  });
  m.register_forward_hook([&](Module& mod, const Tensor& in, const Tensor& out) -> std::optional<Tensor> {
    order.push_back("first");
    EXPECT_EQ(&mod, &m);
    expect_values(in, {2.0, 3.0});
    return out * 10.0;
  }, /*prepend=*/true);
  expect_values(m(arange(1, 3).to(kFloat32)), {40.0, 60.0});
  EXPECT_EQ(order, (std::vector<std::string>{"pre", "first", "second"}));
  expect_values(m.forward(arange(1, 3).to(kFloat32)), {2.0, 4.0});  // forward itself runs no hooks
}

TEST(ModuleHooksTest, SequentialRunsEachChildsHooks) {
  auto first = std::make_shared<Scale>(2.0);
  auto second = std::make_shared<Scale>(3.0);
  nn::Sequential seq({first, second});
  second->register_forward_pre_hook([](Module&, const Tensor& x) -> std::optional<Tensor> { return -x; });
  expect_values(seq(ones({2})), {-6.0, -6.0});
}

TEST(ModuleHooksTest, RemoveHookTakesAnyKindOnceAndAHookMayRemoveItself) {
  Scale m(1.0);
  int calls = 0;
  int id = -1;
  id = m.register_forward_hook([&](Module& mod, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    ++calls;
    EXPECT_TRUE(mod.remove_hook(id));
    return std::nullopt;
  });
  m(ones({1}));
  m(ones({1}));
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(m.remove_hook(id));
  EXPECT_EQ(m.hooks(), nullptr);
  int pre = m.register_forward_pre_hook([](Module&, const Tensor&) { return std::optional<Tensor>(); });
  EXPECT_TRUE(m.remove_hook(pre));
  EXPECT_FALSE(m.remove_hook(12345));
}

TEST(ModuleHooksTest, AlwaysCallHooksRunWhenForwardThrows) {
  Throwing m;
  std::vector<std::string> ran;
  m.register_forward_hook([&](Module&, const Tensor&, const Tensor& out) -> std::optional<Tensor> {
    ran.push_back(out.defined() ? "always, with output" : "always, no output");
    throw std::runtime_error("ignored: forward's error goes on");
  }, false, /*always_call=*/true);
  m.register_forward_hook([&](Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    ran.push_back("normal");
    return std::nullopt;
  });
  EXPECT_THROW(
      {
        try {
          m(ones({1}));
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "forward failed");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_EQ(ran, (std::vector<std::string>{"always, no output"}));
}

TEST(ModuleHooksTest, BackwardHookSeesGradientsAndMayReplaceGradInput) {
  Scale m(3.0);
  Tensor seen_in, seen_out;
  m.register_full_backward_hook([&](const Tensor& gi, const Tensor& go) -> std::optional<Tensor> {
    seen_in = gi.clone();
    seen_out = go.clone();
    return gi * 2.0;
  });
  Tensor x = ones({2}).set_requires_grad();
  (m(x) * arange(1, 3).to(kFloat32)).sum().backward();
  expect_values(seen_out, {1.0, 2.0});  // d sum(y * [1, 2]) / dy
  expect_values(seen_in, {3.0, 6.0});   // dy/dx = 3
  expect_values(x.grad(), {6.0, 12.0});
}

TEST(ModuleHooksTest, BackwardHookOfAModuleWhoseInputNeedsNoGradGetsAnUndefinedGradInput) {
  nn::Linear lin(2, 1);
  int calls = 0;
  lin.register_full_backward_hook([&](const Tensor& gi, const Tensor& go) -> std::optional<Tensor> {
    ++calls;
    EXPECT_FALSE(gi.defined());
    expect_values(go, {1.0});
    return std::nullopt;
  });
  lin(ones({1, 2})).sum().backward();
  EXPECT_EQ(calls, 1);
  lin.register_full_backward_hook([](const Tensor&, const Tensor& go) -> std::optional<Tensor> { return go; });
  expect_error<ValueError>([&] { lin(ones({1, 2})).sum().backward(); },
                           {"backward hook", "requires no gradient", "must return None"});
}

TEST(ModuleHooksTest, BackwardHooksAreNotWiredWithoutGradMode) {
  Scale m(2.0);
  m.register_full_backward_hook([](const Tensor&, const Tensor&) { return std::optional<Tensor>(); });
  Tensor x = ones({1}).set_requires_grad();
  autograd::NoGradGuard no_grad;
  EXPECT_FALSE(m(x).requires_grad());
}
