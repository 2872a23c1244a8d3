#include "ember/distributed/coalesced.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/ops.h"

namespace ember::distributed {

void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int src) {
  if (group.size() == 1) return;
  NoGradGuard no_grad;
  std::vector<DType> order;
  for (const Tensor& t : tensors)
    if (std::find(order.begin(), order.end(), t.dtype()) == order.end()) order.push_back(t.dtype());
  for (DType dtype : order) {
    std::vector<Tensor> members, flat;
    for (const Tensor& t : tensors)
      if (t.dtype() == dtype && t.numel() > 0) {
        members.push_back(t);
        flat.push_back(t.detach().reshape({t.numel()}));
      }
    if (members.empty()) continue;
    Tensor buffer = cat(flat, 0);
    group.broadcast(buffer, src)->wait();
    int64_t offset = 0;
    for (const Tensor& t : members) {
      t.detach().copy_(buffer.slice(0, offset, offset + t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

}  // namespace ember::distributed
