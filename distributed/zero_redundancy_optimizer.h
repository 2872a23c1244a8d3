#pragma once
// ZeroRedundancyOptimizer, as PyTorch's: the parameters are partitioned over the ranks (greedily
// by size, the same partition on every rank), each rank keeps the optimizer state of its own
// share only and steps it, then each rank's updated parameters are broadcast from it. Used with
// DDP, which leaves the same averaged gradients everywhere.
//
//   distributed::ZeroRedundancyOptimizer zero(ddp->named_parameters(), [](optim::NamedParameters p) {
//     return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions{.lr = 1e-3});
//   });
//   zero.step();
//   save_checkpoint(group, {model_value, generators, zero.state_shards()}, dir);   // sharded state
//   zero.load_state_shards(CheckpointReader(dir));                                // on any rank count
//
// Its state is sharded by parameter: shard "state/<param>/<key>" (exp_avg, step, ...), whole, in
// the file of the rank that owned the parameter when saving; a job on another number of ranks
// reads the state of the parameters it owns now from wherever the index says they are.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/checkpoint.h"
#include "ember/distributed/process_group.h"
#include "ember/optim/optimizer.h"

namespace ember::distributed {

class ZeroRedundancyOptimizer {
 public:
  /// Builds the local optimizer over this rank's share of `params` (a unique_ptr converts).
  using Factory = std::function<std::shared_ptr<optim::Optimizer>(optim::NamedParameters)>;
  ZeroRedundancyOptimizer(optim::NamedParameters params, const Factory& make,
                          std::shared_ptr<ProcessGroup> group = nullptr);

  /// Steps this rank's share, then broadcasts every share from its owner.
  void step();
  void zero_grad(bool set_to_none = true);
  /// The rank that owns (keeps the state of and updates) parameter `name`.
  int owner(const std::string& name) const;
  /// This rank's optimizer (over its share).
  optim::Optimizer& local() { return *local_; }
  std::shared_ptr<optim::Optimizer> local_ptr() const { return local_; }
  /// This rank's optimizer state as shards ("<prefix>state/<param>/<key>").
  std::vector<Shard> state_shards(const std::string& prefix = "") const;
  /// Loads the state of this rank's parameters from a checkpoint saved on any number of ranks
  /// (its shards named as state_shards(prefix) names them); parameters without state there start fresh.
  void load_state_shards(const CheckpointReader& reader, const std::string& prefix = "");

 private:
  optim::NamedParameters params_;
  std::vector<int> owner_;
  std::shared_ptr<ProcessGroup> group_;
  std::shared_ptr<optim::Optimizer> local_;
};

}  // namespace ember::distributed
