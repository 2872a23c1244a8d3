#pragma once
// A group of processes (ranks 0 .. size-1) that run collectives together. Every rank calls the
// same operations in the same order; each returns a Work at once (the operation runs in the
// background) and tensors are written in place. Tensors: on the group's device() (the CPU for
// gloo, this rank's GPU for nccl), any dtype (complex and bool included), any layout (a
// non-contiguous one goes through a contiguous copy). Zero-element tensors are allowed and move
// nothing.
//
//   ProcessGroupGloo group(store, rank, size);
//   group.allreduce(t, ReduceOp::Sum)->wait();
//   group.broadcast(params, /*src=*/0)->wait();
//
// Failure: a peer that dies makes the pending operation throw at once, a hung or stopped peer
// after the group's timeout (30 minutes unless init_process_group was given another); the group
// is unusable afterwards (every later operation throws). The error names the operation and, where
// this rank can tell, the peer: "allreduce: rank 1 (pid 4242) has exited; lost the connection to
// rank 1 ([127.0.0.1]:41234) (Gloo: ...)", "allreduce: rank 1 (pid 4242) is stopped ..." (peers.h).
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/tensor.h"
#include "ember/distributed/work.h"

namespace ember::distributed {

/// How allreduce and reduce_scatter combine: Avg is Sum divided by the group size (floating and
/// complex dtypes only); Min and Max are refused for complex; on bool, Sum and Max are "or",
/// Min and Product "and".
enum class ReduceOp { Sum, Avg, Product, Min, Max };
/// "sum", "avg", ...
const char* reduce_op_name(ReduceOp op);

class ProcessGroup {
 public:
  ProcessGroup(int rank, int size, Milliseconds timeout);
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  Milliseconds timeout() const { return timeout_; }
  /// "gloo" or "nccl".
  virtual std::string backend() const = 0;
  /// Where this group's tensors live: the CPU (gloo) or this rank's GPU (nccl).
  virtual Device device() const { return Device::cpu(); }

  /// Combines `tensor` across ranks; every rank gets the result, bit for bit the same.
  virtual WorkPtr allreduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum) = 0;
  /// Copies rank `src`'s `tensor` into every rank's.
  virtual WorkPtr broadcast(const Tensor& tensor, int src) = 0;
  /// outputs[r] = rank r's input, on every rank (size() outputs, each of the input's shape and
  /// dtype).
  virtual WorkPtr allgather(const std::vector<Tensor>& outputs, const Tensor& input) = 0;
  /// output = the combination over ranks of their inputs[rank()] (size() inputs, each of the
  /// output's shape and dtype).
  virtual WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                                 ReduceOp op = ReduceOp::Sum) = 0;
  /// Returns once every rank reached it.
  virtual WorkPtr barrier() = 0;
  /// Sends `tensor` to rank `dst`; the matching recv names this rank and the same tag.
  virtual WorkPtr send(const Tensor& tensor, int dst, int tag = 0) = 0;
  /// Receives into `tensor` (of the sent shape and dtype) from rank `src`.
  virtual WorkPtr recv(const Tensor& tensor, int src, int tag = 0) = 0;

 protected:
  /// Argument checks shared by every backend; `op` names the operation in messages.
  void check_tensor(const char* op, const Tensor& t) const;
  void check_rank(const char* op, const char* arg, int r) const;
  void check_list(const char* op, const char* arg, const std::vector<Tensor>& list,
                  const Tensor& like) const;
  static void check_reduce_op(const char* op, ReduceOp reduce, DType dtype);

 private:
  int rank_;
  int size_;
  Milliseconds timeout_;
};

}  // namespace ember::distributed
