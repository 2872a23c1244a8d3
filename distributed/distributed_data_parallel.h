#pragma once
// Data-parallel training, as PyTorch's DistributedDataParallel: every rank holds the whole model,
// trains on its share of each global batch, and backward leaves the same averaged gradients on
// every rank, so the same optimizer step keeps the replicas bitwise equal.
//
//   distributed::init_process_group();                       // under ember-run --nproc N
//   auto ddp = std::make_shared<distributed::DistributedDataParallel>(model);
//   optim::SGD opt(ddp->named_parameters(), {.lr = 0.1});     // names start with "module."
//   Tensor loss = F::cross_entropy((*ddp)(x), y);
//   loss.backward();                                          // gradients averaged over ranks
//   opt.step();
//   { auto guard = ddp->no_sync(); micro_loss.backward(); }   // accumulate without averaging
//
// Construction broadcasts rank 0's parameters and buffers (one message per dtype); with
// broadcast_buffers each forward does it again for the buffers (BatchNorm's running stats).
// The model is registered as the child "module", so the state_dict keys are PyTorch's
// ("module.fc.weight"). reducer.h says how gradients travel.
#include <memory>

#include "ember/distributed/process_group.h"
#include "ember/distributed/reducer.h"
#include "ember/nn/module.h"

namespace ember::distributed {

struct DistributedDataParallelOptions {
  /// Bucket size in MiB (PyTorch's bucket_cap_mb).
  double bucket_cap_mb = 25;
  /// Allow parameters that get no gradient in a backward pass (else that is an error).
  bool find_unused_parameters = false;
  /// Broadcast rank 0's buffers before every forward.
  bool broadcast_buffers = true;
};

class DistributedDataParallel : public nn::Module {
 public:
  /// Wraps `module` on `group` (default: the default group).
  explicit DistributedDataParallel(std::shared_ptr<nn::Module> module,
                                   DistributedDataParallelOptions options = {},
                                   std::shared_ptr<ProcessGroup> group = nullptr);

  /// The wrapped module's forward, after the buffer broadcast.
  Tensor forward(const Tensor& input) override;
  /// Broadcasts rank 0's buffers when broadcast_buffers is on (forward does it; a module with
  /// another forward signature calls it before its own forward).
  void sync_buffers();
  nn::Module& module() { return *module_; }
  std::shared_ptr<nn::Module> module_ptr() { return module_; }
  Reducer& reducer() { return *reducer_; }

  /// While it lives, backward accumulates gradients without averaging them.
  class NoSync {
   public:
    explicit NoSync(Reducer& r) : reducer_(&r), was_(r.sync()) { r.set_sync(false); }
    ~NoSync() { reducer_->set_sync(was_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    Reducer* reducer_;
    bool was_;
  };
  [[nodiscard]] NoSync no_sync() { return NoSync(*reducer_); }

 private:
  std::shared_ptr<nn::Module> module_;
  std::shared_ptr<ProcessGroup> group_;
  DistributedDataParallelOptions options_;
  std::unique_ptr<Reducer> reducer_;
};

}  // namespace ember::distributed
