#include "dist_test_util.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "ember/distributed/tcp_store.h"

namespace ember::testing {

void run_ranks(int world, const std::function<void(distributed::ProcessGroup&)>& body, int timeout_ms) {
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
        ProcessGroupGloo group(std::make_shared<PrefixStore>(prefix, store), r, world, options);
        body(group);
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
