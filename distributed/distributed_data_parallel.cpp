#include "ember/distributed/distributed_data_parallel.h"

#include "ember/core/error.h"
#include "ember/distributed/coalesced.h"
#include "ember/distributed/init.h"

namespace ember::distributed {

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module,
                                                 DistributedDataParallelOptions options,
                                                 std::shared_ptr<ProcessGroup> group)
    : nn::Module("DistributedDataParallel"), module_(std::move(module)),
      group_(group ? std::move(group) : default_group_ptr()), options_(options) {
  EMBER_CHECK_VALUE(module_ != nullptr, "DistributedDataParallel: the module is null");
  register_module("module", module_);
  std::vector<Tensor> state;
  for (auto& [name, p] : module_->named_parameters()) state.push_back(p);
  for (auto& [name, b] : module_->named_buffers()) state.push_back(b);
  broadcast_coalesced(*group_, state, 0);
  ReducerOptions r;
  r.bucket_cap_bytes = static_cast<int64_t>(options_.bucket_cap_mb * 1024 * 1024);
  r.find_unused_parameters = options_.find_unused_parameters;
  reducer_ = std::make_unique<Reducer>(module_->named_parameters(), group_, r);
}

void DistributedDataParallel::sync_buffers() {
  if (!options_.broadcast_buffers) return;
  std::vector<Tensor> buffers;
  for (auto& [name, b] : module_->named_buffers()) buffers.push_back(b);
  if (!buffers.empty()) broadcast_coalesced(*group_, buffers, 0);
}

Tensor DistributedDataParallel::forward(const Tensor& input) {
  sync_buffers();
  return module_->forward(input);
}

}  // namespace ember::distributed
