#pragma once
// Index math of the elementwise kernels: N operands of one shape (inputs already broadcast, stride
// 0 where expanded), each with its own byte strides. The host coalesces the dims once (size-1 dims
// dropped, neighbours merged where every operand steps through them as one), so a contiguous
// tensor is a single dim; a thread turns its row-major linear index into one byte offset per
// operand. Plain C++ under EMBER_HOST_DEVICE: tests/cuda check it on the host against the
// tensors' own element addresses.
#include <cstdint>

#include "ember/core/host_device.h"

namespace ember::cuda {

/// Dims an elementwise kernel handles after coalescing (PyTorch's limit); a tensor keeps at most
/// this many dims that no neighbour merges with.
inline constexpr int kMaxDims = 25;

template <int N>
struct OffsetCalculator {
  int dims = 0;                       // after coalescing, innermost first; 0 for one element
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims][N] = {};  // bytes

  /// out[k] = the byte offset of element `linear` (row-major) in operand k.
  EMBER_HOST_DEVICE void offsets(int64_t linear, int64_t (&out)[N]) const {
EMBER_UNROLL
    for (int k = 0; k < N; ++k) out[k] = 0;
    if (dims == 1) {  // the common dense case: no division
EMBER_UNROLL
      for (int k = 0; k < N; ++k) out[k] = linear * strides[0][k];
      return;
    }
    for (int d = 0; d < dims; ++d) {
      const int64_t size = sizes[d];
      const int64_t next = linear / size;
      const int64_t i = linear - next * size;
      linear = next;
EMBER_UNROLL
      for (int k = 0; k < N; ++k) out[k] += i * strides[d][k];
    }
  }
};

/// The calculator of N operands of shape sizes[0, ndim) (outermost first); strides[k] are operand
/// k's strides in elements and itemsizes[k] its element size. Returns false (and leaves `calc`
/// unusable) when more than kMaxDims dims remain after coalescing.
template <int N>
bool make_offset_calculator(int ndim, const int64_t* sizes, const int64_t* const (&strides)[N],
                            const int64_t (&itemsizes)[N], OffsetCalculator<N>& calc) {
  calc = OffsetCalculator<N>();
  for (int d = ndim - 1; d >= 0; --d) {  // innermost first
    const int64_t size = sizes[d];
    if (size == 1) continue;
    if (calc.dims > 0) {
      bool merge = true;
      for (int k = 0; k < N && merge; ++k)
        merge = strides[k][d] * itemsizes[k] ==
                calc.strides[calc.dims - 1][k] * calc.sizes[calc.dims - 1];
      if (merge) {
        calc.sizes[calc.dims - 1] *= size;
        continue;
      }
    }
    if (calc.dims == kMaxDims) return false;
    calc.sizes[calc.dims] = size;
    for (int k = 0; k < N; ++k) calc.strides[calc.dims][k] = strides[k][d] * itemsizes[k];
    ++calc.dims;
  }
  if (calc.dims == 0) {  // one element (or a 0-d tensor): a single dim of size 1
    calc.dims = 1;
    calc.sizes[0] = 1;
  }
  return true;
}

}  // namespace ember::cuda
