#pragma once
// Internal to the CPU kernels: a matrix transposed into another in square tiles that stay in L1.
// Walked in the destination's order, a transposing copy reads a new cache line for every element;
// tile by tile each line is read once (copy_kernel.cpp's transposing copies, gemm.cpp's row-major
// copies of a transposed operand).
#include <algorithm>
#include <cstdint>

namespace ember::cpu {

inline constexpr int64_t kTransposeTile = 16;

/// dst[i * dst_ld + j] = src[j * src_ld + i] for i < rows, j < cols (strides in elements), over
/// the tiles of rows [row_begin, row_end) only, so callers can split the rows over threads.
template <typename T>
void transpose_rows(const T* src, int64_t src_ld, T* dst, int64_t dst_ld, int64_t row_begin, int64_t row_end,
                    int64_t cols) {
  for (int64_t i0 = row_begin; i0 < row_end; i0 += kTransposeTile) {
    const int64_t i1 = std::min(row_end, i0 + kTransposeTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTransposeTile) {
      const int64_t j1 = std::min(cols, j0 + kTransposeTile);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) dst[i * dst_ld + j] = src[j * src_ld + i];
    }
  }
}

}  // namespace ember::cpu
