// The recurrent cells' fused steps: one thread per (batch row, hidden unit), each through the
// shared per-unit math (cuda/shared/rnn_cell_unit.h), which reads that unit's gates from every
// gate block and writes its state, workspace and gate gradients; the GEMMs stay outside.
#include "ember/cuda/kernels/device_utils.cuh"

namespace ember::cuda {
namespace {

// Unit u of row b, a thread each: x over the units, y over the rows (no 64-bit division, whose
// call would make the kernels spill).
#define EMBER_UNITS(b, u)                                                      \
  for (int64_t b = blockIdx.y; b < B; b += gridDim.y)                         \
    for (int64_t u = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; u < a.H; \
         u += static_cast<int64_t>(blockDim.x) * gridDim.x)

template <typename T>
__global__ void __launch_bounds__(kThreads) rnn_forward_kernel(RnnCell cell, const RnnForwardPtrs<T> a, int64_t B) {
  EMBER_UNITS(b, u) rnn_forward_unit(cell, a, b, u);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) rnn_backward_kernel(RnnCell cell, const RnnBackwardPtrs<T> a, int64_t B) {
  EMBER_UNITS(b, u) rnn_backward_unit(cell, a, b, u);
}

#undef EMBER_UNITS

dim3 unit_blocks(int64_t B, int64_t H) {
  const int64_t x = (H + kThreads - 1) / kThreads;
  return dim3(static_cast<unsigned int>(x < 65535 ? x : 65535), static_cast<unsigned int>(B < 65535 ? B : 65535));
}

template <typename T>
void forward(RnnCell cell, const RnnForwardPtrs<T>& a, int64_t B, cudaStream_t stream) {
  if (B * a.H == 0) return;
  rnn_forward_kernel<T><<<unit_blocks(B, a.H), kThreads, 0, stream>>>(cell, a, B);
  check_launch("rnn cell");
}

template <typename T>
void backward(RnnCell cell, const RnnBackwardPtrs<T>& a, int64_t B, cudaStream_t stream) {
  if (B * a.H == 0) return;
  rnn_backward_kernel<T><<<unit_blocks(B, a.H), kThreads, 0, stream>>>(cell, a, B);
  check_launch("rnn cell backward");
}

}  // namespace

void launch_rnn_cell_forward(RnnCell cell, const RnnForwardPtrs<float>& a, int64_t B, cudaStream_t stream) {
  forward(cell, a, B, stream);
}
void launch_rnn_cell_forward(RnnCell cell, const RnnForwardPtrs<double>& a, int64_t B, cudaStream_t stream) {
  forward(cell, a, B, stream);
}
void launch_rnn_cell_backward(RnnCell cell, const RnnBackwardPtrs<float>& a, int64_t B, cudaStream_t stream) {
  backward(cell, a, B, stream);
}
void launch_rnn_cell_backward(RnnCell cell, const RnnBackwardPtrs<double>& a, int64_t B, cudaStream_t stream) {
  backward(cell, a, B, stream);
}

}  // namespace ember::cuda
