#pragma once
// Starts the ranks of a job, as torchrun does: `ember-run --nproc N prog args` (tools/run) and
// `python -m ember.distributed.run` both call launch().
//
// Each rank is `prog args` with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK (the
// node), MASTER_ADDR, MASTER_PORT (a free port unless given) and EMBER_RESTART_COUNT in its
// environment, in a process group of its own that dies with the launcher. Every line a rank
// prints comes out prefixed "[rank<r>]: " (stdout to stdout, stderr to stderr). When a rank fails
// (non-zero exit or a signal), the others get SIGTERM (and SIGCONT, for a stopped one), then
// SIGKILL after the grace period. With max_restarts, a failed job is started again, whole; the
// program resumes itself (from its newest complete checkpoint).
//
// On several machines (nnodes > 1, torchrun's static rendezvous) one launcher runs on each, with
// its node_rank; they meet in a store that node 0's launcher serves at the rendezvous endpoint
// (master_addr:master_port unless given): each attempt starts when every node has joined (within
// join_timeout), node r's ranks are r * nproc ... r * nproc + nproc - 1, and MASTER_PORT is a free
// port node 0 picks. A failure on any node (a rank's, or a launcher that stops answering for
// node_timeout) stops every node's ranks, naming the node and the rank; restarts are taken by all
// nodes together.
#include <string>
#include <vector>

namespace ember::distributed {

struct LaunchOptions {
  /// Ranks on this node.
  int nproc = 1;
  int nnodes = 1;
  int node_rank = 0;
  /// The program and its arguments.
  std::vector<std::string> command;
  int max_restarts = 0;
  std::string master_addr = "127.0.0.1";
  /// 0: a free port, chosen anew for every attempt.
  int master_port = 0;
  /// Several nodes: where their launchers meet, "host:port" (empty: master_addr:master_port,
  /// which then needs a port).
  std::string rdzv_endpoint;
  /// How long a launcher waits for every node to join an attempt.
  double join_timeout_seconds = 300;
  /// After how long without a heartbeat another node's launcher counts as gone.
  double node_timeout_seconds = 30;
  /// This node's address, on which its ranks accept their peers (EMBER_GLOO_HOSTNAME); empty:
  /// the route to master_addr, or GLOO_SOCKET_IFNAME's address (distributed/init.h).
  std::string local_addr;
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
