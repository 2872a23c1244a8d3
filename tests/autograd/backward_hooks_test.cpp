// Post-accumulate-grad hooks and end-of-backward callbacks (autograd/backward_hooks.h).
#include <gtest/gtest.h>

#include "ember/autograd/backward_hooks.h"
#include "ember/autograd/engine.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"
#include "support/expect.h"

namespace ember {
namespace {

TEST(BackwardHooksTest, PostAccumulateHookSeesTheAccumulatedGrad) {
  Tensor w = ones({2}).set_requires_grad();
  std::vector<std::vector<float>> seen;
  int id = autograd::register_post_accumulate_grad_hook(w, [&](const Tensor& leaf) {
    EXPECT_TRUE(leaf.is_same(w));
    seen.push_back(leaf.grad().to_vector<float>());
  });
  (w * 3.0).sum().backward();
  (w * w).sum().backward();  // w used twice in the graph: one accumulation, one call
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::vector<float>{3, 3}));
  EXPECT_EQ(seen[1], (std::vector<float>{5, 5}));
  EXPECT_TRUE(autograd::remove_post_accumulate_grad_hook(w, id));
  EXPECT_FALSE(autograd::remove_post_accumulate_grad_hook(w, id));
  w.sum().backward();
  EXPECT_EQ(seen.size(), 2u);
}

TEST(BackwardHooksTest, PostAccumulateHookDoesNotRunInGrad) {
  Tensor w = ones({2}).set_requires_grad();
  int calls = 0;
  autograd::register_post_accumulate_grad_hook(w, [&](const Tensor&) { ++calls; });
  autograd::grad({(w * 2.0).sum()}, {w});
  EXPECT_EQ(calls, 0);
}

TEST(BackwardHooksTest, PostAccumulateHookNeedsALeafThatRequiresGrad) {
  testing::expect_error([&] { autograd::register_post_accumulate_grad_hook(ones({1}), [](const Tensor&) {}); },
                        {"register_post_accumulate_grad_hook", "does not require grad"});
  Tensor w = ones({1}).set_requires_grad();
  testing::expect_error([&] { autograd::register_post_accumulate_grad_hook(w * 2.0, [](const Tensor&) {}); },
                        {"register_post_accumulate_grad_hook", "grad_fn"});
}

TEST(BackwardHooksTest, QueuedCallbacksRunOnceAfterEveryNodeInOrder) {
  Tensor a = ones({1}).set_requires_grad(), b = ones({1}).set_requires_grad();
  std::vector<std::string> log;
  autograd::register_post_accumulate_grad_hook(a, [&](const Tensor&) {
    log.push_back("a");
    autograd::queue_callback([&] {
      log.push_back("first");
      autograd::queue_callback([&] { log.push_back("queued by a callback"); });
    });
    autograd::queue_callback([&] { log.push_back("second"); });
  });
  autograd::register_post_accumulate_grad_hook(b, [&](const Tensor&) { log.push_back("b"); });
  (a * b).sum().backward();
  ASSERT_EQ(log.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(log.begin() + 2, log.end()),
            (std::vector<std::string>{"first", "second", "queued by a callback"}));
  (a * b).sum().backward();  // callbacks do not carry over to the next pass
  EXPECT_EQ(log.size(), 10u);
}

TEST(BackwardHooksTest, QueueCallbackOutsideBackwardIsAnError) {
  testing::expect_error([&] { autograd::queue_callback([] {}); }, {"queue_callback", "no backward pass"});
}

TEST(BackwardHooksTest, AnErrorInACallbackReachesTheCaller) {
  Tensor a = ones({1}).set_requires_grad();
  autograd::register_post_accumulate_grad_hook(a, [&](const Tensor&) {
    autograd::queue_callback([] { throw ValueError("callback failed"); });
  });
  testing::expect_error<ValueError>([&] { a.sum().backward(); }, {"callback failed"});
  testing::expect_error([&] { autograd::queue_callback([] {}); }, {"no backward pass"});  // frame closed
}

}  // namespace
}  // namespace ember
