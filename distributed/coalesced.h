#pragma once
// Many small tensors moved as a few large messages: tensors of one dtype are packed into one
// flat buffer, sent by one collective, and copied back. DDP broadcasts a model's parameters and
// buffers this way, and ZeroRedundancyOptimizer each rank's updated share.
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"

namespace ember::distributed {

/// Broadcasts every tensor from rank `src` (in place, under NoGradGuard); one collective per
/// dtype, in order of first appearance. Waits for them.
void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int src);

}  // namespace ember::distributed
