#include "dist_test_util.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "ember/distributed/tcp_store.h"

namespace ember::testing {

void run_ranks(int world, const std::function<void(distributed::ProcessGroup&)>& body, int timeout_ms) {
  run_ranks_with_groups(world, 1, [&](Groups& groups) { body(*groups[0]); }, timeout_ms);
}

void run_ranks_with_groups(int world, int count, const std::function<void(Groups&)>& body,
                           int timeout_ms) {
  using namespace distributed;
  static std::atomic<int> run{0};
  const std::string prefix = "run" + std::to_string(run++);
  Milliseconds timeout(timeout_ms);
  auto server = std::make_shared<TCPStore>("127.0.0.1", 0, true, timeout);
  std::mutex mutex;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        std::shared_ptr<Store> store =
            r == 0 ? std::static_pointer_cast<Store>(server)
                   : std::make_shared<TCPStore>("127.0.0.1", server->port(), false, timeout);
        ProcessGroupGlooOptions options;
        options.timeout = timeout;
        Groups groups;
        for (int g = 0; g < count; ++g) {
          auto prefixed = std::make_shared<PrefixStore>(prefix + "/" + std::to_string(g), store);
          groups.push_back(std::make_shared<ProcessGroupGloo>(prefixed, r, world, options));
        }
        body(groups);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!first) first = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace ember::testing
