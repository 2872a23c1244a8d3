// The rendezvous, its ranks as threads over one TCP store: a full world meets, a world that never
// fills times out naming the missing ranks, and a WORLD_SIZE that differs or a RANK claimed twice
// fails every rank at once, in words.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "ember/distributed/error.h"
#include "ember/distributed/rendezvous.h"
#include "ember/distributed/tcp_store.h"

namespace ember {
namespace {

using namespace distributed;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Outcome {
  std::string error;  // "" when it returned
  bool value_error = false, store_error = false;
  double seconds = 0;
};

// rendezvous(rank, world_sizes[i]) for each (rank, world size) on a thread of its own.
std::vector<Outcome> meet(const std::vector<std::pair<int, int>>& ranks, Milliseconds timeout) {
  auto server = std::make_shared<TCPStore>("127.0.0.1", 0, true, Milliseconds(10000));
  std::vector<Outcome> out(ranks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ranks.size(); ++i) {
    threads.emplace_back([&, i] {
      TCPStore store("127.0.0.1", server->port(), false, Milliseconds(10000));
      auto t0 = std::chrono::steady_clock::now();
      try {
        rendezvous(store, ranks[i].first, ranks[i].second, timeout);
      } catch (const ValueError& e) {
        out[i].error = e.what();
        out[i].value_error = true;
      } catch (const StoreError& e) {
        out[i].error = e.what();
        out[i].store_error = true;
      }
      out[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

TEST(RendezvousTest, FullWorldMeets) {
  for (const Outcome& o : meet({{3, 4}, {1, 4}, {0, 4}, {2, 4}}, Milliseconds(10000))) EXPECT_EQ(o.error, "");
}

TEST(RendezvousTest, WorldThatNeverFillsNamesTheMissingRanksAfterTheTimeout) {
  for (const Outcome& o : meet({{0, 4}, {2, 4}}, Milliseconds(1000))) {
    EXPECT_TRUE(o.store_error) << o.error;
    EXPECT_TRUE(has(o.error, "init_process_group: timed out after 1000 ms waiting for the ranks to join: 2 of 4 joined; "
                                     "missing: ranks 1, 3."))
        << o.error;
    EXPECT_GE(o.seconds, 0.95);
    EXPECT_LT(o.seconds, 4);
  }
}

TEST(RendezvousTest, WorldSizeThatDiffersFailsEveryRankAtOnce) {
  // Rank 1 says 4, rank 0 says 2: rank 1 sees it at once and tells rank 0.
  for (const Outcome& o : meet({{0, 2}, {1, 4}}, Milliseconds(10000))) {
    EXPECT_TRUE(o.value_error) << o.error;
    EXPECT_EQ(o.error, "init_process_group: the ranks disagree on WORLD_SIZE: rank 1 says WORLD_SIZE=4, rank 0 says 2");
    EXPECT_LT(o.seconds, 5);
  }
  // Rank 0 says 4 and rank 1 says 2: the same from the other side; rank 0 hears it from rank 1.
  for (const Outcome& o : meet({{0, 4}, {1, 2}}, Milliseconds(10000))) {
    EXPECT_TRUE(o.value_error) << o.error;
    EXPECT_EQ(o.error, "init_process_group: the ranks disagree on WORLD_SIZE: rank 1 says WORLD_SIZE=2, rank 0 says 4");
    EXPECT_LT(o.seconds, 5);
  }
}

TEST(RendezvousTest, RankClaimedTwiceFailsEveryRankAtOnce) {
  std::vector<Outcome> out = meet({{0, 3}, {1, 3}, {1, 3}}, Milliseconds(10000));
  for (const Outcome& o : out) {
    EXPECT_TRUE(o.value_error) << o.error;
    EXPECT_TRUE(has(o.error, "init_process_group: two processes claim rank 1 (pid ")) << o.error;
    EXPECT_TRUE(has(o.error, "give each process its own RANK")) << o.error;
    EXPECT_LT(o.seconds, 5);
  }
}

}  // namespace
}  // namespace ember
