// The crash test's child: saves checkpoints through a CheckpointManager in a loop, forever, until
// the test kills it. Each life resumes from the newest checkpoint that loads (the one the last
// kill left), and prints "saved <step>" once each save has returned. With "async", it saves with
// save_async and scribbles over the state as soon as the call returns (as training would), and
// prints "saved <step>" when the next call returns, which waits for that write.
//   checkpoint_writer <dir> <keep_last> <numel> [sync|async]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ember/io/checkpoint_manager.h"
#include "io/programs/checkpoint_state.h"

int main(int argc, char** argv) {
  const std::string mode = argc == 5 ? argv[4] : "sync";
  const bool async = mode == "async";
  if ((argc != 4 && argc != 5) || (mode != "sync" && !async)) {
    std::fprintf(stderr, "usage: %s <dir> <keep_last> <numel> [sync|async]\n", argv[0]);
    return 2;
  }
  try {
    ember::io::CheckpointManager manager(argv[1], std::atoll(argv[2]));
    const int64_t numel = std::atoll(argv[3]);
    int64_t step = 0;
    if (auto restored = manager.restore()) step = restored->step;
    std::printf("started %lld\n", static_cast<long long>(step));
    std::fflush(stdout);
    const int64_t first = step + 1;
    while (true) {
      ++step;
      ember::io::Value state = ember::testing::crash_test_state(step, numel);
      if (!async) {
        manager.save(state, step);
        std::printf("saved %lld\n", static_cast<long long>(step));
      } else {
        manager.save_async(state, step);
        ember::NoGradGuard no_grad;
        state.at("weights").as_tensor().fill_(-1.0);
        if (step > first) std::printf("saved %lld\n", static_cast<long long>(step - 1));
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpoint_writer: %s\n", e.what());
    return 1;
  }
}
