#pragma once
// Fully sharded data parallelism, as PyTorch's FullyShardedDataParallel: every rank keeps 1/W of
// each parameter (fsdp_unit.h says how it is cut), of its gradient and, since the optimizer steps
// only the shards, of the optimizer state. The model is split into units: the root, and every
// module the auto-wrap policy picks (a transformer block, say); a unit's parameters are gathered
// just before its forward and again before its backward, and released after each, so a rank holds
// whole parameters of a unit or two at a time, never of the whole model.
//
//   distributed::init_process_group();                                   // under ember-run --nproc N
//   distributed::FSDP fsdp(model, {.auto_wrap_policy = distributed::wrap_module_types({"Block"})});
//   optim::AdamW opt(fsdp.named_parameters(), {.lr = 1e-3});            // the shards, by the model's names
//   Tensor loss = F::cross_entropy(fsdp(x), y);
//   loss.backward();                                                     // shard gradients, averaged
//   opt.step();
//
// Forward must go through the units' Module::operator() (fsdp(x) does, and containers call their
// children through it): that is where the hooks run. At rest the model's parameters are the
// shards (1-D, `shard_numel` elements), under their own names: named_parameters() and an
// optimizer built on it key every state by the original names. Buffers are not sharded; with
// sync_module_states, rank 0's parameters and buffers are broadcast first (as DDP does). Every
// Ember optimizer but LBFGS is elementwise and steps the shards exactly as it would the whole
// parameters; LBFGS's dot products would cover this rank's share only (PyTorch's FSDP has the same
// limit).
// fsdp_state.h saves and loads the sharded and the full state.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/distributed/fsdp_unit.h"
#include "ember/distributed/process_group.h"
#include "ember/nn/module.h"

namespace ember::distributed {

/// policy(name, module, numel): whether the module at `name` becomes a unit, given the parameter
/// elements under it that no unit below it holds (the policy is asked bottom-up).
using AutoWrapPolicy = std::function<bool(const std::string& name, nn::Module& module, int64_t numel)>;
/// Wraps the modules whose type_name() is one of `type_names` (PyTorch's ModuleWrapPolicy).
AutoWrapPolicy wrap_module_types(std::vector<std::string> type_names);
/// Wraps a module once `min_num_params` elements or more would be left to it (PyTorch's
/// size_based_auto_wrap_policy).
AutoWrapPolicy wrap_by_size(int64_t min_num_params);

struct FSDPOptions {
  /// Null: the root is the only unit.
  AutoWrapPolicy auto_wrap_policy;
  /// Release a unit's gathered parameters after its forward (the root's stay until backward).
  bool reshard_after_forward = true;
  /// Mixed precision: gather the parameters in this dtype (bfloat16, say); shards stay float32.
  /// The root's floating input is cast to it; the output comes in it.
  std::optional<DType> param_dtype;
  /// The dtype gradients are averaged in (default: param_dtype).
  std::optional<DType> reduce_dtype;
  /// Broadcast rank 0's parameters and buffers before sharding.
  bool sync_module_states = true;
  /// Start the next unit's all-gather while this unit computes, in forward (the order of the
  /// previous forward) and in backward (the reverse).
  bool prefetch = true;
  /// Register the forward hooks on the units (off for a caller that calls pre_forward and
  /// post_forward itself: the Python binding, whose modules take any arguments).
  bool install_hooks = true;
};

namespace detail {
struct FSDPCore;
}

class FSDP {
 public:
  explicit FSDP(std::shared_ptr<nn::Module> module, FSDPOptions options = {},
                std::shared_ptr<ProcessGroup> group = nullptr);
  ~FSDP();
  FSDP(const FSDP&) = delete;
  FSDP& operator=(const FSDP&) = delete;

  /// The model's forward through its hooks.
  Tensor forward(const Tensor& input);
  Tensor operator()(const Tensor& input) { return forward(input); }

  nn::Module& module() { return *module_; }
  std::shared_ptr<nn::Module> module_ptr() const { return module_; }
  ProcessGroup& group() const;
  /// The shards, by the model's parameter names (the model's own named_parameters() at rest).
  std::vector<std::pair<std::string, Tensor>> named_parameters() const { return module_->named_parameters(); }

  /// The units, the root first; a unit's name is its module's path.
  size_t num_units() const;
  const ShardedUnit& unit(size_t index) const;
  /// The unit and index of the parameter named `name` (any name of a tied one); null if none.
  std::optional<std::pair<size_t, size_t>> find_param(const std::string& name) const;
  ShardedUnit& mutable_unit(size_t index);

  /// What the hooks do around unit `index`'s forward, for a caller running it itself.
  void pre_forward(size_t index);
  void post_forward(size_t index, const std::vector<Tensor>& outputs);
  /// Puts every unit back to shards (after a forward with no backward to follow).
  void reshard();

  /// While sync is off (PyTorch's no_sync), backward keeps each unit's whole gradients, summed
  /// over the passes, and reduces nothing; the next backward with sync on reduces the sums.
  /// Memory: the whole model's gradients, on every rank, until then.
  void set_sync(bool enabled);
  bool sync() const;

  /// Gathers every unit's parameters into the modules (PyTorch's summon_full_params), for
  /// reading or changing them outside forward; end_full_params() puts the shards back, first
  /// copying the full values into them when writeback. Every rank calls both.
  void summon_full_params();
  void end_full_params(bool writeback = true);

  /// Scales the shards' gradients so that the norm of the whole gradient (over every rank) is at
  /// most max_norm; returns that norm (PyTorch's FSDP.clip_grad_norm_). Every rank calls it.
  double clip_grad_norm_(double max_norm, double norm_type = 2.0);

 private:
  std::shared_ptr<nn::Module> module_;
  std::shared_ptr<detail::FSDPCore> core_;
};

}  // namespace ember::distributed
