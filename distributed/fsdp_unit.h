#pragma once
// One unit of fully sharded data parallelism (fsdp.h): the parameters of one module, less those
// of the units inside it. Each parameter is flattened, padded to a multiple of the world size W
// and split evenly: rank r keeps elements [r*s, (r+1)*s) as a 1-D `shard` of s = ceil(numel / W)
// elements, the leaf that the optimizer steps under the parameter's own name.
//
//   unshard():  one all-gather per dtype brings every rank's shards into `full` tensors of the
//               parameters' shapes (param_dtype under mixed precision), which take the shards'
//               places in the modules, so forward and backward see whole parameters.
//   reshard():  the shards go back into the modules and the full tensors' memory is released:
//               their storages stay (autograd saved tensors on them) and unshard() refills them
//               before backward reads them, as PyTorch's FSDP resizes storages to 0 and back.
//   backward:   every full parameter's gradient, once accumulated, marks it ready; when all are
//               (or at the end of the pass, for those that got none), one reduce-scatter (Avg,
//               in reduce_dtype) per dtype starts, and finish_reduce() leaves each rank its share
//               of the averaged gradient in shard.grad (added to a gradient already there).
//
// Every rank must call unshard and the reductions for the same units in the same order, as with
// any collective; FSDP's hooks do, as long as the ranks run the same program.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"
#include "ember/nn/module.h"

namespace ember::distributed {

struct ShardedUnitOptions {
  /// The dtype of the gathered parameters (forward and backward compute in it); the shards
  /// and the optimizer keep the parameter's own. Floating parameters only.
  std::optional<DType> param_dtype;
  /// The dtype gradients are averaged in (default: param_dtype, else the parameter's).
  std::optional<DType> reduce_dtype;
};

/// One parameter of a unit.
struct ShardedParam {
  std::string name;                                        // under the FSDP root: "blocks.0.fc.weight"
  std::vector<std::pair<nn::Module*, std::string>> slots;  // every registration of it (ties)
  std::vector<int64_t> shape;
  int64_t numel = 0;
  int64_t shard_numel = 0;  // s: ceil(numel / W)
  Tensor shard;             // [s], this rank's elements then zeros: what the optimizer steps
  Tensor full;              // `shape`, released while resharded
  bool requires_grad = false;
  size_t group = 0;    // its dtype group
  int64_t offset = 0;  // in the group's per-rank buffer

  /// Where rank r's part starts in the flattened parameter, and how many of its shard_numel
  /// elements exist there (the rest pad; 0 on a rank past the end).
  int64_t start_on(int rank) const { return std::min(rank * shard_numel, numel); }
  int64_t count_on(int rank) const { return std::clamp<int64_t>(numel - rank * shard_numel, 0, shard_numel); }
};

class ShardedUnit {
 public:
  /// `params` carries each parameter's name and slots; the tensors are read from the first slot
  /// and replaced there (and in every other slot) by the shards.
  ShardedUnit(std::string name, std::vector<ShardedParam> params, std::shared_ptr<ProcessGroup> group,
              ShardedUnitOptions options = {});
  ~ShardedUnit();
  ShardedUnit(const ShardedUnit&) = delete;
  ShardedUnit& operator=(const ShardedUnit&) = delete;

  /// The module path of the unit ("" for the root).
  const std::string& name() const { return name_; }
  const std::vector<ShardedParam>& params() const { return params_; }
  bool is_unsharded() const { return unsharded_; }

  /// Starts the all-gathers (nothing when unsharded or already started): a prefetch.
  void start_unshard();
  /// Completes start_unshard() (starting it first if needed) and puts the full tensors in place.
  void unshard();
  /// Puts the shards back and releases the full tensors' memory. Their gradients stay: only
  /// under no_sync are there any, summed until the next reduction.
  void reshard();
  /// Copies the full tensors' values (changed by the caller while unsharded) into the shards.
  void write_back();

  /// Called at the start of this unit's part of backward: unshards, counts gradients from here.
  void begin_backward();
  /// Whether begin_backward ran and the reduction has not started yet.
  bool awaits_reduce() const { return in_backward_; }
  /// Starts the reduce-scatters of the full gradients (zeros for parameters that got none) and
  /// reshards when `reshard_after` says so.
  void start_reduce(bool reshard_after = true);
  /// Waits for start_reduce's collectives and adds each rank's share into shard.grad.
  void finish_reduce();
  /// Ends this unit's backward without a reduction (no_sync): the full gradients stay.
  void end_backward_unreduced();
  /// The gradients' post-accumulate hook: true once every parameter that requires grad is ready.
  bool mark_ready(size_t index);

  /// Writes `full_value` (a tensor of the parameter's shape) into parameter `index`'s shard.
  void load_full(size_t index, const Tensor& full_value);
  /// The parameter's whole value, gathered from every rank (every rank gets it).
  Tensor gather_full(size_t index);

 private:
  struct Group {
    DType dtype;  // of the gathered tensors
    DType reduce_dtype;
    std::vector<size_t> params;
    int64_t total = 0;  // S: the sum of the shard sizes
  };
  struct Pending {
    WorkPtr work;
    Tensor buffer;  // [W, S]: what the collective reads (reduce) or writes (gather)
    Tensor output;  // [S]: a reduce-scatter's result, an all-gather's input
    size_t group = 0;
  };
  int world() const { return group_->size(); }
  void copy_out(const Group& g, const Tensor& buffer);

  std::string name_;
  std::vector<ShardedParam> params_;
  std::vector<Group> groups_;
  std::shared_ptr<ProcessGroup> group_;
  std::vector<Pending> gathers_;
  std::vector<Pending> reductions_;
  std::vector<bool> ready_;
  size_t pending_ready_ = 0;
  size_t needs_grad_ = 0;
  bool unsharded_ = false;
  bool in_backward_ = false;
};

}  // namespace ember::distributed
