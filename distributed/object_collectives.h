#pragma once
// Byte strings between ranks, over a group's tensor collectives: how a distributed checkpoint
// learns every rank's status and error message.
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"

namespace ember::distributed {

/// Every rank's `mine`, by rank (two allgathers: the lengths, then the padded bytes).
std::vector<std::string> allgather_strings(ProcessGroup& group, const std::string& mine);

}  // namespace ember::distributed
