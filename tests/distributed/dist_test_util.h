#pragma once
// Runs one body per rank on threads of this process, each rank with its own Gloo group over
// loopback (a TCP store served by rank 0 on a free port): collectives and DDP are tested without
// starting processes. Failures of a rank are rethrown on the test's thread.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/process_group_gloo.h"

namespace ember::testing {

/// body(group) on `world` threads, the group of each with a timeout of `timeout_ms`.
void run_ranks(int world, const std::function<void(distributed::ProcessGroup&)>& body,
               int timeout_ms = 20000);

/// body(groups) on `world` threads, with `count` groups per rank over the same ranks (separate
/// connections), as a job that trains on one group and writes checkpoints in the background on
/// another.
using Groups = std::vector<std::shared_ptr<distributed::ProcessGroup>>;
void run_ranks_with_groups(int world, int count, const std::function<void(Groups&)>& body,
                           int timeout_ms = 20000);

}  // namespace ember::testing
