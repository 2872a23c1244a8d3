#pragma once
// The one elementwise kernel (elementwise.cu): a grid-stride loop over the linear indices of N
// same-shaped operands, each turned into per-operand byte offsets by the OffsetCalculator, and a
// functor that reads and writes the elements there.
#include "ember/cuda/kernels/device_utils.cuh"

namespace ember::cuda {

template <int N, typename Op>
__global__ void __launch_bounds__(kThreads) elementwise_kernel(const ElementwiseArgs<N> args, const Op op) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < args.numel; i += step) {
    int64_t off[N];
    args.calc.offsets(i, off);
    char* p[N];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = args.data[k] + off[k];
    op(p);
  }
}

/// Queues the kernel with functor `op` over args (nothing for no elements).
template <int N, typename Op>
void run_elementwise(const ElementwiseArgs<N>& args, const Op& op, cudaStream_t stream, const char* name) {
  if (args.numel == 0) return;
  elementwise_kernel<N, Op><<<blocks_for(args.numel), kThreads, 0, stream>>>(args, op);
  check_launch(name);
}

/// sin, cos or tan of a floating dtype (elementwise_trig.cu).
void launch_trig(const ElementwiseArgs<2>& args, DType dtype, UnaryOp op, cudaStream_t stream);

/// A special function (is_special) of a floating dtype (elementwise_special.cu).
void launch_special(const ElementwiseArgs<2>& args, DType dtype, UnaryOp op, const UnaryArgs& a,
                    cudaStream_t stream);

/// A special function of two arguments (is_special(BinaryOp)) of a floating dtype
/// (elementwise_special.cu).
void launch_binary_special(const ElementwiseArgs<3>& args, DType dtype, BinaryOp op, cudaStream_t stream);

}  // namespace ember::cuda
