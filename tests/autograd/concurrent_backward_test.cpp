// Backward passes on several threads at once whose graphs share leaves (one model trained from
// many threads, DDP ranks run as threads): each pass keeps its own engine state for the shared
// accumulators and every gradient arrives exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_values;

TEST(ConcurrentBackwardTest, ThreadsSharingLeavesAccumulateEveryGradient) {
  constexpr int kThreads = 4, kPasses = 200;
  Tensor w = ones({8}, kFloat64).set_requires_grad();
  Tensor b = zeros({8}, kFloat64).set_requires_grad();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPasses; ++i) {
        // d/dw sum((x * w + b) * 2) = 2x with x = t + 1, d/db = 2
        Tensor x = full({8}, static_cast<double>(t + 1), kFloat64).set_requires_grad();
        ((x * w + b) * 2.0).sum().backward();
        ASSERT_EQ(x.grad().sum().item<double>(), 16.0);
      }
    });
  }
  for (auto& th : threads) th.join();
  // w: 2 * (1 + 2 + 3 + 4) per pass; b: 2 per pass and thread
  expect_values(w.grad(), std::vector<double>(8, 2.0 * 10 * kPasses));
  expect_values(b.grad(), std::vector<double>(8, 2.0 * kThreads * kPasses));
}

// The leaf's accumulator is made on first use: threads whose first forward passes race on fresh
// leaves must still share one accumulator, or one thread's gradient overwrites another's.
TEST(ConcurrentBackwardTest, ThreadsFirstUsingFreshLeavesShareOneAccumulator) {
  constexpr int kThreads = 4, kRounds = 100;
  for (int round = 0; round < kRounds; ++round) {
    Tensor w = ones({4}, kFloat64).set_requires_grad();
    std::atomic<int> waiting{kThreads};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        waiting.fetch_sub(1);
        while (waiting.load() > 0) std::this_thread::yield();  // start together
        (w * 3.0).sum().backward();
      });
    }
    for (auto& th : threads) th.join();
    expect_values(w.grad(), std::vector<double>(4, 3.0 * kThreads));
    if (::testing::Test::HasFailure()) break;
  }
}

TEST(ConcurrentBackwardTest, APassAfterConcurrentOnesStartsClean) {
  Tensor w = ones({3}).set_requires_grad();
  std::thread other([&] { (w * 3.0).sum().backward(); });
  (w * 5.0).sum().backward();
  other.join();
  w.mutable_grad() = Tensor();
  (w * 7.0).sum().backward();
  expect_values(w.grad(), {7.0, 7.0, 7.0});
}
