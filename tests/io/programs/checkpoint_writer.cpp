// The crash test's child: saves checkpoints through a CheckpointManager in a loop, forever, until
// the test kills it. Each life resumes from the newest checkpoint that loads (the one the last
// kill left), and prints "saved <step>" once each save has returned.
//   checkpoint_writer <dir> <keep_last> <numel>
#include <cstdio>
#include <cstdlib>

#include "ember/io/checkpoint_manager.h"
#include "io/programs/checkpoint_state.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <dir> <keep_last> <numel>\n", argv[0]);
    return 2;
  }
  try {
    ember::io::CheckpointManager manager(argv[1], std::atoll(argv[2]));
    const int64_t numel = std::atoll(argv[3]);
    int64_t step = 0;
    if (auto restored = manager.restore()) step = restored->step;
    std::printf("started %lld\n", static_cast<long long>(step));
    std::fflush(stdout);
    while (true) {
      ++step;
      manager.save(ember::testing::crash_test_state(step, numel), step);
      std::printf("saved %lld\n", static_cast<long long>(step));
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpoint_writer: %s\n", e.what());
    return 1;
  }
}
