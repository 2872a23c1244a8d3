// One rank of a job that goes wrong, started by tests/distributed/failure_test.cpp with RANK,
// WORLD_SIZE, MASTER_ADDR and MASTER_PORT in its environment:
//
//   fault_worker TIMEOUT_MS                 init_process_group (timeout TIMEOUT_MS), two allreduces
//   fault_worker TIMEOUT_MS kill:<rank>     that rank SIGKILLs itself before the second allreduce
//   fault_worker TIMEOUT_MS stop:<rank>     that rank SIGSTOPs itself before it
//
// Prints "ok" when both allreduces succeed; on an error "<kind>: <message>" and the milliseconds
// from the start of the step that failed ("after <ms> ms"), and exits 3.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ember/ember.h"

using namespace ember;
using namespace ember::distributed;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const int timeout_ms = std::atoi(argv[1]);
  const std::string fault = argc > 2 ? argv[2] : "";
  auto start = std::chrono::steady_clock::now();
  auto fail = [&](const char* kind, const char* message) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    std::printf("%s: %s\nafter %lld ms\n", kind, message, static_cast<long long>(ms.count()));
    std::fflush(stdout);
    return 3;
  };
  try {
    InitOptions init;
    init.timeout = Milliseconds(timeout_ms);
    init_process_group(init);
    ProcessGroup& pg = default_group();
    Tensor t = ones({4});
    pg.allreduce(t)->wait();
    if (fault == "kill:" + std::to_string(pg.rank())) ::raise(SIGKILL);
    if (fault == "stop:" + std::to_string(pg.rank())) ::raise(SIGSTOP);
    start = std::chrono::steady_clock::now();
    pg.allreduce(t)->wait();
    std::printf("ok\n");
    std::fflush(stdout);
    destroy_process_group();
  } catch (const ValueError& e) {
    return fail("ValueError", e.what());
  } catch (const StoreError& e) {
    return fail("StoreError", e.what());
  } catch (const DistributedError& e) {
    return fail("DistributedError", e.what());
  }
  return 0;
}
