// ember-run: starts the ranks of a data-parallel job, as torchrun does.
//
//   ember-run --nproc 2 build/tutorials/fashion_mnist/fashion_mnist --model mlp
//   ember-run --nproc 4 --max-restarts 2 ./train --run-dir runs/a    # resumes after a failure
//   ember-run --nnodes 2 --node-rank 0 --nproc 4 --master-addr 10.0.0.1 --master-port 29500 ./train
//                                                                     # and --node-rank 1 on the other
//
// Each rank gets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (distributed::
// init_process_group reads them); its output comes out prefixed "[rank<r>]: ". When one rank fails
// the others are stopped; with --max-restarts the job starts again (distributed/launcher.h).
// Exit status: 0 when every rank succeeded, else the failing rank's (128 + signal if killed).
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "ember/distributed/launcher.h"

int main(int argc, char** argv) {
  CLI::App app{"Starts N ranks of a distributed Ember program on this machine."};
  ember::distributed::LaunchOptions o;
  app.add_option("--nproc,--nproc-per-node", o.nproc, "how many ranks to start")->required();
  app.add_option("--max-restarts", o.max_restarts, "restart the whole job this many times on failure");
  app.add_option("--master-addr", o.master_addr, "the address rank 0 serves the store on");
  app.add_option("--master-port", o.master_port, "its port (0: a free one)");
  app.add_option("--nnodes", o.nnodes, "how many machines run the job (one ember-run on each)");
  app.add_option("--node-rank,--node_rank", o.node_rank, "this machine's number, 0 to nnodes - 1");
  app.add_option("--rdzv-endpoint,--rdzv_endpoint", o.rdzv_endpoint,
                 "host:port where the launchers meet (default: --master-addr:--master-port)");
  app.add_option("--join-timeout", o.join_timeout_seconds, "seconds to wait for every node to join");
  app.add_option("--node-timeout", o.node_timeout_seconds,
                 "seconds without a heartbeat after which another node counts as gone");
  app.add_option("--local-addr,--local_addr", o.local_addr, "this node's address for its ranks' connections");
  app.add_option("--grace", o.grace_seconds, "seconds between SIGTERM and SIGKILL when stopping ranks");
  bool no_prefix = false;
  app.add_flag("--no-prefix", no_prefix, "print the ranks' output as is");
  app.prefix_command();  // the program and everything after it belong to the program
  app.footer("ember-run [options] PROGRAM [ARGS...]");
  CLI11_PARSE(app, argc, argv);
  o.command = app.remaining();
  if (!o.command.empty() && o.command[0] == "--") o.command.erase(o.command.begin());
  o.prefix_output = !no_prefix;
  try {
    return ember::distributed::launch(o);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
