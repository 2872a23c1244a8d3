#pragma once
// From tensors to the launchers' arguments (cuda/kernels/launch.h), for the kernel registrations:
// the device a kernel runs on (made current, with its stream), the operands of an elementwise
// kernel, and scratch memory from the caching allocator.
#include <array>
#include <vector>

#include "ember/core/factory.h"
#include "ember/core/tensor.h"
#include "ember/cuda/kernels/launch.h"
#include "ember/cuda/runtime.h"

namespace ember::cuda {

/// Where a kernel runs: t's device, made current for the launcher's lifetime, and its stream.
struct On {
  explicit On(const Tensor& t) : index(t.device().index), guard(index), stream(cuda::stream(index)) {}
  int index;
  DeviceGuard guard;
  cudaStream_t stream;
};

/// The elementwise operands of same-shaped tensors (the first one's sizes; strides per tensor).
template <int N>
ElementwiseArgs<N> elementwise_args(const std::array<const Tensor*, N>& ts, const char* op) {
  ElementwiseArgs<N> args;
  const Tensor& first = *ts[0];
  args.numel = first.numel();
  const int64_t* strides[N];
  int64_t itemsizes[N];
  for (int k = 0; k < N; ++k) {
    args.data[k] = static_cast<char*>(ts[static_cast<size_t>(k)]->data_ptr());
    strides[k] = ts[static_cast<size_t>(k)]->strides().data();
    itemsizes[k] = static_cast<int64_t>(ts[static_cast<size_t>(k)]->itemsize());
  }
  const bool ok = make_offset_calculator<N>(static_cast<int>(first.dim()), first.sizes().data(), strides, itemsizes,
                                            args.calc);
  EMBER_CHECK_AS(NotImplementedError, ok, op, ": the CUDA kernels take at most ", kMaxDims,
                 " dims that cannot be merged; got a tensor of shape ", first.sizes());
  return args;
}

/// t as a view of `sizes` whose dim `dim` has stride 0 (the indexing kernels' "everything but
/// that dim"); the other strides are t's.
inline Tensor without_dim(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  DimVector strides = t.strides().vec();
  strides[static_cast<size_t>(dim)] = 0;
  return make_tensor(t.storage(), t.dtype(), sizes, strides, t.storage_offset());
}

/// Scratch memory as uint8 tensors on one device, kept until this object goes.
class TensorScratch final : public Scratch {
 public:
  explicit TensorScratch(Device device) : device_(device) {}
  void* get(size_t bytes) override {
    held_.push_back(empty({static_cast<int64_t>(bytes)}, TensorOptions(kUInt8).device(device_)));
    return held_.back().data_ptr();
  }

 private:
  Device device_;
  std::vector<Tensor> held_;
};

}  // namespace ember::cuda
