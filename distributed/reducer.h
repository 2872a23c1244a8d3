#pragma once
// The gradient averaging of DistributedDataParallel (C++ and Python share it): parameters are
// grouped into buckets of about bucket_cap_bytes, in reverse registration order (the order in
// which backward usually produces their gradients), one dtype per bucket. A post-accumulate-grad
// hook on each parameter marks it ready; a bucket whose parameters are all ready is copied into
// its flat buffer and its allreduce (Avg) starts at once, while backward goes on. Buckets start in
// index order on every rank, so the ranks' collectives always match. A callback at the end of
// backward waits for them and writes the averages back into each .grad.
//
// A parameter that got no gradient in a backward pass is an error naming it, unless
// find_unused_parameters: then it counts as a zero gradient, and one that no rank used keeps
// .grad untouched. While sync is off (no_sync), backward only accumulates locally.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/process_group.h"

namespace ember::distributed {

struct ReducerOptions {
  int64_t bucket_cap_bytes = 25 * 1024 * 1024;
  bool find_unused_parameters = false;
};

class Reducer {
 public:
  /// Hooks every parameter that requires grad; `params` in registration order, by name.
  Reducer(std::vector<std::pair<std::string, Tensor>> params, std::shared_ptr<ProcessGroup> group,
          ReducerOptions options = {});
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  /// Off: backward accumulates gradients locally only (no_sync); the next synced backward
  /// averages the accumulated sums.
  void set_sync(bool enabled) { sync_ = enabled; }
  bool sync() const { return sync_; }
  /// The buckets: parameter names in each, in launch order.
  std::vector<std::vector<std::string>> bucket_names() const;
  ProcessGroup& group() { return *group_; }

 private:
  struct Bucket {
    std::vector<size_t> params;  // indices into params_
    std::vector<int64_t> offsets;
    Tensor buffer;
    size_t pending = 0;
    WorkPtr work;
  };
  void on_grad_ready(size_t index);
  void launch_ready_buckets();
  void launch(Bucket& bucket);
  void finish_backward();
  void reset();

  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<int> hooks_;
  std::vector<size_t> bucket_of_;
  std::vector<Bucket> buckets_;
  std::shared_ptr<ProcessGroup> group_;
  ReducerOptions options_;
  bool sync_ = true;
  // Per backward pass.
  std::vector<bool> ready_;
  std::vector<bool> used_;
  size_t next_bucket_ = 0;
  bool callback_queued_ = false;
};

}  // namespace ember::distributed
