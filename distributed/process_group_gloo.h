#pragma once
// The CPU backend: Gloo's collectives (allreduce, broadcast, allgather, barrier) over its TCP
// transport, run in order on one worker thread per group, so every call returns a Work at once
// and backward can go on while gradients travel. Gloo's headers stay in the .cpp.
//
//   auto store = std::make_shared<TCPStore>("127.0.0.1", port, rank == 0);
//   ProcessGroupGloo group(std::make_shared<PrefixStore>("default", store), rank, size);
//
// NB: only Gloo's function-style API is used, each operation with a tag of its own. Its
// class-based algorithms (ReduceScatterHalvingDoubling, ...) leave a context in a state where later
// allreduces stall (up to 340x at world size 4), so reduce_scatter is Gloo's allreduce over the
// inputs, each rank keeping its chunk (this Gloo has no function-style reduce-scatter).
// send/recv run on the caller's thread (a send waits for its receiver, so queueing it behind
// other operations could deadlock two ranks that send to each other).
#include <functional>
#include <memory>
#include <string>

#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

struct ProcessGroupGlooOptions {
  /// The address this rank listens on for its peers (the TCP transport's device).
  std::string hostname = "127.0.0.1";
  /// How long an operation may wait for a peer before it fails (and the group with it): 30
  /// minutes by default, torch's for gloo.
  Milliseconds timeout = Milliseconds(1800000);
};

class ProcessGroupGloo : public ProcessGroup {
 public:
  /// Connects every rank to every other through `store` (this group's own keys: give each group
  /// its own PrefixStore); StoreError when a peer does not show up within the store's timeout.
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size,
                   ProcessGroupGlooOptions options = {});
  ~ProcessGroupGloo() override;

  std::string backend() const override { return "gloo"; }
  WorkPtr allreduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum) override;
  WorkPtr broadcast(const Tensor& tensor, int src) override;
  WorkPtr allgather(const std::vector<Tensor>& outputs, const Tensor& input) override;
  WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                         ReduceOp op = ReduceOp::Sum) override;
  WorkPtr barrier() override;
  WorkPtr send(const Tensor& tensor, int dst, int tag = 0) override;
  WorkPtr recv(const Tensor& tensor, int src, int tag = 0) override;

 private:
  struct Impl;
  /// Queues `body(tag)` on the worker and returns its Work; a failure breaks the group.
  WorkPtr enqueue(const char* what, std::function<void(uint32_t tag)> body);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed
