#include "ember/distributed/process_group_nccl.h"

// NB: built into the CUDA backend's library (libember_cuda.so, CMakeLists.txt), not libember: it
// registers the "nccl" backend of init_process_group when that library is opened.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "ember/core/copy.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/strided.h"
#include "ember/cuda/check.h"
#include "ember/cuda/runtime.h"
#include "ember/distributed/error.h"
#include "ember/distributed/init.h"

namespace ember::distributed {
namespace {

void check_nccl(ncclResult_t result, const char* call, ncclComm_t comm) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  const char* last = comm != nullptr ? ncclGetLastError(comm) : nullptr;
  throw DistributedError(detail::str("nccl: ", call, " failed: ", ncclGetErrorString(result),
                                     last != nullptr && *last != '\0' ? detail::str(" (", last, ")") : ""));
}
#define EMBER_NCCL_CHECK(expr, comm) check_nccl((expr), #expr, (comm))

// The NCCL type of a dtype and how many of its elements one element of the dtype is.
struct NcclType {
  ncclDataType_t type;
  int64_t per_element;
};

NcclType nccl_type(const char* op, DType t) {
  switch (t) {
    case DType::Bool:
    case DType::UInt8: return {ncclUint8, 1};
    case DType::Int8: return {ncclInt8, 1};
    case DType::Int32: return {ncclInt32, 1};
    case DType::Int64: return {ncclInt64, 1};
    case DType::Float16: return {ncclFloat16, 1};
    case DType::BFloat16: return {ncclBfloat16, 1};
    case DType::Float32: return {ncclFloat32, 1};
    case DType::Float64: return {ncclFloat64, 1};
    case DType::Complex64: return {ncclFloat32, 2};
    case DType::Complex128: return {ncclFloat64, 2};
    default: break;
  }
  throw NotImplementedError(detail::str(op, ": the nccl backend has no type for ", t));
}

ncclRedOp_t nccl_op(const char* op, ReduceOp reduce, DType t) {
  EMBER_CHECK_AS(NotImplementedError, !(is_complex(t) && reduce == ReduceOp::Product), op,
                 ": the nccl backend cannot multiply ", t, " values (it reduces them as pairs of floats)");
  if (t == DType::Bool) return reduce == ReduceOp::Sum || reduce == ReduceOp::Max ? ncclMax : ncclMin;
  switch (reduce) {
    case ReduceOp::Sum: return ncclSum;
    case ReduceOp::Avg: return ncclAvg;
    case ReduceOp::Product: return ncclProd;
    case ReduceOp::Min: return ncclMin;
    case ReduceOp::Max: return ncclMax;
  }
  return ncclSum;
}

// The communicator, shared with the Works that may abort it.
struct Communicator {
  ncclComm_t comm = nullptr;
  std::atomic<bool> aborted{false};
  void abort() {
    if (!aborted.exchange(true)) ncclCommAbort(comm);
  }
};

// Waits for the event recorded after an operation's last step on the group's stream.
class NcclWork : public Work {
 public:
  NcclWork(std::string what, cudaEvent_t event, Milliseconds timeout, std::shared_ptr<Communicator> comm)
      : what_(std::move(what)), event_(event), timeout_(timeout), comm_(std::move(comm)) {}
  ~NcclWork() override { cudaEventDestroy(event_); }

  void wait(std::optional<Milliseconds> timeout) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout.value_or(timeout_);
    for (;;) {
      const cudaError_t status = cudaEventQuery(event_);
      if (status == cudaSuccess) return;
      if (status != cudaErrorNotReady)
        throw DistributedError(detail::str("nccl: ", what_, " failed: ", cudaGetErrorString(status)));
      if (comm_->aborted) throw DistributedError(detail::str("nccl: ", what_, ": the group was aborted"));
      if (std::chrono::steady_clock::now() > deadline) {
        comm_->abort();  // NB: a collective a peer never joins would otherwise occupy the GPU forever
        throw DistributedError(detail::str("nccl: ", what_, " did not finish within ",
                                           timeout.value_or(timeout_).count(), " ms; the group is aborted"));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
  bool is_completed() override { return cudaEventQuery(event_) != cudaErrorNotReady; }

 private:
  std::string what_;
  cudaEvent_t event_;
  Milliseconds timeout_;
  std::shared_ptr<Communicator> comm_;
};

// t's contiguous elements as NCCL counts them.
int64_t count_of(const Tensor& t, const NcclType& nt) { return t.numel() * nt.per_element; }

}  // namespace

struct ProcessGroupNCCL::Impl {
  Device device;
  cudaStream_t stream = nullptr;
  Milliseconds timeout;
  std::shared_ptr<Communicator> comm = std::make_shared<Communicator>();

  // Queues enqueue() on the stream with the device current, then an event the Work waits for.
  template <typename F>
  WorkPtr run(const char* what, const F& enqueue) {
    if (comm->aborted) throw DistributedError(detail::str("nccl: ", what, ": the group was aborted by an earlier failure"));
    cuda::DeviceGuard guard(device.index);
    enqueue();
    cudaEvent_t event = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(event, stream);
    if (recorded != cudaSuccess) cudaEventDestroy(event);
    EMBER_CUDA_CHECK(recorded);
    return std::make_shared<NcclWork>(what, event, timeout, comm);
  }
};

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, Device device,
                                   Milliseconds timeout)
    : ProcessGroup(rank, size, timeout), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK_VALUE(device.is_cuda(), "ProcessGroupNCCL: the nccl backend runs on a CUDA device, got ", device);
  cuda::require_device(device, "ProcessGroupNCCL");
  impl_->device = device;
  impl_->timeout = timeout;
  impl_->stream = cuda::stream(device.index);
  ncclUniqueId id;
  if (rank == 0) {
    EMBER_NCCL_CHECK(ncclGetUniqueId(&id), nullptr);
    store->set("nccl_unique_id", std::string(id.internal, sizeof id.internal));
  } else {
    const std::string bytes = store->get("nccl_unique_id");
    EMBER_CHECK(bytes.size() == sizeof id.internal, "ProcessGroupNCCL: the store's communicator id has ",
                bytes.size(), " bytes, expected ", sizeof id.internal);
    std::copy(bytes.begin(), bytes.end(), id.internal);
  }
  cuda::DeviceGuard guard(device.index);
  EMBER_NCCL_CHECK(ncclCommInitRank(&impl_->comm->comm, size, id, rank), nullptr);
}

ProcessGroupNCCL::~ProcessGroupNCCL() {
  if (impl_->comm->comm == nullptr) return;
  cuda::DeviceGuard guard(impl_->device.index);
  if (impl_->comm->aborted) return;  // NB: an aborted communicator is already freed
  cudaStreamSynchronize(impl_->stream);
  ncclCommDestroy(impl_->comm->comm);
}

Device ProcessGroupNCCL::device() const { return impl_->device; }

WorkPtr ProcessGroupNCCL::allreduce(const Tensor& tensor, ReduceOp op) {
  check_tensor("allreduce", tensor);
  check_reduce_op("allreduce", op, tensor.dtype());
  const NcclType nt = nccl_type("allreduce", tensor.dtype());
  const ncclRedOp_t red = nccl_op("allreduce", op, tensor.dtype());
  if (tensor.numel() == 0) return std::make_shared<CompletedWork>();
  return impl_->run("allreduce", [&] {
    const Tensor buf = contiguous_data(tensor);
    EMBER_NCCL_CHECK(ncclAllReduce(buf.data_ptr(), buf.data_ptr(), count_of(buf, nt), nt.type, red, impl_->comm->comm,
                                   impl_->stream), impl_->comm->comm);
    if (!buf.is_same(tensor)) copy_data(tensor, buf);
  });
}

WorkPtr ProcessGroupNCCL::broadcast(const Tensor& tensor, int src) {
  check_tensor("broadcast", tensor);
  check_rank("broadcast", "src", src);
  const NcclType nt = nccl_type("broadcast", tensor.dtype());
  if (tensor.numel() == 0) return std::make_shared<CompletedWork>();
  return impl_->run("broadcast", [&] {
    const Tensor buf = contiguous_data(tensor);
    EMBER_NCCL_CHECK(ncclBroadcast(buf.data_ptr(), buf.data_ptr(), count_of(buf, nt), nt.type, src, impl_->comm->comm,
                                   impl_->stream), impl_->comm->comm);
    if (!buf.is_same(tensor)) copy_data(tensor, buf);
  });
}

WorkPtr ProcessGroupNCCL::allgather(const std::vector<Tensor>& outputs, const Tensor& input) {
  check_tensor("allgather", input);
  check_list("allgather", "outputs", outputs, input);
  const NcclType nt = nccl_type("allgather", input.dtype());
  const int64_t n = input.numel();
  if (n == 0) return std::make_shared<CompletedWork>();
  return impl_->run("allgather", [&] {
    const Tensor in = contiguous_data(input);
    const Tensor flat = empty({size() * n}, TensorOptions(input.dtype()).device(impl_->device));
    EMBER_NCCL_CHECK(ncclAllGather(in.data_ptr(), flat.data_ptr(), count_of(in, nt), nt.type, impl_->comm->comm,
                                   impl_->stream), impl_->comm->comm);
    for (int r = 0; r < size(); ++r)
      copy_data(outputs[static_cast<size_t>(r)], as_strided_data(flat, input.sizes(), in.strides(), r * n));
  });
}

WorkPtr ProcessGroupNCCL::reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  check_tensor("reduce_scatter", output);
  check_list("reduce_scatter", "inputs", inputs, output);
  check_reduce_op("reduce_scatter", op, output.dtype());
  const NcclType nt = nccl_type("reduce_scatter", output.dtype());
  const ncclRedOp_t red = nccl_op("reduce_scatter", op, output.dtype());
  const int64_t n = output.numel();
  if (n == 0) return std::make_shared<CompletedWork>();
  return impl_->run("reduce_scatter", [&] {
    const Tensor flat = empty({size() * n}, TensorOptions(output.dtype()).device(impl_->device));
    const Tensor out = contiguous_data(output);
    for (int r = 0; r < size(); ++r)
      copy_data(as_strided_data(flat, output.sizes(), out.strides(), r * n), inputs[static_cast<size_t>(r)]);
    EMBER_NCCL_CHECK(ncclReduceScatter(flat.data_ptr(), out.data_ptr(), count_of(out, nt), nt.type, red,
                                       impl_->comm->comm, impl_->stream), impl_->comm->comm);
    if (!out.is_same(output)) copy_data(output, out);
  });
}

WorkPtr ProcessGroupNCCL::barrier() {
  // NB: as PyTorch's NCCL barrier, an allreduce of one value; its Work waits for it on the host.
  return impl_->run("barrier", [&] {
    const Tensor one = zeros({1}, TensorOptions(kInt32).device(impl_->device));
    EMBER_NCCL_CHECK(ncclAllReduce(one.data_ptr(), one.data_ptr(), 1, ncclInt32, ncclSum, impl_->comm->comm,
                                   impl_->stream), impl_->comm->comm);
  });
}

WorkPtr ProcessGroupNCCL::send(const Tensor& tensor, int dst, int /*tag*/) {
  check_tensor("send", tensor);
  check_rank("send", "dst", dst);
  EMBER_CHECK_VALUE(dst != rank(), "send: a rank cannot send to itself");
  const NcclType nt = nccl_type("send", tensor.dtype());
  if (tensor.numel() == 0) return std::make_shared<CompletedWork>();
  return impl_->run("send", [&] {
    const Tensor buf = contiguous_data(tensor);
    EMBER_NCCL_CHECK(ncclSend(buf.data_ptr(), count_of(buf, nt), nt.type, dst, impl_->comm->comm, impl_->stream),
                     impl_->comm->comm);
  });
}

WorkPtr ProcessGroupNCCL::recv(const Tensor& tensor, int src, int /*tag*/) {
  check_tensor("recv", tensor);
  check_rank("recv", "src", src);
  EMBER_CHECK_VALUE(src != rank(), "recv: a rank cannot receive from itself");
  const NcclType nt = nccl_type("recv", tensor.dtype());
  if (tensor.numel() == 0) return std::make_shared<CompletedWork>();
  return impl_->run("recv", [&] {
    const Tensor buf = contiguous_data(tensor);
    EMBER_NCCL_CHECK(ncclRecv(buf.data_ptr(), count_of(buf, nt), nt.type, src, impl_->comm->comm, impl_->stream),
                     impl_->comm->comm);
    if (!buf.is_same(tensor)) copy_data(tensor, buf);
  });
}

namespace {

std::shared_ptr<ProcessGroup> make_nccl_group(std::shared_ptr<Store> store, int rank, int world_size,
                                              Milliseconds timeout) {
  // NB: this rank's GPU is cuda:LOCAL_RANK (ember-run and torchrun set it), else rank modulo the devices.
  const int local = env_config().local_rank, devices = std::max(cuda::device_count(), 1);
  return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, world_size,
                                            Device::cuda(static_cast<int16_t>(local >= 0 ? local : rank % devices)),
                                            timeout);
}

[[maybe_unused]] const bool registered = (register_process_group_backend("nccl", &make_nccl_group), true);

}  // namespace

}  // namespace ember::distributed
