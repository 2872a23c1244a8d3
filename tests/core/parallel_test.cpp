// parallel_for and its pool (core/parallel.h): every index once for any range, grain and thread
// count; nested calls inline; exceptions reach the caller and leave the pool usable; several user
// threads at once; a forked child (which has none of the pool's threads) still finishes.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

namespace ember {
namespace {

// Restores the thread count a test changed.
class ThreadCount {
 public:
  explicit ThreadCount(int n) : saved_(get_num_threads()) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(saved_); }

 private:
  int saved_;
};

TEST(ParallelTest, EveryIndexRunsExactlyOnceForAnyRangeGrainAndThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadCount guard(threads);
    for (int64_t n : {0, 1, 2, 3, 7, 64, 1000, 100003}) {
      for (int64_t grain : {1, 2, 5, 1000, 1 << 20}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n + 10));
        std::atomic<int> calls{0};
        parallel_for(10, 10 + n, grain, [&](int64_t lo, int64_t hi) {
          ASSERT_LE(10, lo);
          ASSERT_LT(lo, hi);
          ASSERT_LE(hi, 10 + n);
          ++calls;
          for (int64_t i = lo; i < hi; ++i) ++hits[static_cast<size_t>(i)];
        });
        for (int64_t i = 0; i < n + 10; ++i)
          ASSERT_EQ(hits[static_cast<size_t>(i)].load(), i >= 10 ? 1 : 0)
              << "index " << i << ", n " << n << ", grain " << grain << ", threads " << threads;
        if (n > 0 && (n < grain || threads == 1)) EXPECT_EQ(calls.load(), 1) << "a small range runs inline";
        if (n > 0) EXPECT_LE(calls.load(), std::max(threads, 1));
      }
    }
  }
}

TEST(ParallelTest, NestedCallsRunInlineOnTheTaskThread) {
  ThreadCount guard(4);
  EXPECT_FALSE(in_parallel_region());
  std::atomic<int> nested_inline{0}, outer{0};
  parallel_for(0, 4, 1, [&](int64_t lo, int64_t hi) {
    EXPECT_TRUE(in_parallel_region());
    ++outer;
    const std::thread::id me = std::this_thread::get_id();
    parallel_for(0, 1000, 1, [&](int64_t a, int64_t b) {
      EXPECT_EQ(std::this_thread::get_id(), me);
      if (a == 0 && b == 1000) ++nested_inline;
    });
  });
  EXPECT_EQ(nested_inline.load(), outer.load());
  EXPECT_FALSE(in_parallel_region());
}

TEST(ParallelTest, AnExceptionReachesTheCallerAndThePoolStaysUsable) {
  ThreadCount guard(4);
  for (int round = 0; round < 20; ++round) {
    testing::expect_error<ValueError>(
        [&] {
          parallel_for(0, 400, 1, [&](int64_t lo, int64_t) {
            if (lo >= 200) throw ValueError("task failed at " + std::to_string(lo));
          });
        },
        {"task failed at"});
    std::atomic<int64_t> sum{0};
    parallel_for(0, 1000, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) sum += i;
    });
    ASSERT_EQ(sum.load(), 999 * 1000 / 2);
  }
  EXPECT_FALSE(in_parallel_region());
}

TEST(ParallelTest, SeveralUserThreadsAtOnceEachGetTheirResult) {
  ThreadCount guard(2);
  std::vector<std::thread> users;
  std::vector<int64_t> sums(6, 0);
  for (size_t u = 0; u < sums.size(); ++u)
    users.emplace_back([&, u] {
      for (int round = 0; round < 200; ++round) {
        std::atomic<int64_t> sum{0};
        parallel_for(0, 5000, 100, [&](int64_t lo, int64_t hi) {
          int64_t s = 0;
          for (int64_t i = lo; i < hi; ++i) s += i;
          sum += s;
        });
        sums[u] += sum.load();
      }
    });
  for (std::thread& t : users) t.join();
  for (int64_t s : sums) EXPECT_EQ(s, int64_t{200} * 4999 * 5000 / 2);
}

// Sums run in an order fixed by their length, so they give the same bits on any number of threads;
// a matmul split over threads may block its K loop differently, so it agrees to rounding.
TEST(ParallelTest, TensorOpsAgreeAtEveryThreadCount) {
  Tensor x = randn({300, 400}), w = randn({400, 200});
  Tensor expected_mm, expected_sum;
  for (int threads : {1, 2, 3}) {
    ThreadCount guard(threads);
    Tensor mm = matmul(x, w), s = sum(x * x, {1});
    if (threads == 1) {
      expected_mm = mm;
      expected_sum = s;
      continue;
    }
    testing::expect_close(mm, expected_mm, 1e-5, 1e-5);
    testing::expect_close(s, expected_sum, 0, 0);
  }
}

TEST(ParallelTest, AForkedChildFinishesWithoutThePoolsThreads) {
  ThreadCount guard(2);
  std::atomic<int64_t> warm{0};
  parallel_for(0, 1000, 1, [&](int64_t lo, int64_t hi) { warm += hi - lo; });  // workers exist now
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a hang fails the test instead of stalling it
    std::atomic<int64_t> n{0};
    parallel_for(0, 100000, 1, [&](int64_t lo, int64_t hi) { n += hi - lo; });
    _exit(n.load() == 100000 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(ParallelTest, ThreadCountIsAtLeastOne) {
  EXPECT_GE(get_num_threads(), 1);
  testing::expect_error<ValueError>([] { set_num_threads(0); }, {"set_num_threads: expected at least 1 thread, got 0"});
}

}  // namespace
}  // namespace ember
