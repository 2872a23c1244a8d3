#pragma once
// The GPU backend: NCCL's collectives on the CUDA tensors of one device per rank, queued on that
// device's stream (cuda/runtime.h) so that they run in order with the kernels that produce and
// consume the tensors. Each call returns at once; its Work waits for the collective's completion
// event. Built with the CUDA backend (EMBER_CUDA), with the NCCL of the CUDA toolkit's install;
// without it, init_process_group("nccl") says so.
//
//   ProcessGroupNCCL group(std::make_shared<PrefixStore>("default", store), rank, size,
//                          Device::cuda(local_rank));
//   group.allreduce(grad, ReduceOp::Avg)->wait();   // grad on cuda:local_rank
//
// Rank 0 makes the communicator's id and passes it through the store. NCCL takes one device per
// rank (two ranks on one GPU are refused by NCCL itself). int16 has no NCCL type and is refused;
// bool reduces as uint8 (sum and max are "or", min and product "and"); complex tensors reduce as
// pairs of floats (sum and avg; product is refused). send/recv ignore the tag, as PyTorch's NCCL
// group does. Failure: a collective that does not finish within the timeout aborts the
// communicator and throws DistributedError; the group is unusable afterwards.
#include <memory>
#include <string>

#include "ember/core/device.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

class ProcessGroupNCCL : public ProcessGroup {
 public:
  /// Joins the communicator of `size` ranks whose id rank 0 puts in `store` (this group's own
  /// keys); `device` is this rank's GPU.
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, Device device,
                   Milliseconds timeout = Milliseconds(1800000));
  ~ProcessGroupNCCL() override;

  std::string backend() const override { return "nccl"; }
  Device device() const override;
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
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed
