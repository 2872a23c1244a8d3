#pragma once
// Starts the ranks of a job on this machine, as torchrun does: `ember-run --nproc N prog args`
// (tools/run) and `python -m ember.distributed.run` both call launch().
//
// Each rank is `prog args` with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT (a free port unless given) and EMBER_RESTART_COUNT in its environment, in a process
// group of its own. Every line a rank prints comes out prefixed "[rank<r>]: " (stdout to stdout,
// stderr to stderr). When a rank fails (non-zero exit or a signal), the others get SIGTERM (and
// SIGCONT, for a stopped one), then SIGKILL after the grace period. With max_restarts, a failed
// job is started again, whole; the program resumes itself (from its newest complete checkpoint).
#include <string>
#include <vector>

namespace ember::distributed {

struct LaunchOptions {
  int nproc = 1;
  /// The program and its arguments.
  std::vector<std::string> command;
  int max_restarts = 0;
  std::string master_addr = "127.0.0.1";
  /// 0: a free port, chosen anew for every attempt.
  int master_port = 0;
  /// Between SIGTERM and SIGKILL when stopping the other ranks.
  double grace_seconds = 5;
  /// Prefix each line with its rank.
  bool prefix_output = true;
};

/// Runs the job; returns 0 when every rank of an attempt exited 0, else the first failure's exit
/// code (128 + signal for a signal) of the last attempt. Messages of the launcher itself go to
/// stderr, prefixed "ember-run: ".
int launch(const LaunchOptions& options);

}  // namespace ember::distributed
